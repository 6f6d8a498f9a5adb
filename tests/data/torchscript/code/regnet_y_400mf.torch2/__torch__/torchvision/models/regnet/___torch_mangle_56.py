class AnyStage(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["block3-0"] = __torch__.torchvision.models.regnet.___torch_mangle_47.ResBottleneckBlock
  __annotations__["block3-1"] = __torch__.torchvision.models.regnet.___torch_mangle_55.ResBottleneckBlock
  __annotations__["block3-2"] = __torch__.torchvision.models.regnet.___torch_mangle_55.ResBottleneckBlock
  __annotations__["block3-3"] = __torch__.torchvision.models.regnet.___torch_mangle_55.ResBottleneckBlock
  __annotations__["block3-4"] = __torch__.torchvision.models.regnet.___torch_mangle_55.ResBottleneckBlock
  __annotations__["block3-5"] = __torch__.torchvision.models.regnet.___torch_mangle_55.ResBottleneckBlock
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_56.AnyStage,
    input: Tensor) -> Tensor:
    block3_0 = getattr(self, "block3-0")
    block3_1 = getattr(self, "block3-1")
    block3_2 = getattr(self, "block3-2")
    block3_3 = getattr(self, "block3-3")
    block3_4 = getattr(self, "block3-4")
    block3_5 = getattr(self, "block3-5")
    input0 = (block3_0).forward(input, )
    input1 = (block3_1).forward(input0, )
    input2 = (block3_2).forward(input1, )
    input3 = (block3_3).forward(input2, )
    input4 = (block3_4).forward(input3, )
    return (block3_5).forward(input4, )
  def __len__(self: __torch__.torchvision.models.regnet.___torch_mangle_56.AnyStage) -> int:
    return 6
