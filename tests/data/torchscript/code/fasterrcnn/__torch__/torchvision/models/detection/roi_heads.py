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
    _1 = "target labels must of int64 type, instead got {t[\'labels\'].dtype}"
    _2 = "target keypoints must of float type, instead got {}"
    _3 = __torch__.torchvision.models.detection.roi_heads.fastrcnn_loss
    _4 = "if in trainning, matched_idxs should not be None"
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
          ops.prim.RaiseException(_1, "builtins.TypeError")
        else:
          pass
        if (self).has_keypoint():
          _13 = ops.prim.dtype(t["keypoints"])
          _14 = torch.__not__(torch.eq(_13, 6))
          if _14:
            _15 = ops.prim.dtype(t["keypoints"])
            ops.prim.RaiseException(torch.format(_2, _15), "builtins.TypeError")
          else:
            pass
        else:
          pass
      targets0 : Optional[List[Dict[str, Tensor]]] = targets1
    else:
      targets0 = targets
    training = self.training
    if training:
      _16 = (self).select_training_samples(proposals, targets0, )
      proposals1, matched_idxs0, labels0, regression_targets0, = _16
      proposals0, labels, regression_targets, matched_idxs = proposals1, labels0, regression_targets0, matched_idxs0
    else:
      proposals0, labels, regression_targets, matched_idxs = proposals, None, None, None
    box_roi_pool = self.box_roi_pool
    box_features = (box_roi_pool).forward(features, proposals0, image_shapes, )
    box_head = self.box_head
    box_features0 = (box_head).forward(box_features, )
    box_predictor = self.box_predictor
    _17 = (box_predictor).forward(box_features0, )
    class_logits, box_regression, = _17
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
      _18 = torch.__is__(regression_targets, None)
      if _18:
        ops.prim.RaiseException("regression_targets cannot be None", "builtins.ValueError")
        regression_targets1 = _6
      else:
        regression_targets2 = unchecked_cast(List[Tensor], regression_targets)
        regression_targets1 = regression_targets2
      _19 = _3(class_logits, box_regression, labels1, regression_targets1, )
      loss_classifier, loss_box_reg, = _19
      losses1 = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
      losses0 = losses1
    else:
      _20 = (self).postprocess_detections(class_logits, box_regression, proposals0, image_shapes, )
      boxes, scores, labels3, = _20
      num_images = torch.len(boxes)
      for i in range(num_images):
        _21 = {"boxes": boxes[i], "labels": labels3[i], "scores": scores[i]}
        _22 = torch.append(result, _21)
      losses0 = losses
    if (self).has_mask():
      training1 = self.training
      if training1:
        _23 = torch.__is__(matched_idxs, None)
        if _23:
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
    _24 = uninitialized(List[Dict[str, Tensor]])
    _25 = (self).check_targets(targets, )
    if torch.__is__(targets, None):
      ops.prim.RaiseException("targets should not be None", "builtins.ValueError")
      targets2 = _24
    else:
      targets3 = unchecked_cast(List[Dict[str, Tensor]], targets)
      targets2 = targets3
    dtype = ops.prim.dtype(proposals[0])
    device = ops.prim.device(proposals[0])
    gt_boxes = annotate(List[Tensor], [])
    for _26 in range(torch.len(targets2)):
      t = targets2[_26]
      _27 = torch.append(gt_boxes, torch.to(t["boxes"], dtype))
    gt_labels = annotate(List[Tensor], [])
    for _28 in range(torch.len(targets2)):
      t0 = targets2[_28]
      _29 = torch.append(gt_labels, t0["labels"])
    proposals2 = (self).add_gt_proposals(proposals, gt_boxes, )
    _30 = (self).assign_targets_to_proposals(proposals2, gt_boxes, gt_labels, )
    matched_idxs, labels, = _30
    sampled_inds = (self).subsample(labels, )
    _31 = annotate(List[Tensor], [])
    num_images = torch.len(proposals2)
    for img_id in range(num_images):
      img_sampled_inds = sampled_inds[img_id]
      _32 = proposals2[img_id]
      _33 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _34 = torch._set_item(proposals2, img_id, torch.index(_32, _33))
      _35 = labels[img_id]
      _36 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _37 = torch._set_item(labels, img_id, torch.index(_35, _36))
      _38 = matched_idxs[img_id]
      _39 = annotate(List[Optional[Tensor]], [img_sampled_inds])
      _40 = torch._set_item(matched_idxs, img_id, torch.index(_38, _39))
      gt_boxes_in_image = gt_boxes[img_id]
      _41 = torch.eq(torch.numel(gt_boxes_in_image), 0)
      if _41:
        gt_boxes_in_image1 = torch.zeros([1, 4], dtype=dtype, layout=None, device=device)
        gt_boxes_in_image0 = gt_boxes_in_image1
      else:
        gt_boxes_in_image0 = gt_boxes_in_image
      _42 = annotate(List[Optional[Tensor]], [matched_idxs[img_id]])
      _43 = torch.index(gt_boxes_in_image0, _42)
      _44 = torch.append(_31, _43)
    box_coder = self.box_coder
    regression_targets = (box_coder).encode(_31, proposals2, )
    _45 = (proposals2, matched_idxs, labels, regression_targets)
    return _45
  def check_targets(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    targets: Optional[List[Dict[str, Tensor]]]) -> NoneType:
    _46 = "Every element of targets should have a boxes key"
    _47 = "Every element of targets should have a labels key"
    _48 = "Every element of targets should have a masks key"
    _49 = uninitialized(List[Dict[str, Tensor]])
    if torch.__is__(targets, None):
      ops.prim.RaiseException("targets should not be None", "builtins.ValueError")
      targets4 = _49
    else:
      targets5 = unchecked_cast(List[Dict[str, Tensor]], targets)
      targets4 = targets5
    _50 = annotate(List[bool], [])
    for _51 in range(torch.len(targets4)):
      t = targets4[_51]
      _52 = torch.append(_50, torch.__contains__(t, "boxes"))
    if torch.__not__(torch.all(_50)):
      ops.prim.RaiseException(_46, "builtins.ValueError")
    else:
      pass
    _53 = annotate(List[bool], [])
    for _54 in range(torch.len(targets4)):
      t1 = targets4[_54]
      _55 = torch.append(_53, torch.__contains__(t1, "labels"))
    if torch.__not__(torch.all(_53)):
      ops.prim.RaiseException(_47, "builtins.ValueError")
    else:
      pass
    if (self).has_mask():
      _56 = annotate(List[bool], [])
      for _57 in range(torch.len(targets4)):
        t2 = targets4[_57]
        _58 = torch.append(_56, torch.__contains__(t2, "masks"))
      if torch.__not__(torch.all(_56)):
        ops.prim.RaiseException(_48, "builtins.ValueError")
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
    _59 = [torch.len(proposals), torch.len(gt_boxes)]
    for _60 in range(ops.prim.min(_59)):
      proposal = proposals[_60]
      gt_box = gt_boxes[_60]
      _61 = torch.append(proposals3, torch.cat([proposal, gt_box]))
    return proposals3
  def assign_targets_to_proposals(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    proposals: List[Tensor],
    gt_boxes: List[Tensor],
    gt_labels: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
    _62 = __torch__.torchvision.ops.boxes.box_iou
    _63 = annotate(List[Tensor], [])
    _64 = annotate(List[Tensor], [])
    _65 = [torch.len(proposals), torch.len(gt_boxes), torch.len(gt_labels)]
    for _66 in range(ops.prim.min(_65)):
      proposals_in_image = proposals[_66]
      gt_boxes_in_image = gt_boxes[_66]
      gt_labels_in_image = gt_labels[_66]
      _67 = torch.eq(torch.numel(gt_boxes_in_image), 0)
      if _67:
        device = ops.prim.device(proposals_in_image)
        _68 = (torch.size(proposals_in_image))[0]
        clamped_matched_idxs_in_image0 = torch.zeros([_68], dtype=4, layout=None, device=device)
        _69 = (torch.size(proposals_in_image))[0]
        labels_in_image0 = torch.zeros([_69], dtype=4, layout=None, device=device)
        clamped_matched_idxs_in_image, labels_in_image = clamped_matched_idxs_in_image0, labels_in_image0
      else:
        match_quality_matrix = _62(gt_boxes_in_image, proposals_in_image, )
        proposal_matcher = self.proposal_matcher
        matched_idxs_in_image = (proposal_matcher).__call__(match_quality_matrix, )
        clamped_matched_idxs_in_image1 = torch.clamp(matched_idxs_in_image, 0)
        _70 = annotate(List[Optional[Tensor]], [clamped_matched_idxs_in_image1])
        labels_in_image1 = torch.index(gt_labels_in_image, _70)
        labels_in_image2 = torch.to(labels_in_image1, 4)
        proposal_matcher0 = self.proposal_matcher
        BELOW_LOW_THRESHOLD = proposal_matcher0.BELOW_LOW_THRESHOLD
        bg_inds = torch.eq(matched_idxs_in_image, BELOW_LOW_THRESHOLD)
        _71 = ops.prim.dtype(labels_in_image2)
        _72 = ops.prim.device(labels_in_image2)
        _73 = torch.tensor(0, dtype=_71, device=_72)
        _74 = annotate(List[Optional[Tensor]], [bg_inds])
        _75 = torch.index_put_(labels_in_image2, _74, _73)
        proposal_matcher1 = self.proposal_matcher
        BETWEEN_THRESHOLDS = proposal_matcher1.BETWEEN_THRESHOLDS
        ignore_inds = torch.eq(matched_idxs_in_image, BETWEEN_THRESHOLDS)
        _76 = ops.prim.dtype(labels_in_image2)
        _77 = ops.prim.device(labels_in_image2)
        _78 = torch.tensor(-1, dtype=_76, device=_77)
        _79 = annotate(List[Optional[Tensor]], [ignore_inds])
        _80 = torch.index_put_(labels_in_image2, _79, _78)
        clamped_matched_idxs_in_image, labels_in_image = clamped_matched_idxs_in_image1, labels_in_image2
      _81 = torch.append(_63, clamped_matched_idxs_in_image)
      _82 = torch.append(_64, labels_in_image)
    return (_63, _64)
  def subsample(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    labels: List[Tensor]) -> List[Tensor]:
    fg_bg_sampler = self.fg_bg_sampler
    sampled_pos_inds, sampled_neg_inds, = (fg_bg_sampler).__call__(labels, )
    _83 = annotate(List[Tensor], [])
    _84 = [9223372036854775807, torch.len(sampled_pos_inds), torch.len(sampled_neg_inds)]
    for img_idx in range(ops.prim.min(_84)):
      pos_inds_img = sampled_pos_inds[img_idx]
      neg_inds_img = sampled_neg_inds[img_idx]
      _85 = torch.__or__(pos_inds_img, neg_inds_img)
      img_sampled_inds = (torch.where(_85))[0]
      _86 = torch.append(_83, img_sampled_inds)
    return _83
  def postprocess_detections(self: __torch__.torchvision.models.detection.roi_heads.RoIHeads,
    class_logits: Tensor,
    box_regression: Tensor,
    proposals: List[Tensor],
    image_shapes: List[Tuple[int, int]]) -> Tuple[List[Tensor], List[Tensor], List[Tensor]]:
    _87 = __torch__.torch.nn.functional.softmax
    _88 = __torch__.torchvision.ops.boxes.clip_boxes_to_image
    _89 = __torch__.torchvision.ops.boxes.remove_small_boxes
    _90 = __torch__.torchvision.ops.boxes.batched_nms
    device = ops.prim.device(class_logits)
    num_classes = (torch.size(class_logits))[-1]
    boxes_per_image = annotate(List[int], [])
    for _91 in range(torch.len(proposals)):
      boxes_in_image = proposals[_91]
      _92 = torch.append(boxes_per_image, (torch.size(boxes_in_image))[0])
    box_coder = self.box_coder
    pred_boxes = (box_coder).decode(box_regression, proposals, )
    pred_scores = _87(class_logits, -1, 3, None, )
    pred_boxes_list = torch.split(pred_boxes, boxes_per_image)
    pred_scores_list = torch.split(pred_scores, boxes_per_image)
    _93 = annotate(List[Tensor], [])
    _94 = annotate(List[Tensor], [])
    _95 = annotate(List[Tensor], [])
    _96 = [torch.len(pred_boxes_list), torch.len(pred_scores_list), torch.len(image_shapes)]
    for _97 in range(ops.prim.min(_96)):
      boxes = pred_boxes_list[_97]
      scores = pred_scores_list[_97]
      image_shape = image_shapes[_97]
      boxes0 = _88(boxes, image_shape, )
      labels = torch.arange(num_classes, dtype=None, layout=None, device=device)
      labels4 = torch.expand_as(torch.view(labels, [1, -1]), scores)
      boxes1 = torch.slice(torch.slice(boxes0), 1, 1)
      scores0 = torch.slice(torch.slice(scores), 1, 1)
      labels5 = torch.slice(torch.slice(labels4), 1, 1)
      boxes2 = torch.reshape(boxes1, [-1, 4])
      scores1 = torch.reshape(scores0, [-1])
      labels6 = torch.reshape(labels5, [-1])
      score_thresh = self.score_thresh
      _98 = torch.where(torch.gt(scores1, score_thresh))
      inds = _98[0]
      _99 = annotate(List[Optional[Tensor]], [inds])
      boxes3 = torch.index(boxes2, _99)
      _100 = annotate(List[Optional[Tensor]], [inds])
      scores2 = torch.index(scores1, _100)
      _101 = annotate(List[Optional[Tensor]], [inds])
      labels7 = torch.index(labels6, _101)
      keep = _89(boxes3, 0.01, )
      _102 = annotate(List[Optional[Tensor]], [keep])
      boxes4 = torch.index(boxes3, _102)
      _103 = annotate(List[Optional[Tensor]], [keep])
      scores3 = torch.index(scores2, _103)
      _104 = annotate(List[Optional[Tensor]], [keep])
      labels8 = torch.index(labels7, _104)
      nms_thresh = self.nms_thresh
      keep0 = _90(boxes4, scores3, labels8, nms_thresh, )
      detections_per_img = self.detections_per_img
      keep1 = torch.slice(keep0, 0, None, detections_per_img)
      _105 = annotate(List[Optional[Tensor]], [keep1])
      boxes5 = torch.index(boxes4, _105)
      _106 = annotate(List[Optional[Tensor]], [keep1])
      scores4 = torch.index(scores3, _106)
      _107 = annotate(List[Optional[Tensor]], [keep1])
      labels9 = torch.index(labels8, _107)
      _108 = torch.append(_93, boxes5)
      _109 = torch.append(_94, scores4)
      _110 = torch.append(_95, labels9)
    return (_93, _94, _95)
def paste_masks_in_image(masks: Tensor,
    boxes: Tensor,
    img_shape: Tuple[int, int],
    padding: int=1) -> Tensor:
  _111 = __torch__.torchvision.models.detection.roi_heads.expand_masks
  _112 = __torch__.torchvision.models.detection.roi_heads.expand_boxes
  _113 = __torch__.torchvision.models.detection.roi_heads._onnx_paste_masks_in_image_loop
  _114 = __torch__.torchvision.models.detection.roi_heads.paste_mask_in_image
  masks0, scale, = _111(masks, padding, )
  boxes6 = torch.to(_112(boxes, scale, ), 4)
  im_h, im_w, = img_shape
  if __torch__.torchvision._is_tracing():
    _116 = _113(masks0, boxes6, torch.scalar_tensor(im_h, dtype=4), torch.scalar_tensor(im_w, dtype=4), )
    _117 = torch.unsqueeze(torch.slice(_116), 1)
    _115 = _117
  else:
    res = annotate(List[Tensor], [])
    _118 = [torch.len(masks0), torch.len(boxes6)]
    for _119 in range(ops.prim.min(_118)):
      m = torch.select(masks0, 0, _119)
      b = torch.select(boxes6, 0, _119)
      _120 = _114(torch.select(m, 0, 0), b, im_h, im_w, )
      _121 = torch.append(res, _120)
    if torch.gt(torch.len(res), 0):
      ret0 = torch.unsqueeze(torch.slice(torch.stack(res)), 1)
      ret = ret0
    else:
      ret1 = torch.new_empty(masks0, [0, 1, im_h, im_w])
      ret = ret1
    _115 = ret
  return _115
def fastrcnn_loss(class_logits: Tensor,
    box_regression: Tensor,
    labels: List[Tensor],
    regression_targets: List[Tensor]) -> Tuple[Tensor, Tensor]:
  _122 = __torch__.torch.nn.functional.cross_entropy
  _123 = __torch__.torch.nn.functional.smooth_l1_loss
  labels10 = torch.cat(labels)
  regression_targets3 = torch.cat(regression_targets)
  classification_loss = _122(class_logits, labels10, None, None, -100, None, "mean", 0., )
  sampled_pos_inds_subset = (torch.where(torch.gt(labels10, 0)))[0]
  _124 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset])
  labels_pos = torch.index(labels10, _124)
  N, num_classes, = torch.size(class_logits)
  _125 = torch.floordiv(torch.size(box_regression, -1), 4)
  box_regression0 = torch.reshape(box_regression, [N, _125, 4])
  _126 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset, labels_pos])
  _127 = torch.index(box_regression0, _126)
  _128 = annotate(List[Optional[Tensor]], [sampled_pos_inds_subset])
  _129 = torch.index(regression_targets3, _128)
  box_loss = _123(_127, _129, None, None, "sum", 0.1111111111111111, )
  box_loss0 = torch.div(box_loss, torch.numel(labels10))
  return (classification_loss, box_loss0)
