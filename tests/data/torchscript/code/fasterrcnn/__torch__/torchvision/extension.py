def _assert_has_ops() -> NoneType:
  _0 = __torch__.torchvision.extension._has_ops
  _1 = "Couldn\'t load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible, or if you had errors while compiling torchvision from source. For further information on the compatible versions, check https://github.com/pytorch/vision#installation for the compatibility matrix. Please check your PyTorch version with torch.__version__ and your torchvision version with torchvision.__version__ and verify if they are compatible, and if not please reinstall torchvision so that it matches your PyTorch install."
  if torch.__not__(_0()):
    ops.prim.RaiseException(_1, "builtins.RuntimeError")
  else:
    pass
  return None
def _has_ops() -> bool:
  return True
