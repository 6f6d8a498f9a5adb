op_version_set = 1
import torch
class A(Module):
  __parameters__ = ["w", ]
  __annotations__["0"] = __torch__.B
  k : Final[int] = 3
  def f(self): return 1; pass
