class FasterRCNN(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  _has_warned : bool
  transform : __torch__.torchvision.models.detection.transform.GeneralizedRCNNTransform
  backbone : __torch__.torchvision.models.detection.backbone_utils.BackboneWithFPN
  rpn : __torch__.torchvision.models.detection.rpn.RegionProposalNetwork
  roi_heads : __torch__.torchvision.models.detection.roi_heads.RoIHeads
  def forward(self: __torch__.torchvision.models.detection.faster_rcnn.FasterRCNN,
    images: List[Tensor],
    targets: Optional[List[Dict[str, Tensor]]]=None) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
    _0 = "AssertionError: targets should not be none when in training mode"
    _1 = "Expected target boxes to be a tensor of shape [N, 4], got {}."
    _2 = "expecting the last two dimensions of the Tensor to be H and W instead got {}"
    _3 = "All bounding boxes should have positive height and width. Found invalid box {} for target at index {}."
    _4 = "RCNN always returns a (Losses, Detections) tuple in scripting"
    training = self.training
    if training:
      if torch.__is__(targets, None):
        ops.prim.RaiseException(_0)
        targets1 : Optional[List[Dict[str, Tensor]]] = targets
      else:
        targets2 = unchecked_cast(List[Dict[str, Tensor]], targets)
        for _5 in range(torch.len(targets2)):
          target = targets2[_5]
          boxes = target["boxes"]
          boxes0 = unchecked_cast(Tensor, boxes)
          _6 = torch.eq(torch.len(torch.size(boxes0)), 2)
          if _6:
            _8 = torch.eq((torch.size(boxes0))[-1], 4)
            _7 = _8
          else:
            _7 = False
          _9 = torch.format(_1, torch.size(boxes0))
          if _7:
            pass
          else:
            _10 = torch.add("AssertionError: ", _9)
            ops.prim.RaiseException(_10)
        targets1 = targets2
      targets0 : Optional[List[Dict[str, Tensor]]] = targets1
    else:
      targets0 = targets
    original_image_sizes = annotate(List[Tuple[int, int]], [])
    for _11 in range(torch.len(images)):
      img = images[_11]
      val = torch.slice(torch.size(img), -2)
      _12 = torch.eq(torch.len(val), 2)
      _13 = torch.format(_2, torch.slice(torch.size(img), -2))
      if _12:
        pass
      else:
        _14 = torch.add("AssertionError: ", _13)
        ops.prim.RaiseException(_14)
      _15 = torch.append(original_image_sizes, (val[0], val[1]))
    transform = self.transform
    _16 = (transform).forward(images, targets0, )
    images0, targets3, = _16
    if torch.__isnot__(targets3, None):
      targets5 = unchecked_cast(List[Dict[str, Tensor]], targets3)
      _17 = [9223372036854775807, torch.len(targets5)]
      for target_idx in range(ops.prim.min(_17)):
        target0 = targets5[target_idx]
        boxes1 = target0["boxes"]
        _18 = torch.slice(torch.slice(boxes1), 1, 2)
        _19 = torch.slice(torch.slice(boxes1), 1, None, 2)
        degenerate_boxes = torch.le(_18, _19)
        _20 = bool(torch.any(degenerate_boxes))
        if _20:
          _21 = torch.any(degenerate_boxes, 1)
          bb_idx = torch.select((torch.where(_21))[0], 0, 0)
          _22 = annotate(List[Optional[Tensor]], [bb_idx])
          degen_bb = annotate(List[float], torch.index(boxes1, _22).tolist())
          _23 = torch.format(_3, degen_bb, target_idx)
          _24 = torch.add("AssertionError: ", _23)
          ops.prim.RaiseException(_24)
        else:
          pass
      targets4 : Optional[List[Dict[str, Tensor]]] = targets5
    else:
      targets4 = targets3
    backbone = self.backbone
    tensors = images0.tensors
    features = (backbone).forward(tensors, )
    features0 = unchecked_cast(Dict[str, Tensor], features)
    rpn = self.rpn
    _25 = (rpn).forward(images0, features0, targets4, )
    proposals, proposal_losses, = _25
    roi_heads = self.roi_heads
    image_sizes = images0.image_sizes
    _26 = (roi_heads).forward(features0, proposals, image_sizes, targets4, )
    detections, detector_losses, = _26
    transform0 = self.transform
    image_sizes0 = images0.image_sizes
    detections0 = (transform0).postprocess(detections, image_sizes0, original_image_sizes, )
    losses = annotate(Dict[str, Tensor], {})
    torch.update(losses, detector_losses)
    torch.update(losses, proposal_losses)
    _has_warned = self._has_warned
    if torch.__not__(_has_warned):
      torch.warn(_4)
      self._has_warned = True
    else:
      pass
    return (losses, detections0)
class TwoMLPHead(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  fc6 : __torch__.torch.nn.modules.linear.Linear
  fc7 : __torch__.torch.nn.modules.linear.___torch_mangle_126.Linear
  def forward(self: __torch__.torchvision.models.detection.faster_rcnn.TwoMLPHead,
    x: Tensor) -> Tensor:
    x0 = torch.flatten(x, 1)
    fc6 = self.fc6
    x1 = __torch__.torch.nn.functional.relu((fc6).forward(x0, ), False, )
    fc7 = self.fc7
    x2 = __torch__.torch.nn.functional.relu((fc7).forward(x1, ), False, )
    return x2
class FastRCNNPredictor(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  cls_score : __torch__.torch.nn.modules.linear.___torch_mangle_127.Linear
  bbox_pred : __torch__.torch.nn.modules.linear.___torch_mangle_128.Linear
  def forward(self: __torch__.torchvision.models.detection.faster_rcnn.FastRCNNPredictor,
    x: Tensor) -> Tuple[Tensor, Tensor]:
    _27 = "x has the wrong shape, expecting the last two dimensions to be [1,1] instead of {}"
    if torch.eq(torch.dim(x), 4):
      _28 = torch.list(torch.slice(torch.size(x), 2))
      _29 = torch.eq(_28, [1, 1])
      _30 = torch.list(torch.slice(torch.size(x), 2))
      _31 = torch.format(_27, _30)
      if _29:
        pass
      else:
        _32 = torch.add("AssertionError: ", _31)
        ops.prim.RaiseException(_32)
    else:
      pass
    x3 = torch.flatten(x, 1)
    cls_score = self.cls_score
    scores = (cls_score).forward(x3, )
    bbox_pred = self.bbox_pred
    bbox_deltas = (bbox_pred).forward(x3, )
    return (scores, bbox_deltas)
