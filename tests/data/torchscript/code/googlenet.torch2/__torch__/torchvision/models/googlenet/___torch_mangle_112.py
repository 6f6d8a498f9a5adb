class Inception(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1 : __torch__.torchvision.models.googlenet.___torch_mangle_97.BasicConv2d
  branch2 : __torch__.torch.nn.modules.container.___torch_mangle_103.Sequential
  branch3 : __torch__.torch.nn.modules.container.___torch_mangle_108.Sequential
  branch4 : __torch__.torch.nn.modules.container.___torch_mangle_111.Sequential
  def forward(self: __torch__.torchvision.models.googlenet.___torch_mangle_112.Inception,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.googlenet.___torch_mangle_112.Inception,
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
