class FeaturePyramidNetwork(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  inner_blocks : __torch__.torch.nn.modules.container.ModuleList
  layer_blocks : __torch__.torch.nn.modules.container.___torch_mangle_121.ModuleList
  extra_blocks : __torch__.torchvision.ops.feature_pyramid_network.LastLevelMaxPool
  def forward(self: __torch__.torchvision.ops.feature_pyramid_network.FeaturePyramidNetwork,
    x: Dict[str, Tensor]) -> Dict[str, Tensor]:
    _0 = __torch__.torch.nn.functional.___torch_mangle_129.interpolate
    names = torch.list(torch.keys(x))
    x0 = torch.list(torch.values(x))
    last_inner = (self).get_result_from_inner_blocks(x0[-1], -1, )
    _1 = annotate(List[Tensor], [])
    _2 = (self).get_result_from_layer_blocks(last_inner, -1, )
    _3 = torch.append(_1, _2)
    _4 = torch.sub(torch.len(x0), 2)
    last_inner0 = last_inner
    for _5 in range(torch.__range_length(_4, -1, -1)):
      idx = torch.__derive_index(_5, _4, -1)
      inner_lateral = (self).get_result_from_inner_blocks(x0[idx], idx, )
      feat_shape = torch.slice(torch.size(inner_lateral), -2)
      inner_top_down = _0(last_inner0, feat_shape, None, "nearest", None, None, False, )
      last_inner1 = torch.add(inner_lateral, inner_top_down)
      _6 = (self).get_result_from_layer_blocks(last_inner1, idx, )
      torch.insert(_1, 0, _6)
      last_inner0 = last_inner1
    extra_blocks = self.extra_blocks
    _7 = (extra_blocks).forward(_1, x0, names, )
    results, names0, = _7
    _8 = annotate(List[Tuple[str, Tensor]], [])
    _9 = [torch.len(names0), torch.len(results)]
    for _10 in range(ops.prim.min(_9)):
      k = names0[_10]
      v = results[_10]
      _11 = torch.append(_8, (k, v))
    return torch.dict(_8)
  def get_result_from_inner_blocks(self: __torch__.torchvision.ops.feature_pyramid_network.FeaturePyramidNetwork,
    x: Tensor,
    idx: int) -> Tensor:
    inner_blocks = self.inner_blocks
    num_blocks = (inner_blocks).__len__()
    if torch.lt(idx, 0):
      idx0 = torch.add(idx, num_blocks)
    else:
      idx0 = idx
    inner_blocks0 = self.inner_blocks
    _0 = getattr(inner_blocks0, "0")
    _1 = getattr(inner_blocks0, "1")
    if torch.eq(0, idx0):
      out = (_0).forward(x, )
    else:
      out = x
    if torch.eq(1, idx0):
      out0 = (_1).forward(x, )
    else:
      out0 = out
    return out0
  def get_result_from_layer_blocks(self: __torch__.torchvision.ops.feature_pyramid_network.FeaturePyramidNetwork,
    x: Tensor,
    idx: int) -> Tensor:
    layer_blocks = self.layer_blocks
    num_blocks = (layer_blocks).__len__()
    if torch.lt(idx, 0):
      idx1 = torch.add(idx, num_blocks)
    else:
      idx1 = idx
    layer_blocks0 = self.layer_blocks
    _0 = getattr(layer_blocks0, "0")
    _1 = getattr(layer_blocks0, "1")
    if torch.eq(0, idx1):
      out = (_0).forward(x, )
    else:
      out = x
    if torch.eq(1, idx1):
      out1 = (_1).forward(x, )
    else:
      out1 = out
    return out1
class LastLevelMaxPool(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torchvision.ops.feature_pyramid_network.LastLevelMaxPool,
    x: List[Tensor],
    y: List[Tensor],
    names: List[str]) -> Tuple[List[Tensor], List[str]]:
    _12 = __torch__.torch.nn.functional._max_pool2d
    _13 = torch.append(names, "pool")
    _14 = _12(x[-1], [1, 1], [2, 2], [0, 0], [1, 1], False, False, )
    _15 = torch.append(x, _14)
    return (x, names)
