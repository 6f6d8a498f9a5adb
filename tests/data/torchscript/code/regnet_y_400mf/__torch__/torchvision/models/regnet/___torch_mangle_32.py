class ResBottleneckBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  proj : NoneType
  f : __torch__.torchvision.models.regnet.___torch_mangle_31.BottleneckTransform
  activation : __torch__.torch.nn.modules.activation.ReLU
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_32.ResBottleneckBlock,
    x: Tensor) -> Tensor:
    f = self.f
    x0 = torch.add(x, (f).forward(x, ))
    activation = self.activation
    return (activation).forward(x0, )
