class BottleneckTransform(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  a : __torch__.torchvision.ops.misc.___torch_mangle_15.Conv2dNormActivation
  b : __torch__.torchvision.ops.misc.___torch_mangle_17.Conv2dNormActivation
  se : __torch__.torchvision.ops.misc.___torch_mangle_20.SqueezeExcitation
  c : __torch__.torchvision.ops.misc.___torch_mangle_22.Conv2dNormActivation
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_23.BottleneckTransform,
    input: Tensor) -> Tensor:
    a = self.a
    b = self.b
    se = self.se
    c = self.c
    input0 = (a).forward(input, )
    input1 = (b).forward(input0, )
    input2 = (se).forward(input1, )
    return (c).forward(input2, )
  def __len__(self: __torch__.torchvision.models.regnet.___torch_mangle_23.BottleneckTransform) -> int:
    return 4
