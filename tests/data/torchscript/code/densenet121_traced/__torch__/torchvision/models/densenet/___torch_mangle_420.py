class _DenseBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  denselayer1 : __torch__.torchvision.models.densenet.___torch_mangle_314._DenseLayer
  denselayer2 : __torch__.torchvision.models.densenet.___torch_mangle_321._DenseLayer
  denselayer3 : __torch__.torchvision.models.densenet.___torch_mangle_328._DenseLayer
  denselayer4 : __torch__.torchvision.models.densenet.___torch_mangle_335._DenseLayer
  denselayer5 : __torch__.torchvision.models.densenet.___torch_mangle_342._DenseLayer
  denselayer6 : __torch__.torchvision.models.densenet.___torch_mangle_349._DenseLayer
  denselayer7 : __torch__.torchvision.models.densenet.___torch_mangle_356._DenseLayer
  denselayer8 : __torch__.torchvision.models.densenet.___torch_mangle_363._DenseLayer
  denselayer9 : __torch__.torchvision.models.densenet.___torch_mangle_370._DenseLayer
  denselayer10 : __torch__.torchvision.models.densenet.___torch_mangle_377._DenseLayer
  denselayer11 : __torch__.torchvision.models.densenet.___torch_mangle_384._DenseLayer
  denselayer12 : __torch__.torchvision.models.densenet.___torch_mangle_391._DenseLayer
  denselayer13 : __torch__.torchvision.models.densenet.___torch_mangle_398._DenseLayer
  denselayer14 : __torch__.torchvision.models.densenet.___torch_mangle_405._DenseLayer
  denselayer15 : __torch__.torchvision.models.densenet.___torch_mangle_412._DenseLayer
  denselayer16 : __torch__.torchvision.models.densenet.___torch_mangle_419._DenseLayer
  def forward(self: __torch__.torchvision.models.densenet.___torch_mangle_420._DenseBlock,
    argument_1: Tensor) -> Tensor:
    denselayer16 = self.denselayer16
    denselayer15 = self.denselayer15
    denselayer14 = self.denselayer14
    denselayer13 = self.denselayer13
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
    _12 = (denselayer13).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, )
    _13 = (denselayer14).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, )
    _14 = (denselayer15).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, )
    _15 = (denselayer16).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, )
    _16 = [argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15]
    return torch.cat(_16, 1)
