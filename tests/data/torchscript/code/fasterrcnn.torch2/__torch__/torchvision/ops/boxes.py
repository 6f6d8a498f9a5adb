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
  ws = torch.sub(torch.select(boxes, -1, 2), torch.select(boxes, -1, 0))
  hs = torch.sub(torch.select(boxes, -1, 3), torch.select(boxes, -1, 1))
  keep = torch.__and__(torch.ge(ws, min_size), torch.ge(hs, min_size))
  return (torch.where(keep))[0]
def batched_nms(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  _5 = __torch__.torchvision.ops.boxes._batched_nms_vanilla
  _6 = __torch__.torchvision.ops.boxes._batched_nms_coordinate_trick
  _7 = torch.numel(boxes)
  _8 = torch.eq(ops.prim.type(ops.prim.device(boxes)), "cpu")
  if _8:
    _9 = 4000
  else:
    _9 = 100000
  if torch.gt(_7, _9):
    _11 = torch.__not__(__torch__.torchvision._is_tracing())
    _10 = _11
  else:
    _10 = False
  if _10:
    _13 = _5(boxes, scores, idxs, iou_threshold, )
    _12 = _13
  else:
    _14 = _6(boxes, scores, idxs, iou_threshold, )
    _12 = _14
  return _12
def box_iou(boxes1: Tensor,
    boxes2: Tensor,
    fmt: str="xyxy") -> Tensor:
  _15 = __torch__.torchvision.ops.boxes._box_inter_union
  _16 = __torch__.torchvision.ops.boxes.box_convert
  _17 = __torch__.torchvision.extension._assert_has_ops
  _18 = "Unsupported format \'{}\'. Supported axis-aligned formats: {}. Supported rotated formats: {}."
  _19 = uninitialized(Tensor)
  _20 = torch.__contains__(["xyxy", "xywh", "cxcywh"], fmt)
  if _20:
    inter, union, = _15(boxes1, boxes2, fmt, )
    _21 = torch.div(inter, union)
  else:
    _22 = torch.__contains__(["cxcywhr", "xywhr", "xyxyxyxy"], fmt)
    if _22:
      if torch.ne(fmt, "cxcywhr"):
        boxes10, boxes20 = _16(boxes1, fmt, "cxcywhr", ), _16(boxes2, fmt, "cxcywhr", )
      else:
        boxes10, boxes20 = boxes1, boxes2
      _24 = _17()
      _25 = ops.torchvision.box_iou_rotated(boxes10, boxes20)
      _23 = _25
    else:
      _26 = torch.format(_18, fmt, ("xyxy", "xywh", "cxcywh"), ("cxcywhr", "xywhr", "xyxyxyxy"))
      ops.prim.RaiseException(_26, "builtins.ValueError")
      _23 = _19
    _21 = _23
  return _21
def box_area(boxes: Tensor,
    fmt: str="xyxy") -> Tensor:
  _27 = "Unsupported Bounding Box area for given format {}"
  _28 = __torch__.torchvision.ops._utils._upcast
  _29 = torch.__contains__(["xyxy", "xywh", "cxcywh"], fmt)
  if torch.__not__(_29):
    ops.prim.RaiseException(torch.format(_27, fmt), "builtins.ValueError")
  else:
    pass
  boxes0 = _28(boxes, )
  if torch.eq(fmt, "xyxy"):
    _30 = torch.sub(torch.select(boxes0, -1, 2), torch.select(boxes0, -1, 0))
    _31 = torch.sub(torch.select(boxes0, -1, 3), torch.select(boxes0, -1, 1))
    area = torch.mul(_30, _31)
  else:
    area0 = torch.mul(torch.select(boxes0, -1, 2), torch.select(boxes0, -1, 3))
    area = area0
  return area
def _batched_nms_vanilla(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  _32 = __torch__.torch.functional._return_output
  keep_mask = torch.zeros_like(scores, dtype=11)
  _33 = _32(idxs, True, False, False, None, )
  for _34 in range(torch.len(_33)):
    class_id = torch.select(_33, 0, _34)
    _35 = torch.where(torch.eq(idxs, class_id))
    curr_indices = _35[0]
    _36 = annotate(List[Optional[Tensor]], [curr_indices])
    _37 = torch.index(boxes, _36)
    _38 = annotate(List[Optional[Tensor]], [curr_indices])
    curr_keep_indices = __torch__.torchvision.ops.boxes.nms(_37, torch.index(scores, _38), iou_threshold, )
    _39 = annotate(List[Optional[Tensor]], [curr_keep_indices])
    _40 = torch.index(curr_indices, _39)
    _41 = torch.tensor(True, dtype=ops.prim.dtype(keep_mask), device=ops.prim.device(keep_mask))
    _42 = annotate(List[Optional[Tensor]], [_40])
    _43 = torch.index_put_(keep_mask, _42, _41)
  keep_indices = (torch.where(keep_mask))[0]
  _44 = annotate(List[Optional[Tensor]], [keep_indices])
  _45, _46 = torch.sort(torch.index(scores, _44), -1, True)
  _47 = annotate(List[Optional[Tensor]], [_46])
  return torch.index(keep_indices, _47)
def _batched_nms_coordinate_trick(boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float) -> Tensor:
  if torch.eq(torch.numel(boxes), 0):
    _49 = ops.prim.device(boxes)
    _50 = torch.empty([0], dtype=4, layout=None, device=_49)
    _48 = _50
  else:
    max_coordinate = torch.max(boxes)
    _51 = torch.to(idxs, boxes)
    _52 = torch.add(max_coordinate, torch.to(torch.tensor(1), boxes))
    offsets = torch.mul(_51, _52)
    _53 = torch.unsqueeze(torch.slice(offsets), 1)
    boxes_for_nms = torch.add(boxes, _53)
    keep = __torch__.torchvision.ops.boxes.nms(boxes_for_nms, scores, iou_threshold, )
    _48 = keep
  return _48
def _box_inter_union(boxes1: Tensor,
    boxes2: Tensor,
    fmt: str="xyxy") -> Tuple[Tensor, Tensor]:
  _54 = __torch__.torchvision.ops.boxes.box_area
  _55 = "Unsupported Box IoU Calculation for given fmt {}."
  _56 = __torch__.torchvision.ops._utils._upcast
  area1 = _54(boxes1, fmt, )
  area2 = _54(boxes2, fmt, )
  _57 = torch.__contains__(["xyxy", "xywh", "cxcywh"], fmt)
  if torch.__not__(_57):
    ops.prim.RaiseException(torch.format(_55, fmt), "builtins.ValueError")
  else:
    pass
  if torch.eq(fmt, "xyxy"):
    _58 = torch.slice(torch.unsqueeze(boxes1, -2), -1, None, 2)
    _59 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
    lt0 = torch.max(_58, torch.slice(_59, -1, None, 2))
    _60 = torch.slice(torch.unsqueeze(boxes1, -2), -1, 2)
    _61 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
    rb0 = torch.min(_60, torch.slice(_61, -1, 2))
    rb, lt = rb0, lt0
  else:
    if torch.eq(fmt, "xywh"):
      _62 = torch.slice(torch.unsqueeze(boxes1, -2), -1, None, 2)
      _63 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      lt2 = torch.max(_62, torch.slice(_63, -1, None, 2))
      _64 = torch.slice(torch.unsqueeze(boxes1, -2), -1, None, 2)
      _65 = torch.slice(torch.unsqueeze(boxes1, -2), -1, 2)
      _66 = torch.add(_64, _65)
      _67 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _68 = torch.slice(_67, -1, None, 2)
      _69 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _70 = torch.add(_68, torch.slice(_69, -1, 2))
      rb1, lt1 = torch.min(_66, _70), lt2
    else:
      _71 = torch.slice(torch.unsqueeze(boxes1, -2), -1, None, 2)
      _72 = torch.slice(torch.unsqueeze(boxes1, -2), -1, 2)
      _73 = torch.sub(_71, torch.div(_72, 2))
      _74 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _75 = torch.slice(_74, -1, None, 2)
      _76 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _77 = torch.div(torch.slice(_76, -1, 2), 2)
      lt3 = torch.max(_73, torch.sub(_75, _77))
      _78 = torch.slice(torch.unsqueeze(boxes1, -2), -1, None, 2)
      _79 = torch.slice(torch.unsqueeze(boxes1, -2), -1, 2)
      _80 = torch.add(_78, torch.div(_79, 2))
      _81 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _82 = torch.slice(_81, -1, None, 2)
      _83 = torch.slice(torch.unsqueeze(boxes2, -3), -2)
      _84 = torch.div(torch.slice(_83, -1, 2), 2)
      rb2 = torch.min(_80, torch.add(_82, _84))
      rb1, lt1 = rb2, lt3
    rb, lt = rb1, lt1
  wh = torch.clamp(_56(torch.sub(rb, lt), ), 0)
  inter = torch.mul(torch.select(wh, -1, 0), torch.select(wh, -1, 1))
  _85 = torch.unsqueeze(area1, -1)
  _86 = torch.slice(torch.unsqueeze(area2, -2), -1)
  union = torch.sub(torch.add(_85, _86), inter)
  return (inter, union)
def box_convert(boxes: Tensor,
    in_fmt: str,
    out_fmt: str) -> Tensor:
  _87 = "Unsupported Bounding Box Conversions for given in_fmt {} and out_fmt {}"
  _88 = __torch__.torchvision.ops._box_convert._box_xywh_to_xyxy
  _89 = __torch__.torchvision.ops._box_convert._box_cxcywh_to_xyxy
  _90 = __torch__.torchvision.ops._box_convert._box_xyxy_to_xywh
  _91 = __torch__.torchvision.ops._box_convert._box_xyxy_to_cxcywh
  _92 = __torch__.torchvision.ops._box_convert._box_cxcywhr_to_xywhr
  _93 = __torch__.torchvision.ops._box_convert._box_xywhr_to_cxcywhr
  _94 = __torch__.torchvision.ops._box_convert._box_xywhr_to_xyxyxyxy
  _95 = __torch__.torchvision.ops._box_convert._box_xyxyxyxy_to_xywhr
  _96 = uninitialized(Tensor)
  _97 = ["xyxy", "xywh", "cxcywh", "xywhr", "cxcywhr", "xyxyxyxy"]
  _98 = torch.__not__(torch.__contains__(_97, in_fmt))
  if _98:
    _99 = True
  else:
    _100 = ["xyxy", "xywh", "cxcywh", "xywhr", "cxcywhr", "xyxyxyxy"]
    _101 = torch.__not__(torch.__contains__(_100, out_fmt))
    _99 = _101
  if _99:
    ops.prim.RaiseException(torch.format(_87, in_fmt, out_fmt), "builtins.ValueError")
  else:
    pass
  if torch.eq(in_fmt, out_fmt):
    _102 = torch.clone(boxes)
  else:
    _103 = torch.eq([in_fmt, out_fmt], ["xywh", "xyxy"])
    if _103:
      boxes1 = _88(boxes, )
    else:
      _104 = torch.eq([in_fmt, out_fmt], ["cxcywh", "xyxy"])
      if _104:
        boxes2 = _89(boxes, )
      else:
        _105 = torch.eq([in_fmt, out_fmt], ["xyxy", "xywh"])
        if _105:
          boxes3 = _90(boxes, )
        else:
          _106 = torch.eq([in_fmt, out_fmt], ["xyxy", "cxcywh"])
          if _106:
            boxes4 = _91(boxes, )
          else:
            _107 = torch.eq([in_fmt, out_fmt], ["xywh", "cxcywh"])
            if _107:
              boxes6 = _88(boxes, )
              boxes5 = _91(boxes6, )
            else:
              _108 = torch.eq([in_fmt, out_fmt], ["cxcywh", "xywh"])
              if _108:
                boxes8 = _89(boxes, )
                boxes7 = _90(boxes8, )
              else:
                _109 = torch.eq([in_fmt, out_fmt], ["cxcywhr", "xywhr"])
                if _109:
                  boxes9 = _92(boxes, )
                else:
                  _110 = torch.eq([in_fmt, out_fmt], ["xywhr", "cxcywhr"])
                  if _110:
                    boxes10 = _93(boxes, )
                  else:
                    _111 = [in_fmt, out_fmt]
                    _112 = ["cxcywhr", "xyxyxyxy"]
                    _113 = torch.eq(_111, _112)
                    if _113:
                      _114 = _92(boxes, )
                      _115 = ops.prim.dtype(boxes)
                      boxes12 = torch.to(_114, _115)
                      boxes11 = _94(boxes12, )
                    else:
                      _116 = [in_fmt, out_fmt]
                      _117 = ["xyxyxyxy", "cxcywhr"]
                      _118 = torch.eq(_116, _117)
                      if _118:
                        _119 = _95(boxes, )
                        _120 = ops.prim.dtype(boxes)
                        boxes14 = torch.to(_119, _120)
                        boxes13 = _93(boxes14, )
                      else:
                        _121 = [in_fmt, out_fmt]
                        _122 = ["xywhr", "xyxyxyxy"]
                        _123 = torch.eq(_121, _122)
                        if _123:
                          boxes15 = _94(boxes, )
                        else:
                          _124 = [in_fmt, out_fmt]
                          _125 = ["xyxyxyxy", "xywhr"]
                          _126 = torch.eq(_124, _125)
                          if _126:
                            boxes17 = _95(boxes, )
                            boxes16 = boxes17
                          else:
                            _127 = torch.format(_87, in_fmt, out_fmt)
                            ops.prim.RaiseException(_127, "builtins.NotImplementedError")
                            boxes16 = _96
                          boxes15 = boxes16
                        boxes13 = boxes15
                      boxes11 = boxes13
                    boxes10 = boxes11
                  boxes9 = boxes10
                boxes7 = boxes9
              boxes5 = boxes7
            boxes4 = boxes5
          boxes3 = boxes4
        boxes2 = boxes3
      boxes1 = boxes2
    _102 = boxes1
  return _102
def nms(boxes: Tensor,
    scores: Tensor,
    iou_threshold: float) -> Tensor:
  _128 = __torch__.torchvision.extension._assert_has_ops
  _129 = _128()
  _130 = ops.torchvision.nms(boxes, scores, iou_threshold)
  return _130
