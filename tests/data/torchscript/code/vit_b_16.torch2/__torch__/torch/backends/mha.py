def get_fastpath_enabled() -> bool:
  return True
