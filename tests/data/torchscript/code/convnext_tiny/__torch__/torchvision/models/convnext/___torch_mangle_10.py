class CNBlock(Module):
  __parameters__ = ["layer_scale", ]
  __buffers__ = []
  layer_scale : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  block : __torch__.torch.nn.modules.container.___torch_mangle_9.Sequential
  stochastic_depth : __torch__.torchvision.ops.stochastic_depth.StochasticDepth
  def forward(self: __torch__.torchvision.models.convnext.___torch_mangle_10.CNBlock,
    input: Tensor) -> Tensor:
    layer_scale = self.layer_scale
    block = self.block
    result = torch.mul(layer_scale, (block).forward(input, ))
    stochastic_depth = self.stochastic_depth
    result0 = (stochastic_depth).forward(result, )
    return torch.add_(result0, input)
