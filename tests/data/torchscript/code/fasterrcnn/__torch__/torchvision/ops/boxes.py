def clip_boxes_to_image(boxes: Tensor,
    size: Tuple[int, int]) -> Tensor:
  dim = torch.dim(boxes)
  boxes_x = torch.slice(boxes, -1, 0, None, 2)
  boxes_y = torch.slice(boxes, -1, 1, None, 2)
  height, width, = size
  if __torch__.torchvision._is_tracing():
    _0 = torch.tensor(0, dtype=ops.prim.dtype(boxes), device=ops.prim.device(boxes))
    boxes_x1 = torch.max(boxes_x, _0)
    _1 = torch.tensor(width, dtype=ops.prim.dtype(boxes), device=ops.prim.device(boxes))
    boxes_x2 = torch.min(boxes_x1, _1)
    _2 = torch.tensor(0, dtype=ops.prim.dtype(boxes), device=ops.prim.device(boxes))
    boxes_y1 = torch.max(boxes_y, _2)
    _3 = torch.tensor(height, dtype=ops.prim.dtype(boxes), device=ops.prim.device(boxes))
    boxes_x0, boxes_y0 = boxes_x2, torch.min(boxes_y1, _3)
  else:
    boxes_x0, boxes_y0 = torch.clamp(boxes_x, 0, width), torch.clamp(boxes_y, 0, height)
  clipped_boxes = torch.stack([boxes_x0, boxes_y0], dim)
  _4 = torch.reshape(clipped_boxes, torch.size(boxes))
  return _4
def remove_small_boxes(boxes: Tensor,
    min_size: float) -> Tensor:
  _5 = torch.select(torch.slice(boxes), 1, 2)
  _6 = torch.select(torch.slice(boxes), 1, 0)
  ws = torch.sub(_5, _6)
  _7 = torch.select(torch.slice(boxes), 1, 3)
  _8 = torch.select(torch.slice(boxes), 1, 1)
  hs = torch.sub(_7, _8)
  keep = torch.__and__(torch.ge(ws, min_size), torch.ge(hs, min_size))
  return (torch.where(keep))[0]
def batched_nms(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  _9 = __torch__.torchvision.ops.boxes._batched_nms_vanilla
  _10 = __torch__.torchvision.ops.boxes._batched_nms_coordinate_trick
  _11 = torch.numel(boxes)
  _12 = torch.eq(ops.prim.type(ops.prim.device(boxes)), "cpu")
  if _12:
    _13 = 4000
  else:
    _13 = 20000
  if torch.gt(_11, _13):
    _15 = torch.__not__(__torch__.torchvision._is_tracing())
    _14 = _15
  else:
    _14 = False
  if _14:
    _17 = _9(boxes, scores, idxs, iou_threshold, )
    _16 = _17
  else:
    _18 = _10(boxes, scores, idxs, iou_threshold, )
    _16 = _18
  return _16
def box_iou(boxes1: Tensor,
    boxes2: Tensor) -> Tensor:
  _19 = __torch__.torchvision.ops.boxes._box_inter_union
  inter, union, = _19(boxes1, boxes2, )
  return torch.div(inter, union)
def box_area(boxes: Tensor) -> Tensor:
  _20 = __torch__.torchvision.ops._utils._upcast
  boxes0 = _20(boxes, )
  _21 = torch.select(torch.slice(boxes0), 1, 2)
  _22 = torch.select(torch.slice(boxes0), 1, 0)
  _23 = torch.sub(_21, _22)
  _24 = torch.select(torch.slice(boxes0), 1, 3)
  _25 = torch.select(torch.slice(boxes0), 1, 1)
  return torch.mul(_23, torch.sub(_24, _25))
def _batched_nms_vanilla(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  _26 = __torch__.torch.functional._return_output
  keep_mask = torch.zeros_like(scores, dtype=11)
  _27 = _26(idxs, True, False, False, None, )
  for _28 in range(torch.len(_27)):
    class_id = torch.select(_27, 0, _28)
    _29 = torch.where(torch.eq(idxs, class_id))
    curr_indices = _29[0]
    _30 = annotate(List[Optional[Tensor]], [curr_indices])
    _31 = torch.index(boxes, _30)
    _32 = annotate(List[Optional[Tensor]], [curr_indices])
    curr_keep_indices = __torch__.torchvision.ops.boxes.nms(_31, torch.index(scores, _32), iou_threshold, )
    _33 = annotate(List[Optional[Tensor]], [curr_keep_indices])
    _34 = torch.index(curr_indices, _33)
    _35 = torch.tensor(True, dtype=ops.prim.dtype(keep_mask), device=ops.prim.device(keep_mask))
    _36 = annotate(List[Optional[Tensor]], [_34])
    _37 = torch.index_put_(keep_mask, _36, _35)
  keep_indices = (torch.where(keep_mask))[0]
  _38 = annotate(List[Optional[Tensor]], [keep_indices])
  _39, _40 = torch.sort(torch.index(scores, _38), -1, True)
  _41 = annotate(List[Optional[Tensor]], [_40])
  return torch.index(keep_indices, _41)
def _batched_nms_coordinate_trick(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  if torch.eq(torch.numel(boxes), 0):
    _43 = ops.prim.device(boxes)
    _44 = torch.empty([0], dtype=4, layout=None, device=_43)
    _42 = _44
  else:
    max_coordinate = torch.max(boxes)
    _45 = torch.to(idxs, boxes)
    _46 = torch.add(max_coordinate, torch.to(torch.tensor(1), boxes))
    offsets = torch.mul(_45, _46)
    _47 = torch.unsqueeze(torch.slice(offsets), 1)
    boxes_for_nms = torch.add(boxes, _47)
    keep = __torch__.torchvision.ops.boxes.nms(boxes_for_nms, scores, iou_threshold, )
    _42 = keep
  return _42
def _box_inter_union(boxes1: Tensor,
    boxes2: Tensor) -> Tuple[Tensor, Tensor]:
  _48 = __torch__.torchvision.ops.boxes.box_area
  _49 = __torch__.torchvision.ops._utils._upcast
  area1 = _48(boxes1, )
  area2 = _48(boxes2, )
  _50 = torch.unsqueeze(torch.slice(boxes1), 1)
  _51 = torch.slice(_50, 2, None, 2)
  _52 = torch.slice(torch.slice(boxes2), 1, None, 2)
  lt = torch.max(_51, _52)
  _53 = torch.unsqueeze(torch.slice(boxes1), 1)
  _54 = torch.slice(_53, 2, 2)
  _55 = torch.slice(torch.slice(boxes2), 1, 2)
  rb = torch.min(_54, _55)
  wh = torch.clamp(_49(torch.sub(rb, lt), ), 0)
  _56 = torch.select(torch.slice(torch.slice(wh), 1), 2, 0)
  _57 = torch.select(torch.slice(torch.slice(wh), 1), 2, 1)
  inter = torch.mul(_56, _57)
  _58 = torch.unsqueeze(torch.slice(area1), 1)
  union = torch.sub(torch.add(_58, area2), inter)
  return (inter, union)
def nms(boxes: Tensor,
    scores: Tensor,
    iou_threshold: float) -> Tensor:
  _59 = __torch__.torchvision.extension._assert_has_ops
  _60 = _59()
  _61 = ops.torchvision.nms(boxes, scores, iou_threshold)
  return _61
