class InceptionA(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_26.BasicConv2d
  branch5x5_1 : __torch__.torchvision.models.inception.___torch_mangle_28.BasicConv2d
  branch5x5_2 : __torch__.torchvision.models.inception.___torch_mangle_17.BasicConv2d
  branch3x3dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_26.BasicConv2d
  branch3x3dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_20.BasicConv2d
  branch3x3dbl_3 : __torch__.torchvision.models.inception.___torch_mangle_22.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_26.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.___torch_mangle_29.InceptionA,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.___torch_mangle_29.InceptionA,
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