def expand_masks(mask: Tensor,
    padding: int) -> Tuple[Tensor, float]:
  M = (torch.size(mask))[-1]
  _130 = float(torch.add(M, torch.mul(2, padding)))
  scale = torch.div(_130, M)
  padded_mask = torch.pad(mask, torch.mul([padding], 4))
  return (padded_mask, scale)
def expand_boxes(boxes: Tensor,
    scale: float) -> Tensor:
  _131 = __torch__.torchvision.models.detection.roi_heads._onnx_expand_boxes
  if __torch__.torchvision._is_tracing():
    _132 = _131(boxes, scale, )
  else:
    _133 = torch.select(torch.slice(boxes), 1, 2)
    _134 = torch.select(torch.slice(boxes), 1, 0)
    w_half = torch.mul(torch.sub(_133, _134), 0.5)
    _135 = torch.select(torch.slice(boxes), 1, 3)
    _136 = torch.select(torch.slice(boxes), 1, 1)
    h_half = torch.mul(torch.sub(_135, _136), 0.5)
    _137 = torch.select(torch.slice(boxes), 1, 2)
    _138 = torch.select(torch.slice(boxes), 1, 0)
    x_c = torch.mul(torch.add(_137, _138), 0.5)
    _139 = torch.select(torch.slice(boxes), 1, 3)
    _140 = torch.select(torch.slice(boxes), 1, 1)
    y_c = torch.mul(torch.add(_139, _140), 0.5)
    w_half0 = torch.mul_(w_half, scale)
    h_half0 = torch.mul_(h_half, scale)
    boxes_exp = torch.zeros_like(boxes)
    _141 = torch.sub(x_c, w_half0)
    _142 = torch.select(torch.slice(boxes_exp), 1, 0)
    _143 = torch.copy_(_142, _141)
    _144 = torch.add(x_c, w_half0)
    _145 = torch.select(torch.slice(boxes_exp), 1, 2)
    _146 = torch.copy_(_145, _144)
    _147 = torch.sub(y_c, h_half0)
    _148 = torch.select(torch.slice(boxes_exp), 1, 1)
    _149 = torch.copy_(_148, _147)
    _150 = torch.add(y_c, h_half0)
    _151 = torch.select(torch.slice(boxes_exp), 1, 3)
    _152 = torch.copy_(_151, _150)
    _132 = boxes_exp
  return _132
