def _return_output(input: Tensor,
    sorted: bool=True,
    return_inverse: bool=False,
    return_counts: bool=False,
    dim: Optional[int]=None) -> Tensor:
  _0 = __torch__.torch.functional._unique_impl
  _1 = _0(input, sorted, return_inverse, return_counts, dim, )
  output, _2, _3, = _1
  return output
def _unique_impl(input: Tensor,
    sorted: bool=True,
    return_inverse: bool=False,
    return_counts: bool=False,
    dim: Optional[int]=None) -> Tuple[Tensor, Tensor, Tensor]:
  if torch.__isnot__(dim, None):
    dim0 = unchecked_cast(int, dim)
    output0, inverse_indices0, counts0 = torch.unique_dim(input, dim0, sorted, return_inverse, return_counts)
    output, inverse_indices, counts = output0, inverse_indices0, counts0
  else:
    output1, inverse_indices1, counts1 = torch._unique2(input, sorted, return_inverse, return_counts)
    output, inverse_indices, counts = output1, inverse_indices1, counts1
  return (output, inverse_indices, counts)
