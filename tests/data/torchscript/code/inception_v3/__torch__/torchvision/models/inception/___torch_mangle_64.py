class InceptionC(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  branch7x7_1 : __torch__.torchvision.models.inception.___torch_mangle_55.BasicConv2d
  branch7x7_2 : __torch__.torchvision.models.inception.___torch_mangle_57.BasicConv2d
  branch7x7_3 : __torch__.torchvision.models.inception.___torch_mangle_59.BasicConv2d
  branch7x7dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_55.BasicConv2d
  branch7x7dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_61.BasicConv2d
  branch7x7dbl_3 : __torch__.torchvision.models.inception.___torch_mangle_57.BasicConv2d
  branch7x7dbl_4 : __torch__.torchvision.models.inception.___torch_mangle_61.BasicConv2d
  branch7x7dbl_5 : __torch__.torchvision.models.inception.___torch_mangle_63.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_41.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.___torch_mangle_64.InceptionC,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.___torch_mangle_64.InceptionC,
    x: Tensor) -> List[Tensor]:
    branch1x1 = self.branch1x1
    branch1x10 = (branch1x1).forward(x, )
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
    branch_pool0 = self.branch_pool
    branch_pool1 = (branch_pool0).forward(branch_pool, )
    outputs = [branch1x10, branch7x71, branch7x7dbl3, branch_pool1]
    return outputs
