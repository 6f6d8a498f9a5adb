class ConvReLU2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  in_channels : int
  out_channels : int
  kernel_size : Tuple[int, int]
  stride : Tuple[int, int]
  padding : Tuple[int, int]
  dilation : Tuple[int, int]
  transposed : bool
  output_padding : Tuple[int, int]
  groups : int
  padding_mode : str
  _packed_params : __torch__.torch.classes.quantized.Conv2dPackedParamsBase
  scale : float
  zero_point : int
  def forward(self: __torch__.torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d,
    input: Tensor) -> Tensor:
    _0 = "Input shape must be `(N, C, H, W)`!"
    _1 = __torch__.torch.ao.nn.quantized.modules.conv._reverse_repeat_padding
    _2 = torch.ne(torch.len(torch.size(input)), 4)
    if _2:
      ops.prim.RaiseException(_0, "builtins.ValueError")
    else:
      pass
    padding_mode = self.padding_mode
    if torch.ne(padding_mode, "zeros"):
      padding = self.padding
      _3, _4, = padding
      _reversed_padding_repeated_twice = _1([_3, _4], )
      padding_mode0 = self.padding_mode
      input1 = torch.pad(input, _reversed_padding_repeated_twice, padding_mode0)
      input0 = input1
    else:
      input0 = input
    _packed_params = self._packed_params
    scale = self.scale
    zero_point = self.zero_point
    _5 = ops.quantized.conv2d_relu(input0, _packed_params, scale, zero_point)
    return _5
  def __getstate__(self: __torch__.torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d) -> Tuple[int, int, Tuple[int, int], Tuple[int, int], Tuple[int, int], Tuple[int, int], bool, Tuple[int, int], int, str, Tensor, Optional[Tensor], float, int, bool]:
    w, b, = (self)._weight_bias()
    in_channels = self.in_channels
    out_channels = self.out_channels
    kernel_size = self.kernel_size
    stride = self.stride
    padding = self.padding
    dilation = self.dilation
    transposed = self.transposed
    output_padding = self.output_padding
    groups = self.groups
    padding_mode = self.padding_mode
    scale = self.scale
    zero_point = self.zero_point
    training = self.training
    _6 = (in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding, groups, padding_mode, w, b, scale, zero_point, training)
    return _6
  def __setstate__(self: __torch__.torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d,
    state: Tuple[int, int, Tuple[int, int], Tuple[int, int], Tuple[int, int], Tuple[int, int], bool, Tuple[int, int], int, str, Tensor, Optional[Tensor], float, int, bool]) -> NoneType:
    self.in_channels = (state)[0]
    self.out_channels = (state)[1]
    self.kernel_size = (state)[2]
    self.stride = (state)[3]
    self.padding = (state)[4]
    self.dilation = (state)[5]
    self.transposed = (state)[6]
    self.output_padding = (state)[7]
    self.groups = (state)[8]
    self.padding_mode = (state)[9]
    _7 = (self).set_weight_bias((state)[10], (state)[11], )
    self.scale = (state)[12]
    self.zero_point = (state)[13]
    self.training = (state)[14]
    return None
  def _weight_bias(self: __torch__.torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d) -> Tuple[Tensor, Optional[Tensor]]:
    _packed_params = self._packed_params
    return (_packed_params).unpack()
  def set_weight_bias(self: __torch__.torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d,
    w: Tensor,
    b: Optional[Tensor]) -> NoneType:
    padding_mode = self.padding_mode
    if torch.eq(padding_mode, "zeros"):
      stride = self.stride
      padding = self.padding
      dilation = self.dilation
      groups = self.groups
      _8, _9, = stride
      _10 = [_8, _9]
      _11, _12, = padding
      _13 = [_11, _12]
      _14, _15, = dilation
      _16 = ops.quantized.conv2d_prepack(w, b, _10, _13, [_14, _15], groups)
      self._packed_params = _16
    else:
      stride0 = self.stride
      _17 = [0, 0]
      dilation0 = self.dilation
      groups0 = self.groups
      _18, _19, = stride0
      _20 = [_18, _19]
      _21, _22, = dilation0
      _23 = ops.quantized.conv2d_prepack(w, b, _20, _17, [_21, _22], groups0)
      self._packed_params = _23
    return None
