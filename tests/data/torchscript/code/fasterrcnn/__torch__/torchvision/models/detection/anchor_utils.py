class AnchorGenerator(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  sizes : Tuple[Tuple[int, int, int, int, int], Tuple[int, int, int, int, int], Tuple[int, int, int, int, int]]
  aspect_ratios : Tuple[Tuple[float, float, float], Tuple[float, float, float], Tuple[float, float, float]]
  cell_anchors : List[Tensor]
  def forward(self: __torch__.torchvision.models.detection.anchor_utils.AnchorGenerator,
    image_list: __torch__.torchvision.models.detection.image_list.ImageList,
    feature_maps: List[Tensor]) -> List[Tensor]:
    grid_sizes = annotate(List[List[int]], [])
    for _0 in range(torch.len(feature_maps)):
      feature_map = feature_maps[_0]
      _1 = torch.slice(torch.size(feature_map), -2)
      _2 = torch.append(grid_sizes, _1)
    tensors = image_list.tensors
    image_size = torch.slice(torch.size(tensors), -2)
    dtype = ops.prim.dtype(feature_maps[0])
    device = ops.prim.device(feature_maps[0])
    strides = annotate(List[List[Tensor]], [])
    for _3 in range(torch.len(grid_sizes)):
      g = grid_sizes[_3]
      _4 = torch.empty(annotate(List[int], []), dtype=4, layout=None, device=device)
      _5 = torch.floordiv(image_size[0], g[0])
      _6 = torch.fill_(_4, _5)
      _7 = torch.empty(annotate(List[int], []), dtype=4, layout=None, device=device)
      _8 = torch.floordiv(image_size[1], g[1])
      _9 = torch.append(strides, [_6, torch.fill_(_7, _8)])
    _10 = (self).set_cell_anchors(dtype, device, )
    anchors_over_all_feature_maps = (self).grid_anchors(grid_sizes, strides, )
    anchors = annotate(List[List[Tensor]], [])
    image_sizes = image_list.image_sizes
    for _11 in range(torch.len(image_sizes)):
      anchors_in_image = annotate(List[Tensor], [])
      _12 = torch.len(anchors_over_all_feature_maps)
      for _13 in range(_12):
        anchors_per_feature_map = anchors_over_all_feature_maps[_13]
        _14 = torch.append(anchors_in_image, anchors_per_feature_map)
      _15 = torch.append(anchors, anchors_in_image)
    anchors0 = annotate(List[Tensor], [])
    for _16 in range(torch.len(anchors)):
      anchors_per_image = anchors[_16]
      _17 = torch.append(anchors0, torch.cat(anchors_per_image))
    return anchors0
  def set_cell_anchors(self: __torch__.torchvision.models.detection.anchor_utils.AnchorGenerator,
    dtype: int,
    device: Device) -> NoneType:
    _18 = annotate(List[Tensor], [])
    cell_anchors = self.cell_anchors
    for _19 in range(torch.len(cell_anchors)):
      cell_anchor = cell_anchors[_19]
      _20 = torch.to(cell_anchor, device, dtype)
      _21 = torch.append(_18, _20)
    self.cell_anchors = _18
    return None
  def grid_anchors(self: __torch__.torchvision.models.detection.anchor_utils.AnchorGenerator,
    grid_sizes: List[List[int]],
    strides: List[List[Tensor]]) -> List[Tensor]:
    _22 = "AssertionError: Anchors should be Tuple[Tuple[int]] because each feature map could potentially have different sizes and aspect ratios. There needs to be a match between the number of feature maps passed and the number of sizes / aspect ratios specified."
    _23 = annotate(List[Tensor], [])
    cell_anchors = self.cell_anchors
    _24 = torch.eq(torch.len(grid_sizes), torch.len(strides))
    if _24:
      _26 = torch.eq(torch.len(strides), torch.len(cell_anchors))
      _25 = _26
    else:
      _25 = False
    if _25:
      pass
    else:
      ops.prim.RaiseException(_22)
    _27 = [torch.len(grid_sizes), torch.len(strides), torch.len(cell_anchors)]
    for _28 in range(ops.prim.min(_27)):
      size = grid_sizes[_28]
      stride = strides[_28]
      base_anchors = cell_anchors[_28]
      grid_height, grid_width, = size
      stride_height, stride_width, = stride
      device = ops.prim.device(base_anchors)
      _29 = torch.arange(0, grid_width, dtype=3, layout=None, device=device)
      shifts_x = torch.mul(_29, stride_width)
      _30 = torch.arange(0, grid_height, dtype=3, layout=None, device=device)
      shifts_y = torch.mul(_30, stride_height)
      _31 = torch.meshgrid([shifts_y, shifts_x], indexing="ij")
      shift_y, shift_x, = _31
      shift_x0 = torch.reshape(shift_x, [-1])
      shift_y0 = torch.reshape(shift_y, [-1])
      _32 = [shift_x0, shift_y0, shift_x0, shift_y0]
      shifts = torch.stack(_32, 1)
      _33 = torch.view(shifts, [-1, 1, 4])
      _34 = torch.view(base_anchors, [1, -1, 4])
      _35 = torch.reshape(torch.add(_33, _34), [-1, 4])
      _36 = torch.append(_23, _35)
    return _23
