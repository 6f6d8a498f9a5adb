def _box_xywh_to_xyxy(boxes: Tensor) -> Tensor:
  x, y, w, h, = torch.unbind(boxes, -1)
  _0 = [x, y, torch.add(x, w), torch.add(y, h)]
  return torch.stack(_0, -1)
def _box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
  cx, cy, w, h, = torch.unbind(boxes, -1)
  x1 = torch.sub(cx, torch.mul(w, 0.5))
  y1 = torch.sub(cy, torch.mul(h, 0.5))
  x2 = torch.add(cx, torch.mul(w, 0.5))
  y2 = torch.add(cy, torch.mul(h, 0.5))
  return torch.stack([x1, y1, x2, y2], -1)
def _box_xyxy_to_xywh(boxes: Tensor) -> Tensor:
  x1, y1, x2, y2, = torch.unbind(boxes, -1)
  w = torch.sub(x2, x1)
  h = torch.sub(y2, y1)
  return torch.stack([x1, y1, w, h], -1)
def _box_xyxy_to_cxcywh(boxes: Tensor) -> Tensor:
  x1, y1, x2, y2, = torch.unbind(boxes, -1)
  cx = torch.div(torch.add(x1, x2), 2)
  cy = torch.div(torch.add(y1, y2), 2)
  w = torch.sub(x2, x1)
  h = torch.sub(y2, y1)
  return torch.stack([cx, cy, w, h], -1)
def _box_cxcywhr_to_xywhr(boxes: Tensor) -> Tensor:
  dtype = ops.prim.dtype(boxes)
  need_cast = torch.__not__(torch.is_floating_point(boxes))
  cx, cy, w, h, r, = torch.unbind(boxes, -1)
  r_rad = torch.div(torch.mul(r, 3.1415926535897931), 180.)
  cos = torch.cos(r_rad)
  sin = torch.sin(r_rad)
  _1 = torch.sub(cx, torch.mul(torch.div(w, 2), cos))
  x1 = torch.sub(_1, torch.mul(torch.div(h, 2), sin))
  _2 = torch.sub(cy, torch.mul(torch.div(h, 2), cos))
  y1 = torch.add(_2, torch.mul(torch.div(w, 2), sin))
  boxes0 = torch.stack([x1, y1, w, h, r], -1)
  if need_cast:
    _3 = torch.round_(boxes0)
    boxes1 = torch.to(boxes0, dtype)
  else:
    boxes1 = boxes0
  return boxes1
def _box_xywhr_to_cxcywhr(boxes: Tensor) -> Tensor:
  dtype = ops.prim.dtype(boxes)
  need_cast = torch.__not__(torch.is_floating_point(boxes))
  x1, y1, w, h, r, = torch.unbind(boxes, -1)
  r_rad = torch.div(torch.mul(r, 3.1415926535897931), 180.)
  cos = torch.cos(r_rad)
  sin = torch.sin(r_rad)
  _4 = torch.add(x1, torch.mul(torch.div(w, 2), cos))
  cx = torch.add(_4, torch.mul(torch.div(h, 2), sin))
  _5 = torch.sub(y1, torch.mul(torch.div(w, 2), sin))
  cy = torch.add(_5, torch.mul(torch.div(h, 2), cos))
  boxes2 = torch.stack([cx, cy, w, h, r], -1)
  if need_cast:
    _6 = torch.round_(boxes2)
    boxes3 = torch.to(boxes2, dtype)
  else:
    boxes3 = boxes2
  return boxes3
def _box_xywhr_to_xyxyxyxy(boxes: Tensor) -> Tensor:
  dtype = ops.prim.dtype(boxes)
  need_cast = torch.__not__(torch.is_floating_point(boxes))
  x1, y1, w, h, r, = torch.unbind(boxes, -1)
  r_rad = torch.div(torch.mul(r, 3.1415926535897931), 180.)
  cos = torch.cos(r_rad)
  sin = torch.sin(r_rad)
  x2 = torch.add(x1, torch.mul(w, cos))
  y2 = torch.sub(y1, torch.mul(w, sin))
  x3 = torch.add(x2, torch.mul(h, sin))
  y3 = torch.add(y2, torch.mul(h, cos))
  x4 = torch.add(x1, torch.mul(h, sin))
  y4 = torch.add(y1, torch.mul(h, cos))
  boxes4 = torch.stack([x1, y1, x2, y2, x3, y3, x4, y4], -1)
  if need_cast:
    _7 = torch.round_(boxes4)
    boxes5 = torch.to(boxes4, dtype)
  else:
    boxes5 = boxes4
  return boxes5
def _box_xyxyxyxy_to_xywhr(boxes: Tensor) -> Tensor:
  dtype = ops.prim.dtype(boxes)
  need_cast = torch.__not__(torch.is_floating_point(boxes))
  x1, y1, x2, y2, x3, y3, x4, y4, = torch.unbind(boxes, -1)
  r_rad = torch.atan2(torch.sub(y1, y2), torch.sub(x2, x1))
  r = torch.div(torch.mul(r_rad, 180), 3.1415926535897931)
  _8 = torch.add(torch.pow(torch.sub(x2, x1), 2), torch.pow(torch.sub(y1, y2), 2))
  w = torch.sqrt(_8)
  _9 = torch.add(torch.pow(torch.sub(x3, x2), 2), torch.pow(torch.sub(y3, y2), 2))
  h = torch.sqrt(_9)
  boxes6 = torch.stack([x1, y1, w, h, r], -1)
  if need_cast:
    _10 = torch.round_(boxes6)
    boxes7 = torch.to(boxes6, dtype)
  else:
    boxes7 = boxes6
  return boxes7
