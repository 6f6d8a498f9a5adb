class ControlFlow(Module):
  __parameters__ = []
  __buffers__ = ["running", ]
  running : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  tag : str
  maybe : NoneType
  lin : __torch__.torch.nn.modules.linear.Linear
  seq : __torch__.torch.nn.modules.container.Sequential
  mods : __torch__.torch.nn.modules.container.ModuleList
  table : __torch__.torch.nn.modules.container.ModuleDict
  scaler : __torch__.Scaler
  eps : Final[float] = 1.0000000000000001e-05
  sizes : Final[Tuple[int, int, int]] = (1, 2, 3)
  def forward(self: __torch__.ControlFlow,
    x: Tensor,
    n: int=2) -> Tensor:
    lin = self.lin
    x0 = (lin).forward(x, )
    seq = self.seq
    x1 = (seq).forward(x0, )
    mods = self.mods
    _0 = getattr(mods, "0")
    _1 = getattr(mods, "1")
    x2 = (_0).forward(x1, )
    x3 = (_1).forward(x2, )
    table = self.table
    a = table.a
    _2 = (a).forward(x3, )
    scaler = self.scaler
    x4 = torch.add(_2, (scaler).forward(x3, ))
    y, k, = (self).loops(x4, n, )
    _3 = __torch__.helper(y, k, 0.5, "x", True, (1, 2), None, )
    _4 = __torch__.pick(__torch__.Color.RED, [k, n], )
    x5 = torch.add(torch.add(_3, _4), __torch__.forked(x4, ))
    x6 = (self).refine(x5, None, )
    x7 = torch.slice(torch.cat([x6, x6], -1), -1, None, 4)
    _5 = __torch__.torch.nn.functional.relu(x7, False, )
    running = self.running
    x8 = torch.add(_5, running)
    _6 = torch.permute(torch.view(x8, [-1, 2, 2]), [0, 2, 1])
    out = torch.contiguous(_6)
    out0 = torch.reshape(out, [(torch.size(out))[0], -1])
    a0, b, = torch.chunk(out0, 2, 1)
    if torch.__not__(bool(torch.any(a0))):
      _7 = True
    else:
      _7 = bool(torch.all(torch.eq(b, 0)))
    if _7:
      out2 = torch.clamp(out0, -1.0000000000000001e-05, 1.0000000000000001e-05)
      out1 = out2
    else:
      out1 = out0
    _8 = torch.add(out1, 0.5)
    if torch.gt(n, 1):
      _9 = 1
    else:
      _9 = 0
    _10 = torch.add(torch.add(_8, _9), ((self).structs(x8, ))[0])
    return _10
  def loops(self: __torch__.ControlFlow,
    x: Tensor,
    n: int) -> Tuple[Tensor, int]:
    if torch.lt(0, n):
      _9 = True
    else:
      _9 = False
    acc = 0
    i = 0
    _10 = _9
    while _10:
      _11 = torch.floordiv(int(torch.pow(i, 2)), 3)
      acc0 = torch.add(acc, torch.remainder(_11, 7))
      i0 = torch.add(i, 1)
      if torch.gt(acc0, 50):
        _12 = False
      else:
        if torch.lt(i0, n):
          _13 = torch.lt(acc0, 100)
        else:
          _13 = False
        _12 = _13
      _10, acc, i = _12, acc0, i0
    x9 = x
    _14 = 0
    _15 = torch.gt(n, 0)
    while _15:
      _16 = torch.eq(torch.remainder(_14, 2), 0)
      if _16:
        _17 = x9
      else:
        _17 = torch.add(x9, _14)
      _18 = torch.add(_14, 1)
      _19 = torch.__and__(torch.lt(_18, n), True)
      _15, x9, _14 = _19, _17, _18
    _20 = torch.__lshift__(torch.sub(acc, 1), 1)
    acc1 = torch.__or__(_20, 1)
    _21 = torch.__lshift__(torch.sub(acc1, 2), 1)
    acc2 = torch.__or__(_21, 1)
    _22 = torch.__lshift__(torch.sub(acc2, 3), 1)
    acc3 = torch.__or__(_22, 1)
    _23 = [1, 2]
    _24 = [3, 4]
    _25 = ops.prim.min([torch.len(_23), torch.len(_24)])
    acc4 = acc3
    for _26 in range(_25):
      a = _23[_26]
      b = _24[_26]
      acc4 = torch.add(acc4, torch.mul(a, b))
    _27 = torch.items({"p": 1, "q": 2})
    acc5 = acc4
    for _28 in range(torch.len(_27)):
      k, v, = _27[_28]
      acc6 = torch.add(acc5, torch.add(v, torch.len(k)))
      acc5 = acc6
    return (x9, acc5)
  def refine(self: __torch__.ControlFlow,
    x: Tensor,
    y: Optional[Tensor]=None) -> Tensor:
    if torch.__is__(y, None):
      y0 = torch.ones_like(x)
    else:
      y1 = unchecked_cast(Tensor, y)
      y0 = torch.mul(y1, 2)
    if torch.gt(torch.dim(x), 0):
      pass
    else:
      ops.prim.RaiseException("AssertionError: need a non-scalar")
    if torch.eq(torch.numel(x), 0):
      ops.prim.RaiseException("empty input", "builtins.RuntimeError")
    else:
      pass
    if bool(torch.gt(torch.sum(x), 0)):
      z = x
    else:
      z = torch.neg(x)
    if torch.gt(torch.dim(z), 1):
      _29 = torch.unsqueeze(torch.slice(z, 0, 1, 3), -1)
      w = _29
    else:
      if torch.eq(torch.dim(z), 2):
        _31 = torch.slice(torch.slice(z), 1, 0, -1, 2)
        _30 = _31
      else:
        _30 = torch.select(z, 0, 0)
      w = _30
    d = annotate(Dict[str, Tensor], {})
    torch._set_item(d, "w", w)
    y2 = torch.add(y0, 1)
    _32 = torch.add(torch.add(y2, torch.sum(d["w"])), inf)
    _33 = torch.add(torch.sub(_32, -nan), 1.4999999999999999e-07)
    return torch.add(_33, 20000000000)
  def strings(self: __torch__.ControlFlow,
    x: Tensor) -> str:
    u = "single \'quoted\' \t tab \\ back \"dq\""
    _34 = torch.size(x, 0)
    tag = self.tag
    s = torch.format("value {} and {}", _34, tag)
    t = torch.format("shape={} eps={}", torch.size(x), 1.0000000000000001e-05)
    if torch.startswith(s, "v"):
      _36 = torch.__not__(torch.endswith(t, "x"))
      _35 = _36
    else:
      _35 = False
    if _35:
      _37 = True
    else:
      _38 = torch.ne(torch.find(s, u, 0, torch.len(s)), -1)
      _37 = _38
    if _37:
      s1 = torch.add(torch.add(s, "in"), torch.slice(t, None, None, 2))
      s0 = s1
    else:
      s0 = s
    _39 = torch.add(torch.add(s0, str(torch.len(t))), CONSTANTS.c0)
    return _39
  def structs(self: __torch__.ControlFlow,
    x: Tensor) -> __torch__.Point:
    c = __torch__.Counter.__new__(__torch__.Counter)
    _40 = (c).__init__(3, )
    _41 = (c).bump(1, )
    _42 = (c).bump(2, )
    _43 = __torch__.torch.autograd.grad_mode.no_grad.__new__(__torch__.torch.autograd.grad_mode.no_grad)
    _44 = (_43).__init__()
    with _43:
      x10 = torch.add(x, 1)
    _45 = torch.matmul(x10, torch.t(x10))
    _46 = torch.masked_fill(x10, torch.gt(x10, 0.5), -1000000000.)
    return __torch__.Point(_45, _46)
