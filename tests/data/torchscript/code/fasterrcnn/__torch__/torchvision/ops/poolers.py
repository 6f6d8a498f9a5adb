class MultiScaleRoIAlign(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  featmap_names : List[str]
  sampling_ratio : int
  output_size : Tuple[int, int]
  scales : Optional[List[float]]
  map_levels : Optional[__torch__.torchvision.ops.poolers.LevelMapper]
  canonical_scale : int
  canonical_level : int
  def forward(self: __torch__.torchvision.ops.poolers.MultiScaleRoIAlign,
    x: Dict[str, Tensor],
    boxes: List[Tensor],
    image_shapes: List[Tuple[int, int]]) -> Tensor:
    _0 = __torch__.torchvision.ops.poolers._filter_input
    _1 = __torch__.torchvision.ops.poolers._setup_scales
    _2 = __torch__.torchvision.ops.poolers._multiscale_roi_align
    featmap_names = self.featmap_names
    x_filtered = _0(x, featmap_names, )
    scales = self.scales
    if torch.__is__(scales, None):
      _3 = True
    else:
      map_levels = self.map_levels
      _3 = torch.__is__(map_levels, None)
    if _3:
      canonical_scale = self.canonical_scale
      canonical_level = self.canonical_level
      _4 = _1(x_filtered, image_shapes, canonical_scale, canonical_level, )
      _5, _6, = _4
      self.scales = _5
      self.map_levels = _6
    else:
      pass
    output_size = self.output_size
    sampling_ratio = self.sampling_ratio
    scales0 = self.scales
    map_levels0 = self.map_levels
    _7, _8, = output_size
    _9 = _2(x_filtered, boxes, [_7, _8], sampling_ratio, scales0, map_levels0, )
    return _9
class LevelMapper:
  k_min : int
  k_max : int
  s0 : int
  lvl0 : int
  eps : float
  def __call__(self: __torch__.torchvision.ops.poolers.LevelMapper,
    boxlists: List[Tensor]) -> Tensor:
    _10 = __torch__.torchvision.ops.boxes.box_area
    _11 = annotate(List[Tensor], [])
    for _12 in range(torch.len(boxlists)):
      boxlist = boxlists[_12]
      _13 = torch.append(_11, _10(boxlist, ))
    s = torch.sqrt(torch.cat(_11))
    lvl0 = self.lvl0
    s0 = self.s0
    _14 = torch.add(torch.log2(torch.div(s, s0)), lvl0)
    eps = self.eps
    _15 = torch.tensor(eps, dtype=ops.prim.dtype(s))
    target_lvls = torch.floor(torch.add(_14, _15))
    k_min = self.k_min
    k_max = self.k_max
    target_lvls0 = torch.clamp(target_lvls, k_min, k_max)
    _16 = torch.to(target_lvls0, 4)
    k_min0 = self.k_min
    return torch.to(torch.sub(_16, k_min0), 4)
  def __init__(self: __torch__.torchvision.ops.poolers.LevelMapper,
    k_min: int,
    k_max: int,
    canonical_scale: int=224,
    canonical_level: int=4,
    eps: float=9.9999999999999995e-07) -> NoneType:
    self.k_min = k_min
    self.k_max = k_max
    self.s0 = canonical_scale
    self.lvl0 = canonical_level
    self.eps = eps
    return None
def _filter_input(x: Dict[str, Tensor],
    featmap_names: List[str]) -> List[Tensor]:
  _17 = annotate(List[Tensor], [])
  _18 = torch.items(x)
  for _19 in range(torch.len(_18)):
    k, v, = _18[_19]
    _20 = torch.__contains__(featmap_names, k)
    if _20:
      _21 = torch.append(_17, v)
    else:
      pass
  return _17
def _setup_scales(features: List[Tensor],
    image_shapes: List[Tuple[int, int]],
    canonical_scale: int,
    canonical_level: int) -> Tuple[List[float], __torch__.torchvision.ops.poolers.LevelMapper]:
  _22 = __torch__.torchvision.ops.poolers._infer_scale
  _23 = __torch__.torchvision.ops.poolers.initLevelMapper
  _24 = torch.__not__(torch.gt(torch.len(image_shapes), 0))
  if _24:
    ops.prim.RaiseException("images list should not be empty", "builtins.ValueError")
  else:
    pass
  max_x = 0
  max_y = 0
  for _25 in range(torch.len(image_shapes)):
    shape = image_shapes[_25]
    max_x, max_y = ops.prim.max((shape)[0], max_x), ops.prim.max((shape)[1], max_y)
  scales = annotate(List[float], [])
  for _26 in range(torch.len(features)):
    feat = features[_26]
    _27 = torch.append(scales, _22(feat, [max_x, max_y], ))
  _28 = torch.log2(torch.tensor(scales[0], dtype=6))
  lvl_min = torch.neg(torch.item(_28))
  _29 = torch.log2(torch.tensor(scales[-1], dtype=6))
  lvl_max = torch.neg(torch.item(_29))
  map_levels = _23(int(lvl_min), int(lvl_max), canonical_scale, canonical_level, 9.9999999999999995e-07, )
  return (scales, map_levels)
def _multiscale_roi_align(x_filtered: List[Tensor],
    boxes: List[Tensor],
    output_size: List[int],
    sampling_ratio: int,
    scales: Optional[List[float]],
    mapper: Optional[__torch__.torchvision.ops.poolers.LevelMapper]) -> Tensor:
  _30 = "scales and mapper should not be None"
  _31 = __torch__.torchvision.ops.poolers._convert_to_roi_format
  _32 = __torch__.torchvision.ops.roi_align.roi_align
  _33 = "This Python function is annotated to be ignored and cannot be run"
  _34 = uninitialized(Tensor)
  _35 = uninitialized(__torch__.torchvision.ops.poolers.LevelMapper)
  _36 = uninitialized(List[float])
  if torch.__is__(scales, None):
    _37, scales1 = True, scales
  else:
    scales2 = unchecked_cast(List[float], scales)
    _37, scales1 = torch.__is__(mapper, None), scales2
  if _37:
    ops.prim.RaiseException(_30, "builtins.ValueError")
    scales3, mapper0 = _36, _35
  else:
    scales4 = unchecked_cast(List[float], scales1)
    mapper1 = unchecked_cast(__torch__.torchvision.ops.poolers.LevelMapper, mapper)
    scales3, mapper0 = scales4, mapper1
  num_levels = torch.len(x_filtered)
  rois = _31(boxes, )
  if torch.eq(num_levels, 1):
    _39 = _32(x_filtered[0], rois, output_size, scales3[0], sampling_ratio, False, )
    _38 = _39
  else:
    levels = (mapper0).__call__(boxes, )
    num_rois = torch.len(rois)
    num_channels = (torch.size(x_filtered[0]))[1]
    dtype = ops.prim.dtype(x_filtered[0])
    device = ops.prim.device(x_filtered[0])
    _40 = torch.add([num_rois, num_channels], output_size)
    result = torch.zeros(_40, dtype=dtype, layout=None, device=device)
    _41 = [9223372036854775807, torch.len(x_filtered), torch.len(scales3)]
    for level in range(ops.prim.min(_41)):
      per_level_feature = x_filtered[level]
      scale = scales3[level]
      _42 = torch.where(torch.eq(levels, level))
      idx_in_level = _42[0]
      _43 = annotate(List[Optional[Tensor]], [idx_in_level])
      rois_per_level = torch.index(rois, _43)
      result_idx_in_level = _32(per_level_feature, rois_per_level, output_size, scale, sampling_ratio, False, )
      _44 = __torch__.torchvision._is_tracing()
      if _44:
        pass
      else:
        _45 = torch.to(result_idx_in_level, ops.prim.dtype(result))
        _46 = annotate(List[Optional[Tensor]], [idx_in_level])
        _47 = torch.index_put_(result, _46, _45)
    if __torch__.torchvision._is_tracing():
      ops.prim.RaiseException(_33)
      result0 = _34
    else:
      result0 = result
    _38 = result0
  return _38
def _infer_scale(feature: Tensor,
    original_size: List[int]) -> float:
  size = torch.slice(torch.size(feature), -2)
  possible_scales = annotate(List[float], [])
  _48 = [torch.len(size), torch.len(original_size)]
  for _49 in range(ops.prim.min(_48)):
    s1 = size[_49]
    s2 = original_size[_49]
    approx_scale = torch.div(float(s1), float(s2))
    _50 = torch.log2(torch.tensor(approx_scale))
    scale = torch.pow(2, float(torch.round(_50)))
    _51 = torch.append(possible_scales, scale)
  return possible_scales[0]
def initLevelMapper(k_min: int,
    k_max: int,
    canonical_scale: int=224,
    canonical_level: int=4,
    eps: float=9.9999999999999995e-07) -> __torch__.torchvision.ops.poolers.LevelMapper:
  _52 = __torch__.torchvision.ops.poolers.LevelMapper.__new__(__torch__.torchvision.ops.poolers.LevelMapper)
  _53 = (_52).__init__(k_min, k_max, canonical_scale, canonical_level, eps, )
  return _52
def _convert_to_roi_format(boxes: List[Tensor]) -> Tensor:
  concat_boxes = torch.cat(boxes)
  device = ops.prim.device(concat_boxes)
  dtype = ops.prim.dtype(concat_boxes)
  _54 = annotate(List[Tensor], [])
  _55 = [9223372036854775807, torch.len(boxes)]
  for i in range(ops.prim.min(_55)):
    b = boxes[i]
    _56 = torch.slice(torch.slice(b), 1, None, 1)
    _57 = torch.full_like(_56, i, dtype=dtype, layout=0, device=device)
    _58 = torch.append(_54, _57)
  ids = torch.cat(_54)
  return torch.cat([ids, concat_boxes], 1)
