class RoIHeads(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  proposal_matcher : __torch__.torchvision.models.detection._utils.Matcher
  fg_bg_sampler : __torch__.torchvision.models.detection._utils.BalancedPositiveNegativeSampler
  box_coder : __torch__.torchvision.models.detection._utils.BoxCoder
  score_thresh : float
  nms_thresh : float
  detections_per_img : int
  mask_roi_pool : NoneType
  mask_head : NoneType
  mask_predictor : NoneType
  keypoint_roi_pool : NoneType
  keypoint_head : NoneType
  keypoint_predictor : NoneType
  box_roi_pool : __torch__.torchvision.ops.poolers.MultiScaleRoIAlign
  box_head : __torch__.torchvision.models.detection.faster_rcnn.TwoMLPHead
  box_predictor : __torch__.torchvision.models.detection.faster_rcnn.FastRCNNPredictor
  def forward(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    features: Dict[str, Tensor],
    proposals: List[Tensor],
    image_shapes: List[Tuple[int, int]],
    targets: Optional[List[Dict[str, Tensor]]]=None) -> Tuple[List[Dict[str, Tensor]], Dict[str, Tensor]]:
    _0 = "target boxes must of float type, instead got {}"
    _1 = "target labels must of int64 type, instead got {}"
    _2 = "target keypoints must of float type, instead got {}"
    _3 = __torch__.torchvision.models.detection.roi_heads.fastrcnn_loss
    _4 = "if in training, matched_idxs should not be None"
    _5 = "Expected mask_roi_pool to be not None"
    _6 = uninitialized(List[Tensor])
    _7 = uninitialized(List[Tensor])
    if torch.__isnot__(targets, None):
      targets1 = unchecked_cast(List[Dict[str, Tensor]], targets)
      for _8 in range(torch.len(targets1)):
        t = targets1[_8]
        _9 = ops.prim.dtype(t["boxes"])
        _10 = torch.__contains__([6, 7, 5], _9)
        if torch.__not__(_10):
          _11 = torch.format(_0, ops.prim.dtype(t["boxes"]))
          ops.prim.RaiseException(_11, "builtins.TypeError")
        else:
          pass
        _12 = torch.eq(ops.prim.dtype(t["labels"]), 4)
        if torch.__not__(_12):
          _13 = torch.format(_1, ops.prim.dtype(t["labels"]))
          ops.prim.RaiseException(_13, "builtins.TypeError")
        else:
          pass
        if (self).has_keypoint():
          _14 = ops.prim.dtype(t["keypoints"])
          _15 = torch.__not__(torch.eq(_14, 6))
          if _15:
            _16 = ops.prim.dtype(t["keypoints"])
            ops.prim.RaiseException(torch.format(_2, _16), "builtins.TypeError")
          else:
            pass
        else:
          pass
      targets0 : Optional[List[Dict[str, Tensor]]] = targets1
    else:
      targets0 = targets
    training = self.training
    if training:
      _17 = (self).select_training_samples(proposals, targets0, )
      proposals1, matched_idxs0, labels0, regression_targets0, = _17
      proposals0, labels, regression_targets, matched_idxs = proposals1, labels0, regression_targets0, matched_idxs0
    else:
      proposals0, labels, regression_targets, matched_idxs = proposals, None, None, None
    box_roi_pool = self.box_roi_pool
    box_features = (box_roi_pool).forward(features, proposals0, image_shapes, )
    box_head = self.box_head
    box_features0 = (box_head).forward(box_features, )
    box_predictor = self.box_predictor
    _18 = (box_predictor).forward(box_features0, )
    class_logits, box_regression, = _18
    result = annotate(List[Dict[str, Tensor]], [])
    losses = annotate(Dict[str, Tensor], {})
    training0 = self.training
    if training0:
      if torch.__is__(labels, None):
        ops.prim.RaiseException("labels cannot be None", "builtins.ValueError")
        labels1 = _7
      else:
        labels2 = unchecked_cast(List[Tensor], labels)
        labels1 = labels2
      _19 = torch.__is__(regression_targets, None)
      if _19:
        ops.prim.RaiseException("regression_targets cannot be None", "builtins.ValueError")
        regression_targets1 = _6
      else:
        regression_targets2 = unchecked_cast(List[Tensor], regression_targets)
        regression_targets1 = regression_targets2
      _20 = _3(class_logits, box_regression, labels1, regression_targets1, )
      loss_classifier, loss_box_reg, = _20
      losses1 = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
      losses0 = losses1
    else:
      _21 = (self).postprocess_detections(class_logits, box_regression, proposals0, image_shapes, )
      boxes, scores, labels3, = _21
      num_images = torch.len(boxes)
      for i in range(num_images):
        _22 = {"boxes": boxes[i], "labels": labels3[i], "scores": scores[i]}
        _23 = torch.append(result, _22)
      losses0 = losses
    if (self).has_mask():
      training1 = self.training
      if training1:
        _24 = torch.__is__(matched_idxs, None)
        if _24:
          ops.prim.RaiseException(_4, "builtins.ValueError")
        else:
          pass
      else:
        pass
      ops.prim.RaiseException(_5, "builtins.Exception")
    else:
      pass
    return (result, losses0)
  def has_keypoint(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads) -> bool:
    return False
  def select_training_samples(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    proposals: List[Tensor],
    targets: Optional[List[Dict[str, Tensor]]]) -> Tuple[List[Tensor], List[Tensor], List[Tensor], List[Tensor]]:
    _25 = uninitialized(List[Dict[str, Tensor]])
    _26 = (self).check_targets(targets, )
    if torch.__is__(targets, None):
      ops.prim.RaiseException("targets should not be None", "builtins.ValueError")
      targets2 = _25
    else:
      targets3 = unchecked_cast(List[Dict[str, Tensor]], targets)
      targets2 = targets3
    dtype = ops.prim.dtype(proposals[0])
    device = ops.prim.device(proposals[0])
    gt_boxes = annotate(List[Tensor], [])
    for _27 in range(torch.len(targets2)):
      t = targets2[_27]
      _28 = torch.append(gt_boxes, torch.to(t["boxes"], dtype))
    gt_labels = annotate(List[Tensor], [])
    for _29 in range(torch.len(targets2)):
      t0 = targets2[_29]
      _30 = torch.append(gt_labels, t0["labels"])
    proposals2 = (self).add_gt_proposals(proposals, gt_boxes, )
    _31 = (self).assign_targets_to_proposals(proposals2, gt_boxes, gt_labels, )
    matched_idxs, labels, = _31
    sampled_inds = (self).subsample(labels, )
    _32 = annotate(List[Tensor], [])
    num_images = torch.len(proposals2)
    for img_id in range(num_images):
      img_sampled_inds = sampled_inds[img_id]
      _33 = proposals2[img_id]
      _34 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _35 = torch._set_item(proposals2, img_id, torch.index(_33, _34))
      _36 = labels[img_id]
      _37 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _38 = torch._set_item(labels, img_id, torch.index(_36, _37))
      _39 = matched_idxs[img_id]
      _40 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _41 = torch._set_item(matched_idxs, img_id, torch.index(_39, _40))
      gt_boxes_in_image = gt_boxes[img_id]
      _42 = torch.eq(torch.numel(gt_boxes_in_image), 0)
      if _42:
        gt_boxes_in_image1 = torch.zeros([1, 4], dtype=dtype, layout=None, device=device)
        gt_boxes_in_image0 = gt_boxes_in_image1
      else:
        gt_boxes_in_image0 = gt_boxes_in_image
      _43 = annotate(List[Optional[Tensor]], [matched_idxs[img_id]])
      _44 = torch.index(gt_boxes_in_image0, _43)
      _45 = torch.append(_32, _44)
    box_coder = self.box_coder
    regression_targets = (box_coder).encode(_32, proposals2, )
    _46 = (proposals2, matched_idxs, labels, regression_targets)
    return _46
  def check_targets(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    targets: Optional[List[Dict[str, Tensor]]]) -> NoneType:
    _47 = "Every element of targets should have a boxes key"
    _48 = "Every element of targets should have a labels key"
    _49 = "Every element of targets should have a masks key"
    _50 = uninitialized(List[Dict[str, Tensor]])
    if torch.__is__(targets, None):
      ops.prim.RaiseException("targets should not be None", "builtins.ValueError")
      targets4 = _50
    else:
      targets5 = unchecked_cast(List[Dict[str, Tensor]], targets)
      targets4 = targets5
    _51 = annotate(List[bool], [])
    for _52 in range(torch.len(targets4)):
      t = targets4[_52]
      _53 = torch.append(_51, torch.__contains__(t, "boxes"))
    if torch.__not__(torch.all(_51)):
      ops.prim.RaiseException(_47, "builtins.ValueError")
    else:
      pass
    _54 = annotate(List[bool], [])
    for _55 in range(torch.len(targets4)):
      t1 = targets4[_55]
      _56 = torch.append(_54, torch.__contains__(t1, "labels"))
    if torch.__not__(torch.all(_54)):
      ops.prim.RaiseException(_48, "builtins.ValueError")
    else:
      pass
    if (self).has_mask():
      _57 = annotate(List[bool], [])
      for _58 in range(torch.len(targets4)):
        t2 = targets4[_58]
        _59 = torch.append(_57, torch.__contains__(t2, "masks"))
      if torch.__not__(torch.all(_57)):
        ops.prim.RaiseException(_49, "builtins.ValueError")
      else:
        pass
    else:
      pass
    return None
  def has_mask(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads) -> bool:
    return False
  def add_gt_proposals(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    proposals: List[Tensor],
    gt_boxes: List[Tensor]) -> List[Tensor]:
    proposals3 = annotate(List[Tensor], [])
    _60 = [torch.len(proposals), torch.len(gt_boxes)]
    for _61 in range(ops.prim.min(_60)):
      proposal = proposals[_61]
      gt_box = gt_boxes[_61]
      _62 = torch.append(proposals3, torch.cat([proposal, gt_box]))
    return proposals3
  def assign_targets_to_proposals(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    proposals: List[Tensor],
    gt_boxes: List[Tensor],
    gt_labels: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
    _63 = __torch__.torchvision.ops.boxes.box_iou
    _64 = annotate(List[Tensor], [])
    _65 = annotate(List[Tensor], [])
    _66 = [torch.len(proposals), torch.len(gt_boxes), torch.len(gt_labels)]
    for _67 in range(ops.prim.min(_66)):
      proposals_in_image = proposals[_67]
      gt_boxes_in_image = gt_boxes[_67]
      gt_labels_in_image = gt_labels[_67]
      _68 = torch.eq(torch.numel(gt_boxes_in_image), 0)
      if _68:
        device = ops.prim.device(proposals_in_image)
        _69 = (torch.size(proposals_in_image))[0]
        clamped_matched_idxs_in_image0 = torch.zeros([_69], dtype=4, layout=None, device=device)
        _70 = (torch.size(proposals_in_image))[0]
        labels_in_image0 = torch.zeros([_70], dtype=4, layout=None, device=device)
        clamped_matched_idxs_in_image, labels_in_image = clamped_matched_idxs_in_image0, labels_in_image0
      else:
        match_quality_matrix = _63(gt_boxes_in_image, proposals_in_image, "xyxy", )
        proposal_matcher = self.proposal_matcher
        matched_idxs_in_image = (proposal_matcher).__call__(match_quality_matrix, )
        clamped_matched_idxs_in_image1 = torch.clamp(matched_idxs_in_image, 0)
        _71 = annotate(List[Optional[Tensor]], [clamped_matched_idxs_in_image1])
        labels_in_image1 = torch.index(gt_labels_in_image, _71)
        labels_in_image2 = torch.to(labels_in_image1, 4)
        proposal_matcher0 = self.proposal_matcher
        BELOW_LOW_THRESHOLD = proposal_matcher0.BELOW_LOW_THRESHOLD
        bg_inds = torch.eq(matched_idxs_in_image, BELOW_LOW_THRESHOLD)
        _72 = ops.prim.dtype(labels_in_image2)
        _73 = ops.prim.device(labels_in_image2)
        _74 = torch.tensor(0, dtype=_72, device=_73)
        _75 = annotate(List[Optional[Tensor]], [bg_inds])
        _76 = torch.index_put_(labels_in_image2, _75, _74)
        proposal_matcher1 = self.proposal_matcher
        BETWEEN_THRESHOLDS = proposal_matcher1.BETWEEN_THRESHOLDS
        ignore_inds = torch.eq(matched_idxs_in_image, BETWEEN_THRESHOLDS)
        _77 = ops.prim.dtype(labels_in_image2)
        _78 = ops.prim.device(labels_in_image2)
        _79 = torch.tensor(-1, dtype=_77, device=_78)
        _80 = annotate(List[Optional[Tensor]], [ignore_inds])
        _81 = torch.index_put_(labels_in_image2, _80, _79)
        clamped_matched_idxs_in_image, labels_in_image = clamped_matched_idxs_in_image1, labels_in_image2
      _82 = torch.append(_64, clamped_matched_idxs_in_image)
      _83 = torch.append(_65, labels_in_image)
    return (_64, _65)
  def subsample(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    labels: List[Tensor]) -> List[Tensor]:
    fg_bg_sampler = self.fg_bg_sampler
    sampled_pos_inds, sampled_neg_inds, = (fg_bg_sampler).__call__(labels, )
    _84 = annotate(List[Tensor], [])
    _85 = [9223372036854775807, torch.len(sampled_pos_inds), torch.len(sampled_neg_inds)]
    for img_idx in range(ops.prim.min(_85)):
      pos_inds_img = sampled_pos_inds[img_idx]
      neg_inds_img = sampled_neg_inds[img_idx]
      _86 = torch.__or__(pos_inds_img, neg_inds_img)
      img_sampled_inds = (torch.where(_86))[0]
      _87 = torch.append(_84, img_sampled_inds)
    return _84
  def postprocess_detections(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    class_logits: Tensor,
    box_regression: Tensor,
    proposals: List[Tensor],
    image_shapes: List[Tuple[int, int]]) -> Tuple[List[Tensor], List[Tensor], List[Tensor]]:
    _88 = __torch__.torch.nn.functional.softmax
    _89 = __torch__.torchvision.ops.boxes.clip_boxes_to_image
    _90 = __torch__.torchvision.ops.boxes.remove_small_boxes
    _91 = __torch__.torchvision.ops.boxes.batched_nms
    device = ops.prim.device(class_logits)
    num_classes = (torch.size(class_logits))[-1]
    boxes_per_image = annotate(List[int], [])
    for _92 in range(torch.len(proposals)):
      boxes_in_image = proposals[_92]
      _93 = torch.append(boxes_per_image, (torch.size(boxes_in_image))[0])
    box_coder = self.box_coder
    pred_boxes = (box_coder).decode(box_regression, proposals, )
    pred_scores = _88(class_logits, -1, 3, None, )
    pred_boxes_list = torch.split(pred_boxes, boxes_per_image)
    pred_scores_list = torch.split(pred_scores, boxes_per_image)
    _94 = annotate(List[Tensor], [])
    _95 = annotate(List[Tensor], [])
    _96 = annotate(List[Tensor], [])
    _97 = [torch.len(pred_boxes_list), torch.len(pred_scores_list), torch.len(image_shapes)]
    for _98 in range(ops.prim.min(_97)):
      boxes = pred_boxes_list[_98]
      scores = pred_scores_list[_98]
      image_shape = image_shapes[_98]
      boxes0 = _89(boxes, image_shape, )
      labels = torch.arange(num_classes, dtype=None, layout=None, device=device)
      labels4 = torch.expand_as(torch.view(labels, [1, -1]), scores)
      boxes1 = torch.slice(torch.slice(boxes0), 1, 1)
      scores0 = torch.slice(torch.slice(scores), 1, 1)
      labels5 = torch.slice(torch.slice(labels4), 1, 1)
      boxes2 = torch.reshape(boxes1, [-1, 4])
      scores1 = torch.reshape(scores0, [-1])
      labels6 = torch.reshape(labels5, [-1])
      score_thresh = self.score_thresh
      _99 = torch.where(torch.gt(scores1, score_thresh))
      inds = _99[0]
      _100 = annotate(List[Optional[Tensor]], [inds])
      boxes3 = torch.index(boxes2, _100)
      _101 = annotate(List[Optional[Tensor]], [inds])
      scores2 = torch.index(scores1, _101)
      _102 = annotate(List[Optional[Tensor]], [inds])
      labels7 = torch.index(labels6, _102)
      keep = _90(boxes3, 0.01, )
      _103 = annotate(List[Optional[Tensor]], [keep])
      boxes4 = torch.index(boxes3, _103)
      _104 = annotate(List[Optional[Tensor]], [keep])
      scores3 = torch.index(scores2, _104)
      _105 = annotate(List[Optional[Tensor]], [keep])
      labels8 = torch.index(labels7, _105)
      nms_thresh = self.nms_thresh
      keep0 = _91(boxes4, scores3, labels8, nms_thresh, )
      detections_per_img = self.detections_per_img
      keep1 = torch.slice(keep0, 0, None, detections_per_img)
      _106 = annotate(List[Optional[Tensor]], [keep1])
      boxes5 = torch.index(boxes4, _106)
      _107 = annotate(List[Optional[Tensor]], [keep1])
      scores4 = torch.index(scores3, _107)
      _108 = annotate(List[Optional[Tensor]], [keep1])
      labels9 = torch.index(labels8, _108)
      _109 = torch.append(_94, boxes5)
      _110 = torch.append(_95, scores4)
      _111 = torch.append(_96, labels9)
    return (_94, _95, _96)
def paste_masks_in_image(masks: Tensor,
    boxes: Tensor,
    img_shape: Tuple[int, int],
    padding: int=1) -> Tensor:
  _112 = __torch__.torchvision.models.detection.roi_heads.expand_masks
  _113 = __torch__.torchvision.models.detection.roi_heads.expand_boxes
  _114 = __torch__.torchvision.models.detection.roi_heads._onnx_paste_masks_in_image_loop
  _115 = __torch__.torchvision.models.detection.roi_heads.paste_mask_in_image
  masks0, scale, = _112(masks, padding, )
  boxes6 = torch.to(_113(boxes, scale, ), 4)
  im_h, im_w, = img_shape
  if __torch__.torchvision._is_tracing():
    _117 = _114(masks0, boxes6, torch.scalar_tensor(im_h, dtype=4), torch.scalar_tensor(im_w, dtype=4), )
    _118 = torch.unsqueeze(torch.slice(_117), 1)
    _116 = _118
  else:
    res = annotate(List[Tensor], [])
    _119 = [torch.len(masks0), torch.len(boxes6)]
    for _120 in range(ops.prim.min(_119)):
      m = torch.select(masks0, 0, _120)
      b = torch.select(boxes6, 0, _120)
      _121 = _115(torch.select(m, 0, 0), b, im_h, im_w, )
      _122 = torch.append(res, _121)
    if torch.gt(torch.len(res), 0):
      ret0 = torch.unsqueeze(torch.slice(torch.stack(res)), 1)
      ret = ret0
    else:
      ret1 = torch.new_empty(masks0, [0, 1, im_h, im_w])
      ret = ret1
    _116 = ret
  return _116
def fastrcnn_loss(class_logits: Tensor,
    box_regression: Tensor,
    labels: List[Tensor],
    regression_targets: List[Tensor]) -> Tuple[Tensor, Tensor]:
  _123 = __torch__.torch.nn.functional.cross_entropy
  _124 = __torch__.torch.nn.functional.smooth_l1_loss
  labels10 = torch.cat(labels)
  regression_targets3 = torch.cat(regression_targets)
  classification_loss = _123(class_logits, labels10, None, None, -100, None, "mean", 0., )
  sampled_pos_inds_subset = (torch.where(torch.gt(labels10, 0)))[0]
  _125 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset])
  labels_pos = torch.index(labels10, _125)
  N, num_classes, = torch.size(class_logits)
  _126 = torch.floordiv(torch.size(box_regression, -1), 4)
  box_regression0 = torch.reshape(box_regression, [N, _126, 4])
  _127 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset, labels_pos])
  _128 = torch.index(box_regression0, _127)
  _129 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset])
  _130 = torch.index(regression_targets3, _129)
  box_loss = _124(_128, _130, None, None, "sum", 0.1111111111111111, )
  box_loss0 = torch.div(box_loss, torch.numel(labels10))
  return (classification_loss, box_loss0)
