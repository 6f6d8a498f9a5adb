class Conv2dNormActivation(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  out_channels : int
  __annotations__["0"] = __torch__.torch.nn.modules.conv.___torch_mangle_115.Conv2d
  def forward(self: __torch__.torchvision.ops.misc.___torch_mangle_116.Conv2dNormActivation,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    return (_0).forward(input, )
  def __len__(self: __torch__.torchvision.ops.misc.___torch_mangle_116.Conv2dNormActivation) -> int:
    return 1