def _onnx_paste_masks_in_image_loop(masks: Tensor,
    boxes: Tensor,
    im_h: Tensor,
    im_w: Tensor) -> Tensor:
  _153 = __torch__.torchvision.models.detection.roi_heads._onnx_paste_mask_in_image
  _154 = [0, annotate(int, im_h), annotate(int, im_w)]
  res_append = torch.zeros(_154)
  res_append0 = res_append
  for i in range(torch.size(masks, 0)):
    _155 = torch.select(torch.select(masks, 0, i), 0, 0)
    mask_res = _153(_155, torch.select(boxes, 0, i), im_h, im_w, )
    mask_res0 = torch.unsqueeze(mask_res, 0)
    res_append0 = torch.cat([res_append0, mask_res0])
  return res_append0
def paste_mask_in_image(mask: Tensor,
    box: Tensor,
    im_h: int,
    im_w: int) -> Tensor:
  _156 = __torch__.torch.nn.functional.___torch_mangle_129.interpolate
  _157 = torch.sub(torch.select(box, 0, 2), torch.select(box, 0, 0))
  w = int(torch.add(_157, 1))
  _158 = torch.sub(torch.select(box, 0, 3), torch.select(box, 0, 1))
  h = int(torch.add(_158, 1))
  w0 = ops.prim.max(w, 1)
  h0 = ops.prim.max(h, 1)
  mask0 = torch.expand(mask, [1, 1, -1, -1])
  mask1 = _156(mask0, [h0, w0], None, "bilinear", False, None, False, )
  mask2 = torch.select(torch.select(mask1, 0, 0), 0, 0)
  _159 = ops.prim.dtype(mask2)
  _160 = ops.prim.device(mask2)
  im_mask = torch.zeros([im_h, im_w], dtype=_159, layout=None, device=_160)
  _161 = annotate(int, torch.select(box, 0, 0))
  x_0 = ops.prim.max(_161, 0)
  _162 = annotate(int, torch.add(torch.select(box, 0, 2), 1))
  x_1 = ops.prim.min(_162, im_w)
  _163 = annotate(int, torch.select(box, 0, 1))
  y_0 = ops.prim.max(_163, 0)
  _164 = annotate(int, torch.add(torch.select(box, 0, 3), 1))
  y_1 = ops.prim.min(_164, im_h)
  _165 = torch.add(torch.neg(torch.select(box, 0, 1)), y_0)
  _166 = torch.add(torch.neg(torch.select(box, 0, 1)), y_1)
  _167 = torch.slice(mask2, 0, annotate(int, _165), annotate(int, _166))
  _168 = torch.add(torch.neg(torch.select(box, 0, 0)), x_0)
  _169 = torch.add(torch.neg(torch.select(box, 0, 0)), x_1)
  _170 = torch.slice(_167, 1, annotate(int, _168), annotate(int, _169))
  _171 = torch.slice(torch.slice(im_mask, 0, y_0, y_1), 1, x_0, x_1)
  _172 = torch.copy_(_171, _170)
  return im_mask
