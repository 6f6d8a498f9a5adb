def legacy_get_string(size_average: Optional[bool],
    reduce: Optional[bool],
    emit_warning: bool=True) -> str:
  warning = "size_average and reduce args will be deprecated, please use reduction=\'{}\' instead."
  if torch.__is__(size_average, None):
    size_average0 = True
  else:
    size_average0 = unchecked_cast(bool, size_average)
  if torch.__is__(reduce, None):
    reduce0 = True
  else:
    reduce0 = unchecked_cast(bool, reduce)
  if size_average0:
    _0 = reduce0
  else:
    _0 = False
  if _0:
    ret = "mean"
  else:
    if reduce0:
      ret0 = "sum"
    else:
      ret0 = "none"
    ret = ret0
  if emit_warning:
    torch.warn(torch.format(warning, ret))
  else:
    pass
  return ret
def get_enum(reduction: str) -> int:
  _1 = "reduction=\'elementwise_mean\' is deprecated. Please use reduction=\'mean\' instead."
  _2 = "{} is not a valid value for reduction"
  _3 = uninitialized(int)
  if torch.eq(reduction, "none"):
    ret = 0
  else:
    if torch.eq(reduction, "mean"):
      ret1 = 1
    else:
      _4 = torch.eq(reduction, "elementwise_mean")
      if _4:
        torch.warn(_1)
        ret2 = 1
      else:
        if torch.eq(reduction, "sum"):
          ret3 = 2
        else:
          ops.prim.RaiseException(torch.format(_2, reduction), "builtins.ValueError")
          ret3 = _3
        ret2 = ret3
      ret1 = ret2
    ret = ret1
  return ret
def legacy_get_enum(size_average: Optional[bool],
    reduce: Optional[bool],
    emit_warning: bool=True) -> int:
  _5 = __torch__.torch.nn._reduction.legacy_get_string
  _6 = __torch__.torch.nn._reduction.get_enum
  _7 = _5(size_average, reduce, emit_warning, )
  return _6(_7, )
