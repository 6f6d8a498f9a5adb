class _DenseBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  denselayer1 : __torch__.torchvision.models.densenet.___torch_mangle_140._DenseLayer
  denselayer2 : __torch__.torchvision.models.densenet.___torch_mangle_147._DenseLayer
  denselayer3 : __torch__.torchvision.models.densenet.___torch_mangle_154._DenseLayer
  denselayer4 : __torch__.torchvision.models.densenet.___torch_mangle_161._DenseLayer
  denselayer5 : __torch__.torchvision.models.densenet.___torch_mangle_168._DenseLayer
  denselayer6 : __torch__.torchvision.models.densenet.___torch_mangle_175._DenseLayer
  denselayer7 : __torch__.torchvision.models.densenet.___torch_mangle_182._DenseLayer
  denselayer8 : __torch__.torchvision.models.densenet.___torch_mangle_189._DenseLayer
  denselayer9 : __torch__.torchvision.models.densenet.___torch_mangle_196._DenseLayer
  denselayer10 : __torch__.torchvision.models.densenet.___torch_mangle_203._DenseLayer
  denselayer11 : __torch__.torchvision.models.densenet.___torch_mangle_210._DenseLayer
  denselayer12 : __torch__.torchvision.models.densenet.___torch_mangle_217._DenseLayer
  denselayer13 : __torch__.torchvision.models.densenet.___torch_mangle_224._DenseLayer
  denselayer14 : __torch__.torchvision.models.densenet.___torch_mangle_231._DenseLayer
  denselayer15 : __torch__.torchvision.models.densenet.___torch_mangle_238._DenseLayer
  denselayer16 : __torch__.torchvision.models.densenet.___torch_mangle_245._DenseLayer
  denselayer17 : __torch__.torchvision.models.densenet.___torch_mangle_252._DenseLayer
  denselayer18 : __torch__.torchvision.models.densenet.___torch_mangle_259._DenseLayer
  denselayer19 : __torch__.torchvision.models.densenet.___torch_mangle_266._DenseLayer
  denselayer20 : __torch__.torchvision.models.densenet.___torch_mangle_273._DenseLayer
  denselayer21 : __torch__.torchvision.models.densenet.___torch_mangle_280._DenseLayer
  denselayer22 : __torch__.torchvision.models.densenet.___torch_mangle_287._DenseLayer
  denselayer23 : __torch__.torchvision.models.densenet.___torch_mangle_294._DenseLayer
  denselayer24 : __torch__.torchvision.models.densenet.___torch_mangle_301._DenseLayer
  def forward(self: __torch__.torchvision.models.densenet.___torch_mangle_302._DenseBlock,
    argument_1: Tensor) -> Tensor:
    denselayer24 = self.denselayer24
    denselayer23 = self.denselayer23
    denselayer22 = self.denselayer22
    denselayer21 = self.denselayer21
    denselayer20 = self.denselayer20
    denselayer19 = self.denselayer19
    denselayer18 = self.denselayer18
    denselayer17 = self.denselayer17
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
    _16 = (denselayer17).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, )
    _17 = (denselayer18).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, )
    _18 = (denselayer19).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, )
    _19 = (denselayer20).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, )
    _20 = (denselayer21).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, )
    _21 = (denselayer22).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, )
    _22 = (denselayer23).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, )
    _23 = (denselayer24).forward(argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, )
    _24 = [argument_1, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23]
    return torch.cat(_24, 1)
