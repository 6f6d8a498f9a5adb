def _reverse_repeat_padding(padding: List[int]) -> List[int]:
  _reversed_padding_repeated_twice = annotate(List[int], [])
  N = torch.len(padding)
  for idx in range(N):
    for _0 in range(2):
      _1 = padding[torch.sub(torch.sub(N, idx), 1)]
      _2 = torch.append(_reversed_padding_repeated_twice, _1)
  return _reversed_padding_repeated_twice
