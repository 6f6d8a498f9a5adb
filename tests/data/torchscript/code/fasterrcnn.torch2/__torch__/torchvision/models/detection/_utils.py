class BoxCoder:
  weights : Tuple[float, float, float, float]
  bbox_xform_clip : float
  def __init__(self: __torch__.torchvision.models.detection._utils.BoxCoder,
    weights: Tuple[float, float, float, float],
    bbox_xform_clip: float=4.1351665567423561) -> NoneType:
    self.weights = weights
    self.bbox_xform_clip = bbox_xform_clip
    return None
  def decode(self: __torch__.torchvision.models.detection._utils.BoxCoder,
    rel_codes: Tensor,
    boxes: List[Tensor]) -> Tensor:
    boxes_per_image = annotate(List[int], [])
    for _0 in range(torch.len(boxes)):
      b = boxes[_0]
      _1 = torch.append(boxes_per_image, torch.size(b, 0))
    concat_boxes = torch.cat(boxes)
    box_sum = 0
    for _2 in range(torch.len(boxes_per_image)):
      val = boxes_per_image[_2]
      box_sum = torch.add(box_sum, val)
    if torch.gt(box_sum, 0):
      rel_codes1 = torch.reshape(rel_codes, [box_sum, -1])
      rel_codes0 = rel_codes1
    else:
      rel_codes0 = rel_codes
    pred_boxes = (self).decode_single(rel_codes0, concat_boxes, )
    if torch.gt(box_sum, 0):
      pred_boxes1 = torch.reshape(pred_boxes, [box_sum, -1, 4])
      pred_boxes0 = pred_boxes1
    else:
      pred_boxes0 = pred_boxes
    return pred_boxes0
  def decode_single(self: __torch__.torchvision.models.detection._utils.BoxCoder,
    rel_codes: Tensor,
    boxes: Tensor) -> Tensor:
    boxes0 = torch.to(boxes, ops.prim.dtype(rel_codes))
    _3 = torch.select(torch.slice(boxes0), 1, 2)
    _4 = torch.select(torch.slice(boxes0), 1, 0)
    widths = torch.sub(_3, _4)
    _5 = torch.select(torch.slice(boxes0), 1, 3)
    _6 = torch.select(torch.slice(boxes0), 1, 1)
    heights = torch.sub(_5, _6)
    _7 = torch.select(torch.slice(boxes0), 1, 0)
    ctr_x = torch.add(_7, torch.mul(widths, 0.5))
    _8 = torch.select(torch.slice(boxes0), 1, 1)
    ctr_y = torch.add(_8, torch.mul(heights, 0.5))
    weights = self.weights
    wx, wy, ww, wh, = weights
    _9 = torch.slice(torch.slice(rel_codes), 1, 0, None, 4)
    dx = torch.div(_9, wx)
    _10 = torch.slice(torch.slice(rel_codes), 1, 1, None, 4)
    dy = torch.div(_10, wy)
    _11 = torch.slice(torch.slice(rel_codes), 1, 2, None, 4)
    dw = torch.div(_11, ww)
    _12 = torch.slice(torch.slice(rel_codes), 1, 3, None, 4)
    dh = torch.div(_12, wh)
    bbox_xform_clip = self.bbox_xform_clip
    dw0 = torch.clamp(dw, None, bbox_xform_clip)
    bbox_xform_clip0 = self.bbox_xform_clip
    dh0 = torch.clamp(dh, None, bbox_xform_clip0)
    _13 = torch.unsqueeze(torch.slice(widths), 1)
    _14 = torch.mul(dx, _13)
    _15 = torch.unsqueeze(torch.slice(ctr_x), 1)
    pred_ctr_x = torch.add(_14, _15)
    _16 = torch.unsqueeze(torch.slice(heights), 1)
    _17 = torch.mul(dy, _16)
    _18 = torch.unsqueeze(torch.slice(ctr_y), 1)
    pred_ctr_y = torch.add(_17, _18)
    _19 = torch.exp(dw0)
    _20 = torch.unsqueeze(torch.slice(widths), 1)
    pred_w = torch.mul(_19, _20)
    _21 = torch.exp(dh0)
    _22 = torch.unsqueeze(torch.slice(heights), 1)
    pred_h = torch.mul(_21, _22)
    _23 = torch.tensor(0.5, dtype=ops.prim.dtype(pred_ctr_y), device=ops.prim.device(pred_h))
    c_to_c_h = torch.mul(_23, pred_h)
    _24 = torch.tensor(0.5, dtype=ops.prim.dtype(pred_ctr_x), device=ops.prim.device(pred_w))
    c_to_c_w = torch.mul(_24, pred_w)
    pred_boxes1 = torch.sub(pred_ctr_x, c_to_c_w)
    pred_boxes2 = torch.sub(pred_ctr_y, c_to_c_h)
    pred_boxes3 = torch.add(pred_ctr_x, c_to_c_w)
    pred_boxes4 = torch.add(pred_ctr_y, c_to_c_h)
    _25 = [pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4]
    pred_boxes = torch.flatten(torch.stack(_25, 2), 1)
    return pred_boxes
  def encode(self: __torch__.torchvision.models.detection._utils.BoxCoder,
    reference_boxes: List[Tensor],
    proposals: List[Tensor]) -> List[Tensor]:
    boxes_per_image = annotate(List[int], [])
    for _26 in range(torch.len(reference_boxes)):
      b = reference_boxes[_26]
      _27 = torch.append(boxes_per_image, torch.len(b))
    reference_boxes0 = torch.cat(reference_boxes)
    proposals0 = torch.cat(proposals)
    targets = (self).encode_single(reference_boxes0, proposals0, )
    _28 = torch.split(targets, boxes_per_image)
    return _28
  def encode_single(self: __torch__.torchvision.models.detection._utils.BoxCoder,
    reference_boxes: Tensor,
    proposals: Tensor) -> Tensor:
    _29 = __torch__.torchvision.models.detection._utils.encode_boxes
    dtype = ops.prim.dtype(reference_boxes)
    device = ops.prim.device(reference_boxes)
    weights = self.weights
    _30, _31, _32, _33, = weights
    weights0 = torch.as_tensor([_30, _31, _32, _33], dtype=dtype, device=device)
    targets = _29(reference_boxes, proposals, weights0, )
    return targets
