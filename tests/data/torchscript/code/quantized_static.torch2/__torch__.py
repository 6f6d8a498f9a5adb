class QuantSmall(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  quant : __torch__.torch.ao.nn.quantized.modules.Quantize
  conv : __torch__.torch.ao.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d
  bn : __torch__.torch.nn.modules.linear.Identity
  relu : __torch__.torch.nn.modules.linear.Identity
  fc : __torch__.torch.ao.nn.quantized.modules.linear.Linear
  dequant : __torch__.torch.ao.nn.quantized.modules.DeQuantize
  def forward(self: __torch__.QuantSmall,
    x: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.adaptive_avg_pool2d
    quant = self.quant
    x0 = (quant).forward(x, )
    relu = self.relu
    bn = self.bn
    conv = self.conv
    _1 = (bn).forward((conv).forward(x0, ), )
    x1 = (relu).forward(_1, )
    x2 = torch.flatten(_0(x1, [1, 1], ), 1)
    fc = self.fc
    x3 = (fc).forward(x2, )
    dequant = self.dequant
    return (dequant).forward(x3, )