class Double(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.Double,
    x: Tensor) -> Tensor:
    return torch.mul(x, 2.)
class Scaler(ModuleInterface):
  def forward(self, x: Tensor) -> Tensor:
    pass
def helper(x: Tensor,
    k: int=3,
    scale: float=0.5,
    name: str="a\'b\"c\n",
    flag: bool=True,
    dims: Tuple[int, int]=(1, 2),
    opt: Optional[int]=None) -> Tensor:
  if torch.__isnot__(opt, None):
    opt0 = unchecked_cast(int, opt)
    k0 = torch.add(k, opt0)
  else:
    k0 = k
  return torch.add(torch.mul(x, scale), k0)
def pick(c: __torch__.Color,
    xs: List[int]) -> int:
  ys = annotate(List[int], [])
  for _47 in range(torch.len(xs)):
    x = xs[_47]
    _48 = torch.append(ys, torch.mul(x, 2))
  dd = annotate(Dict[str, int], {})
  for _49 in range(torch.len(ys)):
    i = ys[_49]
    torch._set_item(dd, str(i), i)
  if torch.eq(c, __torch__.Color.GREEN):
    _50 = torch.add((c).value, torch.len(dd))
  else:
    _51 = torch.add(torch.len((c).name), ys[-1])
    _50 = _51
  return _50
class Color(Enum):
  RED = 1
  GREEN = 2
def forked(x: Tensor) -> Tensor:
  def __forked_function():
    return torch.neg(x)
  fut = fork(__forked_function)
  y = torch.wait(fut)
  torch.warn("scripting")
  return torch.add(y, 3)
class Point(NamedTuple):
  x : Tensor
  y : Optional[Tensor]
class Counter:
  count : int
  names : List[str]
  def __init__(self: __torch__.Counter,
    start: int) -> NoneType:
    self.count = start
    self.names = annotate(List[str], [])
    return None
  def bump(self: __torch__.Counter,
    by: int=1) -> int:
    count = self.count
    self.count = torch.add(count, by)
    return self.count
