class IntermediateLayerGetter(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  return_layers : Dict[str, str]
  __annotations__["0"] = __torch__.torchvision.ops.misc.Conv2dNormActivation
  __annotations__["1"] = __torch__.torchvision.models.mobilenetv3.InvertedResidual
  __annotations__["2"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_13.InvertedResidual
  __annotations__["3"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_22.InvertedResidual
  __annotations__["4"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_30.InvertedResidual
  __annotations__["5"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_42.InvertedResidual
  __annotations__["6"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_42.InvertedResidual
  __annotations__["7"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_52.InvertedResidual
  __annotations__["8"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_61.InvertedResidual
  __annotations__["9"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_70.InvertedResidual
  __annotations__["10"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_70.InvertedResidual
  __annotations__["11"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_83.InvertedResidual
  __annotations__["12"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_95.InvertedResidual
  __annotations__["13"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_102.InvertedResidual
  __annotations__["14"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_114.InvertedResidual
  __annotations__["15"] = __torch__.torchvision.models.mobilenetv3.___torch_mangle_114.InvertedResidual
  __annotations__["16"] = __torch__.torchvision.ops.misc.___torch_mangle_105.Conv2dNormActivation
  def forward(self: __torch__.torchvision.models._utils.IntermediateLayerGetter,
    x: Tensor) -> Dict[str, Tensor]:
    out = torch.dict()
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    _2 = getattr(self, "2")
    _3 = getattr(self, "3")
    _4 = getattr(self, "4")
    _5 = getattr(self, "5")
    _6 = getattr(self, "6")
    _7 = getattr(self, "7")
    _8 = getattr(self, "8")
    _9 = getattr(self, "9")
    _10 = getattr(self, "10")
    _11 = getattr(self, "11")
    _12 = getattr(self, "12")
    _13 = getattr(self, "13")
    _14 = getattr(self, "14")
    _15 = getattr(self, "15")
    _16 = getattr(self, "16")
    x0 = (_0).forward(x, )
    return_layers = self.return_layers
    _17 = torch.__contains__(return_layers, "0")
    if _17:
      return_layers0 = self.return_layers
      out_name = return_layers0["0"]
      torch._set_item(out, out_name, x0)
    else:
      pass
    x1 = (_1).forward(x0, )
    return_layers1 = self.return_layers
    _18 = torch.__contains__(return_layers1, "1")
    if _18:
      return_layers2 = self.return_layers
      out_name0 = return_layers2["1"]
      torch._set_item(out, out_name0, x1)
    else:
      pass
    x2 = (_2).forward(x1, )
    return_layers3 = self.return_layers
    _19 = torch.__contains__(return_layers3, "2")
    if _19:
      return_layers4 = self.return_layers
      out_name1 = return_layers4["2"]
      torch._set_item(out, out_name1, x2)
    else:
      pass
    x3 = (_3).forward(x2, )
    return_layers5 = self.return_layers
    _20 = torch.__contains__(return_layers5, "3")
    if _20:
      return_layers6 = self.return_layers
      out_name2 = return_layers6["3"]
      torch._set_item(out, out_name2, x3)
    else:
      pass
    x4 = (_4).forward(x3, )
    return_layers7 = self.return_layers
    _21 = torch.__contains__(return_layers7, "4")
    if _21:
      return_layers8 = self.return_layers
      out_name3 = return_layers8["4"]
      torch._set_item(out, out_name3, x4)
    else:
      pass
    x5 = (_5).forward(x4, )
    return_layers9 = self.return_layers
    _22 = torch.__contains__(return_layers9, "5")
    if _22:
      return_layers10 = self.return_layers
      out_name4 = return_layers10["5"]
      torch._set_item(out, out_name4, x5)
    else:
      pass
    x6 = (_6).forward(x5, )
    return_layers11 = self.return_layers
    _23 = torch.__contains__(return_layers11, "6")
    if _23:
      return_layers12 = self.return_layers
      out_name5 = return_layers12["6"]
      torch._set_item(out, out_name5, x6)
    else:
      pass
    x7 = (_7).forward(x6, )
    return_layers13 = self.return_layers
    _24 = torch.__contains__(return_layers13, "7")
    if _24:
      return_layers14 = self.return_layers
      out_name6 = return_layers14["7"]
      torch._set_item(out, out_name6, x7)
    else:
      pass
    x8 = (_8).forward(x7, )
    return_layers15 = self.return_layers
    _25 = torch.__contains__(return_layers15, "8")
    if _25:
      return_layers16 = self.return_layers
      out_name7 = return_layers16["8"]
      torch._set_item(out, out_name7, x8)
    else:
      pass
    x9 = (_9).forward(x8, )
    return_layers17 = self.return_layers
    _26 = torch.__contains__(return_layers17, "9")
    if _26:
      return_layers18 = self.return_layers
      out_name8 = return_layers18["9"]
      torch._set_item(out, out_name8, x9)
    else:
      pass
    x10 = (_10).forward(x9, )
    return_layers19 = self.return_layers
    _27 = torch.__contains__(return_layers19, "10")
    if _27:
      return_layers20 = self.return_layers
      out_name9 = return_layers20["10"]
      torch._set_item(out, out_name9, x10)
    else:
      pass
    x11 = (_11).forward(x10, )
    return_layers21 = self.return_layers
    _28 = torch.__contains__(return_layers21, "11")
    if _28:
      return_layers22 = self.return_layers
      out_name10 = return_layers22["11"]
      torch._set_item(out, out_name10, x11)
    else:
      pass
    x12 = (_12).forward(x11, )
    return_layers23 = self.return_layers
    _29 = torch.__contains__(return_layers23, "12")
    if _29:
      return_layers24 = self.return_layers
      out_name11 = return_layers24["12"]
      torch._set_item(out, out_name11, x12)
    else:
      pass
    x13 = (_13).forward(x12, )
    return_layers25 = self.return_layers
    _30 = torch.__contains__(return_layers25, "13")
    if _30:
      return_layers26 = self.return_layers
      out_name12 = return_layers26["13"]
      torch._set_item(out, out_name12, x13)
    else:
      pass
    x14 = (_14).forward(x13, )
    return_layers27 = self.return_layers
    _31 = torch.__contains__(return_layers27, "14")
    if _31:
      return_layers28 = self.return_layers
      out_name13 = return_layers28["14"]
      torch._set_item(out, out_name13, x14)
    else:
      pass
    x15 = (_15).forward(x14, )
    return_layers29 = self.return_layers
    _32 = torch.__contains__(return_layers29, "15")
    if _32:
      return_layers30 = self.return_layers
      out_name14 = return_layers30["15"]
      torch._set_item(out, out_name14, x15)
    else:
      pass
    x16 = (_16).forward(x15, )
    return_layers31 = self.return_layers
    _33 = torch.__contains__(return_layers31, "16")
    if _33:
      return_layers32 = self.return_layers
      out_name15 = return_layers32["16"]
      torch._set_item(out, out_name15, x16)
    else:
      pass
    return out
  def __len__(self: __torch__.torchvision.models._utils.IntermediateLayerGetter) -> int:
    return 17
  def __contains__(self: __torch__.torchvision.models._utils.IntermediateLayerGetter,
    key: str) -> bool:
    _17 = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"]
    return torch.__contains__(_17, key)
