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
  batch_first : Final[bool] = True
  def forward(self: __torch__.torch.nn.modules.activation.MultiheadAttention,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Optional[Tensor]=None,
    need_weights: bool=True,
    attn_mask: Optional[Tensor]=None,
    average_attn_weights: bool=True) -> Tuple[Tensor, Optional[Tensor]]:
    _0 = "AssertionError: only bool and floating types of key_padding_mask are supported"
    _1 = "input not batched; expected query.dim() of 3 but got {}"
    why_not_fast_path = "non-self attention was used (query, key, and value are not the same Tensor)"
    _2 = "dtypes of query ({}) and self.in_proj_bias ({}) don\'t match"
    _3 = "dtypes of query ({}) and self.in_proj_weight ({}) don\'t match"
    why_not_fast_path0 = "key_padding_mask is not supported with NestedTensor input"
    why_not_fast_path1 = "some Tensor argument is neither CUDA nor CPU"
    why_not_fast_path2 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _4 = "The fast path was not hit because {}"
    _5 = "MultiheadAttention does not support NestedTensor outside of its fast path. "
    _6 = __torch__.torch.nn.functional.multi_head_attention_forward
    _7 = uninitialized(Tuple[Tensor, Tensor])
    is_batched = torch.eq(torch.dim(query), 3)
    _8 = torch.__isnot__(key_padding_mask, None)
    if _8:
      key_padding_mask1 = unchecked_cast(Tensor, key_padding_mask)
      _kpm_dtype = ops.prim.dtype(key_padding_mask1)
      if torch.ne(_kpm_dtype, 11):
        _10 = torch.is_floating_point(key_padding_mask1)
        _9 = torch.__not__(_10)
      else:
        _9 = False
      if _9:
        ops.prim.RaiseException(_0)
      else:
        pass
      key_padding_mask0 : Optional[Tensor] = key_padding_mask1
    else:
      key_padding_mask0 = key_padding_mask
    if torch.__not__(is_batched):
      why_not_fast_path4 = torch.format(_1, torch.dim(query))
      why_not_fast_path3, key_padding_mask2, attn_mask0 = why_not_fast_path4, key_padding_mask0, attn_mask
    else:
      if torch.__isnot__(query, key):
        _11 = True
      else:
        _11 = torch.__isnot__(key, value)
      if _11:
        why_not_fast_path5, key_padding_mask3, attn_mask1 = why_not_fast_path, key_padding_mask0, attn_mask
      else:
        _12 = ops.prim.dtype(query)
        in_proj_bias = self.in_proj_bias
        _13 = torch.ne(_12, ops.prim.dtype(in_proj_bias))
        if _13:
          _14 = ops.prim.dtype(query)
          in_proj_bias0 = self.in_proj_bias
          why_not_fast_path7 = torch.format(_2, _14, ops.prim.dtype(in_proj_bias0))
          why_not_fast_path6, key_padding_mask4, attn_mask2 = why_not_fast_path7, key_padding_mask0, attn_mask
        else:
          _15 = ops.prim.dtype(query)
          in_proj_weight = self.in_proj_weight
          _16 = ops.prim.dtype(in_proj_weight)
          if torch.ne(_15, _16):
            _17 = ops.prim.dtype(query)
            in_proj_weight0 = self.in_proj_weight
            _18 = ops.prim.dtype(in_proj_weight0)
            why_not_fast_path8, key_padding_mask5, attn_mask3 = torch.format(_3, _17, _18), key_padding_mask0, attn_mask
          else:
            training = self.training
            if training:
              why_not_fast_path9, key_padding_mask6, attn_mask4 = "training is enabled", key_padding_mask0, attn_mask
            else:
              bias_k = self.bias_k
              _19 = torch.__isnot__(bias_k, None)
              if _19:
                why_not_fast_path10, key_padding_mask7, attn_mask5 = "self.bias_k was not None", key_padding_mask0, attn_mask
              else:
                bias_v = self.bias_v
                _20 = torch.__isnot__(bias_v, None)
                if _20:
                  why_not_fast_path11, key_padding_mask8, attn_mask6 = "self.bias_v was not None", key_padding_mask0, attn_mask
                else:
                  dropout = self.dropout
                  if bool(dropout):
                    dropout0 = self.dropout
                    why_not_fast_path13 = torch.format("dropout was {}, required zero", dropout0)
                    why_not_fast_path12, key_padding_mask9, attn_mask7 = why_not_fast_path13, key_padding_mask0, attn_mask
                  else:
                    add_zero_attn = self.add_zero_attn
                    if add_zero_attn:
                      why_not_fast_path14, key_padding_mask10, attn_mask8 = "add_zero_attn was enabled", key_padding_mask0, attn_mask
                    else:
                      _qkv_same_embed_dim = self._qkv_same_embed_dim
                      _21 = torch.__not__(_qkv_same_embed_dim)
                      if _21:
                        why_not_fast_path15, key_padding_mask11, attn_mask9 = "_qkv_same_embed_dim was not True", key_padding_mask0, attn_mask
                      else:
                        _22 = torch.__isnot__(attn_mask, None)
                        if _22:
                          attn_mask11 = unchecked_cast(Tensor, attn_mask)
                          why_not_fast_path16, key_padding_mask12, attn_mask10 = "attn_mask was not None", key_padding_mask0, attn_mask11
                        else:
                          _23 = ops.prim.is_nested(query)
                          if _23:
                            _25 = torch.__isnot__(key_padding_mask0, None)
                            _24 = _25
                          else:
                            _24 = False
                          if _24:
                            key_padding_mask14 = unchecked_cast(Tensor, key_padding_mask0)
                            why_not_fast_path17, key_padding_mask13 = why_not_fast_path0, key_padding_mask14
                          else:
                            num_heads = self.num_heads
                            _26 = torch.remainder(num_heads, 2)
                            _27 = torch.eq(_26, 1)
                            if _27:
                              why_not_fast_path18 = "num_heads is odd"
                            else:
                              _28 = torch.is_autocast_enabled()
                              if _28:
                                why_not_fast_path19 = "autocast is enabled"
                              else:
                                why_not_fast_path19 = ""
                              why_not_fast_path18 = why_not_fast_path19
                            why_not_fast_path17, key_padding_mask13 = why_not_fast_path18, key_padding_mask0
                          why_not_fast_path16, key_padding_mask12, attn_mask10 = why_not_fast_path17, key_padding_mask13, attn_mask
                        why_not_fast_path15, key_padding_mask11, attn_mask9 = why_not_fast_path16, key_padding_mask12, attn_mask10
                      why_not_fast_path14, key_padding_mask10, attn_mask8 = why_not_fast_path15, key_padding_mask11, attn_mask9
                    why_not_fast_path12, key_padding_mask9, attn_mask7 = why_not_fast_path14, key_padding_mask10, attn_mask8
                  why_not_fast_path11, key_padding_mask8, attn_mask6 = why_not_fast_path12, key_padding_mask9, attn_mask7
                why_not_fast_path10, key_padding_mask7, attn_mask5 = why_not_fast_path11, key_padding_mask8, attn_mask6
              why_not_fast_path9, key_padding_mask6, attn_mask4 = why_not_fast_path10, key_padding_mask7, attn_mask5
            why_not_fast_path8, key_padding_mask5, attn_mask3 = why_not_fast_path9, key_padding_mask6, attn_mask4
          why_not_fast_path6, key_padding_mask4, attn_mask2 = why_not_fast_path8, key_padding_mask5, attn_mask3
        why_not_fast_path5, key_padding_mask3, attn_mask1 = why_not_fast_path6, key_padding_mask4, attn_mask2
      why_not_fast_path3, key_padding_mask2, attn_mask0 = why_not_fast_path5, key_padding_mask3, attn_mask1
    _29 = torch.gt(torch.len(why_not_fast_path3), 0)
    if torch.__not__(_29):
      in_proj_weight1 = self.in_proj_weight
      in_proj_bias1 = self.in_proj_bias
      out_proj = self.out_proj
      weight = out_proj.weight
      out_proj0 = self.out_proj
      bias = out_proj0.bias
      _32 = annotate(List[bool], [])
      if ops.prim.is_cuda(query):
        _33 = True
      else:
        _34 = str(ops.prim.device(query))
        _35 = torch.find(_34, "cpu", 0, torch.len(_34))
        _33 = torch.ne(_35, -1)
      _36 = torch.append(_32, _33)
      if ops.prim.is_cuda(key):
        _37 = True
      else:
        _38 = str(ops.prim.device(key))
        _39 = torch.find(_38, "cpu", 0, torch.len(_38))
        _37 = torch.ne(_39, -1)
      _40 = torch.append(_32, _37)
      if ops.prim.is_cuda(value):
        _41 = True
      else:
        _42 = str(ops.prim.device(value))
        _43 = torch.find(_42, "cpu", 0, torch.len(_42))
        _41 = torch.ne(_43, -1)
      _44 = torch.append(_32, _41)
      if ops.prim.is_cuda(in_proj_weight1):
        _45 = True
      else:
        _46 = ops.prim.device(in_proj_weight1)
        _47 = str(_46)
        _48 = torch.find(_47, "cpu", 0, torch.len(_47))
        _45 = torch.ne(_48, -1)
      _49 = torch.append(_32, _45)
      if ops.prim.is_cuda(in_proj_bias1):
        _50 = True
      else:
        _51 = str(ops.prim.device(in_proj_bias1))
        _52 = torch.find(_51, "cpu", 0, torch.len(_51))
        _50 = torch.ne(_52, -1)
      _53 = torch.append(_32, _50)
      if ops.prim.is_cuda(weight):
        _54 = True
      else:
        _55 = str(ops.prim.device(weight))
        _56 = torch.find(_55, "cpu", 0, torch.len(_55))
        _54 = torch.ne(_56, -1)
      _57 = torch.append(_32, _54)
      if ops.prim.is_cuda(bias):
        _58 = True
      else:
        _59 = str(ops.prim.device(bias))
        _60 = torch.find(_59, "cpu", 0, torch.len(_59))
        _58 = torch.ne(_60, -1)
      _61 = torch.append(_32, _58)
      if torch.__not__(torch.all(_32)):
        why_not_fast_path21 = why_not_fast_path1
      else:
        if torch.is_grad_enabled():
          _63 = annotate(List[bool], [])
          _64 = torch.append(_63, ops.prim.requires_grad(query))
          _65 = torch.append(_63, ops.prim.requires_grad(key))
          _66 = torch.append(_63, ops.prim.requires_grad(value))
          _67 = ops.prim.requires_grad(in_proj_weight1)
          _68 = torch.append(_63, _67)
          _69 = ops.prim.requires_grad(in_proj_bias1)
          _70 = torch.append(_63, _69)
          _71 = ops.prim.requires_grad(weight)
          _72 = torch.append(_63, _71)
          _73 = torch.append(_63, ops.prim.requires_grad(bias))
          _62 = torch.any(_63)
        else:
          _62 = False
        if _62:
          why_not_fast_path22 = why_not_fast_path2
        else:
          why_not_fast_path22 = why_not_fast_path3
        why_not_fast_path21 = why_not_fast_path22
      _74 = torch.gt(torch.len(why_not_fast_path21), 0)
      if torch.__not__(_74):
        embed_dim = self.embed_dim
        num_heads0 = self.num_heads
        in_proj_weight2 = self.in_proj_weight
        in_proj_bias2 = self.in_proj_bias
        out_proj1 = self.out_proj
        weight0 = out_proj1.weight
        out_proj2 = self.out_proj
        bias0 = out_proj2.bias
        _77 = torch.__isnot__(key_padding_mask2, None)
        if _77:
          key_padding_mask18 = unchecked_cast(Tensor, key_padding_mask2)
          key_padding_mask17, _78 = key_padding_mask18, key_padding_mask18
        else:
          key_padding_mask17, _78 = key_padding_mask2, attn_mask0
        _79 = torch.__isnot__(key_padding_mask17, None)
        if _79:
          key_padding_mask20 = unchecked_cast(Tensor, key_padding_mask17)
          _80, key_padding_mask19, attn_mask14 = 1, key_padding_mask20, attn_mask0
        else:
          _81 = torch.__isnot__(attn_mask0, None)
          if _81:
            attn_mask16 = unchecked_cast(Tensor, attn_mask0)
            _82, attn_mask15 = 0, attn_mask16
          else:
            _82, attn_mask15 = None, attn_mask0
          _80, key_padding_mask19, attn_mask14 = _82, key_padding_mask17, attn_mask15
        _83, _84 = torch._native_multi_head_attention(query, key, value, embed_dim, num_heads0, in_proj_weight2, in_proj_bias2, weight0, bias0, _78, need_weights, average_attn_weights, _80)
        _75, _76, key_padding_mask16, attn_mask13 = True, (_83, _84), key_padding_mask19, attn_mask14
      else:
        _75, _76, key_padding_mask16, attn_mask13 = False, _7, key_padding_mask2, attn_mask0
      _30, _31, why_not_fast_path20, key_padding_mask15, attn_mask12 = _75, _76, why_not_fast_path21, key_padding_mask16, attn_mask13
    else:
      _30, _31, why_not_fast_path20, key_padding_mask15, attn_mask12 = False, _7, why_not_fast_path3, key_padding_mask2, attn_mask0
    if _30:
      _85 = _31
    else:
      if ops.prim.is_nested(query):
        _86 = True
      else:
        _86 = ops.prim.is_nested(key)
      if _86:
        any_nested = True
      else:
        any_nested = ops.prim.is_nested(value)
      if torch.__not__(any_nested):
        pass
      else:
        _87 = torch.format(_4, why_not_fast_path20)
        _88 = torch.add("AssertionError: ", torch.add(_5, _87))
        ops.prim.RaiseException(_88)
      if is_batched:
        if torch.__is__(key, value):
          if torch.__is__(query, key):
            _89 = torch.transpose(query, 1, 0)
            query2, key2, value2 = _89, _89, _89
          else:
            _90 = annotate(List[Tensor], [])
            _91 = torch.transpose(query, 1, 0)
            _92 = torch.append(_90, _91)
            _93 = torch.append(_90, torch.transpose(key, 1, 0))
            query3, key3, = _90
            query2, key2, value2 = query3, key3, key3
          query1, key1, value1 = query2, key2, value2
        else:
          _94 = annotate(List[Tensor], [])
          _95 = torch.append(_94, torch.transpose(query, 1, 0))
          _96 = torch.append(_94, torch.transpose(key, 1, 0))
          _97 = torch.append(_94, torch.transpose(value, 1, 0))
          query4, key4, value3, = _94
          query1, key1, value1 = query4, key4, value3
        query0, key0, value0 = query1, key1, value1
      else:
        query0, key0, value0 = query, key, value
      _qkv_same_embed_dim0 = self._qkv_same_embed_dim
      _98 = torch.__not__(_qkv_same_embed_dim0)
      if _98:
        embed_dim0 = self.embed_dim
        num_heads1 = self.num_heads
        in_proj_weight3 = self.in_proj_weight
        in_proj_bias3 = self.in_proj_bias
        bias_k0 = self.bias_k
        bias_v0 = self.bias_v
        add_zero_attn0 = self.add_zero_attn
        dropout1 = self.dropout
        out_proj3 = self.out_proj
        weight1 = out_proj3.weight
        out_proj4 = self.out_proj
        bias1 = out_proj4.bias
        training0 = self.training
        q_proj_weight = self.q_proj_weight
        k_proj_weight = self.k_proj_weight
        v_proj_weight = self.v_proj_weight
        _99 = _6(query0, key0, value0, embed_dim0, num_heads1, in_proj_weight3, in_proj_bias3, bias_k0, bias_v0, add_zero_attn0, dropout1, weight1, bias1, training0, key_padding_mask15, need_weights, attn_mask12, True, q_proj_weight, k_proj_weight, v_proj_weight, None, None, average_attn_weights, )
        attn_output0, attn_output_weights0, = _99
        attn_output, attn_output_weights = attn_output0, attn_output_weights0
      else:
        embed_dim1 = self.embed_dim
        num_heads2 = self.num_heads
        in_proj_weight4 = self.in_proj_weight
        in_proj_bias4 = self.in_proj_bias
        bias_k1 = self.bias_k
        bias_v1 = self.bias_v
        add_zero_attn1 = self.add_zero_attn
        dropout2 = self.dropout
        out_proj5 = self.out_proj
        weight2 = out_proj5.weight
        out_proj6 = self.out_proj
        bias2 = out_proj6.bias
        training1 = self.training
        _100 = _6(query0, key0, value0, embed_dim1, num_heads2, in_proj_weight4, in_proj_bias4, bias_k1, bias_v1, add_zero_attn1, dropout2, weight2, bias2, training1, key_padding_mask15, need_weights, attn_mask12, False, None, None, None, None, None, average_attn_weights, )
        attn_output1, attn_output_weights1, = _100
        attn_output, attn_output_weights = attn_output1, attn_output_weights1
      if is_batched:
        _102 = torch.transpose(attn_output, 1, 0)
        _101 = (_102, attn_output_weights)
      else:
        _103 = (attn_output, attn_output_weights)
        _101 = _103
      _85 = _101
    return _85
class GELU(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  approximate : Final[str] = "none"
  def forward(self: __torch__.torch.nn.modules.activation.GELU,
    input: Tensor) -> Tensor:
    return torch.gelu(input)
