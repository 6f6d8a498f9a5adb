class Inception3(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  aux_logits : bool
  transform_input : bool
  Conv2d_1a_3x3 : __torch__.torchvision.models.inception.BasicConv2d
  Conv2d_2a_3x3 : __torch__.torchvision.models.inception.___torch_mangle_1.BasicConv2d
  Conv2d_2b_3x3 : __torch__.torchvision.models.inception.___torch_mangle_4.BasicConv2d
  maxpool1 : __torch__.torch.nn.modules.pooling.MaxPool2d
  Conv2d_3b_1x1 : __torch__.torchvision.models.inception.___torch_mangle_7.BasicConv2d
  Conv2d_4a_3x3 : __torch__.torchvision.models.inception.___torch_mangle_10.BasicConv2d
  maxpool2 : __torch__.torch.nn.modules.pooling.MaxPool2d
  Mixed_5b : __torch__.torchvision.models.inception.InceptionA
  Mixed_5c : __torch__.torchvision.models.inception.___torch_mangle_29.InceptionA
  Mixed_5d : __torch__.torchvision.models.inception.___torch_mangle_34.InceptionA
  Mixed_6a : __torch__.torchvision.models.inception.InceptionB
  Mixed_6b : __torch__.torchvision.models.inception.InceptionC
  Mixed_6c : __torch__.torchvision.models.inception.___torch_mangle_64.InceptionC
  Mixed_6d : __torch__.torchvision.models.inception.___torch_mangle_64.InceptionC
  Mixed_6e : __torch__.torchvision.models.inception.___torch_mangle_69.InceptionC
  AuxLogits : __torch__.torchvision.models.inception.InceptionAux
  Mixed_7a : __torch__.torchvision.models.inception.InceptionD
  Mixed_7b : __torch__.torchvision.models.inception.InceptionE
  Mixed_7c : __torch__.torchvision.models.inception.___torch_mangle_101.InceptionE
  avgpool : __torch__.torch.nn.modules.pooling.AdaptiveAvgPool2d
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  fc : __torch__.torch.nn.modules.linear.___torch_mangle_102.Linear
  def forward(self: __torch__.torchvision.models.inception.Inception3,
    x: Tensor) -> __torch__.torchvision.models.inception.InceptionOutputs:
    _0 = "Scripted Inception3 always returns Inception3 Tuple"
    x0 = (self)._transform_input(x, )
    x1, aux, = (self)._forward(x0, )
    training = self.training
    if training:
      aux_defined = self.aux_logits
    else:
      aux_defined = False
    if torch.__not__(aux_defined):
      torch.warn(_0)
    else:
      pass
    _1 = __torch__.torchvision.models.inception.InceptionOutputs(x1, aux)
    return _1
  def _transform_input(self: __torch__.torchvision.models.inception.Inception3,
    x: Tensor) -> Tensor:
    transform_input = self.transform_input
    if transform_input:
      _2 = torch.select(torch.slice(x), 1, 0)
      _3 = torch.mul(torch.unsqueeze(_2, 1), 0.45800000000000002)
      x_ch0 = torch.add(_3, -0.030000000000000027)
      _4 = torch.select(torch.slice(x), 1, 1)
      _5 = torch.mul(torch.unsqueeze(_4, 1), 0.44800000000000001)
      x_ch1 = torch.add(_5, -0.087999999999999967)
      _6 = torch.select(torch.slice(x), 1, 2)
      _7 = torch.mul(torch.unsqueeze(_6, 1), 0.45000000000000001)
      x_ch2 = torch.add(_7, -0.18799999999999994)
      x3 = torch.cat([x_ch0, x_ch1, x_ch2], 1)
      x2 = x3
    else:
      x2 = x
    return x2
  def _forward(self: __torch__.torchvision.models.inception.Inception3,
    x: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
    Conv2d_1a_3x3 = self.Conv2d_1a_3x3
    x4 = (Conv2d_1a_3x3).forward(x, )
    Conv2d_2a_3x3 = self.Conv2d_2a_3x3
    x5 = (Conv2d_2a_3x3).forward(x4, )
    Conv2d_2b_3x3 = self.Conv2d_2b_3x3
    x6 = (Conv2d_2b_3x3).forward(x5, )
    maxpool1 = self.maxpool1
    x7 = (maxpool1).forward(x6, )
    Conv2d_3b_1x1 = self.Conv2d_3b_1x1
    x8 = (Conv2d_3b_1x1).forward(x7, )
    Conv2d_4a_3x3 = self.Conv2d_4a_3x3
    x9 = (Conv2d_4a_3x3).forward(x8, )
    maxpool2 = self.maxpool2
    x10 = (maxpool2).forward(x9, )
    Mixed_5b = self.Mixed_5b
    x11 = (Mixed_5b).forward(x10, )
    Mixed_5c = self.Mixed_5c
    x12 = (Mixed_5c).forward(x11, )
    Mixed_5d = self.Mixed_5d
    x13 = (Mixed_5d).forward(x12, )
    Mixed_6a = self.Mixed_6a
    x14 = (Mixed_6a).forward(x13, )
    Mixed_6b = self.Mixed_6b
    x15 = (Mixed_6b).forward(x14, )
    Mixed_6c = self.Mixed_6c
    x16 = (Mixed_6c).forward(x15, )
    Mixed_6d = self.Mixed_6d
    x17 = (Mixed_6d).forward(x16, )
    Mixed_6e = self.Mixed_6e
    x18 = (Mixed_6e).forward(x17, )
    training = self.training
    if training:
      AuxLogits = self.AuxLogits
      aux : Optional[Tensor] = (AuxLogits).forward(x18, )
    else:
      aux = None
    Mixed_7a = self.Mixed_7a
    x19 = (Mixed_7a).forward(x18, )
    Mixed_7b = self.Mixed_7b
    x20 = (Mixed_7b).forward(x19, )
    Mixed_7c = self.Mixed_7c
    x21 = (Mixed_7c).forward(x20, )
    avgpool = self.avgpool
    x22 = (avgpool).forward(x21, )
    dropout = self.dropout
    x23 = (dropout).forward(x22, )
    x24 = torch.flatten(x23, 1)
    fc = self.fc
    x25 = (fc).forward(x24, )
    return (x25, aux)
class BasicConv2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.BatchNorm2d
  def forward(self: __torch__.torchvision.models.inception.BasicConv2d,
    x: Tensor) -> Tensor:
    conv = self.conv
    x26 = (conv).forward(x, )
    bn = self.bn
    x27 = (bn).forward(x26, )
    _8 = __torch__.torch.nn.functional.relu(x27, True, )
    return _8
class InceptionA(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_12.BasicConv2d
  branch5x5_1 : __torch__.torchvision.models.inception.___torch_mangle_15.BasicConv2d
  branch5x5_2 : __torch__.torchvision.models.inception.___torch_mangle_17.BasicConv2d
  branch3x3dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_12.BasicConv2d
  branch3x3dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_20.BasicConv2d
  branch3x3dbl_3 : __torch__.torchvision.models.inception.___torch_mangle_22.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_24.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.InceptionA,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.InceptionA,
    x: Tensor) -> List[Tensor]:
    branch1x1 = self.branch1x1
    branch1x10 = (branch1x1).forward(x, )
    branch5x5_1 = self.branch5x5_1
    branch5x5 = (branch5x5_1).forward(x, )
    branch5x5_2 = self.branch5x5_2
    branch5x50 = (branch5x5_2).forward(branch5x5, )
    branch3x3dbl_1 = self.branch3x3dbl_1
    branch3x3dbl = (branch3x3dbl_1).forward(x, )
    branch3x3dbl_2 = self.branch3x3dbl_2
    branch3x3dbl0 = (branch3x3dbl_2).forward(branch3x3dbl, )
    branch3x3dbl_3 = self.branch3x3dbl_3
    branch3x3dbl1 = (branch3x3dbl_3).forward(branch3x3dbl0, )
    branch_pool = torch.avg_pool2d(x, [3, 3], [1, 1], [1, 1])
    branch_pool0 = self.branch_pool
    branch_pool1 = (branch_pool0).forward(branch_pool, )
    outputs = [branch1x10, branch5x50, branch3x3dbl1, branch_pool1]
    return outputs
class InceptionB(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch3x3 : __torch__.torchvision.models.inception.___torch_mangle_37.BasicConv2d
  branch3x3dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_31.BasicConv2d
  branch3x3dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_20.BasicConv2d
  branch3x3dbl_3 : __torch__.torchvision.models.inception.___torch_mangle_39.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.InceptionB,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.InceptionB,
    x: Tensor) -> List[Tensor]:
    _9 = __torch__.torch.nn.functional._max_pool2d
    branch3x3 = self.branch3x3
    branch3x30 = (branch3x3).forward(x, )
    branch3x3dbl_1 = self.branch3x3dbl_1
    branch3x3dbl = (branch3x3dbl_1).forward(x, )
    branch3x3dbl_2 = self.branch3x3dbl_2
    branch3x3dbl2 = (branch3x3dbl_2).forward(branch3x3dbl, )
    branch3x3dbl_3 = self.branch3x3dbl_3
    branch3x3dbl3 = (branch3x3dbl_3).forward(branch3x3dbl2, )
    branch_pool = _9(x, [3, 3], [2, 2], [0, 0], [1, 1], False, False, )
    outputs = [branch3x30, branch3x3dbl3, branch_pool]
    return outputs
class InceptionC(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  branch7x7_1 : __torch__.torchvision.models.inception.___torch_mangle_44.BasicConv2d
  branch7x7_2 : __torch__.torchvision.models.inception.___torch_mangle_46.BasicConv2d
  branch7x7_3 : __torch__.torchvision.models.inception.___torch_mangle_48.BasicConv2d
  branch7x7dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_44.BasicConv2d
  branch7x7dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_50.BasicConv2d
  branch7x7dbl_3 : __torch__.torchvision.models.inception.___torch_mangle_46.BasicConv2d
  branch7x7dbl_4 : __torch__.torchvision.models.inception.___torch_mangle_50.BasicConv2d
  branch7x7dbl_5 : __torch__.torchvision.models.inception.___torch_mangle_52.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.InceptionC,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.InceptionC,
    x: Tensor) -> List[Tensor]:
    branch1x1 = self.branch1x1
    branch1x11 = (branch1x1).forward(x, )
    branch7x7_1 = self.branch7x7_1
    branch7x7 = (branch7x7_1).forward(x, )
    branch7x7_2 = self.branch7x7_2
    branch7x70 = (branch7x7_2).forward(branch7x7, )
    branch7x7_3 = self.branch7x7_3
    branch7x71 = (branch7x7_3).forward(branch7x70, )
    branch7x7dbl_1 = self.branch7x7dbl_1
    branch7x7dbl = (branch7x7dbl_1).forward(x, )
    branch7x7dbl_2 = self.branch7x7dbl_2
    branch7x7dbl0 = (branch7x7dbl_2).forward(branch7x7dbl, )
    branch7x7dbl_3 = self.branch7x7dbl_3
    branch7x7dbl1 = (branch7x7dbl_3).forward(branch7x7dbl0, )
    branch7x7dbl_4 = self.branch7x7dbl_4
    branch7x7dbl2 = (branch7x7dbl_4).forward(branch7x7dbl1, )
    branch7x7dbl_5 = self.branch7x7dbl_5
    branch7x7dbl3 = (branch7x7dbl_5).forward(branch7x7dbl2, )
    branch_pool = torch.avg_pool2d(x, [3, 3], [1, 1], [1, 1])
    branch_pool2 = self.branch_pool
    branch_pool3 = (branch_pool2).forward(branch_pool, )
    outputs = [branch1x11, branch7x71, branch7x7dbl3, branch_pool3]
    return outputs
class InceptionAux(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv0 : __torch__.torchvision.models.inception.___torch_mangle_44.BasicConv2d
  conv1 : __torch__.torchvision.models.inception.___torch_mangle_72.BasicConv2d
  fc : __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.torchvision.models.inception.InceptionAux,
    x: Tensor) -> Tensor:
    _10 = __torch__.torch.nn.functional.adaptive_avg_pool2d
    x28 = torch.avg_pool2d(x, [5, 5], [3, 3])
    conv0 = self.conv0
    x29 = (conv0).forward(x28, )
    conv1 = self.conv1
    x30 = (conv1).forward(x29, )
    x31 = _10(x30, [1, 1], )
    x32 = torch.flatten(x31, 1)
    fc = self.fc
    return (fc).forward(x32, )
class InceptionD(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch3x3_1 : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  branch3x3_2 : __torch__.torchvision.models.inception.___torch_mangle_75.BasicConv2d
  branch7x7x3_1 : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  branch7x7x3_2 : __torch__.torchvision.models.inception.___torch_mangle_66.BasicConv2d
  branch7x7x3_3 : __torch__.torchvision.models.inception.___torch_mangle_68.BasicConv2d
  branch7x7x3_4 : __torch__.torchvision.models.inception.___torch_mangle_77.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.InceptionD,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.InceptionD,
    x: Tensor) -> List[Tensor]:
    _11 = __torch__.torch.nn.functional._max_pool2d
    branch3x3_1 = self.branch3x3_1
    branch3x3 = (branch3x3_1).forward(x, )
    branch3x3_2 = self.branch3x3_2
    branch3x31 = (branch3x3_2).forward(branch3x3, )
    branch7x7x3_1 = self.branch7x7x3_1
    branch7x7x3 = (branch7x7x3_1).forward(x, )
    branch7x7x3_2 = self.branch7x7x3_2
    branch7x7x30 = (branch7x7x3_2).forward(branch7x7x3, )
    branch7x7x3_3 = self.branch7x7x3_3
    branch7x7x31 = (branch7x7x3_3).forward(branch7x7x30, )
    branch7x7x3_4 = self.branch7x7x3_4
    branch7x7x32 = (branch7x7x3_4).forward(branch7x7x31, )
    branch_pool = _11(x, [3, 3], [2, 2], [0, 0], [1, 1], False, False, )
    outputs = [branch3x31, branch7x7x32, branch_pool]
    return outputs
class InceptionE(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_79.BasicConv2d
  branch3x3_1 : __torch__.torchvision.models.inception.___torch_mangle_81.BasicConv2d
  branch3x3_2a : __torch__.torchvision.models.inception.___torch_mangle_83.BasicConv2d
  branch3x3_2b : __torch__.torchvision.models.inception.___torch_mangle_85.BasicConv2d
  branch3x3dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_88.BasicConv2d
  branch3x3dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_90.BasicConv2d
  branch3x3dbl_3a : __torch__.torchvision.models.inception.___torch_mangle_83.BasicConv2d
  branch3x3dbl_3b : __torch__.torchvision.models.inception.___torch_mangle_85.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_92.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.InceptionE,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.InceptionE,
    x: Tensor) -> List[Tensor]:
    branch1x1 = self.branch1x1
    branch1x12 = (branch1x1).forward(x, )
    branch3x3_1 = self.branch3x3_1
    branch3x3 = (branch3x3_1).forward(x, )
    branch3x3_2a = self.branch3x3_2a
    _12 = (branch3x3_2a).forward(branch3x3, )
    branch3x3_2b = self.branch3x3_2b
    branch3x32 = [_12, (branch3x3_2b).forward(branch3x3, )]
    branch3x33 = torch.cat(branch3x32, 1)
    branch3x3dbl_1 = self.branch3x3dbl_1
    branch3x3dbl = (branch3x3dbl_1).forward(x, )
    branch3x3dbl_2 = self.branch3x3dbl_2
    branch3x3dbl4 = (branch3x3dbl_2).forward(branch3x3dbl, )
    branch3x3dbl_3a = self.branch3x3dbl_3a
    _13 = (branch3x3dbl_3a).forward(branch3x3dbl4, )
    branch3x3dbl_3b = self.branch3x3dbl_3b
    _14 = (branch3x3dbl_3b).forward(branch3x3dbl4, )
    branch3x3dbl5 = [_13, _14]
    branch3x3dbl6 = torch.cat(branch3x3dbl5, 1)
    branch_pool = torch.avg_pool2d(x, [3, 3], [1, 1], [1, 1])
    branch_pool4 = self.branch_pool
    branch_pool5 = (branch_pool4).forward(branch_pool, )
    outputs = [branch1x12, branch3x33, branch3x3dbl6, branch_pool5]
    return outputs
class InceptionOutputs(NamedTuple):
  logits : Tensor
  aux_logits : Optional[Tensor]