def expand_masks(mask: Tensor,
    padding: int) -> Tuple[Tensor, float]:
  M = (torch.size(mask))[-1]
  _131 = float(torch.add(M, torch.mul(2, padding)))
  scale = torch.div(_131, M)
  padded_mask = __torch__.torch.nn.functional.pad(mask, torch.mul([padding], 4), "constant", None, )
  return (padded_mask, scale)
def expand_boxes(boxes: Tensor,
    scale: float) -> Tensor:
  _132 = __torch__.torchvision.models.detection.roi_heads._onnx_expand_boxes
  if __torch__.torchvision._is_tracing():
    _133 = _132(boxes, scale, )
  else:
    _134 = torch.select(torch.slice(boxes), 1, 2)
    _135 = torch.select(torch.slice(boxes), 1, 0)
    w_half = torch.mul(torch.sub(_134, _135), 0.5)
    _136 = torch.select(torch.slice(boxes), 1, 3)
    _137 = torch.select(torch.slice(boxes), 1, 1)
    h_half = torch.mul(torch.sub(_136, _137), 0.5)
    _138 = torch.select(torch.slice(boxes), 1, 2)
    _139 = torch.select(torch.slice(boxes), 1, 0)
    x_c = torch.mul(torch.add(_138, _139), 0.5)
    _140 = torch.select(torch.slice(boxes), 1, 3)
    _141 = torch.select(torch.slice(boxes), 1, 1)
    y_c = torch.mul(torch.add(_140, _141), 0.5)
    w_half0 = torch.mul_(w_half, scale)
    h_half0 = torch.mul_(h_half, scale)
    boxes_exp = torch.zeros_like(boxes)
    _142 = torch.sub(x_c, w_half0)
    _143 = torch.select(torch.slice(boxes_exp), 1, 0)
    _144 = torch.copy_(_143, _142)
    _145 = torch.add(x_c, w_half0)
    _146 = torch.select(torch.slice(boxes_exp), 1, 2)
    _147 = torch.copy_(_146, _145)
    _148 = torch.sub(y_c, h_half0)
    _149 = torch.select(torch.slice(boxes_exp), 1, 1)
    _150 = torch.copy_(_149, _148)
    _151 = torch.add(y_c, h_half0)
    _152 = torch.select(torch.slice(boxes_exp), 1, 3)
    _153 = torch.copy_(_152, _151)
    _133 = boxes_exp
  return _133
