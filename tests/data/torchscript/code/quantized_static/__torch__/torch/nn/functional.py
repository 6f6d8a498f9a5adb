def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _0 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _0:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _1 = torch.adaptive_avg_pool2d(input, output_size)
  return _1
