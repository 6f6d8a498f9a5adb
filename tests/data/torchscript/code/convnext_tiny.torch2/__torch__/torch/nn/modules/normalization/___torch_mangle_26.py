class LayerNorm(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  eps : Final[float] = 9.9999999999999995e-07
  normalized_shape : Final[Tuple[int]] = (768,)
  elementwise_affine : Final[bool] = True
  def forward(self: __torch__.torch.nn.modules.normalization.___torch_mangle_26.LayerNorm,
    input: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.layer_norm
    weight = self.weight
    bias = self.bias
    _1 = _0(input, [768], weight, bias, 9.9999999999999995e-07, )
    return _1
