def dropout(input: Tensor,
    p: float=0.5,
    training: bool=True,
    inplace: bool=False) -> Tensor:
  _0 = "dropout probability has to be between 0 and 1, but got {}"
  if torch.lt(p, 0.):
    _1 = True
  else:
    _1 = torch.gt(p, 1.)
  if _1:
    ops.prim.RaiseException(torch.format(_0, p), "builtins.ValueError")
  else:
    pass
  if inplace:
    _2 = torch.dropout_(input, p, training)
  else:
    _2 = torch.dropout(input, p, training)
  return _2
def layer_norm(input: Tensor,
    normalized_shape: List[int],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _3 = torch.layer_norm(input, normalized_shape, weight, bias, eps)
  return _3
def _none_or_dtype(input: Optional[Tensor]) -> Optional[int]:
  if torch.__is__(input, None):
    _4 : Optional[int] = None
  else:
    input0 = unchecked_cast(Tensor, input)
    input1 = unchecked_cast(Tensor, input0)
    _4 = ops.prim.dtype(input1)
  return _4
def _canonical_mask(mask: Optional[Tensor],
    mask_name: str,
    other_type: Optional[int],
    other_name: str,
    target_type: int,
    check_other: bool=True) -> Optional[Tensor]:
  _5 = "only bool and floating types of {} are supported"
  _6 = "Support for mismatched {} and {} is deprecated. Use same type for both instead."
  if torch.__isnot__(mask, None):
    mask1 = unchecked_cast(Tensor, mask)
    _mask_dtype = ops.prim.dtype(mask1)
    _mask_is_float = torch.is_floating_point(mask1)
    if torch.ne(_mask_dtype, 11):
      _7 = torch.__not__(_mask_is_float)
    else:
      _7 = False
    if _7:
      _8 = torch.add("AssertionError: ", torch.format(_5, mask_name))
      ops.prim.RaiseException(_8)
    else:
      pass
    if check_other:
      _9 = torch.__isnot__(other_type, None)
    else:
      _9 = False
    if _9:
      other_type0 = unchecked_cast(int, other_type)
      _10 = torch.ne(_mask_dtype, other_type0)
      if _10:
        _11 = torch.format(_6, mask_name, other_name)
        torch.warn(_11)
      else:
        pass
    else:
      pass
    if torch.__not__(_mask_is_float):
      _12 = torch.zeros_like(mask1, dtype=target_type)
      mask3 = torch.masked_fill_(_12, mask1, -inf)
      mask2 = mask3
    else:
      mask2 = mask1
    mask0 : Optional[Tensor] = mask2
  else:
    mask0 = mask
  return mask0
def multi_head_attention_forward(query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Optional[Tensor],
    in_proj_bias: Optional[Tensor],
    bias_k: Optional[Tensor],
    bias_v: Optional[Tensor],
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor],
    training: bool=True,
    key_padding_mask: Optional[Tensor]=None,
    need_weights: bool=True,
    attn_mask: Optional[Tensor]=None,
    use_separate_proj_weight: bool=False,
    q_proj_weight: Optional[Tensor]=None,
    k_proj_weight: Optional[Tensor]=None,
    v_proj_weight: Optional[Tensor]=None,
    static_k: Optional[Tensor]=None,
    static_v: Optional[Tensor]=None,
    average_attn_weights: bool=True,
    is_causal: bool=False) -> Tuple[Tensor, Optional[Tensor]]:
  _13 = __torch__.torch.nn.functional._mha_shape_check
  _14 = __torch__.torch.nn.functional._none_or_dtype
  _15 = __torch__.torch.nn.functional._canonical_mask
  _16 = "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask."
  _17 = "was expecting embedding dimension of {}, but got {}"
  _18 = "embed_dim {} not divisible by num_heads {}"
  _19 = "key\'s sequence and batch dims {} do not match value\'s {}"
  _20 = "key shape {} does not match value shape {}"
  _21 = "AssertionError: use_separate_proj_weight is False but in_proj_weight is None"
  _22 = __torch__.torch.nn.functional._in_projection_packed
  _23 = "AssertionError: use_separate_proj_weight is True but q_proj_weight is None"
  _24 = "AssertionError: use_separate_proj_weight is True but k_proj_weight is None"
  _25 = "AssertionError: use_separate_proj_weight is True but v_proj_weight is None"
  _26 = __torch__.torch.nn.functional._in_projection
  _27 = "The shape of the 2D attn_mask is {}, but should be {}."
  _28 = "The shape of the 3D attn_mask is {}, but should be {}."
  _29 = "attn_mask\'s dimension {} is not supported"
  _30 = "AssertionError: bias cannot be added to static key."
  _31 = "AssertionError: bias cannot be added to static value."
  _32 = "AssertionError: bias_k is set but bias_v is None"
  _33 = "AssertionError: bias_v is set but bias_k is None"
  _34 = "expecting static_k.size(0) of {}, but got {}"
  _35 = "expecting static_k.size(2) of {}, but got {}"
  _36 = "expecting static_v.size(0) of {}, but got {}"
  _37 = "expecting static_v.size(2) of {}, but got {}"
  _38 = "AssertionError: FIXME: is_causal not implemented for need_weights"
  _39 = uninitialized(Optional[Tensor])
  _40 = uninitialized(Optional[Tensor])
  _41 = uninitialized(Tensor)
  is_batched = _13(query, key, value, key_padding_mask, attn_mask, num_heads, )
  if torch.__not__(is_batched):
    query1 = torch.unsqueeze(query, 1)
    key1 = torch.unsqueeze(key, 1)
    value1 = torch.unsqueeze(value, 1)
    _42 = torch.__isnot__(key_padding_mask, None)
    if _42:
      key_padding_mask2 = unchecked_cast(Tensor, key_padding_mask)
      key_padding_mask3 = torch.unsqueeze(key_padding_mask2, 0)
      key_padding_mask1 : Optional[Tensor] = key_padding_mask3
    else:
      key_padding_mask1 = key_padding_mask
    query0, key0, key_padding_mask0, value0 = query1, key1, key_padding_mask1, value1
  else:
    query0, key0, key_padding_mask0, value0 = query, key, key_padding_mask, value
  tgt_len, bsz, embed_dim, = torch.size(query0)
  src_len, _43, _44, = torch.size(key0)
  key_padding_mask4 = _15(key_padding_mask0, "key_padding_mask", _14(attn_mask, ), "attn_mask", ops.prim.dtype(query0), True, )
  if is_causal:
    _45 = torch.__is__(attn_mask, None)
  else:
    _45 = False
  if _45:
    ops.prim.RaiseException(_16, "builtins.RuntimeError")
  else:
    pass
  if is_causal:
    _47 = torch.__is__(key_padding_mask4, None)
    _46 = _47
  else:
    _46 = False
  if _46:
    _48 = torch.__not__(need_weights)
  else:
    _48 = False
  if _48:
    attn_mask0, key_padding_mask5, is_causal0 = None, key_padding_mask4, is_causal
  else:
    attn_mask1 = _15(attn_mask, "attn_mask", None, "", ops.prim.dtype(query0), False, )
    _49 = torch.__isnot__(key_padding_mask4, None)
    if _49:
      key_padding_mask7 = unchecked_cast(Tensor, key_padding_mask4)
      key_padding_mask6, is_causal1 = key_padding_mask7, False
    else:
      key_padding_mask6, is_causal1 = key_padding_mask4, is_causal
    attn_mask0, key_padding_mask5, is_causal0 = attn_mask1, key_padding_mask6, is_causal1
  _50 = torch.ne(embed_dim, embed_dim_to_check)
  if _50:
    _51 = torch.format(_17, embed_dim_to_check, embed_dim)
    ops.prim.RaiseException(torch.add("AssertionError: ", _51))
  else:
    pass
  embed_dim0 = unchecked_cast(int, embed_dim)
  head_dim = torch.floordiv(embed_dim0, num_heads)
  _52 = torch.ne(torch.mul(head_dim, num_heads), embed_dim0)
  if _52:
    _53 = torch.format(_18, embed_dim0, num_heads)
    ops.prim.RaiseException(torch.add("AssertionError: ", _53))
  else:
    pass
  if use_separate_proj_weight:
    _54 = torch.slice(torch.size(key0), None, 2)
    _55 = torch.slice(torch.size(value0), None, 2)
    if torch.ne(_54, _55):
      _56 = torch.slice(torch.size(key0), None, 2)
      _57 = torch.slice(torch.size(value0), None, 2)
      _58 = torch.add("AssertionError: ", torch.format(_19, _56, _57))
      ops.prim.RaiseException(_58)
    else:
      pass
  else:
    _59 = torch.ne(torch.size(key0), torch.size(value0))
    if _59:
      _60 = torch.format(_20, torch.size(key0), torch.size(value0))
      _61 = torch.add("AssertionError: ", _60)
      ops.prim.RaiseException(_61)
    else:
      pass
  _62 = torch.__not__(use_separate_proj_weight)
  if _62:
    if torch.__is__(in_proj_weight, None):
      ops.prim.RaiseException(_21)
      in_proj_weight0 = _41
    else:
      in_proj_weight1 = unchecked_cast(Tensor, in_proj_weight)
      in_proj_weight0 = in_proj_weight1
    _63 = _22(query0, key0, value0, in_proj_weight0, in_proj_bias, )
    q0, k0, v0, = _63
    k, v, q = k0, v0, q0
  else:
    if torch.__is__(q_proj_weight, None):
      ops.prim.RaiseException(_23)
      q_proj_weight0 = _41
    else:
      q_proj_weight1 = unchecked_cast(Tensor, q_proj_weight)
      q_proj_weight0 = q_proj_weight1
    if torch.__is__(k_proj_weight, None):
      ops.prim.RaiseException(_24)
      k_proj_weight0 = _41
    else:
      k_proj_weight1 = unchecked_cast(Tensor, k_proj_weight)
      k_proj_weight0 = k_proj_weight1
    if torch.__is__(v_proj_weight, None):
      ops.prim.RaiseException(_25)
      v_proj_weight0 = _41
    else:
      v_proj_weight1 = unchecked_cast(Tensor, v_proj_weight)
      v_proj_weight0 = v_proj_weight1
    if torch.__is__(in_proj_bias, None):
      b_q, b_k, b_v = None, None, None
    else:
      in_proj_bias0 = unchecked_cast(Tensor, in_proj_bias)
      b_q0, b_k0, b_v0, = torch.chunk(in_proj_bias0, 3)
      b_q, b_k, b_v = b_q0, b_k0, b_v0
    _64 = _26(query0, key0, value0, q_proj_weight0, k_proj_weight0, v_proj_weight0, b_q, b_k, b_v, )
    q1, k1, v1, = _64
    k, v, q = k1, v1, q1
  if torch.__isnot__(attn_mask0, None):
    attn_mask3 = unchecked_cast(Tensor, attn_mask0)
    if torch.eq(torch.dim(attn_mask3), 2):
      correct_2d_size = (tgt_len, src_len)
      _65 = torch.ne(torch.size(attn_mask3), [tgt_len, src_len])
      if _65:
        _66 = torch.format(_27, torch.size(attn_mask3), correct_2d_size)
        ops.prim.RaiseException(_66, "builtins.RuntimeError")
      else:
        pass
      attn_mask4 = torch.unsqueeze(attn_mask3, 0)
    else:
      _67 = torch.eq(torch.dim(attn_mask3), 3)
      if _67:
        _68 = torch.mul(bsz, num_heads)
        correct_3d_size = (_68, tgt_len, src_len)
        _69 = torch.ne(torch.size(attn_mask3), [_68, tgt_len, src_len])
        if _69:
          _70 = torch.format(_28, torch.size(attn_mask3), correct_3d_size)
          ops.prim.RaiseException(_70, "builtins.RuntimeError")
        else:
          pass
      else:
        _71 = torch.format(_29, torch.dim(attn_mask3))
        ops.prim.RaiseException(_71, "builtins.RuntimeError")
      attn_mask4 = attn_mask3
    attn_mask2 : Optional[Tensor] = attn_mask4
  else:
    attn_mask2 = attn_mask0
  if torch.__isnot__(bias_k, None):
    bias_k1 = unchecked_cast(Tensor, bias_k)
    _72, bias_k0 = torch.__isnot__(bias_v, None), bias_k1
  else:
    _72, bias_k0 = False, bias_k
  if _72:
    bias_k2 = unchecked_cast(Tensor, bias_k0)
    bias_v0 = unchecked_cast(Tensor, bias_v)
    if torch.__isnot__(static_k, None):
      ops.prim.RaiseException(_30)
      static_k1 : Optional[Tensor] = _40
    else:
      static_k1 = static_k
    if torch.__isnot__(static_v, None):
      ops.prim.RaiseException(_31)
      static_v1 : Optional[Tensor] = _39
    else:
      static_v1 = static_v
    _73 = [k, torch.repeat(bias_k2, [1, bsz, 1])]
    k3 = torch.cat(_73)
    _74 = [v, torch.repeat(bias_v0, [1, bsz, 1])]
    v3 = torch.cat(_74)
    if torch.__isnot__(attn_mask2, None):
      attn_mask7 = unchecked_cast(Tensor, attn_mask2)
      attn_mask8 = __torch__.torch.nn.functional.pad(attn_mask7, [0, 1], "constant", None, )
      attn_mask6 : Optional[Tensor] = attn_mask8
    else:
      attn_mask6 = attn_mask2
    _75 = torch.__isnot__(key_padding_mask5, None)
    if _75:
      key_padding_mask10 = unchecked_cast(Tensor, key_padding_mask5)
      key_padding_mask11 = __torch__.torch.nn.functional.pad(key_padding_mask10, [0, 1], "constant", None, )
      key_padding_mask9 : Optional[Tensor] = key_padding_mask11
    else:
      key_padding_mask9 = key_padding_mask5
    static_k0, k2, static_v0, v2, attn_mask5, key_padding_mask8 = static_k1, k3, static_v1, v3, attn_mask6, key_padding_mask9
  else:
    if torch.__isnot__(bias_k0, None):
      ops.prim.RaiseException(_32)
    else:
      pass
    if torch.__isnot__(bias_v, None):
      ops.prim.RaiseException(_33)
    else:
      pass
    static_k0, k2, static_v0, v2, attn_mask5, key_padding_mask8 = static_k, k, static_v, v, attn_mask2, key_padding_mask5
  _76 = [tgt_len, torch.mul(bsz, num_heads), head_dim]
  q2 = torch.transpose(torch.view(q, _76), 0, 1)
  if torch.__is__(static_k0, None):
    _77 = [(torch.size(k2))[0], torch.mul(bsz, num_heads), head_dim]
    k5 = torch.transpose(torch.view(k2, _77), 0, 1)
    k4 = k5
  else:
    static_k2 = unchecked_cast(Tensor, static_k0)
    _78 = torch.ne(torch.size(static_k2, 0), torch.mul(bsz, num_heads))
    if _78:
      _79 = torch.format(_34, torch.mul(bsz, num_heads), torch.size(static_k2, 0))
      _80 = torch.add("AssertionError: ", _79)
      ops.prim.RaiseException(_80)
    else:
      pass
    _81 = torch.ne(torch.size(static_k2, 2), head_dim)
    if _81:
      _82 = torch.format(_35, head_dim, torch.size(static_k2, 2))
      _83 = torch.add("AssertionError: ", _82)
      ops.prim.RaiseException(_83)
    else:
      pass
    k4 = static_k2
  if torch.__is__(static_v0, None):
    _84 = [(torch.size(v2))[0], torch.mul(bsz, num_heads), head_dim]
    v5 = torch.transpose(torch.view(v2, _84), 0, 1)
    v4 = v5
  else:
    static_v2 = unchecked_cast(Tensor, static_v0)
    _85 = torch.ne(torch.size(static_v2, 0), torch.mul(bsz, num_heads))
    if _85:
      _86 = torch.format(_36, torch.mul(bsz, num_heads), torch.size(static_v2, 0))
      _87 = torch.add("AssertionError: ", _86)
      ops.prim.RaiseException(_87)
    else:
      pass
    _88 = torch.ne(torch.size(static_v2, 2), head_dim)
    if _88:
      _89 = torch.format(_37, head_dim, torch.size(static_v2, 2))
      _90 = torch.add("AssertionError: ", _89)
      ops.prim.RaiseException(_90)
    else:
      pass
    v4 = static_v2
  if add_zero_attn:
    _91 = torch.mul(bsz, num_heads)
    _92 = ops.prim.dtype(k4)
    _93 = ops.prim.device(k4)
    _94 = torch.zeros([_91, 1, head_dim], dtype=_92, layout=None, device=_93)
    k7 = torch.cat([k4, _94], 1)
    _95 = ops.prim.dtype(v4)
    _96 = ops.prim.device(v4)
    _97 = torch.zeros([_91, 1, head_dim], dtype=_95, layout=None, device=_96)
    v7 = torch.cat([v4, _97], 1)
    if torch.__isnot__(attn_mask5, None):
      attn_mask11 = unchecked_cast(Tensor, attn_mask5)
      attn_mask12 = __torch__.torch.nn.functional.pad(attn_mask11, [0, 1], "constant", None, )
      attn_mask10 : Optional[Tensor] = attn_mask12
    else:
      attn_mask10 = attn_mask5
    _98 = torch.__isnot__(key_padding_mask8, None)
    if _98:
      key_padding_mask14 = unchecked_cast(Tensor, key_padding_mask8)
      key_padding_mask15 = __torch__.torch.nn.functional.pad(key_padding_mask14, [0, 1], "constant", None, )
      key_padding_mask13 : Optional[Tensor] = key_padding_mask15
    else:
      key_padding_mask13 = key_padding_mask8
    k6, key_padding_mask12, attn_mask9, v6 = k7, key_padding_mask13, attn_mask10, v7
  else:
    k6, key_padding_mask12, attn_mask9, v6 = k4, key_padding_mask8, attn_mask5, v4
  src_len0 = torch.size(k6, 1)
  _99 = torch.__isnot__(key_padding_mask12, None)
  if _99:
    key_padding_mask16 = unchecked_cast(Tensor, key_padding_mask12)
    _100 = torch.view(key_padding_mask16, [bsz, 1, 1, src_len0])
    _101 = torch.expand(_100, [-1, num_heads, -1, -1])
    _102 = [torch.mul(bsz, num_heads), 1, src_len0]
    key_padding_mask17 = torch.reshape(_101, _102)
    if torch.__is__(attn_mask9, None):
      attn_mask14 = key_padding_mask17
    else:
      attn_mask15 = unchecked_cast(Tensor, attn_mask9)
      attn_mask16 = torch.add(attn_mask15, key_padding_mask17)
      attn_mask14 = attn_mask16
    attn_mask13 : Optional[Tensor] = attn_mask14
  else:
    attn_mask13 = attn_mask9
  if torch.__not__(training):
    dropout_p0 = 0.
  else:
    dropout_p0 = dropout_p
  if need_weights:
    _B, _Nt, E, = torch.size(q2)
    q_scaled = torch.mul(q2, torch.sqrt(torch.div(1., float(E))))
    if is_causal0:
      _104 = torch.__is__(attn_mask13, None)
    else:
      _104 = False
    if _104:
      ops.prim.RaiseException(_38)
    else:
      pass
    if torch.__isnot__(attn_mask13, None):
      attn_mask17 = unchecked_cast(Tensor, attn_mask13)
      attn_output_weights0 = torch.baddbmm(attn_mask17, q_scaled, torch.transpose(k6, -2, -1))
      attn_output_weights = attn_output_weights0
    else:
      attn_output_weights1 = torch.bmm(q_scaled, torch.transpose(k6, -2, -1))
      attn_output_weights = attn_output_weights1
    attn_output_weights2 = __torch__.torch.nn.functional.softmax(attn_output_weights, -1, 3, None, )
    if torch.gt(dropout_p0, 0.):
      attn_output_weights4 = __torch__.torch.nn.functional.dropout(attn_output_weights2, dropout_p0, True, False, )
      attn_output_weights3 = attn_output_weights4
    else:
      attn_output_weights3 = attn_output_weights2
    attn_output = torch.bmm(attn_output_weights3, v6)
    _105 = torch.transpose(attn_output, 0, 1)
    _106 = [torch.mul(tgt_len, bsz), embed_dim0]
    attn_output0 = torch.reshape(_105, _106)
    attn_output1 = torch.linear(attn_output0, out_proj_weight, out_proj_bias)
    _107 = [tgt_len, bsz, torch.size(attn_output1, 1)]
    attn_output2 = torch.view(attn_output1, _107)
    attn_output_weights5 = torch.view(attn_output_weights3, [bsz, num_heads, tgt_len, src_len0])
    if average_attn_weights:
      attn_output_weights7 = torch.mean(attn_output_weights5, [1])
      attn_output_weights6 = attn_output_weights7
    else:
      attn_output_weights6 = attn_output_weights5
    if torch.__not__(is_batched):
      attn_output4 = torch.squeeze(attn_output2, 1)
      attn_output_weights9 = torch.squeeze(attn_output_weights6, 0)
      attn_output3, attn_output_weights8 = attn_output4, attn_output_weights9
    else:
      attn_output3, attn_output_weights8 = attn_output2, attn_output_weights6
    _108 = (attn_output3, attn_output_weights8)
    _103 = _108
  else:
    if torch.__isnot__(attn_mask13, None):
      attn_mask19 = unchecked_cast(Tensor, attn_mask13)
      _109 = torch.eq(torch.size(attn_mask19, 0), 1)
      if _109:
        _111 = torch.eq(torch.dim(attn_mask19), 3)
        _110 = _111
      else:
        _110 = False
      if _110:
        attn_mask20 = torch.unsqueeze(attn_mask19, 0)
      else:
        attn_mask21 = torch.view(attn_mask19, [bsz, num_heads, -1, src_len0])
        attn_mask20 = attn_mask21
      attn_mask18 : Optional[Tensor] = attn_mask20
    else:
      attn_mask18 = attn_mask13
    q3 = torch.view(q2, [bsz, num_heads, tgt_len, head_dim])
    _112 = [bsz, num_heads, src_len0, head_dim]
    k8 = torch.view(k6, _112)
    _113 = [bsz, num_heads, src_len0, head_dim]
    v8 = torch.view(v6, _113)
    attn_output5 = torch.scaled_dot_product_attention(q3, k8, v8, attn_mask18, dropout_p0, is_causal0)
    _114 = torch.permute(attn_output5, [2, 0, 1, 3])
    _115 = [torch.mul(bsz, tgt_len), embed_dim0]
    attn_output6 = torch.reshape(_114, _115)
    attn_output7 = torch.linear(attn_output6, out_proj_weight, out_proj_bias)
    _116 = [tgt_len, bsz, torch.size(attn_output7, 1)]
    attn_output8 = torch.view(attn_output7, _116)
    if torch.__not__(is_batched):
      attn_output9 = torch.squeeze(attn_output8, 1)
    else:
      attn_output9 = attn_output8
    _103 = (attn_output9, None)
  return _103