def _onnx_expand_boxes(boxes: Tensor,
    scale: float) -> Tensor:
  _173 = torch.select(torch.slice(boxes), 1, 2)
  _174 = torch.select(torch.slice(boxes), 1, 0)
  w_half = torch.mul(torch.sub(_173, _174), 0.5)
  _175 = torch.select(torch.slice(boxes), 1, 3)
  _176 = torch.select(torch.slice(boxes), 1, 1)
  h_half = torch.mul(torch.sub(_175, _176), 0.5)
  _177 = torch.select(torch.slice(boxes), 1, 2)
  _178 = torch.select(torch.slice(boxes), 1, 0)
  x_c = torch.mul(torch.add(_177, _178), 0.5)
  _179 = torch.select(torch.slice(boxes), 1, 3)
  _180 = torch.select(torch.slice(boxes), 1, 1)
  y_c = torch.mul(torch.add(_179, _180), 0.5)
  w_half1 = torch.mul(torch.to(w_half, 6), scale)
  h_half1 = torch.mul(torch.to(h_half, 6), scale)
  boxes_exp0 = torch.sub(x_c, w_half1)
  boxes_exp1 = torch.sub(y_c, h_half1)
  boxes_exp2 = torch.add(x_c, w_half1)
  boxes_exp3 = torch.add(y_c, h_half1)
  _181 = [boxes_exp0, boxes_exp1, boxes_exp2, boxes_exp3]
  return torch.stack(_181, 1)
