class _DenseBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  denselayer1 : __torch__.torchvision.models.densenet.___torch_mangle_50._DenseLayer
  denselayer2 : __torch__.torchvision.models.densenet.___torch_mangle_57._DenseLayer
  denselayer3 : __torch__.torchvision.models.densenet.___torch_mangle_64._DenseLayer
  denselayer4 : __torch__.torchvision.models.densenet.___torch_mangle_71._DenseLayer
  denselayer5 : __torch__.torchvision.models.densenet.___torch_mangle_78._DenseLayer
  denselayer6 : __torch__.torchvision.models.densenet.___torch_mangle_85._DenseLayer
  denselayer7 : __torch__.torchvision.models.densenet.___torch_mangle_92._DenseLayer
  denselayer8 : __torch__.torchvision.models.densenet.___torch_mangle_99._DenseLayer
  denselayer9 : __torch__.torchvision.models.densenet.___torch_mangle_106._DenseLayer
  denselayer10 : __torch__.torchvision.models.densenet.___torch_mangle_113._DenseLayer
  denselayer11 : __torch__.torchvision.models.densenet.___torch_mangle_120._DenseLayer
  denselayer12 : __torch__.torchvision.models.densenet.___torch_mangle_127._DenseLayer
  def forward(self: __torch__.torchvision.models.densenet.___torch_mangle_128._DenseBlock,
    argument_1: Tensor) -> Tensor:
    denselayer12 = self.denselayer12
    denselayer11 = self.denselayer11
    denselayer10 = self.denselayer10
    denselayer9 = self.denselayer9
    denselayer8 = self.denselayer8
    denselayer7 = self.denselayer7
    denselayer6 = self.denselayer6
    denselayer5 = self.denselayer5
    denselayer4 = self.denselayer4
    denselayer3 = self.denselayer3
    denselayer2 = self.denselayer2
    denselayer1 = self.denselayer1
    _0 = (denselayer1).forward(argument_1, )
    _1 = (denselayer2).forward(argument_1, _0, )
    _2 = (denselayer3).forward(argument_1, _0, _1, )
    _3 = (denselayer4).forward(argument_1, _0, _1, _2, )
    _4 = (denselayer5).forward(argument_1, _0, _1, _2, _3, )
    _5 = (denselayer6).forward(argument_1, _0, _1, _2, _3, _4, )
    _6 = (denselayer7).forward(argument_1, _0, _1, _2, _3, _4, _5, )
    _7 = (denselayer8).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, )
    _8 = (denselayer9).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, )
    _9 = (denselayer10).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, )
    _10 = (denselayer11).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, )
    _11 = (denselayer12).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, )
    _12 = [argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11]
    return torch.cat(_12, 1)
