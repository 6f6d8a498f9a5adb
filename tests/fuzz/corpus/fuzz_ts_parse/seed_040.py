def f(x: Tensor, n: int=-2) -> Tuple[Tensor, int]:
  a = b = x
  c: int = 3
  self.w, t[0], = x, y
  x //= 2
  if a:
    pass
  elif b:
    break
  else:
    return
  for i, (j, k) in enumerate(z):
    del x[0], y
  while not done:
    raise ValueError("x")
  with a as b, c:
    assert x, "msg"
  def inner(y, z=None):
    return y
  return x, n
