class MultiheadAttention(Module):
  __parameters__ = ["in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", ]
  __buffers__ = []
  in_proj_weight : Tensor
  q_proj_weight : NoneType
  k_proj_weight : NoneType
  v_proj_weight : NoneType
  in_proj_bias : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  embed_dim : int
  kdim : int
  vdim : int
  _qkv_same_embed_dim : bool
  num_heads : int
  dropout : float
  head_dim : int
  bias_k : Optional[Tensor]
  bias_v : Optional[Tensor]
  add_zero_attn : bool
  out_proj : __torch__.torch.nn.modules.linear.NonDynamicallyQuantizableLinear
  batch_first : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.activation.MultiheadAttention,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Optional[Tensor]=None,
    need_weights: bool=True,
    attn_mask: Optional[Tensor]=None,
    average_attn_weights: bool=True,
    is_causal: bool=False) -> Tuple[Tensor, Optional[Tensor]]:
    _0 = __torch__.torch.nn.functional._none_or_dtype
    _1 = __torch__.torch.nn.functional._canonical_mask
    _2 = __torch__.torch.backends.mha.get_fastpath_enabled
    why_not_fast_path = "torch.backends.mha.get_fastpath_enabled() was not True"
    _3 = "input not batched; expected query.dim() of 3 but got {}"
    why_not_fast_path0 = "non-self attention was used (query, key, and value are not the same Tensor)"
    _4 = "dtypes of query ({}) and self.in_proj_bias ({}) don\'t match"
    _5 = "dtypes of query ({}) and self.in_proj_weight ({}) don\'t match"
    _6 = __torch__.torch.nn.modules.activation._check_arg_device
    _7 = "some Tensor argument\'s device is neither one of cpu, cuda or {}"
    _8 = __torch__.torch.nn.modules.activation._arg_requires_grad
    why_not_fast_path1 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _9 = __torch__.torch.nn.modules.activation._is_make_fx_tracing
    _10 = "The fast path was not hit because {}"
    _11 = "MultiheadAttention does not support NestedTensor outside of its fast path. "
    _12 = __torch__.torch.nn.functional.multi_head_attention_forward
    _13 = uninitialized(Tuple[Tensor, Tensor])
    if torch.__isnot__(attn_mask, None):
      attn_mask1 = unchecked_cast(Tensor, attn_mask)
      _15 = torch.is_floating_point(attn_mask1)
      _14, attn_mask0 = _15, attn_mask1
    else:
      _14, attn_mask0 = False, attn_mask
    if _14:
      attn_mask3 = unchecked_cast(Tensor, attn_mask0)
      attn_mask2, key_padding_mask0 = attn_mask3, key_padding_mask
    else:
      _16 = torch.__isnot__(key_padding_mask, None)
      if _16:
        key_padding_mask2 = unchecked_cast(Tensor, key_padding_mask)
        key_padding_mask1 : Optional[Tensor] = key_padding_mask2
      else:
        key_padding_mask1 = key_padding_mask
      attn_mask2, key_padding_mask0 = attn_mask0, key_padding_mask1
    is_batched = torch.eq(torch.dim(query), 3)
    key_padding_mask3 = _1(key_padding_mask0, "key_padding_mask", _0(attn_mask2, ), "attn_mask", ops.prim.dtype(query), True, )
    attn_mask4 = _1(attn_mask2, "attn_mask", None, "", ops.prim.dtype(query), False, )
    is_fastpath_enabled = _2()
    if torch.__not__(is_fastpath_enabled):
      why_not_fast_path2 = why_not_fast_path
    else:
      if torch.__not__(is_batched):
        why_not_fast_path4 = torch.format(_3, torch.dim(query))
        why_not_fast_path3 = why_not_fast_path4
      else:
        if torch.__isnot__(query, key):
          _17 = True
        else:
          _17 = torch.__isnot__(key, value)
        if _17:
          why_not_fast_path5 = why_not_fast_path0
        else:
          _18 = ops.prim.dtype(query)
          in_proj_bias = self.in_proj_bias
          _19 = torch.ne(_18, ops.prim.dtype(in_proj_bias))
          if _19:
            _20 = ops.prim.dtype(query)
            in_proj_bias0 = self.in_proj_bias
            _21 = ops.prim.dtype(in_proj_bias0)
            why_not_fast_path6 = torch.format(_4, _20, _21)
          else:
            _22 = ops.prim.dtype(query)
            in_proj_weight = self.in_proj_weight
            _23 = ops.prim.dtype(in_proj_weight)
            if torch.ne(_22, _23):
              _24 = ops.prim.dtype(query)
              in_proj_weight0 = self.in_proj_weight
              _25 = ops.prim.dtype(in_proj_weight0)
              why_not_fast_path8 = torch.format(_5, _24, _25)
              why_not_fast_path7 = why_not_fast_path8
            else:
              training = self.training
              if training:
                why_not_fast_path9 = "training is enabled"
              else:
                num_heads = self.num_heads
                _26 = torch.remainder(num_heads, 2)
                if torch.ne(_26, 0):
                  why_not_fast_path10 = "self.num_heads is not even"
                else:
                  why_not_fast_path10 = "batch_first was not True"
                why_not_fast_path9 = why_not_fast_path10
              why_not_fast_path7 = why_not_fast_path9
            why_not_fast_path6 = why_not_fast_path7
          why_not_fast_path5 = why_not_fast_path6
        why_not_fast_path3 = why_not_fast_path5
      why_not_fast_path2 = why_not_fast_path3
    _27 = torch.gt(torch.len(why_not_fast_path2), 0)
    if torch.__not__(_27):
      in_proj_weight1 = self.in_proj_weight
      in_proj_bias1 = self.in_proj_bias
      out_proj = self.out_proj
      weight = out_proj.weight
      out_proj0 = self.out_proj
      bias = out_proj0.bias
      _30 = annotate(List[bool], [])
      _31 = torch.append(_30, _6(query, ))
      _32 = torch.append(_30, _6(key, ))
      _33 = torch.append(_30, _6(value, ))
      _34 = torch.append(_30, _6(in_proj_weight1, ))
      _35 = torch.append(_30, _6(in_proj_bias1, ))
      _36 = torch.append(_30, _6(weight, ))
      _37 = torch.append(_30, _6(bias, ))
      if torch.__not__(torch.all(_30)):
        why_not_fast_path13 = torch.format(_7, "privateuseone")
        why_not_fast_path12 = why_not_fast_path13
      else:
        if torch.is_grad_enabled():
          _39 = annotate(List[bool], [])
          _40 = torch.append(_39, _8(query, ))
          _41 = torch.append(_39, _8(key, ))
          _42 = torch.append(_39, _8(value, ))
          _43 = torch.append(_39, _8(in_proj_weight1, ))
          _44 = torch.append(_39, _8(in_proj_bias1, ))
          _45 = torch.append(_39, _8(weight, ))
          _46 = torch.append(_39, _8(bias, ))
          _38 = torch.any(_39)
        else:
          _38 = False
        if _38:
          why_not_fast_path14 = why_not_fast_path1
        else:
          if _9():
            why_not_fast_path15 = "we are running make_fx tracing"
          else:
            why_not_fast_path15 = why_not_fast_path2
          why_not_fast_path14 = why_not_fast_path15
        why_not_fast_path12 = why_not_fast_path14
      _47 = torch.gt(torch.len(why_not_fast_path12), 0)
      if torch.__not__(_47):
        _50 = (self).merge_masks(attn_mask4, key_padding_mask3, query, )
        merged_mask, mask_type, = _50
        embed_dim = self.embed_dim
        num_heads0 = self.num_heads
        in_proj_weight2 = self.in_proj_weight
        in_proj_bias2 = self.in_proj_bias
        out_proj1 = self.out_proj
        weight0 = out_proj1.weight
        out_proj2 = self.out_proj
        bias0 = out_proj2.bias
        _51, _52 = torch._native_multi_head_attention(query, key, value, embed_dim, num_heads0, in_proj_weight2, in_proj_bias2, weight0, bias0, merged_mask, need_weights, average_attn_weights, mask_type)
        _48, _49 = True, (_51, _52)
      else:
        _48, _49 = False, _13
      _28, _29, why_not_fast_path11 = _48, _49, why_not_fast_path12
    else:
      _28, _29, why_not_fast_path11 = False, _13, why_not_fast_path2
    if _28:
      _53 = _29
    else:
      if ops.prim.is_nested(query):
        _54 = True
      else:
        _54 = ops.prim.is_nested(key)
      if _54:
        any_nested = True
      else:
        any_nested = ops.prim.is_nested(value)
      if any_nested:
        _55 = torch.format(_10, why_not_fast_path11)
        _56 = torch.add("AssertionError: ", torch.add(_11, _55))
        ops.prim.RaiseException(_56)
      else:
        pass
      _qkv_same_embed_dim = self._qkv_same_embed_dim
      _57 = torch.__not__(_qkv_same_embed_dim)
      if _57:
        embed_dim0 = self.embed_dim
        num_heads1 = self.num_heads
        in_proj_weight3 = self.in_proj_weight
        in_proj_bias3 = self.in_proj_bias
        bias_k = self.bias_k
        bias_v = self.bias_v
        add_zero_attn = self.add_zero_attn
        dropout = self.dropout
        out_proj3 = self.out_proj
        weight1 = out_proj3.weight
        out_proj4 = self.out_proj
        bias1 = out_proj4.bias
        training0 = self.training
        q_proj_weight = self.q_proj_weight
        k_proj_weight = self.k_proj_weight
        v_proj_weight = self.v_proj_weight
        _58 = _12(query, key, value, embed_dim0, num_heads1, in_proj_weight3, in_proj_bias3, bias_k, bias_v, add_zero_attn, dropout, weight1, bias1, training0, key_padding_mask3, need_weights, attn_mask4, True, q_proj_weight, k_proj_weight, v_proj_weight, None, None, average_attn_weights, is_causal, )
        attn_output0, attn_output_weights0, = _58
        attn_output, attn_output_weights = attn_output0, attn_output_weights0
      else:
        embed_dim1 = self.embed_dim
        num_heads2 = self.num_heads
        in_proj_weight4 = self.in_proj_weight
        in_proj_bias4 = self.in_proj_bias
        bias_k0 = self.bias_k
        bias_v0 = self.bias_v
        add_zero_attn0 = self.add_zero_attn
        dropout0 = self.dropout
        out_proj5 = self.out_proj
        weight2 = out_proj5.weight
        out_proj6 = self.out_proj
        bias2 = out_proj6.bias
        training1 = self.training
        _59 = _12(query, key, value, embed_dim1, num_heads2, in_proj_weight4, in_proj_bias4, bias_k0, bias_v0, add_zero_attn0, dropout0, weight2, bias2, training1, key_padding_mask3, need_weights, attn_mask4, False, None, None, None, None, None, average_attn_weights, is_causal, )
        attn_output1, attn_output_weights1, = _59
        attn_output, attn_output_weights = attn_output1, attn_output_weights1
      _60 = (attn_output, attn_output_weights)
      _53 = _60
    return _53
  def merge_masks(self: __torch__.torch.nn.modules.activation.MultiheadAttention,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor],
    query: Tensor) -> Tuple[Optional[Tensor], Optional[int]]:
    _61 = torch.__isnot__(key_padding_mask, None)
    if _61:
      key_padding_mask5 = unchecked_cast(Tensor, key_padding_mask)
      key_padding_mask4, merged_mask, mask_type = key_padding_mask5, key_padding_mask5, 1
    else:
      key_padding_mask4, merged_mask, mask_type = key_padding_mask, None, None
    if torch.__isnot__(attn_mask, None):
      attn_mask5 = unchecked_cast(Tensor, attn_mask)
      batch_size, seq_len, _62, = torch.size(query)
      _63 = torch.eq(torch.dim(attn_mask5), 3)
      if _63:
        _64 = [batch_size, -1, seq_len, seq_len]
        attn_mask_expanded = torch.view(attn_mask5, _64)
      else:
        _65 = torch.view(attn_mask5, [1, 1, seq_len, seq_len])
        num_heads = self.num_heads
        attn_mask_expanded0 = torch.expand(_65, [batch_size, num_heads, -1, -1])
        attn_mask_expanded = attn_mask_expanded0
      _66 = torch.__isnot__(key_padding_mask4, None)
      if _66:
        key_padding_mask6 = unchecked_cast(Tensor, key_padding_mask4)
        _67 = torch.view(key_padding_mask6, [batch_size, 1, 1, seq_len])
        num_heads3 = self.num_heads
        key_padding_mask_expanded = torch.expand(_67, [-1, num_heads3, -1, -1])
        merged_mask2 = torch.add(attn_mask_expanded, key_padding_mask_expanded)
        merged_mask1 = merged_mask2
      else:
        merged_mask1 = attn_mask_expanded
      merged_mask0, mask_type0 = merged_mask1, 2
    else:
      merged_mask0, mask_type0 = merged_mask, mask_type
    return (merged_mask0, mask_type0)
def _check_arg_device(x: Optional[Tensor]) -> bool:
  if torch.__isnot__(x, None):
    x0 = unchecked_cast(Tensor, x)
    _69 = ops.prim.type(ops.prim.device(x0))
    _70 = torch.__contains__(["cpu", "cuda", "privateuseone"], _69)
    _68 = _70
  else:
    _68 = True
  return _68
def _arg_requires_grad(x: Optional[Tensor]) -> bool:
  if torch.__isnot__(x, None):
    x1 = unchecked_cast(Tensor, x)
    _71 = ops.prim.requires_grad(x1)
  else:
    _71 = False
  return _71
def _is_make_fx_tracing() -> bool:
  return False
