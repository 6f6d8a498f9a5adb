class Conv2dNormActivation(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  out_channels : int
  __annotations__["0"] = __torch__.torch.nn.modules.conv.Conv2d
  __annotations__["1"] = __torch__.torchvision.models.convnext.LayerNorm2d
  def forward(self: __torch__.torchvision.ops.misc.Conv2dNormActivation,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    input0 = (_0).forward(input, )
    return (_1).forward(input0, )
  def __len__(self: __torch__.torchvision.ops.misc.Conv2dNormActivation) -> int:
    return 2
class Permute(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  dims : List[int]
  def forward(self: __torch__.torchvision.ops.misc.Permute,
    x: Tensor) -> Tensor:
    dims = self.dims
    return torch.permute(x, dims)
