class _DenseLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  norm1 : __torch__.torch.nn.modules.batchnorm.___torch_mangle_183.BatchNorm2d
  relu1 : __torch__.torch.nn.modules.activation.___torch_mangle_184.ReLU
  conv1 : __torch__.torch.nn.modules.conv.___torch_mangle_185.Conv2d
  norm2 : __torch__.torch.nn.modules.batchnorm.___torch_mangle_186.BatchNorm2d
  relu2 : __torch__.torch.nn.modules.activation.___torch_mangle_187.ReLU
  conv2 : __torch__.torch.nn.modules.conv.___torch_mangle_188.Conv2d
  def forward(self: __torch__.torchvision.models.densenet.___torch_mangle_189._DenseLayer,
    argument_1: Tensor,
    argument_2: Tensor,
    argument_3: Tensor,
    argument_4: Tensor,
    argument_5: Tensor,
    argument_6: Tensor,
    argument_7: Tensor,
    argument_8: Tensor) -> Tensor:
    conv2 = self.conv2
    relu2 = self.relu2
    norm2 = self.norm2
    conv1 = self.conv1
    relu1 = self.relu1
    norm1 = self.norm1
    _0 = [argument_1, argument_2, argument_3, argument_4, argument_5, argument_6, argument_7, argument_8]
    input = torch.cat(_0, 1)
    _1 = (relu1).forward((norm1).forward(input, ), )
    _2 = (norm2).forward((conv1).forward(_1, ), )
    _3 = (conv2).forward((relu2).forward(_2, ), )
    return _3
