class AnyStage(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["block4-0"] = __torch__.torchvision.models.regnet.___torch_mangle_70.ResBottleneckBlock
  __annotations__["block4-1"] = __torch__.torchvision.models.regnet.___torch_mangle_78.ResBottleneckBlock
  __annotations__["block4-2"] = __torch__.torchvision.models.regnet.___torch_mangle_78.ResBottleneckBlock
  __annotations__["block4-3"] = __torch__.torchvision.models.regnet.___torch_mangle_78.ResBottleneckBlock
  __annotations__["block4-4"] = __torch__.torchvision.models.regnet.___torch_mangle_78.ResBottleneckBlock
  __annotations__["block4-5"] = __torch__.torchvision.models.regnet.___torch_mangle_78.ResBottleneckBlock
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_79.AnyStage,
    input: Tensor) -> Tensor:
    block4_0 = getattr(self, "block4-0")
    block4_1 = getattr(self, "block4-1")
    block4_2 = getattr(self, "block4-2")
    block4_3 = getattr(self, "block4-3")
    block4_4 = getattr(self, "block4-4")
    block4_5 = getattr(self, "block4-5")
    input0 = (block4_0).forward(input, )
    input1 = (block4_1).forward(input0, )
    input2 = (block4_2).forward(input1, )
    input3 = (block4_3).forward(input2, )
    input4 = (block4_4).forward(input3, )
    return (block4_5).forward(input4, )
  def __len__(self: __torch__.torchvision.models.regnet.___torch_mangle_79.AnyStage) -> int:
    return 6
