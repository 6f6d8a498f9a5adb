class GoogLeNet(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv1 : __torch__.torchvision.models.googlenet.BasicConv2d
  maxpool1 : __torch__.torch.nn.modules.pooling.MaxPool2d
  conv2 : __torch__.torchvision.models.googlenet.___torch_mangle_1.BasicConv2d
  conv3 : __torch__.torchvision.models.googlenet.___torch_mangle_4.BasicConv2d
  maxpool2 : __torch__.torch.nn.modules.pooling.MaxPool2d
  inception3a : __torch__.torchvision.models.googlenet.Inception
  inception3b : __torch__.torchvision.models.googlenet.___torch_mangle_37.Inception
  maxpool3 : __torch__.torch.nn.modules.pooling.MaxPool2d
  inception4a : __torch__.torchvision.models.googlenet.___torch_mangle_55.Inception
  inception4b : __torch__.torchvision.models.googlenet.___torch_mangle_75.Inception
  inception4c : __torch__.torchvision.models.googlenet.___torch_mangle_82.Inception
  inception4d : __torch__.torchvision.models.googlenet.___torch_mangle_95.Inception
  inception4e : __torch__.torchvision.models.googlenet.___torch_mangle_112.Inception
  maxpool4 : __torch__.torch.nn.modules.pooling.___torch_mangle_113.MaxPool2d
  inception5a : __torch__.torchvision.models.googlenet.___torch_mangle_125.Inception
  inception5b : __torch__.torchvision.models.googlenet.___torch_mangle_139.Inception
  aux1 : __torch__.torchvision.models.googlenet.InceptionAux
  aux2 : __torch__.torchvision.models.googlenet.___torch_mangle_141.InceptionAux
  avgpool : __torch__.torch.nn.modules.pooling.AdaptiveAvgPool2d
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_142.Dropout
  fc : __torch__.torch.nn.modules.linear.___torch_mangle_140.Linear
  aux_logits : Final[bool] = True
  transform_input : Final[bool] = False
  def forward(self: __torch__.torchvision.models.googlenet.GoogLeNet,
    x: Tensor) -> __torch__.torchvision.models.googlenet.GoogLeNetOutputs:
    _0 = "Scripted GoogleNet always returns GoogleNetOutputs Tuple"
    x0 = (self)._transform_input(x, )
    x1, aux1, aux2, = (self)._forward(x0, )
    training = self.training
    if training:
      aux_defined = True
    else:
      aux_defined = False
    if torch.__not__(aux_defined):
      torch.warn(_0)
    else:
      pass
    _1 = __torch__.torchvision.models.googlenet.GoogLeNetOutputs(x1, aux2, aux1)
    return _1
  def _transform_input(self: __torch__.torchvision.models.googlenet.GoogLeNet,
    x: Tensor) -> Tensor:
    return x
  def _forward(self: __torch__.torchvision.models.googlenet.GoogLeNet,
    x: Tensor) -> Tuple[Tensor, Optional[Tensor], Optional[Tensor]]:
    conv1 = self.conv1
    x2 = (conv1).forward(x, )
    maxpool1 = self.maxpool1
    x3 = (maxpool1).forward(x2, )
    conv2 = self.conv2
    x4 = (conv2).forward(x3, )
    conv3 = self.conv3
    x5 = (conv3).forward(x4, )
    maxpool2 = self.maxpool2
    x6 = (maxpool2).forward(x5, )
    inception3a = self.inception3a
    x7 = (inception3a).forward(x6, )
    inception3b = self.inception3b
    x8 = (inception3b).forward(x7, )
    maxpool3 = self.maxpool3
    x9 = (maxpool3).forward(x8, )
    inception4a = self.inception4a
    x10 = (inception4a).forward(x9, )
    training = self.training
    if training:
      aux10 = self.aux1
      aux1 : Optional[Tensor] = (aux10).forward(x10, )
    else:
      aux1 = None
    inception4b = self.inception4b
    x11 = (inception4b).forward(x10, )
    inception4c = self.inception4c
    x12 = (inception4c).forward(x11, )
    inception4d = self.inception4d
    x13 = (inception4d).forward(x12, )
    training0 = self.training
    if training0:
      aux20 = self.aux2
      aux2 : Optional[Tensor] = (aux20).forward(x13, )
    else:
      aux2 = None
    inception4e = self.inception4e
    x14 = (inception4e).forward(x13, )
    maxpool4 = self.maxpool4
    x15 = (maxpool4).forward(x14, )
    inception5a = self.inception5a
    x16 = (inception5a).forward(x15, )
    inception5b = self.inception5b
    x17 = (inception5b).forward(x16, )
    avgpool = self.avgpool
    x18 = (avgpool).forward(x17, )
    x19 = torch.flatten(x18, 1)
    dropout = self.dropout
    x20 = (dropout).forward(x19, )
    fc = self.fc
    x21 = (fc).forward(x20, )
    return (x21, aux2, aux1)
class BasicConv2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.BatchNorm2d
  def forward(self: __torch__.torchvision.models.googlenet.BasicConv2d,
    x: Tensor) -> Tensor:
    conv = self.conv
    x22 = (conv).forward(x, )
    bn = self.bn
    x23 = (bn).forward(x22, )
    _2 = __torch__.torch.nn.functional.relu(x23, True, )
    return _2
class Inception(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1 : __torch__.torchvision.models.googlenet.___torch_mangle_6.BasicConv2d
  branch2 : __torch__.torch.nn.modules.container.Sequential
  branch3 : __torch__.torch.nn.modules.container.___torch_mangle_19.Sequential
  branch4 : __torch__.torch.nn.modules.container.___torch_mangle_23.Sequential
  def forward(self: __torch__.torchvision.models.googlenet.Inception,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.googlenet.Inception,
    x: Tensor) -> List[Tensor]:
    branch1 = self.branch1
    branch10 = (branch1).forward(x, )
    branch2 = self.branch2
    branch20 = (branch2).forward(x, )
    branch3 = self.branch3
    branch30 = (branch3).forward(x, )
    branch4 = self.branch4
    branch40 = (branch4).forward(x, )
    outputs = [branch10, branch20, branch30, branch40]
    return outputs
class InceptionAux(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torchvision.models.googlenet.___torch_mangle_77.BasicConv2d
  fc1 : __torch__.torch.nn.modules.linear.Linear
  fc2 : __torch__.torch.nn.modules.linear.___torch_mangle_140.Linear
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  def forward(self: __torch__.torchvision.models.googlenet.InceptionAux,
    x: Tensor) -> Tensor:
    _3 = __torch__.torch.nn.functional.adaptive_avg_pool2d
    x24 = _3(x, [4, 4], )
    conv = self.conv
    x25 = (conv).forward(x24, )
    x26 = torch.flatten(x25, 1)
    fc1 = self.fc1
    x27 = __torch__.torch.nn.functional.relu((fc1).forward(x26, ), True, )
    dropout = self.dropout
    x28 = (dropout).forward(x27, )
    fc2 = self.fc2
    return (fc2).forward(x28, )
class GoogLeNetOutputs(NamedTuple):
  logits : Tensor
  aux_logits2 : Optional[Tensor]
  aux_logits1 : Optional[Tensor]
