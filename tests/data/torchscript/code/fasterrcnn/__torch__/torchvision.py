def _is_tracing() -> bool:
  return False