class Matcher:
  BELOW_LOW_THRESHOLD : int
  BETWEEN_THRESHOLDS : int
  high_threshold : float
  low_threshold : float
  allow_low_quality_matches : bool
  def __call__(self: __torch__.torchvision.models.detection._utils.Matcher,
    match_quality_matrix: Tensor) -> Tensor:
    _34 = "No ground-truth boxes available for one of the images during training"
    _35 = "No proposal boxes available for one of the images during training"
    _36 = "AssertionError: all_matches should not be None"
    _37 = torch.eq(torch.numel(match_quality_matrix), 0)
    if _37:
      _38 = (torch.size(match_quality_matrix))[0]
      if torch.eq(_38, 0):
        ops.prim.RaiseException(_34, "builtins.ValueError")
      else:
        ops.prim.RaiseException(_35, "builtins.ValueError")
    else:
      pass
    matched_vals, matches = torch.max(match_quality_matrix, 0)
    allow_low_quality_matches = self.allow_low_quality_matches
    if allow_low_quality_matches:
      all_matches : Optional[Tensor] = torch.clone(matches)
    else:
      all_matches = None
    low_threshold = self.low_threshold
    below_low_threshold = torch.lt(matched_vals, low_threshold)
    low_threshold0 = self.low_threshold
    _39 = torch.ge(matched_vals, low_threshold0)
    high_threshold = self.high_threshold
    _40 = torch.lt(matched_vals, high_threshold)
    between_thresholds = torch.__and__(_39, _40)
    BELOW_LOW_THRESHOLD = self.BELOW_LOW_THRESHOLD
    _41 = torch.tensor(BELOW_LOW_THRESHOLD, dtype=ops.prim.dtype(matches), device=ops.prim.device(matches))
    _42 = annotate(List[Optional[Tensor]], [below_low_threshold])
    _43 = torch.index_put_(matches, _42, _41)
    BETWEEN_THRESHOLDS = self.BETWEEN_THRESHOLDS
    _44 = torch.tensor(BETWEEN_THRESHOLDS, dtype=ops.prim.dtype(matches), device=ops.prim.device(matches))
    _45 = annotate(List[Optional[Tensor]], [between_thresholds])
    _46 = torch.index_put_(matches, _45, _44)
    allow_low_quality_matches0 = self.allow_low_quality_matches
    if allow_low_quality_matches0:
      if torch.__is__(all_matches, None):
        ops.prim.RaiseException(_36)
      else:
        all_matches0 = unchecked_cast(Tensor, all_matches)
        _47 = (self).set_low_quality_matches_(matches, all_matches0, match_quality_matrix, )
    else:
      pass
    return matches
  def __init__(self: __torch__.torchvision.models.detection._utils.Matcher,
    high_threshold: float,
    low_threshold: float,
    allow_low_quality_matches: bool=False) -> NoneType:
    _48 = "AssertionError: low_threshold should be <= high_threshold"
    self.BELOW_LOW_THRESHOLD = -1
    self.BETWEEN_THRESHOLDS = -2
    _49 = torch.le(low_threshold, high_threshold)
    if _49:
      pass
    else:
      ops.prim.RaiseException(_48)
    self.high_threshold = high_threshold
    self.low_threshold = low_threshold
    self.allow_low_quality_matches = allow_low_quality_matches
    return None
  def set_low_quality_matches_(self: __torch__.torchvision.models.detection._utils.Matcher,
    matches: Tensor,
    all_matches: Tensor,
    match_quality_matrix: Tensor) -> NoneType:
    highest_quality_foreach_gt, _50 = torch.max(match_quality_matrix, 1)
    _51 = torch.slice(highest_quality_foreach_gt)
    _52 = torch.eq(match_quality_matrix, torch.unsqueeze(_51, 1))
    gt_pred_pairs_of_highest_quality = torch.where(_52)
    pred_inds_to_update = gt_pred_pairs_of_highest_quality[1]
    _53 = annotate(List[Optional[Tensor]], [pred_inds_to_update])
    _54 = torch.index(all_matches, _53)
    _55 = annotate(List[Optional[Tensor]], [pred_inds_to_update])
    _56 = torch.index_put_(matches, _55, _54)
    return None