def _mha_shape_check(query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Optional[Tensor],
    attn_mask: Optional[Tensor],
    num_heads: int) -> bool:
  _117 = "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D and {}-D tensors respectively"
  _118 = "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found {}-D tensor instead"
  _119 = "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _120 = "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {}-D and {}-D tensors respectively"
  _121 = "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found {}-D tensor instead"
  _122 = "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D tensor instead"
  _123 = "Expected `attn_mask` shape to be {} but got {}"
  _124 = "query should be unbatched 2D or batched 3D tensor but received {}-D query tensor"
  _125 = uninitialized(bool)
  if torch.eq(torch.dim(query), 3):
    if torch.ne(torch.dim(key), 3):
      _126 = True
    else:
      _126 = torch.ne(torch.dim(value), 3)
    if _126:
      _127 = torch.format(_117, torch.dim(key), torch.dim(value))
      _128 = torch.add("AssertionError: ", _127)
      ops.prim.RaiseException(_128)
    else:
      pass
    _129 = torch.__isnot__(key_padding_mask, None)
    if _129:
      key_padding_mask18 = unchecked_cast(Tensor, key_padding_mask)
      _130 = torch.ne(torch.dim(key_padding_mask18), 2)
      if _130:
        _131 = torch.format(_118, torch.dim(key_padding_mask18))
        _132 = torch.add("AssertionError: ", _131)
        ops.prim.RaiseException(_132)
      else:
        pass
    else:
      pass
    if torch.__isnot__(attn_mask, None):
      attn_mask22 = unchecked_cast(Tensor, attn_mask)
      _133 = torch.dim(attn_mask22)
      _134 = torch.__not__(torch.__contains__([2, 3], _133))
      if _134:
        _135 = torch.format(_119, torch.dim(attn_mask22))
        _136 = torch.add("AssertionError: ", _135)
        ops.prim.RaiseException(_136)
      else:
        pass
    else:
      pass
    is_batched = True
  else:
    if torch.eq(torch.dim(query), 2):
      if torch.ne(torch.dim(key), 2):
        _137 = True
      else:
        _137 = torch.ne(torch.dim(value), 2)
      if _137:
        _138 = torch.format(_120, torch.dim(key), torch.dim(value))
        _139 = torch.add("AssertionError: ", _138)
        ops.prim.RaiseException(_139)
      else:
        pass
      _140 = torch.__isnot__(key_padding_mask, None)
      if _140:
        key_padding_mask19 = unchecked_cast(Tensor, key_padding_mask)
        _141 = torch.ne(torch.dim(key_padding_mask19), 1)
        if _141:
          _142 = torch.format(_121, torch.dim(key_padding_mask19))
          _143 = torch.add("AssertionError: ", _142)
          ops.prim.RaiseException(_143)
        else:
          pass
      else:
        pass
      if torch.__isnot__(attn_mask, None):
        attn_mask23 = unchecked_cast(Tensor, attn_mask)
        _144 = torch.dim(attn_mask23)
        _145 = torch.__contains__([2, 3], _144)
        if torch.__not__(_145):
          _146 = torch.format(_122, torch.dim(attn_mask23))
          _147 = torch.add("AssertionError: ", _146)
          ops.prim.RaiseException(_147)
        else:
          pass
        _148 = torch.eq(torch.dim(attn_mask23), 3)
        if _148:
          _149 = (torch.size(query))[0]
          _150 = (torch.size(key))[0]
          expected_shape = (num_heads, _149, _150)
          _151 = torch.ne(torch.size(attn_mask23), [num_heads, _149, _150])
          if _151:
            _152 = torch.format(_123, expected_shape, torch.size(attn_mask23))
            _153 = torch.add("AssertionError: ", _152)
            ops.prim.RaiseException(_153)
          else:
            pass
        else:
          pass
      else:
        pass
      is_batched0 = False
    else:
      _154 = torch.format(_124, torch.dim(query))
      _155 = torch.add("AssertionError: ", _154)
      ops.prim.RaiseException(_155)
      is_batched0 = _125
    is_batched = is_batched0
  return is_batched