def _onnx_paste_masks_in_image_loop(masks: Tensor,
    boxes: Tensor,
    im_h: Tensor,
    im_w: Tensor) -> Tensor:
  _154 = __torch__.torchvision.models.detection.roi_heads._onnx_paste_mask_in_image
  _155 = [0, annotate(int, im_h), annotate(int, im_w)]
  res_append = torch.zeros(_155)
  res_append0 = res_append
  for i in range(torch.size(masks, 0)):
    _156 = torch.select(torch.select(masks, 0, i), 0, 0)
    mask_res = _154(_156, torch.select(boxes, 0, i), im_h, im_w, )
    mask_res0 = torch.unsqueeze(mask_res, 0)
    res_append0 = torch.cat([res_append0, mask_res0])
  return res_append0
def paste_mask_in_image(mask: Tensor,
    box: Tensor,
    im_h: int,
    im_w: int) -> Tensor:
  _157 = __torch__.torch.nn.functional.___torch_mangle_129.interpolate
  _158 = torch.sub(torch.select(box, 0, 2), torch.select(box, 0, 0))
  w = int(torch.add(_158, 1))
  _159 = torch.sub(torch.select(box, 0, 3), torch.select(box, 0, 1))
  h = int(torch.add(_159, 1))
  w0 = ops.prim.max(w, 1)
  h0 = ops.prim.max(h, 1)
  mask0 = torch.expand(mask, [1, 1, -1, -1])
  mask1 = _157(mask0, [h0, w0], None, "bilinear", False, None, False, )
  mask2 = torch.select(torch.select(mask1, 0, 0), 0, 0)
  _160 = ops.prim.dtype(mask2)
  _161 = ops.prim.device(mask2)
  im_mask = torch.zeros([im_h, im_w], dtype=_160, layout=None, device=_161)
  _162 = annotate(int, torch.select(box, 0, 0))
  x_0 = ops.prim.max(_162, 0)
  _163 = annotate(int, torch.add(torch.select(box, 0, 2), 1))
  x_1 = ops.prim.min(_163, im_w)
  _164 = annotate(int, torch.select(box, 0, 1))
  y_0 = ops.prim.max(_164, 0)
  _165 = annotate(int, torch.add(torch.select(box, 0, 3), 1))
  y_1 = ops.prim.min(_165, im_h)
  _166 = torch.add(torch.neg(torch.select(box, 0, 1)), y_0)
  _167 = torch.add(torch.neg(torch.select(box, 0, 1)), y_1)
  _168 = torch.slice(mask2, 0, annotate(int, _166), annotate(int, _167))
  _169 = torch.add(torch.neg(torch.select(box, 0, 0)), x_0)
  _170 = torch.add(torch.neg(torch.select(box, 0, 0)), x_1)
  _171 = torch.slice(_168, 1, annotate(int, _169), annotate(int, _170))
  _172 = torch.slice(torch.slice(im_mask, 0, y_0, y_1), 1, x_0, x_1)
  _173 = torch.copy_(_172, _171)
  return im_mask