class BalancedPositiveNegativeSampler:
  batch_size_per_image : int
  positive_fraction : float
  def __call__(self: __torch__.torchvision.models.detection._utils.BalancedPositiveNegativeSampler,
    matched_idxs: List[Tensor]) -> Tuple[List[Tensor], List[Tensor]]:
    _57 = annotate(List[Tensor], [])
    _58 = annotate(List[Tensor], [])
    for _59 in range(torch.len(matched_idxs)):
      matched_idxs_per_image = matched_idxs[_59]
      _60 = torch.ge(matched_idxs_per_image, 1)
      positive = (torch.where(_60))[0]
      _61 = torch.eq(matched_idxs_per_image, 0)
      negative = (torch.where(_61))[0]
      batch_size_per_image = self.batch_size_per_image
      positive_fraction = self.positive_fraction
      _62 = torch.mul(batch_size_per_image, positive_fraction)
      num_pos = int(_62)
      num_pos0 = ops.prim.min(torch.numel(positive), num_pos)
      batch_size_per_image0 = self.batch_size_per_image
      num_neg = torch.sub(batch_size_per_image0, num_pos0)
      num_neg0 = ops.prim.min(torch.numel(negative), num_neg)
      _63 = torch.randperm(torch.numel(positive), dtype=4, layout=None, device=ops.prim.device(positive))
      perm1 = torch.slice(_63, 0, None, num_pos0)
      _64 = torch.randperm(torch.numel(negative), dtype=4, layout=None, device=ops.prim.device(negative))
      perm2 = torch.slice(_64, 0, None, num_neg0)
      _65 = annotate(List[Optional[Tensor]], [perm1])
      pos_idx_per_image = torch.index(positive, _65)
      _66 = annotate(List[Optional[Tensor]], [perm2])
      neg_idx_per_image = torch.index(negative, _66)
      pos_idx_per_image_mask = torch.zeros_like(matched_idxs_per_image, dtype=0)
      neg_idx_per_image_mask = torch.zeros_like(matched_idxs_per_image, dtype=0)
      _67 = ops.prim.dtype(pos_idx_per_image_mask)
      _68 = ops.prim.device(pos_idx_per_image_mask)
      _69 = torch.tensor(1, dtype=_67, device=_68)
      _70 = annotate(List[Optional[Tensor]], [pos_idx_per_image])
      _71 = torch.index_put_(pos_idx_per_image_mask, _70, _69)
      _72 = ops.prim.dtype(neg_idx_per_image_mask)
      _73 = ops.prim.device(neg_idx_per_image_mask)
      _74 = torch.tensor(1, dtype=_72, device=_73)
      _75 = annotate(List[Optional[Tensor]], [neg_idx_per_image])
      _76 = torch.index_put_(neg_idx_per_image_mask, _75, _74)
      _77 = torch.append(_57, pos_idx_per_image_mask)
      _78 = torch.append(_58, neg_idx_per_image_mask)
    return (_57, _58)
  def __init__(self: __torch__.torchvision.models.detection._utils.BalancedPositiveNegativeSampler,
    batch_size_per_image: int,
    positive_fraction: float) -> NoneType:
    self.batch_size_per_image = batch_size_per_image
    self.positive_fraction = positive_fraction
    return None
