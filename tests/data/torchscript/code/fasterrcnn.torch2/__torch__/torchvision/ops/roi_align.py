def roi_align(input: Tensor,
    boxes: Union[Tensor, List[Tensor]],
    output_size: List[int],
    spatial_scale: float=1.,
    sampling_ratio: int=-1,
    aligned: bool=False) -> Tensor:
  _0 = __torch__.torchvision.ops._utils.check_roi_boxes_shape
  _1 = __torch__.torchvision.ops._utils.convert_boxes_to_roi_format
  _2 = __torch__.torchvision.extension._assert_has_ops
  _3 = _0(boxes, )
  _4 = isinstance(boxes, Tensor)
  if torch.__not__(_4):
    rois0 = unchecked_cast(List[Tensor], boxes)
    rois = _1(rois0, )
  else:
    rois = unchecked_cast(Tensor, boxes)
  _5 = _2()
  _6 = ops.torchvision.roi_align(input, rois, spatial_scale, output_size[0], output_size[1], sampling_ratio, aligned)
  return _6
