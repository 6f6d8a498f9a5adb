def batch_norm(input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    training: bool=False,
    momentum: float=0.10000000000000001,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _0 = __torch__.torch.nn.functional._verify_batch_size
  _1 = "batch_norm eps must be positive during training, but got {}"
  _2 = "batch_norm eps must be non-negative, but got {}"
  if training:
    _3 = _0(torch.size(input), )
  else:
    pass
  if training:
    _4 = torch.le(eps, 0.)
  else:
    _4 = False
  if _4:
    ops.prim.RaiseException(torch.format(_1, eps), "builtins.ValueError")
  else:
    if torch.lt(eps, 0.):
      ops.prim.RaiseException(torch.format(_2, eps), "builtins.ValueError")
    else:
      pass
  _5 = torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)
  return _5
def hardswish(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _6 = torch.hardswish_(input)
  else:
    _6 = torch.hardswish(input)
  return _6
def relu(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    result = torch.relu_(input)
  else:
    result = torch.relu(input)
  return result
def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _7 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _7:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _8 = torch.adaptive_avg_pool2d(input, output_size)
  return _8
def hardsigmoid(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _9 = torch.hardsigmoid_(input)
  else:
    _9 = torch.hardsigmoid(input)
  return _9
def _max_pool2d(input: Tensor,
    kernel_size: List[int],
    stride: Optional[List[int]]=None,
    padding: List[int]=[0, 0],
    dilation: List[int]=[1, 1],
    ceil_mode: bool=False,
    return_indices: bool=False) -> Tensor:
  if torch.__is__(stride, None):
    stride0 = annotate(List[int], [])
  else:
    stride0 = unchecked_cast(List[int], stride)
  _10 = torch.max_pool2d(input, kernel_size, stride0, padding, dilation, ceil_mode)
  return _10
def smooth_l1_loss(input: Tensor,
    target: Tensor,
    size_average: Optional[bool]=None,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    beta: float=1.) -> Tensor:
  _11 = "Using a target size ({}) that is different to the input size ({}). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."
  _12 = __torch__.torch.nn._reduction.legacy_get_string
  _13 = __torch__.torch.nn._reduction.get_enum
  _14 = torch.ne(torch.size(target), torch.size(input))
  if _14:
    _15 = torch.format(_11, torch.size(target), torch.size(input))
    torch.warn(_15)
  else:
    pass
  if torch.__isnot__(size_average, None):
    _16, size_average0 = True, unchecked_cast(bool, size_average)
  else:
    _16, size_average0 = torch.__isnot__(reduce, None), size_average
  if _16:
    reduction0 = _12(size_average0, reduce, True, )
  else:
    reduction0 = reduction
  _17 = torch.broadcast_tensors([input, target])
  expanded_input, expanded_target, = _17
  if torch.eq(beta, 0.):
    _19 = torch.l1_loss(expanded_input, expanded_target, _13(reduction0, ))
    _18 = _19
  else:
    _20 = torch.smooth_l1_loss(expanded_input, expanded_target, _13(reduction0, ), beta)
    _18 = _20
  return _18
def binary_cross_entropy_with_logits(input: Tensor,
    target: Tensor,
    weight: Optional[Tensor]=None,
    size_average: Optional[bool]=None,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    pos_weight: Optional[Tensor]=None) -> Tensor:
  _21 = __torch__.torch.nn._reduction.legacy_get_enum
  _22 = __torch__.torch.nn._reduction.get_enum
  _23 = "Target size ({}) must be the same as input size ({})"
  if torch.__isnot__(size_average, None):
    _24, size_average1 = True, unchecked_cast(bool, size_average)
  else:
    _24, size_average1 = torch.__isnot__(reduce, None), size_average
  if _24:
    reduction_enum = _21(size_average1, reduce, True, )
  else:
    reduction_enum = _22(reduction, )
  _25 = torch.eq(torch.size(target), torch.size(input))
  if torch.__not__(_25):
    _26 = torch.format(_23, torch.size(target), torch.size(input))
    ops.prim.RaiseException(_26, "builtins.ValueError")
  else:
    pass
  _27 = torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)
  return _27
def softmax(input: Tensor,
    dim: Optional[int]=None,
    _stacklevel: int=3,
    dtype: Optional[int]=None) -> Tensor:
  _28 = __torch__.torch.nn.functional._get_softmax_dim
  if torch.__is__(dim, None):
    dim1 = _28("softmax", torch.dim(input), _stacklevel, )
    dim0 = dim1
  else:
    dim0 = unchecked_cast(int, dim)
  if torch.__is__(dtype, None):
    ret = torch.softmax(input, dim0)
  else:
    dtype0 = unchecked_cast(int, dtype)
    ret = torch.softmax(input, dim0, dtype0)
  return ret
def _verify_batch_size(size: List[int]) -> NoneType:
  _29 = "Expected more than 1 value per channel when training, got input size {}"
  size_prods = size[0]
  size_prods0 = size_prods
  for i in range(torch.sub(torch.len(size), 2)):
    size_prods1 = torch.mul(size_prods0, size[torch.add(i, 2)])
    size_prods0 = size_prods1
  if torch.eq(size_prods0, 1):
    ops.prim.RaiseException(torch.format(_29, size), "builtins.ValueError")
  else:
    pass
  return None
def adaptive_avg_pool3d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _30 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _30:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _31 = torch.adaptive_avg_pool3d(input, output_size)
  return _31
def cross_entropy(input: Tensor,
    target: Tensor,
    weight: Optional[Tensor]=None,
    size_average: Optional[bool]=None,
    ignore_index: int=-100,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    label_smoothing: float=0.) -> Tensor:
  _32 = __torch__.torch.nn._reduction.legacy_get_string
  _33 = __torch__.torch.nn._reduction.get_enum
  if torch.__isnot__(size_average, None):
    _34, size_average2 = True, unchecked_cast(bool, size_average)
  else:
    _34, size_average2 = torch.__isnot__(reduce, None), size_average
  if _34:
    reduction1 = _32(size_average2, reduce, True, )
  else:
    reduction1 = reduction
  _35 = torch.cross_entropy_loss(input, target, weight, _33(reduction1, ), ignore_index, label_smoothing)
  return _35
def _get_softmax_dim(name: str,
    ndim: int,
    stacklevel: int) -> int:
  _36 = "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
  torch.warn(torch.format(_36, name), stacklevel)
  if torch.eq(ndim, 0):
    _37 = True
  else:
    _37 = torch.eq(ndim, 1)
  if _37:
    _38 = True
  else:
    _38 = torch.eq(ndim, 3)
  if _38:
    ret = 0
  else:
    ret = 1
  return ret
def pad(input: Tensor,
    pad: List[int],
    mode: str="constant",
    value: Optional[float]=None) -> Tensor:
  return torch.pad(input, pad, mode, value)
