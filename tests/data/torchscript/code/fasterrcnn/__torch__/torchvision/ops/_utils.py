def _upcast(t: Tensor) -> Tensor:
  if torch.is_floating_point(t):
    _1 = ops.prim.dtype(t)
    if torch.__contains__([6, 7], _1):
      _2 = t
    else:
      _2 = torch.to(t, 6)
    _0 = _2
  else:
    _3 = ops.prim.dtype(t)
    if torch.__contains__([3, 4], _3):
      _4 = t
    else:
      _4 = torch.to(t, 3)
    _0 = _4
  return _0
def check_roi_boxes_shape(boxes: Union[Tensor, List[Tensor]]) -> NoneType:
  _5 = "AssertionError: The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]"
  _6 = "AssertionError: The boxes tensor shape is not correct as Tensor[K, 5]"
  _7 = isinstance(boxes, (list, tuple))
  if _7:
    boxes0 = unchecked_cast(List[Tensor], boxes)
    for _8 in range(torch.len(boxes0)):
      _tensor = boxes0[_8]
      _9 = torch.eq(torch.size(_tensor, 1), 4)
      if _9:
        pass
      else:
        ops.prim.RaiseException(_5)
  else:
    boxes1 = unchecked_cast(Tensor, boxes)
    boxes2 = unchecked_cast(Tensor, boxes1)
    if torch.eq(torch.size(boxes2, 1), 5):
      pass
    else:
      ops.prim.RaiseException(_6)
  return None
def convert_boxes_to_roi_format(boxes: List[Tensor]) -> Tensor:
  _10 = annotate(List[Tensor], [])
  for _11 in range(torch.len(boxes)):
    b = boxes[_11]
    _12 = torch.append(_10, b)
  concat_boxes = __torch__.torchvision.ops._utils._cat(_10, 0, )
  _13 = annotate(List[Tensor], [])
  _14 = [9223372036854775807, torch.len(boxes)]
  for i in range(ops.prim.min(_14)):
    b0 = boxes[i]
    _15 = torch.slice(torch.slice(b0), 1, None, 1)
    _16 = torch.append(_13, torch.full_like(_15, i))
  ids = __torch__.torchvision.ops._utils._cat(_13, 0, )
  return torch.cat([ids, concat_boxes], 1)
def _cat(tensors: List[Tensor],
    dim: int=0) -> Tensor:
  if torch.eq(torch.len(tensors), 1):
    _17 = tensors[0]
  else:
    _17 = torch.cat(tensors, dim)
  return _17
