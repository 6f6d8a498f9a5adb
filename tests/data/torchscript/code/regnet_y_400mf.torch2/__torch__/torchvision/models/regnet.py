class RegNet(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  stem : __torch__.torchvision.models.regnet.SimpleStemIN
  trunk_output : __torch__.torch.nn.modules.container.Sequential
  avgpool : __torch__.torch.nn.modules.pooling.___torch_mangle_80.AdaptiveAvgPool2d
  fc : __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.torchvision.models.regnet.RegNet,
    x: Tensor) -> Tensor:
    stem = self.stem
    x0 = (stem).forward(x, )
    trunk_output = self.trunk_output
    x1 = (trunk_output).forward(x0, )
    avgpool = self.avgpool
    x2 = (avgpool).forward(x1, )
    x3 = torch.flatten(x2, 1)
    fc = self.fc
    return (fc).forward(x3, )
class SimpleStemIN(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  out_channels : int
  __annotations__["0"] = __torch__.torch.nn.modules.conv.Conv2d
  __annotations__["1"] = __torch__.torch.nn.modules.batchnorm.BatchNorm2d
  __annotations__["2"] = __torch__.torch.nn.modules.activation.ReLU
  def forward(self: __torch__.torchvision.models.regnet.SimpleStemIN,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    _2 = getattr(self, "2")
    input0 = (_0).forward(input, )
    input1 = (_1).forward(input0, )
    return (_2).forward(input1, )
  def __len__(self: __torch__.torchvision.models.regnet.SimpleStemIN) -> int:
    return 3
class AnyStage(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["block1-0"] = __torch__.torchvision.models.regnet.ResBottleneckBlock
  def forward(self: __torch__.torchvision.models.regnet.AnyStage,
    input: Tensor) -> Tensor:
    block1_0 = getattr(self, "block1-0")
    return (block1_0).forward(input, )
  def __len__(self: __torch__.torchvision.models.regnet.AnyStage) -> int:
    return 1
class ResBottleneckBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  proj : __torch__.torchvision.ops.misc.Conv2dNormActivation
  f : __torch__.torchvision.models.regnet.BottleneckTransform
  activation : __torch__.torch.nn.modules.activation.ReLU
  def forward(self: __torch__.torchvision.models.regnet.ResBottleneckBlock,
    x: Tensor) -> Tensor:
    proj = self.proj
    _0 = (proj).forward(x, )
    f = self.f
    x4 = torch.add(_0, (f).forward(x, ))
    activation = self.activation
    return (activation).forward(x4, )
class BottleneckTransform(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  a : __torch__.torchvision.ops.misc.___torch_mangle_3.Conv2dNormActivation
  b : __torch__.torchvision.ops.misc.___torch_mangle_5.Conv2dNormActivation
  se : __torch__.torchvision.ops.misc.SqueezeExcitation
  c : __torch__.torchvision.ops.misc.___torch_mangle_10.Conv2dNormActivation
  def forward(self: __torch__.torchvision.models.regnet.BottleneckTransform,
    input: Tensor) -> Tensor:
    a = self.a
    b = self.b
    se = self.se
    c = self.c
    input2 = (a).forward(input, )
    input3 = (b).forward(input2, )
    input4 = (se).forward(input3, )
    return (c).forward(input4, )
  def __len__(self: __torch__.torchvision.models.regnet.BottleneckTransform) -> int:
    return 4
