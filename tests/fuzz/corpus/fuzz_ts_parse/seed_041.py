def g():
  return -a ** b, a if b else c, x[1:-1:2, ..., None], {'a': 1}, [1, 2.5e-3, ]
