class Sequential(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  block1 : __torch__.torchvision.models.regnet.AnyStage
  block2 : __torch__.torchvision.models.regnet.___torch_mangle_33.AnyStage
  block3 : __torch__.torchvision.models.regnet.___torch_mangle_56.AnyStage
  block4 : __torch__.torchvision.models.regnet.___torch_mangle_79.AnyStage
  def forward(self: __torch__.torch.nn.modules.container.Sequential,
    input: Tensor) -> Tensor:
    block1 = self.block1
    block2 = self.block2
    block3 = self.block3
    block4 = self.block4
    input0 = (block1).forward(input, )
    input1 = (block2).forward(input0, )
    input2 = (block3).forward(input1, )
    return (block4).forward(input2, )
  def __len__(self: __torch__.torch.nn.modules.container.Sequential) -> int:
    return 4
