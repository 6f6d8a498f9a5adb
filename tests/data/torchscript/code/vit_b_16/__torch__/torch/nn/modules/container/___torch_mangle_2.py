class Sequential(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  head : __torch__.torch.nn.modules.linear.___torch_mangle_1.Linear
  def forward(self: __torch__.torch.nn.modules.container.___torch_mangle_2.Sequential,
    input: Tensor) -> Tensor:
    head = self.head
    return (head).forward(input, )
  def __len__(self: __torch__.torch.nn.modules.container.___torch_mangle_2.Sequential) -> int:
    return 1
