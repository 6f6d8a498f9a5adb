class TransformerEncoder(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  num_layers : int
  enable_nested_tensor : bool
  mask_check : bool
  layers : __torch__.torch.nn.modules.container.ModuleList
  norm : Final[NoneType] = None
  def forward(self: __torch__.torch.nn.modules.transformer.TransformerEncoder,
    src: Tensor,
    mask: Optional[Tensor]=None,
    src_key_padding_mask: Optional[Tensor]=None) -> Tensor:
    _0 = "AssertionError: only bool and floating types of key_padding_mask are supported"
    _1 = " {}.self_attn.batch_first was not True"
    why_not_sparsity_fast_path = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _2 = torch.__isnot__(src_key_padding_mask, None)
    if _2:
      src_key_padding_mask1 = unchecked_cast(Tensor, src_key_padding_mask)
      _skpm_dtype = ops.prim.dtype(src_key_padding_mask1)
      if torch.ne(_skpm_dtype, 11):
        _4 = torch.is_floating_point(src_key_padding_mask1)
        _3 = torch.__not__(_4)
      else:
        _3 = False
      if _3:
        ops.prim.RaiseException(_0)
      else:
        pass
      src_key_padding_mask0 : Optional[Tensor] = src_key_padding_mask1
    else:
      src_key_padding_mask0 = src_key_padding_mask
    layers = self.layers
    _00 = getattr(layers, "0")
    training = _00.training
    if training:
      why_not_sparsity_fast_path1 = torch.format("{} was in training mode", "self.layers[0]")
      why_not_sparsity_fast_path0 = why_not_sparsity_fast_path1
    else:
      why_not_sparsity_fast_path2 = torch.format(_1, "self.layers[0]")
      why_not_sparsity_fast_path0 = why_not_sparsity_fast_path2
    _5 = torch.len(why_not_sparsity_fast_path0)
    if torch.__not__(torch.gt(_5, 0)):
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
      if ops.prim.is_cuda(src):
        _6 = True
      else:
        _7 = str(ops.prim.device(src))
        _8 = torch.find(_7, "cpu", 0, torch.len(_7))
        _6 = torch.ne(_8, -1)
      if torch.__not__(_6):
        why_not_sparsity_fast_path3 = "src is neither CUDA nor CPU"
      else:
        if torch.is_grad_enabled():
          _10 = annotate(List[bool], [])
          _11 = torch.append(_10, ops.prim.requires_grad(src))
          _12 = ops.prim.requires_grad(in_proj_weight)
          _13 = torch.append(_10, _12)
          _14 = ops.prim.requires_grad(in_proj_bias)
          _15 = torch.append(_10, _14)
          _16 = ops.prim.requires_grad(weight)
          _17 = torch.append(_10, _16)
          _18 = torch.append(_10, ops.prim.requires_grad(bias))
          _19 = ops.prim.requires_grad(weight0)
          _20 = torch.append(_10, _19)
          _21 = torch.append(_10, ops.prim.requires_grad(bias0))
          _22 = ops.prim.requires_grad(weight1)
          _23 = torch.append(_10, _22)
          _24 = torch.append(_10, ops.prim.requires_grad(bias1))
          _25 = ops.prim.requires_grad(weight2)
          _26 = torch.append(_10, _25)
          _27 = torch.append(_10, ops.prim.requires_grad(bias2))
          _28 = ops.prim.requires_grad(weight3)
          _29 = torch.append(_10, _28)
          _30 = torch.append(_10, ops.prim.requires_grad(bias3))
          _9 = torch.any(_10)
        else:
          _9 = False
        if _9:
          why_not_sparsity_fast_path4 = why_not_sparsity_fast_path
        else:
          why_not_sparsity_fast_path4 = why_not_sparsity_fast_path0
        why_not_sparsity_fast_path3 = why_not_sparsity_fast_path4
      _31 = torch.len(why_not_sparsity_fast_path3)
      if torch.__not__(torch.gt(_31, 0)):
        _33 = torch.__isnot__(src_key_padding_mask0, None)
        _32 = _33
      else:
        _32 = False
      if _32:
        src_key_padding_mask2 = unchecked_cast(Tensor, src_key_padding_mask0)
        _34 = torch.logical_not(src_key_padding_mask2)
        output1 = torch._nested_tensor_from_mask(src, _34, False)
        output0, src_key_padding_mask_for_layers0, convert_to_nested0 = output1, None, True
      else:
        output0, src_key_padding_mask_for_layers0, convert_to_nested0 = src, src_key_padding_mask0, False
      output, src_key_padding_mask_for_layers, convert_to_nested = output0, src_key_padding_mask_for_layers0, convert_to_nested0
    else:
      output, src_key_padding_mask_for_layers, convert_to_nested = src, src_key_padding_mask0, False
    layers0 = self.layers
    _01 = getattr(layers0, "0")
    _110 = getattr(layers0, "1")
    output2 = (_01).forward(output, mask, src_key_padding_mask_for_layers, )
    output3 = (_110).forward(output2, mask, src_key_padding_mask_for_layers, )
    if convert_to_nested:
      output5 = torch.to_padded_tensor(output3, 0.)
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
    src_key_padding_mask: Optional[Tensor]=None) -> Tensor:
    _35 = "AssertionError: only bool and floating types of key_padding_mask are supported"
    _36 = "input not batched; expected src.dim() of 3 but got {}"
    why_not_sparsity_fast_path = "self_attn.batch_first was not True"
    why_not_sparsity_fast_path5 = "some Tensor argument is neither CUDA nor CPU"
    why_not_sparsity_fast_path6 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _37 = uninitialized(Tensor)
    _38 = torch.__isnot__(src_key_padding_mask, None)
    if _38:
      src_key_padding_mask4 = unchecked_cast(Tensor, src_key_padding_mask)
      _skpm_dtype = ops.prim.dtype(src_key_padding_mask4)
      if torch.ne(_skpm_dtype, 11):
        _40 = torch.is_floating_point(src_key_padding_mask4)
        _39 = torch.__not__(_40)
      else:
        _39 = False
      if _39:
        ops.prim.RaiseException(_35)
      else:
        pass
      src_key_padding_mask3 : Optional[Tensor] = src_key_padding_mask4
    else:
      src_key_padding_mask3 = src_key_padding_mask
    _41 = torch.__not__(torch.eq(torch.dim(src), 3))
    if _41:
      why_not_sparsity_fast_path7 = torch.format(_36, torch.dim(src))
    else:
      training = self.training
      if training:
        why_not_sparsity_fast_path8 = "training is enabled"
      else:
        why_not_sparsity_fast_path8 = why_not_sparsity_fast_path
      why_not_sparsity_fast_path7 = why_not_sparsity_fast_path8
    _42 = torch.len(why_not_sparsity_fast_path7)
    if torch.__not__(torch.gt(_42, 0)):
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
      _45 = annotate(List[bool], [])
      if ops.prim.is_cuda(src):
        _46 = True
      else:
        _47 = str(ops.prim.device(src))
        _48 = torch.find(_47, "cpu", 0, torch.len(_47))
        _46 = torch.ne(_48, -1)
      _49 = torch.append(_45, _46)
      if ops.prim.is_cuda(in_proj_weight):
        _50 = True
      else:
        _51 = str(ops.prim.device(in_proj_weight))
        _52 = torch.find(_51, "cpu", 0, torch.len(_51))
        _50 = torch.ne(_52, -1)
      _53 = torch.append(_45, _50)
      if ops.prim.is_cuda(in_proj_bias):
        _54 = True
      else:
        _55 = str(ops.prim.device(in_proj_bias))
        _56 = torch.find(_55, "cpu", 0, torch.len(_55))
        _54 = torch.ne(_56, -1)
      _57 = torch.append(_45, _54)
      if ops.prim.is_cuda(weight):
        _58 = True
      else:
        _59 = str(ops.prim.device(weight))
        _60 = torch.find(_59, "cpu", 0, torch.len(_59))
        _58 = torch.ne(_60, -1)
      _61 = torch.append(_45, _58)
      if ops.prim.is_cuda(bias):
        _62 = True
      else:
        _63 = str(ops.prim.device(bias))
        _64 = torch.find(_63, "cpu", 0, torch.len(_63))
        _62 = torch.ne(_64, -1)
      _65 = torch.append(_45, _62)
      if ops.prim.is_cuda(weight4):
        _66 = True
      else:
        _67 = str(ops.prim.device(weight4))
        _68 = torch.find(_67, "cpu", 0, torch.len(_67))
        _66 = torch.ne(_68, -1)
      _69 = torch.append(_45, _66)
      if ops.prim.is_cuda(bias4):
        _70 = True
      else:
        _71 = str(ops.prim.device(bias4))
        _72 = torch.find(_71, "cpu", 0, torch.len(_71))
        _70 = torch.ne(_72, -1)
      _73 = torch.append(_45, _70)
      if ops.prim.is_cuda(weight5):
        _74 = True
      else:
        _75 = str(ops.prim.device(weight5))
        _76 = torch.find(_75, "cpu", 0, torch.len(_75))
        _74 = torch.ne(_76, -1)
      _77 = torch.append(_45, _74)
      if ops.prim.is_cuda(bias5):
        _78 = True
      else:
        _79 = str(ops.prim.device(bias5))
        _80 = torch.find(_79, "cpu", 0, torch.len(_79))
        _78 = torch.ne(_80, -1)
      _81 = torch.append(_45, _78)
      if ops.prim.is_cuda(weight6):
        _82 = True
      else:
        _83 = str(ops.prim.device(weight6))
        _84 = torch.find(_83, "cpu", 0, torch.len(_83))
        _82 = torch.ne(_84, -1)
      _85 = torch.append(_45, _82)
      if ops.prim.is_cuda(bias6):
        _86 = True
      else:
        _87 = str(ops.prim.device(bias6))
        _88 = torch.find(_87, "cpu", 0, torch.len(_87))
        _86 = torch.ne(_88, -1)
      _89 = torch.append(_45, _86)
      if ops.prim.is_cuda(weight7):
        _90 = True
      else:
        _91 = str(ops.prim.device(weight7))
        _92 = torch.find(_91, "cpu", 0, torch.len(_91))
        _90 = torch.ne(_92, -1)
      _93 = torch.append(_45, _90)
      if ops.prim.is_cuda(bias7):
        _94 = True
      else:
        _95 = str(ops.prim.device(bias7))
        _96 = torch.find(_95, "cpu", 0, torch.len(_95))
        _94 = torch.ne(_96, -1)
      _97 = torch.append(_45, _94)
      if torch.__not__(torch.all(_45)):
        why_not_sparsity_fast_path9 = why_not_sparsity_fast_path5
      else:
        if torch.is_grad_enabled():
          _99 = annotate(List[bool], [])
          _100 = torch.append(_99, ops.prim.requires_grad(src))
          _101 = ops.prim.requires_grad(in_proj_weight)
          _102 = torch.append(_99, _101)
          _103 = ops.prim.requires_grad(in_proj_bias)
          _104 = torch.append(_99, _103)
          _105 = ops.prim.requires_grad(weight)
          _106 = torch.append(_99, _105)
          _107 = torch.append(_99, ops.prim.requires_grad(bias))
          _108 = ops.prim.requires_grad(weight4)
          _109 = torch.append(_99, _108)
          _110 = torch.append(_99, ops.prim.requires_grad(bias4))
          _111 = ops.prim.requires_grad(weight5)
          _112 = torch.append(_99, _111)
          _113 = torch.append(_99, ops.prim.requires_grad(bias5))
          _114 = ops.prim.requires_grad(weight6)
          _115 = torch.append(_99, _114)
          _116 = torch.append(_99, ops.prim.requires_grad(bias6))
          _117 = ops.prim.requires_grad(weight7)
          _118 = torch.append(_99, _117)
          _119 = torch.append(_99, ops.prim.requires_grad(bias7))
          _98 = torch.any(_99)
        else:
          _98 = False
        if _98:
          why_not_sparsity_fast_path10 = why_not_sparsity_fast_path6
        else:
          why_not_sparsity_fast_path10 = why_not_sparsity_fast_path7
        why_not_sparsity_fast_path9 = why_not_sparsity_fast_path10
      _120 = torch.len(why_not_sparsity_fast_path9)
      if torch.__not__(torch.gt(_120, 0)):
        self_attn6 = self.self_attn
        embed_dim = self_attn6.embed_dim
        self_attn7 = self.self_attn
        num_heads = self_attn7.num_heads
        self_attn8 = self.self_attn
        in_proj_weight0 = self_attn8.in_proj_weight
        self_attn9 = self.self_attn
        in_proj_bias0 = self_attn9.in_proj_bias
        self_attn10 = self.self_attn
        out_proj2 = self_attn10.out_proj
        weight8 = out_proj2.weight
        self_attn11 = self.self_attn
        out_proj3 = self_attn11.out_proj
        bias8 = out_proj3.bias
        activation_relu_or_gelu = self.activation_relu_or_gelu
        _123 = torch.eq(activation_relu_or_gelu, 2)
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
        if torch.__isnot__(src_mask, None):
          src_mask3 = unchecked_cast(Tensor, src_mask)
          src_mask2, _124 = src_mask3, src_mask3
        else:
          src_mask2, _124 = src_mask, src_key_padding_mask3
        _125 = torch.__isnot__(src_key_padding_mask3, None)
        if _125:
          src_key_padding_mask8 = unchecked_cast(Tensor, src_key_padding_mask3)
          _126, src_mask4, src_key_padding_mask7 = 1, src_mask2, src_key_padding_mask8
        else:
          _127 = torch.__isnot__(src_mask2, None)
          if _127:
            src_mask6 = unchecked_cast(Tensor, src_mask2)
            _128, src_mask5 = 0, src_mask6
          else:
            _128, src_mask5 = None, src_mask2
          _126, src_mask4, src_key_padding_mask7 = _128, src_mask5, src_key_padding_mask3
        _129 = torch._transformer_encoder_layer_fwd(src, embed_dim, num_heads, in_proj_weight0, in_proj_bias0, weight8, bias8, _123, False, 1.0000000000000001e-05, weight9, bias9, weight10, bias10, weight11, bias11, weight12, bias12, _124, _126)
        _121, _122, src_mask1, src_key_padding_mask6 = True, _129, src_mask4, src_key_padding_mask7
      else:
        _121, _122, src_mask1, src_key_padding_mask6 = False, _37, src_mask, src_key_padding_mask3
      _43, _44, src_mask0, src_key_padding_mask5 = _121, _122, src_mask1, src_key_padding_mask6
    else:
      _43, _44, src_mask0, src_key_padding_mask5 = False, _37, src_mask, src_key_padding_mask3
    if _43:
      _130 = _44
    else:
      norm14 = self.norm1
      _131 = (self)._sa_block(src, src_mask0, src_key_padding_mask5, )
      x = (norm14).forward(torch.add(src, _131), )
      norm24 = self.norm2
      _132 = torch.add(x, (self)._ff_block(x, ))
      _130 = (norm24).forward(_132, )
    return _130
  def _sa_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor]) -> Tensor:
    self_attn = self.self_attn
    _133 = (self_attn).forward(x, x, x, key_padding_mask, False, attn_mask, True, )
    x0 = (_133)[0]
    dropout1 = self.dropout1
    return (dropout1).forward(x0, )
  def _ff_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    dropout = self.dropout
    linear1 = self.linear1
    _134 = __torch__.torch.nn.functional.relu((linear1).forward(x, ), False, )
    x1 = (linear2).forward((dropout).forward(_134, ), )
    dropout2 = self.dropout2
    return (dropout2).forward(x1, )