def _in_projection_packed(q: Tensor,
    k: Tensor,
    v: Tensor,
    w: Tensor,
    b: Optional[Tensor]=None) -> List[Tensor]:
  E = torch.size(q, -1)
  if torch.__is__(k, v):
    if torch.__is__(q, k):
      proj = torch.linear(q, w, b)
      _158 = torch.unsqueeze(torch.unflatten(proj, -1, [3, E]), 0)
      _159 = torch.squeeze(torch.transpose(_158, 0, -2), -2)
      proj0 = torch.contiguous(_159)
      _160 = [torch.select(proj0, 0, 0), torch.select(proj0, 0, 1), torch.select(proj0, 0, 2)]
      _157 = _160
    else:
      _161 = torch.split(w, [E, torch.mul(E, 2)])
      w_q, w_kv, = _161
      if torch.__is__(b, None):
        b_q, b_kv = None, None
      else:
        b0 = unchecked_cast(Tensor, b)
        _162 = torch.split(b0, [E, torch.mul(E, 2)])
        b_q1, b_kv0, = _162
        b_q, b_kv = b_q1, b_kv0
      q_proj = torch.linear(q, w_q, b_q)
      kv_proj = torch.linear(k, w_kv, b_kv)
      _163 = torch.unflatten(kv_proj, -1, [2, E])
      _164 = torch.transpose(torch.unsqueeze(_163, 0), 0, -2)
      kv_proj0 = torch.contiguous(torch.squeeze(_164, -2))
      _165 = [q_proj, torch.select(kv_proj0, 0, 0), torch.select(kv_proj0, 0, 1)]
      _157 = _165
    _156 = _157
  else:
    w_q0, w_k, w_v, = torch.chunk(w, 3)
    if torch.__is__(b, None):
      b_q2, b_k, b_v = None, None, None
    else:
      b1 = unchecked_cast(Tensor, b)
      b_q3, b_k1, b_v1, = torch.chunk(b1, 3)
      b_q2, b_k, b_v = b_q3, b_k1, b_v1
    _166 = [torch.linear(q, w_q0, b_q2), torch.linear(k, w_k, b_k), torch.linear(v, w_v, b_v)]
    _156 = _166
  return _156
