class ModuleList(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["0"] = __torch__.torchvision.ops.misc.___torch_mangle_120.Conv2dNormActivation
  __annotations__["1"] = __torch__.torchvision.ops.misc.___torch_mangle_120.Conv2dNormActivation
  def __len__(self: __torch__.torch.nn.modules.container.___torch_mangle_121.ModuleList) -> int:
    return 2