def _onnx_expand_boxes(boxes: Tensor,
    scale: float) -> Tensor:
  _174 = torch.select(torch.slice(boxes), 1, 2)
  _175 = torch.select(torch.slice(boxes), 1, 0)
  w_half = torch.mul(torch.sub(_174, _175), 0.5)
  _176 = torch.select(torch.slice(boxes), 1, 3)
  _177 = torch.select(torch.slice(boxes), 1, 1)
  h_half = torch.mul(torch.sub(_176, _177), 0.5)
  _178 = torch.select(torch.slice(boxes), 1, 2)
  _179 = torch.select(torch.slice(boxes), 1, 0)
  x_c = torch.mul(torch.add(_178, _179), 0.5)
  _180 = torch.select(torch.slice(boxes), 1, 3)
  _181 = torch.select(torch.slice(boxes), 1, 1)
  y_c = torch.mul(torch.add(_180, _181), 0.5)
  w_half1 = torch.mul(torch.to(w_half, 6), scale)
  h_half1 = torch.mul(torch.to(h_half, 6), scale)
  boxes_exp0 = torch.sub(x_c, w_half1)
  boxes_exp1 = torch.sub(y_c, h_half1)
  boxes_exp2 = torch.add(x_c, w_half1)
  boxes_exp3 = torch.add(y_c, h_half1)
  _182 = [boxes_exp0, boxes_exp1, boxes_exp2, boxes_exp3]
  return torch.stack(_182, 1)
