class InceptionAux(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torchvision.models.googlenet.___torch_mangle_110.BasicConv2d
  fc1 : __torch__.torch.nn.modules.linear.Linear
  fc2 : __torch__.torch.nn.modules.linear.___torch_mangle_140.Linear
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  def forward(self: __torch__.torchvision.models.googlenet.___torch_mangle_141.InceptionAux,
    x: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.adaptive_avg_pool2d
    x0 = _0(x, [4, 4], )
    conv = self.conv
    x1 = (conv).forward(x0, )
    x2 = torch.flatten(x1, 1)
    fc1 = self.fc1
    x3 = __torch__.torch.nn.functional.relu((fc1).forward(x2, ), True, )
    dropout = self.dropout
    x4 = (dropout).forward(x3, )
    fc2 = self.fc2
    return (fc2).forward(x4, )
