class TransformerEncoder(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  num_layers : int
  enable_nested_tensor : bool
  use_nested_tensor : bool
  mask_check : bool
  layers : __torch__.torch.nn.modules.container.ModuleList
  norm : Final[NoneType] = None
  def forward(self: __torch__.torch.nn.modules.transformer.TransformerEncoder,
    src: Tensor,
    mask: Optional[Tensor]=None,
    src_key_padding_mask: Optional[Tensor]=None,
    is_causal: Optional[bool]=None) -> Tensor:
    _0 = __torch__.torch.nn.functional._none_or_dtype
    _1 = __torch__.torch.nn.functional._canonical_mask
    _2 = __torch__.torch.backends.mha.get_fastpath_enabled
    why_not_sparsity_fast_path = "torch.backends.mha.get_fastpath_enabled() was not True"
    why_not_sparsity_fast_path0 = "self.use_nested_tensor (set in init) was not True"
    _3 = "input not batched; expected src.dim() of 3 but got {}"
    _4 = __torch__.torch.compiler.is_compiling
    why_not_sparsity_fast_path1 = "mask_check enabled with torch.compile or torch.export"
    why_not_sparsity_fast_path2 = "mask_check enabled, and src and src_key_padding_mask was not left aligned"
    why_not_sparsity_fast_path3 = "NestedTensor input is not supported"
    why_not_sparsity_fast_path4 = "src_key_padding_mask and mask were both supplied"
    why_not_sparsity_fast_path5 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _5 = __torch__.torch.nn.modules.transformer._get_seq_len
    _6 = __torch__.torch.nn.modules.transformer._detect_is_causal_mask
    src_key_padding_mask0 = _1(src_key_padding_mask, "src_key_padding_mask", _0(mask, ), "mask", ops.prim.dtype(src), True, )
    mask0 = _1(mask, "mask", None, "", ops.prim.dtype(src), False, )
    layers = self.layers
    _00 = getattr(layers, "0")
    is_fastpath_enabled = _2()
    mask_check = self.mask_check
    if torch.__not__(is_fastpath_enabled):
      why_not_sparsity_fast_path6, src_key_padding_mask1, mask1 = why_not_sparsity_fast_path, src_key_padding_mask0, mask0
    else:
      use_nested_tensor = self.use_nested_tensor
      if torch.__not__(use_nested_tensor):
        why_not_sparsity_fast_path7, src_key_padding_mask2, mask2 = why_not_sparsity_fast_path0, src_key_padding_mask0, mask0
      else:
        training = _00.training
        if training:
          why_not_sparsity_fast_path9 = torch.format("{} was in training mode", "self.layers[0]")
          why_not_sparsity_fast_path8, src_key_padding_mask3, mask3 = why_not_sparsity_fast_path9, src_key_padding_mask0, mask0
        else:
          if torch.ne(torch.dim(src), 3):
            why_not_sparsity_fast_path11 = torch.format(_3, torch.dim(src))
            why_not_sparsity_fast_path10, src_key_padding_mask4, mask4 = why_not_sparsity_fast_path11, src_key_padding_mask0, mask0
          else:
            _7 = torch.__is__(src_key_padding_mask0, None)
            if _7:
              why_not_sparsity_fast_path12, src_key_padding_mask5, mask5 = "src_key_padding_mask was None", src_key_padding_mask0, mask0
            else:
              src_key_padding_mask6 = unchecked_cast(Tensor, src_key_padding_mask0)
              if mask_check:
                _8 = _4()
              else:
                _8 = False
              if _8:
                why_not_sparsity_fast_path13, mask6 = why_not_sparsity_fast_path1, mask0
              else:
                if mask_check:
                  _10 = torch.logical_not(src_key_padding_mask6)
                  _11 = torch._nested_tensor_from_mask_left_aligned(src, _10)
                  _9 = torch.__not__(_11)
                else:
                  _9 = False
                if _9:
                  why_not_sparsity_fast_path14, mask7 = why_not_sparsity_fast_path2, mask0
                else:
                  _12 = ops.prim.is_nested(src)
                  if _12:
                    why_not_sparsity_fast_path15, mask8 = why_not_sparsity_fast_path3, mask0
                  else:
                    _13 = torch.__isnot__(mask0, None)
                    if _13:
                      mask10 = unchecked_cast(Tensor, mask0)
                      why_not_sparsity_fast_path16, mask9 = why_not_sparsity_fast_path4, mask10
                    else:
                      _14 = torch.is_autocast_enabled()
                      if _14:
                        why_not_sparsity_fast_path17 = "autocast is enabled"
                      else:
                        why_not_sparsity_fast_path17 = ""
                      why_not_sparsity_fast_path16, mask9 = why_not_sparsity_fast_path17, mask0
                    why_not_sparsity_fast_path15, mask8 = why_not_sparsity_fast_path16, mask9
                  why_not_sparsity_fast_path14, mask7 = why_not_sparsity_fast_path15, mask8
                why_not_sparsity_fast_path13, mask6 = why_not_sparsity_fast_path14, mask7
              why_not_sparsity_fast_path12, src_key_padding_mask5, mask5 = why_not_sparsity_fast_path13, src_key_padding_mask6, mask6
            why_not_sparsity_fast_path10, src_key_padding_mask4, mask4 = why_not_sparsity_fast_path12, src_key_padding_mask5, mask5
          why_not_sparsity_fast_path8, src_key_padding_mask3, mask3 = why_not_sparsity_fast_path10, src_key_padding_mask4, mask4
        why_not_sparsity_fast_path7, src_key_padding_mask2, mask2 = why_not_sparsity_fast_path8, src_key_padding_mask3, mask3
      why_not_sparsity_fast_path6, src_key_padding_mask1, mask1 = why_not_sparsity_fast_path7, src_key_padding_mask2, mask2
    _15 = torch.len(why_not_sparsity_fast_path6)
    if torch.__not__(torch.gt(_15, 0)):
      self_attn = _00.self_attn
      in_proj_weight = self_attn.in_proj_weight
      self_attn0 = _00.self_attn
      in_proj_bias = self_attn0.in_proj_bias
      self_attn1 = _00.self_attn
      out_proj = self_attn1.out_proj
      weight = out_proj.weight
      self_attn2 = _00.self_attn
      out_proj0 = self_attn2.out_proj
      bias = out_proj0.bias
      norm1 = _00.norm1
      weight0 = norm1.weight
      norm10 = _00.norm1
      bias0 = norm10.bias
      norm2 = _00.norm2
      weight1 = norm2.weight
      norm20 = _00.norm2
      bias1 = norm20.bias
      linear1 = _00.linear1
      weight2 = linear1.weight
      linear10 = _00.linear1
      bias2 = linear10.bias
      linear2 = _00.linear2
      weight3 = linear2.weight
      linear20 = _00.linear2
      bias3 = linear20.bias
      _supported_device_type = ["cpu", "cuda", "xpu", "privateuseone"]
      _16 = ops.prim.type(ops.prim.device(src))
      _17 = torch.__contains__(_supported_device_type, _16)
      if torch.__not__(_17):
        why_not_sparsity_fast_path19 = torch.format("src device is neither one of {}", _supported_device_type)
        why_not_sparsity_fast_path18 = why_not_sparsity_fast_path19
      else:
        if torch.is_grad_enabled():
          _19 = annotate(List[bool], [])
          _20 = torch.append(_19, ops.prim.requires_grad(src))
          _21 = ops.prim.requires_grad(in_proj_weight)
          _22 = torch.append(_19, _21)
          _23 = ops.prim.requires_grad(in_proj_bias)
          _24 = torch.append(_19, _23)
          _25 = ops.prim.requires_grad(weight)
          _26 = torch.append(_19, _25)
          _27 = torch.append(_19, ops.prim.requires_grad(bias))
          _28 = ops.prim.requires_grad(weight0)
          _29 = torch.append(_19, _28)
          _30 = torch.append(_19, ops.prim.requires_grad(bias0))
          _31 = ops.prim.requires_grad(weight1)
          _32 = torch.append(_19, _31)
          _33 = torch.append(_19, ops.prim.requires_grad(bias1))
          _34 = ops.prim.requires_grad(weight2)
          _35 = torch.append(_19, _34)
          _36 = torch.append(_19, ops.prim.requires_grad(bias2))
          _37 = ops.prim.requires_grad(weight3)
          _38 = torch.append(_19, _37)
          _39 = torch.append(_19, ops.prim.requires_grad(bias3))
          _18 = torch.any(_19)
        else:
          _18 = False
        if _18:
          why_not_sparsity_fast_path20 = why_not_sparsity_fast_path5
        else:
          why_not_sparsity_fast_path20 = why_not_sparsity_fast_path6
        why_not_sparsity_fast_path18 = why_not_sparsity_fast_path20
      _40 = torch.len(why_not_sparsity_fast_path18)
      if torch.__not__(torch.gt(_40, 0)):
        _42 = torch.__isnot__(src_key_padding_mask1, None)
        _41 = _42
      else:
        _41 = False
      if _41:
        src_key_padding_mask7 = unchecked_cast(Tensor, src_key_padding_mask1)
        _43 = torch.logical_not(src_key_padding_mask7)
        output1 = torch._nested_tensor_from_mask(src, _43, False)
        output0, src_key_padding_mask_for_layers0, convert_to_nested0 = output1, None, True
      else:
        output0, src_key_padding_mask_for_layers0, convert_to_nested0 = src, src_key_padding_mask0, False
      output, src_key_padding_mask_for_layers, convert_to_nested = output0, src_key_padding_mask_for_layers0, convert_to_nested0
    else:
      output, src_key_padding_mask_for_layers, convert_to_nested = src, src_key_padding_mask0, False
    seq_len = _5(src, False, )
    is_causal0 = _6(mask1, is_causal, seq_len, )
    layers0 = self.layers
    _01 = getattr(layers0, "0")
    _110 = getattr(layers0, "1")
    output2 = (_01).forward(output, mask1, src_key_padding_mask_for_layers, is_causal0, )
    output3 = (_110).forward(output2, mask1, src_key_padding_mask_for_layers, is_causal0, )
    if convert_to_nested:
      output5 = torch.to_padded_tensor(output3, 0., torch.size(src))
      output4 = output5
    else:
      output4 = output3
    return output4
class TransformerEncoderLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  activation_relu_or_gelu : int
  self_attn : __torch__.torch.nn.modules.activation.MultiheadAttention
  linear1 : __torch__.torch.nn.modules.linear.Linear
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  linear2 : __torch__.torch.nn.modules.linear.___torch_mangle_0.Linear
  norm1 : __torch__.torch.nn.modules.normalization.LayerNorm
  norm2 : __torch__.torch.nn.modules.normalization.LayerNorm
  dropout1 : __torch__.torch.nn.modules.dropout.Dropout
  dropout2 : __torch__.torch.nn.modules.dropout.Dropout
  norm_first : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    src: Tensor,
    src_mask: Optional[Tensor]=None,
    src_key_padding_mask: Optional[Tensor]=None,
    is_causal: bool=False) -> Tensor:
    _44 = __torch__.torch.nn.functional._none_or_dtype
    _45 = __torch__.torch.nn.functional._canonical_mask
    _46 = __torch__.torch.backends.mha.get_fastpath_enabled
    why_not_sparsity_fast_path = "torch.backends.mha.get_fastpath_enabled() was not True"
    _47 = "input not batched; expected src.dim() of 3 but got {}"
    why_not_sparsity_fast_path21 = "self_attn.batch_first was not True"
    _48 = "some Tensor argument\'s device is neither one of {}"
    why_not_sparsity_fast_path22 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _49 = uninitialized(Tensor)
    src_key_padding_mask8 = _45(src_key_padding_mask, "src_key_padding_mask", _44(src_mask, ), "src_mask", ops.prim.dtype(src), True, )
    src_mask0 = _45(src_mask, "src_mask", None, "", ops.prim.dtype(src), False, )
    is_fastpath_enabled = _46()
    if torch.__not__(is_fastpath_enabled):
      why_not_sparsity_fast_path23 = why_not_sparsity_fast_path
    else:
      if torch.ne(torch.dim(src), 3):
        why_not_sparsity_fast_path25 = torch.format(_47, torch.dim(src))
        why_not_sparsity_fast_path24 = why_not_sparsity_fast_path25
      else:
        training = self.training
        if training:
          why_not_sparsity_fast_path26 = "training is enabled"
        else:
          why_not_sparsity_fast_path26 = why_not_sparsity_fast_path21
        why_not_sparsity_fast_path24 = why_not_sparsity_fast_path26
      why_not_sparsity_fast_path23 = why_not_sparsity_fast_path24
    _50 = torch.len(why_not_sparsity_fast_path23)
    if torch.__not__(torch.gt(_50, 0)):
      self_attn = self.self_attn
      in_proj_weight = self_attn.in_proj_weight
      self_attn3 = self.self_attn
      in_proj_bias = self_attn3.in_proj_bias
      self_attn4 = self.self_attn
      out_proj = self_attn4.out_proj
      weight = out_proj.weight
      self_attn5 = self.self_attn
      out_proj1 = self_attn5.out_proj
      bias = out_proj1.bias
      norm1 = self.norm1
      weight4 = norm1.weight
      norm11 = self.norm1
      bias4 = norm11.bias
      norm2 = self.norm2
      weight5 = norm2.weight
      norm21 = self.norm2
      bias5 = norm21.bias
      linear1 = self.linear1
      weight6 = linear1.weight
      linear11 = self.linear1
      bias6 = linear11.bias
      linear2 = self.linear2
      weight7 = linear2.weight
      linear21 = self.linear2
      bias7 = linear21.bias
      _supported_device_type = ["cpu", "cuda", "xpu", "privateuseone"]
      _53 = annotate(List[bool], [])
      _54 = ops.prim.type(ops.prim.device(src))
      _55 = torch.__contains__(_supported_device_type, _54)
      _56 = torch.append(_53, _55)
      _57 = ops.prim.type(ops.prim.device(in_proj_weight))
      _58 = torch.__contains__(_supported_device_type, _57)
      _59 = torch.append(_53, _58)
      _60 = ops.prim.type(ops.prim.device(in_proj_bias))
      _61 = torch.__contains__(_supported_device_type, _60)
      _62 = torch.append(_53, _61)
      _63 = ops.prim.type(ops.prim.device(weight))
      _64 = torch.__contains__(_supported_device_type, _63)
      _65 = torch.append(_53, _64)
      _66 = ops.prim.type(ops.prim.device(bias))
      _67 = torch.__contains__(_supported_device_type, _66)
      _68 = torch.append(_53, _67)
      _69 = ops.prim.type(ops.prim.device(weight4))
      _70 = torch.__contains__(_supported_device_type, _69)
      _71 = torch.append(_53, _70)
      _72 = ops.prim.type(ops.prim.device(bias4))
      _73 = torch.__contains__(_supported_device_type, _72)
      _74 = torch.append(_53, _73)
      _75 = ops.prim.type(ops.prim.device(weight5))
      _76 = torch.__contains__(_supported_device_type, _75)
      _77 = torch.append(_53, _76)
      _78 = ops.prim.type(ops.prim.device(bias5))
      _79 = torch.__contains__(_supported_device_type, _78)
      _80 = torch.append(_53, _79)
      _81 = ops.prim.type(ops.prim.device(weight6))
      _82 = torch.__contains__(_supported_device_type, _81)
      _83 = torch.append(_53, _82)
      _84 = ops.prim.type(ops.prim.device(bias6))
      _85 = torch.__contains__(_supported_device_type, _84)
      _86 = torch.append(_53, _85)
      _87 = ops.prim.type(ops.prim.device(weight7))
      _88 = torch.__contains__(_supported_device_type, _87)
      _89 = torch.append(_53, _88)
      _90 = ops.prim.type(ops.prim.device(bias7))
      _91 = torch.__contains__(_supported_device_type, _90)
      _92 = torch.append(_53, _91)
      if torch.__not__(torch.all(_53)):
        why_not_sparsity_fast_path28 = torch.format(_48, _supported_device_type)
        why_not_sparsity_fast_path27 = why_not_sparsity_fast_path28
      else:
        if torch.is_grad_enabled():
          _94 = annotate(List[bool], [])
          _95 = torch.append(_94, ops.prim.requires_grad(src))
          _96 = ops.prim.requires_grad(in_proj_weight)
          _97 = torch.append(_94, _96)
          _98 = ops.prim.requires_grad(in_proj_bias)
          _99 = torch.append(_94, _98)
          _100 = ops.prim.requires_grad(weight)
          _101 = torch.append(_94, _100)
          _102 = torch.append(_94, ops.prim.requires_grad(bias))
          _103 = ops.prim.requires_grad(weight4)
          _104 = torch.append(_94, _103)
          _105 = torch.append(_94, ops.prim.requires_grad(bias4))
          _106 = ops.prim.requires_grad(weight5)
          _107 = torch.append(_94, _106)
          _108 = torch.append(_94, ops.prim.requires_grad(bias5))
          _109 = ops.prim.requires_grad(weight6)
          _110 = torch.append(_94, _109)
          _111 = torch.append(_94, ops.prim.requires_grad(bias6))
          _112 = ops.prim.requires_grad(weight7)
          _113 = torch.append(_94, _112)
          _114 = torch.append(_94, ops.prim.requires_grad(bias7))
          _93 = torch.any(_94)
        else:
          _93 = False
        if _93:
          why_not_sparsity_fast_path29 = why_not_sparsity_fast_path22
        else:
          why_not_sparsity_fast_path29 = why_not_sparsity_fast_path23
        why_not_sparsity_fast_path27 = why_not_sparsity_fast_path29
      _115 = torch.len(why_not_sparsity_fast_path27)
      if torch.__not__(torch.gt(_115, 0)):
        self_attn6 = self.self_attn
        _118 = (self_attn6).merge_masks(src_mask0, src_key_padding_mask8, src, )
        merged_mask, mask_type, = _118
        self_attn7 = self.self_attn
        embed_dim = self_attn7.embed_dim
        self_attn8 = self.self_attn
        num_heads = self_attn8.num_heads
        self_attn9 = self.self_attn
        in_proj_weight0 = self_attn9.in_proj_weight
        self_attn10 = self.self_attn
        in_proj_bias0 = self_attn10.in_proj_bias
        self_attn11 = self.self_attn
        out_proj2 = self_attn11.out_proj
        weight8 = out_proj2.weight
        self_attn12 = self.self_attn
        out_proj3 = self_attn12.out_proj
        bias8 = out_proj3.bias
        activation_relu_or_gelu = self.activation_relu_or_gelu
        _119 = torch.eq(activation_relu_or_gelu, 2)
        norm12 = self.norm1
        weight9 = norm12.weight
        norm13 = self.norm1
        bias9 = norm13.bias
        norm22 = self.norm2
        weight10 = norm22.weight
        norm23 = self.norm2
        bias10 = norm23.bias
        linear12 = self.linear1
        weight11 = linear12.weight
        linear13 = self.linear1
        bias11 = linear13.bias
        linear22 = self.linear2
        weight12 = linear22.weight
        linear23 = self.linear2
        bias12 = linear23.bias
        _120 = torch._transformer_encoder_layer_fwd(src, embed_dim, num_heads, in_proj_weight0, in_proj_bias0, weight8, bias8, _119, False, 1.0000000000000001e-05, weight9, bias9, weight10, bias10, weight11, bias11, weight12, bias12, merged_mask, mask_type)
        _116, _117 = True, _120
      else:
        _116, _117 = False, _49
      _51, _52 = _116, _117
    else:
      _51, _52 = False, _49
    if _51:
      _121 = _52
    else:
      norm14 = self.norm1
      _122 = (self)._sa_block(src, src_mask0, src_key_padding_mask8, is_causal, )
      x = (norm14).forward(torch.add(src, _122), )
      norm24 = self.norm2
      _123 = torch.add(x, (self)._ff_block(x, ))
      _121 = (norm24).forward(_123, )
    return _121
  def _sa_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor],
    is_causal: bool=False) -> Tensor:
    self_attn = self.self_attn
    _124 = (self_attn).forward(x, x, x, key_padding_mask, False, attn_mask, True, is_causal, )
    x0 = (_124)[0]
    dropout1 = self.dropout1
    return (dropout1).forward(x0, )
  def _ff_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    dropout = self.dropout
    linear1 = self.linear1
    _125 = __torch__.torch.nn.functional.relu((linear1).forward(x, ), False, )
    x1 = (linear2).forward((dropout).forward(_125, ), )
    dropout2 = self.dropout2
    return (dropout2).forward(x1, )