def _onnx_paste_mask_in_image(mask: Tensor,
    box: Tensor,
    im_h: Tensor,
    im_w: Tensor) -> Tensor:
  _183 = __torch__.torch.nn.functional.___torch_mangle_129.interpolate
  one = torch.ones([1], dtype=4)
  zero = torch.zeros([1], dtype=4)
  _184 = torch.sub(torch.select(box, 0, 2), torch.select(box, 0, 0))
  w = torch.add(_184, one)
  _185 = torch.sub(torch.select(box, 0, 3), torch.select(box, 0, 1))
  h = torch.add(_185, one)
  w1 = torch.max(torch.cat([w, one]))
  h1 = torch.max(torch.cat([h, one]))
  _186 = [1, 1, torch.size(mask, 0), torch.size(mask, 1)]
  mask3 = torch.expand(mask, _186)
  mask4 = _183(mask3, [int(h1), int(w1)], None, "bilinear", False, None, False, )
  mask5 = torch.select(torch.select(mask4, 0, 0), 0, 0)
  _187 = torch.unsqueeze(torch.select(box, 0, 0), 0)
  x_0 = torch.max(torch.cat([_187, zero]))
  _188 = torch.unsqueeze(torch.select(box, 0, 2), 0)
  _189 = [torch.add(_188, one), torch.unsqueeze(im_w, 0)]
  x_1 = torch.min(torch.cat(_189))
  _190 = torch.unsqueeze(torch.select(box, 0, 1), 0)
  y_0 = torch.max(torch.cat([_190, zero]))
  _191 = torch.unsqueeze(torch.select(box, 0, 3), 0)
  _192 = [torch.add(_191, one), torch.unsqueeze(im_h, 0)]
  y_1 = torch.min(torch.cat(_192))
  _193 = torch.sub(y_0, torch.select(box, 0, 1))
  _194 = torch.sub(y_1, torch.select(box, 0, 1))
  _195 = torch.slice(mask5, 0, annotate(int, _193), annotate(int, _194))
  _196 = torch.sub(x_0, torch.select(box, 0, 0))
  _197 = torch.sub(x_1, torch.select(box, 0, 0))
  unpaded_im_mask = torch.slice(_195, 1, annotate(int, _196), annotate(int, _197))
  _198 = torch.size(unpaded_im_mask, 1)
  zeros_y0 = torch.zeros([annotate(int, y_0), _198])
  _199 = torch.sub(im_h, y_1)
  _200 = torch.size(unpaded_im_mask, 1)
  zeros_y1 = torch.zeros([annotate(int, _199), _200])
  _201 = [zeros_y0, torch.to(unpaded_im_mask, 6), zeros_y1]
  _202 = torch.slice(torch.cat(_201), 0, 0, annotate(int, im_h))
  concat_0 = torch.slice(_202, 1)
  _203 = [torch.size(concat_0, 0), annotate(int, x_0)]
  zeros_x0 = torch.zeros(_203)
  _204 = [torch.size(concat_0, 0), annotate(int, torch.sub(im_w, x_1))]
  zeros_x1 = torch.zeros(_204)
  _205 = torch.cat([zeros_x0, concat_0, zeros_x1], 1)
  im_mask = torch.slice(torch.slice(_205), 1, None, annotate(int, im_w))
  return im_mask