def _onnx_paste_mask_in_image(mask: Tensor,
    box: Tensor,
    im_h: Tensor,
    im_w: Tensor) -> Tensor:
  _182 = __torch__.torch.nn.functional.___torch_mangle_129.interpolate
  one = torch.ones([1], dtype=4)
  zero = torch.zeros([1], dtype=4)
  _183 = torch.sub(torch.select(box, 0, 2), torch.select(box, 0, 0))
  w = torch.add(_183, one)
  _184 = torch.sub(torch.select(box, 0, 3), torch.select(box, 0, 1))
  h = torch.add(_184, one)
  w1 = torch.max(torch.cat([w, one]))
  h1 = torch.max(torch.cat([h, one]))
  _185 = [1, 1, torch.size(mask, 0), torch.size(mask, 1)]
  mask3 = torch.expand(mask, _185)
  mask4 = _182(mask3, [int(h1), int(w1)], None, "bilinear", False, None, False, )
  mask5 = torch.select(torch.select(mask4, 0, 0), 0, 0)
  _186 = torch.unsqueeze(torch.select(box, 0, 0), 0)
  x_0 = torch.max(torch.cat([_186, zero]))
  _187 = torch.unsqueeze(torch.select(box, 0, 2), 0)
  _188 = [torch.add(_187, one), torch.unsqueeze(im_w, 0)]
  x_1 = torch.min(torch.cat(_188))
  _189 = torch.unsqueeze(torch.select(box, 0, 1), 0)
  y_0 = torch.max(torch.cat([_189, zero]))
  _190 = torch.unsqueeze(torch.select(box, 0, 3), 0)
  _191 = [torch.add(_190, one), torch.unsqueeze(im_h, 0)]
  y_1 = torch.min(torch.cat(_191))
  _192 = torch.sub(y_0, torch.select(box, 0, 1))
  _193 = torch.sub(y_1, torch.select(box, 0, 1))
  _194 = torch.slice(mask5, 0, annotate(int, _192), annotate(int, _193))
  _195 = torch.sub(x_0, torch.select(box, 0, 0))
  _196 = torch.sub(x_1, torch.select(box, 0, 0))
  unpaded_im_mask = torch.slice(_194, 1, annotate(int, _195), annotate(int, _196))
  _197 = torch.size(unpaded_im_mask, 1)
  zeros_y0 = torch.zeros([annotate(int, y_0), _197])
  _198 = torch.sub(im_h, y_1)
  _199 = torch.size(unpaded_im_mask, 1)
  zeros_y1 = torch.zeros([annotate(int, _198), _199])
  _200 = [zeros_y0, torch.to(unpaded_im_mask, 6), zeros_y1]
  _201 = torch.slice(torch.cat(_200), 0, 0, annotate(int, im_h))
  concat_0 = torch.slice(_201, 1)
  _202 = [torch.size(concat_0, 0), annotate(int, x_0)]
  zeros_x0 = torch.zeros(_202)
  _203 = [torch.size(concat_0, 0), annotate(int, torch.sub(im_w, x_1))]
  zeros_x1 = torch.zeros(_203)
  _204 = torch.cat([zeros_x0, concat_0, zeros_x1], 1)
  im_mask = torch.slice(torch.slice(_204), 1, None, annotate(int, im_w))
  return im_mask
