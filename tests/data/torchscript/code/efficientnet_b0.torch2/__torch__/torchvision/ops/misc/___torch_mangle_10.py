class Conv2dNormActivation(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  out_channels : int
  __annotations__["0"] = __torch__.torch.nn.modules.conv.___torch_mangle_8.Conv2d
  __annotations__["1"] = __torch__.torch.nn.modules.batchnorm.___torch_mangle_9.BatchNorm2d
  __annotations__["2"] = __torch__.torch.nn.modules.activation.SiLU
  def forward(self: __torch__.torchvision.ops.misc.___torch_mangle_10.Conv2dNormActivation,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    _2 = getattr(self, "2")
    input0 = (_0).forward(input, )
    input1 = (_1).forward(input0, )
    return (_2).forward(input1, )
  def __len__(self: __torch__.torchvision.ops.misc.___torch_mangle_10.Conv2dNormActivation) -> int:
    return 3
