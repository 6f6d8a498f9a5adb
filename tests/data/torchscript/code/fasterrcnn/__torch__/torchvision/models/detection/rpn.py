class RegionProposalNetwork(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  box_coder : __torch__.torchvision.models.detection._utils.BoxCoder
  proposal_matcher : __torch__.torchvision.models.detection._utils.Matcher
  fg_bg_sampler : __torch__.torchvision.models.detection._utils.BalancedPositiveNegativeSampler
  _pre_nms_top_n : Dict[str, int]
  _post_nms_top_n : Dict[str, int]
  nms_thresh : float
  score_thresh : float
  min_size : float
  anchor_generator : __torch__.torchvision.models.detection.anchor_utils.AnchorGenerator
  head : __torch__.torchvision.models.detection.rpn.RPNHead
  def forward(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork,
    images: __torch__.torchvision.models.detection.image_list.ImageList,
    features: Dict[str, Tensor],
    targets: Optional[List[Dict[str, Tensor]]]=None) -> Tuple[List[Tensor], Dict[str, Tensor]]:
    _0 = __torch__.torchvision.models.detection.rpn.concat_box_prediction_layers
    _1 = uninitialized(List[Dict[str, Tensor]])
    features0 = torch.list(torch.values(features))
    head = self.head
    objectness, pred_bbox_deltas, = (head).forward(features0, )
    anchor_generator = self.anchor_generator
    anchors = (anchor_generator).forward(images, features0, )
    num_images = torch.len(anchors)
    num_anchors_per_level_shape_tensors = annotate(List[List[int]], [])
    for _2 in range(torch.len(objectness)):
      o = objectness[_2]
      _3 = torch.append(num_anchors_per_level_shape_tensors, torch.size(torch.select(o, 0, 0)))
    num_anchors_per_level = annotate(List[int], [])
    _4 = torch.len(num_anchors_per_level_shape_tensors)
    for _5 in range(_4):
      s = num_anchors_per_level_shape_tensors[_5]
      _6 = torch.mul(torch.mul(s[0], s[1]), s[2])
      _7 = torch.append(num_anchors_per_level, _6)
    objectness0, pred_bbox_deltas0, = _0(objectness, pred_bbox_deltas, )
    box_coder = self.box_coder
    proposals = (box_coder).decode(torch.detach(pred_bbox_deltas0), anchors, )
    proposals0 = torch.view(proposals, [num_images, -1, 4])
    image_sizes = images.image_sizes
    _8 = (self).filter_proposals(proposals0, objectness0, image_sizes, num_anchors_per_level, )
    boxes, scores, = _8
    losses = annotate(Dict[str, Tensor], {})
    training = self.training
    if training:
      if torch.__is__(targets, None):
        ops.prim.RaiseException("targets should not be None", "builtins.ValueError")
        targets0 = _1
      else:
        targets1 = unchecked_cast(List[Dict[str, Tensor]], targets)
        targets0 = targets1
      _9 = (self).assign_targets_to_anchors(anchors, targets0, )
      labels, matched_gt_boxes, = _9
      box_coder0 = self.box_coder
      regression_targets = (box_coder0).encode(matched_gt_boxes, anchors, )
      _10 = (self).compute_loss(objectness0, pred_bbox_deltas0, labels, regression_targets, )
      loss_objectness, loss_rpn_box_reg, = _10
      losses1 = {"loss_objectness": loss_objectness, "loss_rpn_box_reg": loss_rpn_box_reg}
      losses0 = losses1
    else:
      losses0 = losses
    return (boxes, losses0)
  def filter_proposals(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork,
    proposals: Tensor,
    objectness: Tensor,
    image_shapes: List[Tuple[int, int]],
    num_anchors_per_level: List[int]) -> Tuple[List[Tensor], List[Tensor]]:
    _11 = __torch__.torchvision.ops.boxes.clip_boxes_to_image
    _12 = __torch__.torchvision.ops.boxes.remove_small_boxes
    _13 = __torch__.torchvision.ops.boxes.batched_nms
    num_images = (torch.size(proposals))[0]
    device = ops.prim.device(proposals)
    objectness1 = torch.detach(objectness)
    objectness2 = torch.reshape(objectness1, [num_images, -1])
    levels = annotate(List[Tensor], [])
    _14 = [9223372036854775807, torch.len(num_anchors_per_level)]
    for idx in range(ops.prim.min(_14)):
      n = num_anchors_per_level[idx]
      _15 = torch.full([n], idx, dtype=4, layout=None, device=device)
      _16 = torch.append(levels, _15)
    levels0 = torch.cat(levels)
    levels1 = torch.expand_as(torch.reshape(levels0, [1, -1]), objectness2)
    top_n_idx = (self)._get_top_n_idx(objectness2, num_anchors_per_level, )
    image_range = torch.arange(num_images, dtype=None, layout=None, device=device)
    batch_idx = torch.unsqueeze(torch.slice(image_range), 1)
    _17 = annotate(List[Optional[Tensor]], [batch_idx, top_n_idx])
    objectness3 = torch.index(objectness2, _17)
    _18 = annotate(List[Optional[Tensor]], [batch_idx, top_n_idx])
    levels2 = torch.index(levels1, _18)
    _19 = annotate(List[Optional[Tensor]], [batch_idx, top_n_idx])
    proposals1 = torch.index(proposals, _19)
    objectness_prob = torch.sigmoid(objectness3)
    _20 = annotate(List[Tensor], [])
    _21 = annotate(List[Tensor], [])
    _22 = [torch.len(proposals1), torch.len(objectness_prob), torch.len(levels2), torch.len(image_shapes)]
    for _23 in range(ops.prim.min(_22)):
      boxes = torch.select(proposals1, 0, _23)
      scores = torch.select(objectness_prob, 0, _23)
      lvl = torch.select(levels2, 0, _23)
      img_shape = image_shapes[_23]
      boxes0 = _11(boxes, img_shape, )
      min_size = self.min_size
      keep = _12(boxes0, min_size, )
      _24 = annotate(List[Optional[Tensor]], [keep])
      boxes1 = torch.index(boxes0, _24)
      _25 = annotate(List[Optional[Tensor]], [keep])
      scores0 = torch.index(scores, _25)
      _26 = annotate(List[Optional[Tensor]], [keep])
      lvl0 = torch.index(lvl, _26)
      score_thresh = self.score_thresh
      _27 = torch.where(torch.ge(scores0, score_thresh))
      keep0 = _27[0]
      _28 = annotate(List[Optional[Tensor]], [keep0])
      boxes2 = torch.index(boxes1, _28)
      _29 = annotate(List[Optional[Tensor]], [keep0])
      scores1 = torch.index(scores0, _29)
      _30 = annotate(List[Optional[Tensor]], [keep0])
      lvl1 = torch.index(lvl0, _30)
      nms_thresh = self.nms_thresh
      keep1 = _13(boxes2, scores1, lvl1, nms_thresh, )
      keep2 = torch.slice(keep1, 0, None, (self).post_nms_top_n())
      _31 = annotate(List[Optional[Tensor]], [keep2])
      boxes3 = torch.index(boxes2, _31)
      _32 = annotate(List[Optional[Tensor]], [keep2])
      scores2 = torch.index(scores1, _32)
      _33 = torch.append(_20, boxes3)
      _34 = torch.append(_21, scores2)
    return (_20, _21)
  def _get_top_n_idx(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork,
    objectness: Tensor,
    num_anchors_per_level: List[int]) -> Tensor:
    _35 = __torch__.torchvision.models.detection._utils._topk_min
    _36 = annotate(List[Tensor], [])
    _37 = torch.split(objectness, num_anchors_per_level, 1)
    offset = 0
    for _38 in range(torch.len(_37)):
      ob = _37[_38]
      num_anchors = (torch.size(ob))[1]
      pre_nms_top_n = _35(ob, (self).pre_nms_top_n(), 1, )
      _39, top_n_idx = torch.topk(ob, pre_nms_top_n, 1)
      _40 = torch.append(_36, torch.add(top_n_idx, offset))
      offset = torch.add(offset, num_anchors)
    return torch.cat(_36, 1)
  def pre_nms_top_n(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork) -> int:
    training = self.training
    if training:
      _pre_nms_top_n = self._pre_nms_top_n
      _41 = _pre_nms_top_n["training"]
    else:
      _pre_nms_top_n0 = self._pre_nms_top_n
      _41 = _pre_nms_top_n0["testing"]
    return _41
  def post_nms_top_n(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork) -> int:
    training = self.training
    if training:
      _post_nms_top_n = self._post_nms_top_n
      _42 = _post_nms_top_n["training"]
    else:
      _post_nms_top_n0 = self._post_nms_top_n
      _42 = _post_nms_top_n0["testing"]
    return _42
  def assign_targets_to_anchors(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork,
    anchors: List[Tensor],
    targets: List[Dict[str, Tensor]]) -> Tuple[List[Tensor], List[Tensor]]:
    _43 = __torch__.torchvision.ops.boxes.box_iou
    _44 = annotate(List[Tensor], [])
    _45 = annotate(List[Tensor], [])
    _46 = [torch.len(anchors), torch.len(targets)]
    for _47 in range(ops.prim.min(_46)):
      anchors_per_image = anchors[_47]
      targets_per_image = targets[_47]
      gt_boxes = targets_per_image["boxes"]
      _48 = torch.eq(torch.numel(gt_boxes), 0)
      if _48:
        device = ops.prim.device(anchors_per_image)
        matched_gt_boxes_per_image0 = torch.zeros(torch.size(anchors_per_image), dtype=6, layout=None, device=device)
        _49 = (torch.size(anchors_per_image))[0]
        labels_per_image0 = torch.zeros([_49], dtype=6, layout=None, device=device)
        labels_per_image, matched_gt_boxes_per_image = labels_per_image0, matched_gt_boxes_per_image0
      else:
        match_quality_matrix = _43(gt_boxes, anchors_per_image, )
        proposal_matcher = self.proposal_matcher
        matched_idxs = (proposal_matcher).__call__(match_quality_matrix, )
        _50 = annotate(List[Optional[Tensor]], [torch.clamp(matched_idxs, 0)])
        matched_gt_boxes_per_image1 = torch.index(gt_boxes, _50)
        labels_per_image1 = torch.ge(matched_idxs, 0)
        labels_per_image2 = torch.to(labels_per_image1, 6)
        proposal_matcher0 = self.proposal_matcher
        BELOW_LOW_THRESHOLD = proposal_matcher0.BELOW_LOW_THRESHOLD
        bg_indices = torch.eq(matched_idxs, BELOW_LOW_THRESHOLD)
        _51 = ops.prim.dtype(labels_per_image2)
        _52 = ops.prim.device(labels_per_image2)
        _53 = torch.tensor(0., dtype=_51, device=_52)
        _54 = annotate(List[Optional[Tensor]], [bg_indices])
        _55 = torch.index_put_(labels_per_image2, _54, _53)
        proposal_matcher1 = self.proposal_matcher
        BETWEEN_THRESHOLDS = proposal_matcher1.BETWEEN_THRESHOLDS
        inds_to_discard = torch.eq(matched_idxs, BETWEEN_THRESHOLDS)
        _56 = ops.prim.dtype(labels_per_image2)
        _57 = ops.prim.device(labels_per_image2)
        _58 = torch.tensor(-1., dtype=_56, device=_57)
        _59 = annotate(List[Optional[Tensor]], [inds_to_discard])
        _60 = torch.index_put_(labels_per_image2, _59, _58)
        labels_per_image, matched_gt_boxes_per_image = labels_per_image2, matched_gt_boxes_per_image1
      _61 = torch.append(_44, labels_per_image)
      _62 = torch.append(_45, matched_gt_boxes_per_image)
    return (_44, _45)
  def compute_loss(self: __torch__.torchvision.models.detection.rpn.RegionProposalNetwork,
    objectness: Tensor,
    pred_bbox_deltas: Tensor,
    labels: List[Tensor],
    regression_targets: List[Tensor]) -> Tuple[Tensor, Tensor]:
    _63 = __torch__.torch.nn.functional.smooth_l1_loss
    _64 = __torch__.torch.nn.functional.binary_cross_entropy_with_logits
    fg_bg_sampler = self.fg_bg_sampler
    sampled_pos_inds, sampled_neg_inds, = (fg_bg_sampler).__call__(labels, )
    _65 = torch.where(torch.cat(sampled_pos_inds))
    sampled_pos_inds0 = _65[0]
    _66 = torch.where(torch.cat(sampled_neg_inds))
    sampled_neg_inds0 = _66[0]
    _67 = [sampled_pos_inds0, sampled_neg_inds0]
    sampled_inds = torch.cat(_67)
    objectness4 = torch.flatten(objectness)
    labels0 = torch.cat(labels)
    regression_targets0 = torch.cat(regression_targets)
    _68 = annotate(List[Optional[Tensor]], [sampled_pos_inds0])
    _69 = torch.index(pred_bbox_deltas, _68)
    _70 = annotate(List[Optional[Tensor]], [sampled_pos_inds0])
    _71 = torch.index(regression_targets0, _70)
    _72 = _63(_69, _71, None, None, "sum", 0.1111111111111111, )
    box_loss = torch.div(_72, torch.numel(sampled_inds))
    _73 = annotate(List[Optional[Tensor]], [sampled_inds])
    _74 = torch.index(objectness4, _73)
    _75 = annotate(List[Optional[Tensor]], [sampled_inds])
    objectness_loss = _64(_74, torch.index(labels0, _75), None, None, None, "mean", None, )
    return (objectness_loss, box_loss)
class RPNHead(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.container.___torch_mangle_123.Sequential
  cls_logits : __torch__.torch.nn.modules.conv.___torch_mangle_124.Conv2d
  bbox_pred : __torch__.torch.nn.modules.conv.___torch_mangle_125.Conv2d
  def forward(self: __torch__.torchvision.models.detection.rpn.RPNHead,
    x: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
    _76 = annotate(List[Tensor], [])
    _77 = annotate(List[Tensor], [])
    for _78 in range(torch.len(x)):
      feature = x[_78]
      conv = self.conv
      t = (conv).forward(feature, )
      cls_logits = self.cls_logits
      _79 = torch.append(_76, (cls_logits).forward(t, ))
      bbox_pred = self.bbox_pred
      _80 = torch.append(_77, (bbox_pred).forward(t, ))
    return (_76, _77)
def concat_box_prediction_layers(box_cls: List[Tensor],
    box_regression: List[Tensor]) -> Tuple[Tensor, Tensor]:
  _81 = __torch__.torchvision.models.detection.rpn.permute_and_flatten
  _82 = annotate(List[Tensor], [])
  _83 = annotate(List[Tensor], [])
  _84 = [torch.len(box_cls), torch.len(box_regression)]
  for _85 in range(ops.prim.min(_84)):
    box_cls_per_level = box_cls[_85]
    box_regression_per_level = box_regression[_85]
    N, AxC, H, W, = torch.size(box_cls_per_level)
    _86 = torch.size(box_regression_per_level)
    Ax4 = _86[1]
    A = torch.floordiv(Ax4, 4)
    C = torch.floordiv(AxC, A)
    box_cls_per_level0 = _81(box_cls_per_level, N, A, C, H, W, )
    _87 = torch.append(_82, box_cls_per_level0)
    box_regression_per_level0 = _81(box_regression_per_level, N, A, 4, H, W, )
    _88 = torch.append(_83, box_regression_per_level0)
  box_cls0 = torch.flatten(torch.cat(_82, 1), 0, -2)
  box_regression0 = torch.reshape(torch.cat(_83, 1), [-1, 4])
  return (box_cls0, box_regression0)
def permute_and_flatten(layer: Tensor,
    N: int,
    A: int,
    C: int,
    H: int,
    W: int) -> Tensor:
  layer0 = torch.view(layer, [N, -1, C, H, W])
  layer1 = torch.permute(layer0, [0, 3, 4, 1, 2])
  return torch.reshape(layer1, [N, -1, C])