def _get_seq_len(src: Tensor,
    batch_first: bool) -> Optional[int]:
  if ops.prim.is_nested(src):
    _126 : Optional[int] = None
  else:
    src_size = torch.size(src)
    if torch.eq(torch.len(src_size), 2):
      _127 = src_size[0]
    else:
      if batch_first:
        seq_len_pos = 1
      else:
        seq_len_pos = 0
      _127 = src_size[seq_len_pos]
    _126 = _127
  return _126
def _detect_is_causal_mask(mask: Optional[Tensor],
    is_causal: Optional[bool]=None,
    size: Optional[int]=None) -> bool:
  _128 = __torch__.torch.nn.modules.transformer._generate_square_subsequent_mask
  make_causal = torch.__is__(is_causal, True)
  if torch.__is__(is_causal, None):
    _129 = torch.__isnot__(mask, None)
  else:
    _129 = False
  if _129:
    mask11 = unchecked_cast(Tensor, mask)
    if torch.__isnot__(size, None):
      sz = unchecked_cast(int, size)
    else:
      sz = torch.size(mask11, -2)
    causal_comparison = _128(sz, ops.prim.device(mask11), ops.prim.dtype(mask11), )
    _130 = torch.eq(torch.size(mask11), torch.size(causal_comparison))
    if _130:
      _131 = torch.eq(mask11, causal_comparison)
      make_causal1 = bool(torch.all(_131))
    else:
      make_causal1 = False
    make_causal0 = make_causal1
  else:
    make_causal0 = make_causal
  return make_causal0
def _generate_square_subsequent_mask(sz: int,
    device: Optional[Device]=None,
    dtype: Optional[int]=None) -> Tensor:
  _132 = torch.full([sz, sz], -inf, dtype=dtype, layout=None, device=device)
  return torch.triu(_132, 1)
