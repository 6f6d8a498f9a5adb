class Quantize(Module):
  __parameters__ = []
  __buffers__ = ["scale", "zero_point", ]
  scale : Tensor
  zero_point : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  dtype : int
  def forward(self: __torch__.torch.ao.nn.quantized.modules.Quantize,
    X: Tensor) -> Tensor:
    scale = self.scale
    _0 = float(scale)
    zero_point = self.zero_point
    _1 = int(zero_point)
    dtype = self.dtype
    _2 = torch.quantize_per_tensor(X, _0, _1, dtype)
    return _2
class DeQuantize(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.ao.nn.quantized.modules.DeQuantize,
    Xq: Tensor) -> Tensor:
    return torch.dequantize(Xq)