def _in_projection(q: Tensor,
    k: Tensor,
    v: Tensor,
    w_q: Tensor,
    w_k: Tensor,
    w_v: Tensor,
    b_q: Optional[Tensor]=None,
    b_k: Optional[Tensor]=None,
    b_v: Optional[Tensor]=None) -> Tuple[Tensor, Tensor, Tensor]:
  _167 = "expecting query weights shape of {}, but got {}"
  _168 = "expecting key weights shape of {}, but got {}"
  _169 = "expecting value weights shape of {}, but got {}"
  _170 = "expecting query bias shape of {}, but got {}"
  _171 = "expecting key bias shape of {}, but got {}"
  _172 = "expecting value bias shape of {}, but got {}"
  _173 = uninitialized(Optional[Tensor])
  _174 = uninitialized(Optional[Tensor])
  _175 = uninitialized(Optional[Tensor])
  Eq = torch.size(q, -1)
  Ek = torch.size(k, -1)
  Ev = torch.size(v, -1)
  if torch.ne(torch.size(w_q), [Eq, Eq]):
    _176 = torch.format(_167, (Eq, Eq), torch.size(w_q))
    ops.prim.RaiseException(torch.add("AssertionError: ", _176))
  else:
    pass
  if torch.ne(torch.size(w_k), [Eq, Ek]):
    _177 = torch.format(_168, (Eq, Ek), torch.size(w_k))
    ops.prim.RaiseException(torch.add("AssertionError: ", _177))
  else:
    pass
  if torch.ne(torch.size(w_v), [Eq, Ev]):
    _178 = torch.format(_169, (Eq, Ev), torch.size(w_v))
    ops.prim.RaiseException(torch.add("AssertionError: ", _178))
  else:
    pass
  if torch.__isnot__(b_q, None):
    b_q5 = unchecked_cast(Tensor, b_q)
    _179, b_q4 = torch.ne(torch.size(b_q5), [Eq]), b_q5
  else:
    _179, b_q4 = False, b_q
  if _179:
    b_q7 = unchecked_cast(Tensor, b_q4)
    _180 = torch.format(_170, (Eq,), torch.size(b_q7))
    ops.prim.RaiseException(torch.add("AssertionError: ", _180))
    b_q6 : Optional[Tensor] = _175
  else:
    b_q6 = b_q4
  if torch.__isnot__(b_k, None):
    b_k3 = unchecked_cast(Tensor, b_k)
    _181, b_k2 = torch.ne(torch.size(b_k3), [Eq]), b_k3
  else:
    _181, b_k2 = False, b_k
  if _181:
    b_k5 = unchecked_cast(Tensor, b_k2)
    _182 = torch.format(_171, (Eq,), torch.size(b_k5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _182))
    b_k4 : Optional[Tensor] = _174
  else:
    b_k4 = b_k2
  if torch.__isnot__(b_v, None):
    b_v3 = unchecked_cast(Tensor, b_v)
    _183, b_v2 = torch.ne(torch.size(b_v3), [Eq]), b_v3
  else:
    _183, b_v2 = False, b_v
  if _183:
    b_v5 = unchecked_cast(Tensor, b_v2)
    _184 = torch.format(_172, (Eq,), torch.size(b_v5))
    ops.prim.RaiseException(torch.add("AssertionError: ", _184))
    b_v4 : Optional[Tensor] = _173
  else:
    b_v4 = b_v2
  _185 = (torch.linear(q, w_q, b_q6), torch.linear(k, w_k, b_k4), torch.linear(v, w_v, b_v4))
  return _185
def pad(input: Tensor,
    pad: List[int],
    mode: str="constant",
    value: Optional[float]=None) -> Tensor:
  return torch.pad(input, pad, mode, value)
def softmax(input: Tensor,
    dim: Optional[int]=None,
    _stacklevel: int=3,
    dtype: Optional[int]=None) -> Tensor:
  _186 = __torch__.torch.nn.functional._get_softmax_dim
  if torch.__is__(dim, None):
    dim1 = _186("softmax", torch.dim(input), _stacklevel, )
    dim0 = dim1
  else:
    dim0 = unchecked_cast(int, dim)
  if torch.__is__(dtype, None):
    ret = torch.softmax(input, dim0)
  else:
    dtype0 = unchecked_cast(int, dtype)
    ret = torch.softmax(input, dim0, dtype0)
  return ret
def _get_softmax_dim(name: str,
    ndim: int,
    stacklevel: int) -> int:
  _187 = "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
  torch.warn(torch.format(_187, name), stacklevel)
  if torch.eq(ndim, 0):
    _188 = True
  else:
    _188 = torch.eq(ndim, 1)
  if _188:
    _189 = True
  else:
    _189 = torch.eq(ndim, 3)
  if _189:
    ret = 0
  else:
    ret = 1
  return ret
