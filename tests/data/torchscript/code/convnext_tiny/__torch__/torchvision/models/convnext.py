class ConvNeXt(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  features : __torch__.torch.nn.modules.container.___torch_mangle_32.Sequential
  avgpool : __torch__.torch.nn.modules.pooling.AdaptiveAvgPool2d
  classifier : __torch__.torch.nn.modules.container.___torch_mangle_35.Sequential
  def forward(self: __torch__.torchvision.models.convnext.ConvNeXt,
    x: Tensor) -> Tensor:
    return (self)._forward_impl(x, )
  def _forward_impl(self: __torch__.torchvision.models.convnext.ConvNeXt,
    x: Tensor) -> Tensor:
    features = self.features
    x0 = (features).forward(x, )
    avgpool = self.avgpool
    x1 = (avgpool).forward(x0, )
    classifier = self.classifier
    return (classifier).forward(x1, )
class LayerNorm2d(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  eps : Final[float] = 9.9999999999999995e-07
  normalized_shape : Final[Tuple[int]] = (96,)
  elementwise_affine : Final[bool] = True
  def forward(self: __torch__.torchvision.models.convnext.LayerNorm2d,
    x: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.layer_norm
    x2 = torch.permute(x, [0, 2, 3, 1])
    weight = self.weight
    bias = self.bias
    x3 = _0(x2, [96], weight, bias, 9.9999999999999995e-07, )
    return torch.permute(x3, [0, 3, 1, 2])
class CNBlock(Module):
  __parameters__ = ["layer_scale", ]
  __buffers__ = []
  layer_scale : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  block : __torch__.torch.nn.modules.container.Sequential
  stochastic_depth : __torch__.torchvision.ops.stochastic_depth.StochasticDepth
  def forward(self: __torch__.torchvision.models.convnext.CNBlock,
    input: Tensor) -> Tensor:
    layer_scale = self.layer_scale
    block = self.block
    result = torch.mul(layer_scale, (block).forward(input, ))
    stochastic_depth = self.stochastic_depth
    result0 = (stochastic_depth).forward(result, )
    return torch.add_(result0, input)
