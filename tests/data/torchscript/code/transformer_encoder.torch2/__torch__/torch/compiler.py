def is_compiling() -> bool:
  return False
