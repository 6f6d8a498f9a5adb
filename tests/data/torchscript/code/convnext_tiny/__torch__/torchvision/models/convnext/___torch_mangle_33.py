class LayerNorm2d(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  eps : Final[float] = 9.9999999999999995e-07
  normalized_shape : Final[Tuple[int]] = (768,)
  elementwise_affine : Final[bool] = True
  def forward(self: __torch__.torchvision.models.convnext.___torch_mangle_33.LayerNorm2d,
    x: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.layer_norm
    x0 = torch.permute(x, [0, 2, 3, 1])
    weight = self.weight
    bias = self.bias
    x1 = _0(x0, [768], weight, bias, 9.9999999999999995e-07, )
    return torch.permute(x1, [0, 3, 1, 2])