def _topk_min(input: Tensor,
    orig_kval: int,
    axis: int) -> int:
  _79 = "This Python function is annotated to be ignored and cannot be run"
  _80 = uninitialized(int)
  _81 = __torch__.torch.jit._trace.is_tracing()
  if torch.__not__(_81):
    _83 = ops.prim.min(orig_kval, torch.size(input, axis))
    _82 = _83
  else:
    ops.prim.RaiseException(_79)
    _82 = _80
  return _82
def encode_boxes(reference_boxes: Tensor,
    proposals: Tensor,
    weights: Tensor) -> Tensor:
  wx = torch.select(weights, 0, 0)
  wy = torch.select(weights, 0, 1)
  ww = torch.select(weights, 0, 2)
  wh = torch.select(weights, 0, 3)
  _84 = torch.select(torch.slice(proposals), 1, 0)
  proposals_x1 = torch.unsqueeze(_84, 1)
  _85 = torch.select(torch.slice(proposals), 1, 1)
  proposals_y1 = torch.unsqueeze(_85, 1)
  _86 = torch.select(torch.slice(proposals), 1, 2)
  proposals_x2 = torch.unsqueeze(_86, 1)
  _87 = torch.select(torch.slice(proposals), 1, 3)
  proposals_y2 = torch.unsqueeze(_87, 1)
  _88 = torch.select(torch.slice(reference_boxes), 1, 0)
  reference_boxes_x1 = torch.unsqueeze(_88, 1)
  _89 = torch.select(torch.slice(reference_boxes), 1, 1)
  reference_boxes_y1 = torch.unsqueeze(_89, 1)
  _90 = torch.select(torch.slice(reference_boxes), 1, 2)
  reference_boxes_x2 = torch.unsqueeze(_90, 1)
  _91 = torch.select(torch.slice(reference_boxes), 1, 3)
  reference_boxes_y2 = torch.unsqueeze(_91, 1)
  ex_widths = torch.sub(proposals_x2, proposals_x1)
  ex_heights = torch.sub(proposals_y2, proposals_y1)
  ex_ctr_x = torch.add(proposals_x1, torch.mul(ex_widths, 0.5))
  ex_ctr_y = torch.add(proposals_y1, torch.mul(ex_heights, 0.5))
  gt_widths = torch.sub(reference_boxes_x2, reference_boxes_x1)
  gt_heights = torch.sub(reference_boxes_y2, reference_boxes_y1)
  gt_ctr_x = torch.add(reference_boxes_x1, torch.mul(gt_widths, 0.5))
  gt_ctr_y = torch.add(reference_boxes_y1, torch.mul(gt_heights, 0.5))
  _92 = torch.mul(wx, torch.sub(gt_ctr_x, ex_ctr_x))
  targets_dx = torch.div(_92, ex_widths)
  _93 = torch.mul(wy, torch.sub(gt_ctr_y, ex_ctr_y))
  targets_dy = torch.div(_93, ex_heights)
  _94 = torch.log(torch.div(gt_widths, ex_widths))
  targets_dw = torch.mul(ww, _94)
  _95 = torch.log(torch.div(gt_heights, ex_heights))
  targets_dh = torch.mul(wh, _95)
  _96 = [targets_dx, targets_dy, targets_dw, targets_dh]
  return torch.cat(_96, 1)
