def batch_norm(input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    training: bool=False,
    momentum: float=0.10000000000000001,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _0 = __torch__.torch.nn.functional._verify_batch_size
  if training:
    _1 = _0(torch.size(input), )
  else:
    pass
  _2 = torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)
  return _2
def hardswish(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _3 = torch.hardswish_(input)
  else:
    _3 = torch.hardswish(input)
  return _3
def relu(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    result = torch.relu_(input)
  else:
    result = torch.relu(input)
  return result
def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _4 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _4:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _5 = torch.adaptive_avg_pool2d(input, output_size)
  return _5
def hardsigmoid(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _6 = torch.hardsigmoid_(input)
  else:
    _6 = torch.hardsigmoid(input)
  return _6
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
  _7 = torch.max_pool2d(input, kernel_size, stride0, padding, dilation, ceil_mode)
  return _7
def smooth_l1_loss(input: Tensor,
    target: Tensor,
    size_average: Optional[bool]=None,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    beta: float=1.) -> Tensor:
  _8 = "Using a target size ({}) that is different to the input size ({}). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."
  _9 = __torch__.torch.nn._reduction.legacy_get_string
  _10 = __torch__.torch.nn._reduction.get_enum
  _11 = torch.eq(torch.size(target), torch.size(input))
  if torch.__not__(_11):
    _12 = torch.format(_8, torch.size(target), torch.size(input))
    torch.warn(_12)
  else:
    pass
  if torch.__isnot__(size_average, None):
    _13, size_average0 = True, unchecked_cast(bool, size_average)
  else:
    _13, size_average0 = torch.__isnot__(reduce, None), size_average
  if _13:
    reduction0 = _9(size_average0, reduce, True, )
  else:
    reduction0 = reduction
  _14 = torch.broadcast_tensors([input, target])
  expanded_input, expanded_target, = _14
  _15 = torch.smooth_l1_loss(expanded_input, expanded_target, _10(reduction0, ), beta)
  return _15
def binary_cross_entropy_with_logits(input: Tensor,
    target: Tensor,
    weight: Optional[Tensor]=None,
    size_average: Optional[bool]=None,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    pos_weight: Optional[Tensor]=None) -> Tensor:
  _16 = __torch__.torch.nn._reduction.legacy_get_enum
  _17 = __torch__.torch.nn._reduction.get_enum
  _18 = "Target size ({}) must be the same as input size ({})"
  if torch.__isnot__(size_average, None):
    _19, size_average1 = True, unchecked_cast(bool, size_average)
  else:
    _19, size_average1 = torch.__isnot__(reduce, None), size_average
  if _19:
    reduction_enum = _16(size_average1, reduce, True, )
  else:
    reduction_enum = _17(reduction, )
  _20 = torch.eq(torch.size(target), torch.size(input))
  if torch.__not__(_20):
    _21 = torch.format(_18, torch.size(target), torch.size(input))
    ops.prim.RaiseException(_21, "builtins.ValueError")
  else:
    pass
  _22 = torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)
  return _22
def softmax(input: Tensor,
    dim: Optional[int]=None,
    _stacklevel: int=3,
    dtype: Optional[int]=None) -> Tensor:
  _23 = __torch__.torch.nn.functional._get_softmax_dim
  if torch.__is__(dim, None):
    dim1 = _23("softmax", torch.dim(input), _stacklevel, )
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
  _24 = "Expected more than 1 value per channel when training, got input size {}"
  size_prods = size[0]
  size_prods0 = size_prods
  for i in range(torch.sub(torch.len(size), 2)):
    size_prods1 = torch.mul(size_prods0, size[torch.add(i, 2)])
    size_prods0 = size_prods1
  if torch.eq(size_prods0, 1):
    ops.prim.RaiseException(torch.format(_24, size), "builtins.ValueError")
  else:
    pass
  return None
def adaptive_avg_pool3d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _25 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _25:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _26 = torch.adaptive_avg_pool3d(input, output_size)
  return _26
def cross_entropy(input: Tensor,
    target: Tensor,
    weight: Optional[Tensor]=None,
    size_average: Optional[bool]=None,
    ignore_index: int=-100,
    reduce: Optional[bool]=None,
    reduction: str="mean",
    label_smoothing: float=0.) -> Tensor:
  _27 = __torch__.torch.nn._reduction.legacy_get_string
  _28 = __torch__.torch.nn._reduction.get_enum
  if torch.__isnot__(size_average, None):
    _29, size_average2 = True, unchecked_cast(bool, size_average)
  else:
    _29, size_average2 = torch.__isnot__(reduce, None), size_average
  if _29:
    reduction1 = _27(size_average2, reduce, True, )
  else:
    reduction1 = reduction
  _30 = torch.cross_entropy_loss(input, target, weight, _28(reduction1, ), ignore_index, label_smoothing)
  return _30
def _get_softmax_dim(name: str,
    ndim: int,
    stacklevel: int) -> int:
  _31 = "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
  torch.warn(torch.format(_31, name), stacklevel)
  if torch.eq(ndim, 0):
    _32 = True
  else:
    _32 = torch.eq(ndim, 1)
  if _32:
    _33 = True
  else:
    _33 = torch.eq(ndim, 3)
  if _33:
    ret = 0
  else:
    ret = 1
  return ret
