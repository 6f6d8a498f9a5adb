class Sequential(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["0"] = __torch__.torchvision.ops.misc.___torch_mangle_122.Conv2dNormActivation
  def forward(self: __torch__.torch.nn.modules.container.___torch_mangle_123.Sequential,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    return (_0).forward(input, )
  def __len__(self: __torch__.torch.nn.modules.container.___torch_mangle_123.Sequential) -> int:
    return 1
