class AnyStage(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["block2-0"] = __torch__.torchvision.models.regnet.___torch_mangle_24.ResBottleneckBlock
  __annotations__["block2-1"] = __torch__.torchvision.models.regnet.___torch_mangle_32.ResBottleneckBlock
  __annotations__["block2-2"] = __torch__.torchvision.models.regnet.___torch_mangle_32.ResBottleneckBlock
  def forward(self: __torch__.torchvision.models.regnet.___torch_mangle_33.AnyStage,
    input: Tensor) -> Tensor:
    block2_0 = getattr(self, "block2-0")
    block2_1 = getattr(self, "block2-1")
    block2_2 = getattr(self, "block2-2")
    input0 = (block2_0).forward(input, )
    input1 = (block2_1).forward(input0, )
    return (block2_2).forward(input1, )
  def __len__(self: __torch__.torchvision.models.regnet.___torch_mangle_33.AnyStage) -> int:
    return 3
