class InceptionE(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  branch1x1 : __torch__.torchvision.models.inception.___torch_mangle_94.BasicConv2d
  branch3x3_1 : __torch__.torchvision.models.inception.___torch_mangle_96.BasicConv2d
  branch3x3_2a : __torch__.torchvision.models.inception.___torch_mangle_83.BasicConv2d
  branch3x3_2b : __torch__.torchvision.models.inception.___torch_mangle_85.BasicConv2d
  branch3x3dbl_1 : __torch__.torchvision.models.inception.___torch_mangle_98.BasicConv2d
  branch3x3dbl_2 : __torch__.torchvision.models.inception.___torch_mangle_90.BasicConv2d
  branch3x3dbl_3a : __torch__.torchvision.models.inception.___torch_mangle_83.BasicConv2d
  branch3x3dbl_3b : __torch__.torchvision.models.inception.___torch_mangle_85.BasicConv2d
  branch_pool : __torch__.torchvision.models.inception.___torch_mangle_100.BasicConv2d
  def forward(self: __torch__.torchvision.models.inception.___torch_mangle_101.InceptionE,
    x: Tensor) -> Tensor:
    outputs = (self)._forward(x, )
    return torch.cat(outputs, 1)
  def _forward(self: __torch__.torchvision.models.inception.___torch_mangle_101.InceptionE,
    x: Tensor) -> List[Tensor]:
    branch1x1 = self.branch1x1
    branch1x10 = (branch1x1).forward(x, )
    branch3x3_1 = self.branch3x3_1
    branch3x3 = (branch3x3_1).forward(x, )
    branch3x3_2a = self.branch3x3_2a
    _0 = (branch3x3_2a).forward(branch3x3, )
    branch3x3_2b = self.branch3x3_2b
    branch3x30 = [_0, (branch3x3_2b).forward(branch3x3, )]
    branch3x31 = torch.cat(branch3x30, 1)
    branch3x3dbl_1 = self.branch3x3dbl_1
    branch3x3dbl = (branch3x3dbl_1).forward(x, )
    branch3x3dbl_2 = self.branch3x3dbl_2
    branch3x3dbl0 = (branch3x3dbl_2).forward(branch3x3dbl, )
    branch3x3dbl_3a = self.branch3x3dbl_3a
    _1 = (branch3x3dbl_3a).forward(branch3x3dbl0, )
    branch3x3dbl_3b = self.branch3x3dbl_3b
    _2 = (branch3x3dbl_3b).forward(branch3x3dbl0, )
    branch3x3dbl1 = [_1, _2]
    branch3x3dbl2 = torch.cat(branch3x3dbl1, 1)
    branch_pool = torch.avg_pool2d(x, [3, 3], [1, 1], [1, 1])
    branch_pool0 = self.branch_pool
    branch_pool1 = (branch_pool0).forward(branch_pool, )
    outputs = [branch1x10, branch3x31, branch3x3dbl2, branch_pool1]
    return outputs
