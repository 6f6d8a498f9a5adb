class DenseNet(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  features : __torch__.torch.nn.modules.container.Sequential
  classifier : __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.torchvision.models.densenet.DenseNet,
    x: Tensor) -> Tensor:
    classifier = self.classifier
    features = self.features
    input = torch.relu_((features).forward(x, ))
    out = torch.adaptive_avg_pool2d(input, [1, 1])
    input0 = torch.flatten(out, 1)
    return (classifier).forward(input0, )
class _DenseBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  denselayer1 : __torch__.torchvision.models.densenet._DenseLayer
  denselayer2 : __torch__.torchvision.models.densenet.___torch_mangle_12._DenseLayer
  denselayer3 : __torch__.torchvision.models.densenet.___torch_mangle_19._DenseLayer
  denselayer4 : __torch__.torchvision.models.densenet.___torch_mangle_26._DenseLayer
  denselayer5 : __torch__.torchvision.models.densenet.___torch_mangle_33._DenseLayer
  denselayer6 : __torch__.torchvision.models.densenet.___torch_mangle_40._DenseLayer
  def forward(self: __torch__.torchvision.models.densenet._DenseBlock,
    argument_1: Tensor) -> Tensor:
    denselayer6 = self.denselayer6
    denselayer5 = self.denselayer5
    denselayer4 = self.denselayer4
    denselayer3 = self.denselayer3
    denselayer2 = self.denselayer2
    denselayer1 = self.denselayer1
    _0 = (denselayer1).forward(argument_1, )
    _1 = (denselayer2).forward(argument_1, _0, )
    _2 = (denselayer3).forward(argument_1, _0, _1, )
    _3 = (denselayer4).forward(argument_1, _0, _1, _2, )
    _4 = (denselayer5).forward(argument_1, _0, _1, _2, _3, )
    _5 = (denselayer6).forward(argument_1, _0, _1, _2, _3, _4, )
    _6 = [argument_1, _0, _1, _2, _3, _4, _5]
    return torch.cat(_6, 1)
class _DenseLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  norm1 : __torch__.torch.nn.modules.batchnorm.___torch_mangle_0.BatchNorm2d
  relu1 : __torch__.torch.nn.modules.activation.___torch_mangle_1.ReLU
  conv1 : __torch__.torch.nn.modules.conv.___torch_mangle_2.Conv2d
  norm2 : __torch__.torch.nn.modules.batchnorm.___torch_mangle_3.BatchNorm2d
  relu2 : __torch__.torch.nn.modules.activation.___torch_mangle_4.ReLU
  conv2 : __torch__.torch.nn.modules.conv.___torch_mangle_5.Conv2d
  def forward(self: __torch__.torchvision.models.densenet._DenseLayer,
    argument_1: Tensor) -> Tensor:
    conv2 = self.conv2
    relu2 = self.relu2
    norm2 = self.norm2
    conv1 = self.conv1
    relu1 = self.relu1
    norm1 = self.norm1
    input = torch.cat([argument_1], 1)
    _7 = (relu1).forward((norm1).forward(input, ), )
    _8 = (norm2).forward((conv1).forward(_7, ), )
    _9 = (conv2).forward((relu2).forward(_8, ), )
    return _9
class _Transition(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  norm : __torch__.torch.nn.modules.batchnorm.___torch_mangle_41.BatchNorm2d
  relu : __torch__.torch.nn.modules.activation.___torch_mangle_42.ReLU
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_43.Conv2d
  pool : __torch__.torch.nn.modules.pooling.AvgPool2d
  def forward(self: __torch__.torchvision.models.densenet._Transition,
    argument_1: Tensor) -> Tensor:
    pool = self.pool
    conv = self.conv
    relu = self.relu
    norm = self.norm
    _10 = (relu).forward((norm).forward(argument_1, ), )
    _11 = (pool).forward((conv).forward(_10, ), )
    return _11
