def _reverse_repeat_padding(padding: List[int]) -> List[int]:
  _reversed_padding_repeated_twice = annotate(List[int], [])
  N = torch.len(padding)
  for idx in range(N):
    _0 = annotate(List[int], [])
    for _1 in range(2):
      _2 = padding[torch.sub(torch.sub(N, idx), 1)]
      _3 = torch.append(_0, _2)
    torch.extend(_reversed_padding_repeated_twice, _0)
  return _reversed_padding_repeated_twice
