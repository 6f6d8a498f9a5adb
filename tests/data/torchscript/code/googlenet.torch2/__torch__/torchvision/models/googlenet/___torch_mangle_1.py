class BasicConv2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.BatchNorm2d
  def forward(self: __torch__.torchvision.models.googlenet.___torch_mangle_1.BasicConv2d,
    x: Tensor) -> Tensor:
    conv = self.conv
    x0 = (conv).forward(x, )
    bn = self.bn
    x1 = (bn).forward(x0, )
    _0 = __torch__.torch.nn.functional.relu(x1, True, )
    return _0
