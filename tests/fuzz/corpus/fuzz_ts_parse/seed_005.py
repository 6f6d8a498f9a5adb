def layer_norm(input: Tensor,
    normalized_shape: List[int],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _0 = torch.layer_norm(input, normalized_shape, weight, bias, eps)
  return _0
def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _1 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _1:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _2 = torch.adaptive_avg_pool2d(input, output_size)
  return _2
