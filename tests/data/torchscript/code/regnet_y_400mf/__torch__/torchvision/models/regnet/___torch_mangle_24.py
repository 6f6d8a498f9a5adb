class ResBottleneckBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  proj : __torch__.torchvision.ops.misc.___torch_mangle_13.Conv2dNormActivation
  f : __torch__.torchvision.models.regnet.___torch_mangle_23.BottleneckTransform
  activation : __torch__.torch.nn.modules.activation.ReLU
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_24.ResBottleneckBlock,
    x: Tensor) -> Tensor:
    proj = self.proj
    _0 = (proj).forward(x, )
    f = self.f
    x0 = torch.add(_0, (f).forward(x, ))
    activation = self.activation
    return (activation).forward(x0, )
