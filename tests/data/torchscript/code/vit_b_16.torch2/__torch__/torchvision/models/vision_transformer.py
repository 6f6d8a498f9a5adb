class VisionTransformer(Module):
  __parameters__ = ["class_token", ]
  __buffers__ = []
  class_token : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  image_size : int
  patch_size : int
  hidden_dim : int
  mlp_dim : int
  attention_dropout : float
  dropout : float
  num_classes : int
  representation_size : NoneType
  seq_length : int
  conv_proj : __torch__.torch.nn.modules.conv.Conv2d
  encoder : __torch__.torchvision.models.vision_transformer.Encoder
  heads : __torch__.torch.nn.modules.container.___torch_mangle_2.Sequential
  def forward(self: __torch__.torchvision.models.vision_transformer.VisionTransformer,
    x: Tensor) -> Tensor:
    x0 = (self)._process_input(x, )
    n = (torch.size(x0))[0]
    class_token = self.class_token
    batch_class_token = torch.expand(class_token, [n, -1, -1])
    x1 = torch.cat([batch_class_token, x0], 1)
    encoder = self.encoder
    x2 = (encoder).forward(x1, )
    x3 = torch.select(torch.slice(x2), 1, 0)
    heads = self.heads
    return (heads).forward(x3, )
  def _process_input(self: __torch__.torchvision.models.vision_transformer.VisionTransformer,
    x: Tensor) -> Tensor:
    _0 = "Wrong image height! Expected {} but got {}!"
    _1 = "Wrong image width! Expected {} but got {}!"
    n, c, h, w, = torch.size(x)
    patch_size = self.patch_size
    image_size = self.image_size
    _2 = torch.eq(h, image_size)
    image_size0 = self.image_size
    _3 = torch.format(_0, image_size0, h)
    if _2:
      pass
    else:
      ops.prim.RaiseException(torch.add("AssertionError: ", _3))
    image_size1 = self.image_size
    _4 = torch.eq(w, image_size1)
    image_size2 = self.image_size
    _5 = torch.format(_1, image_size2, w)
    if _4:
      pass
    else:
      ops.prim.RaiseException(torch.add("AssertionError: ", _5))
    n_h = torch.floordiv(h, patch_size)
    n_w = torch.floordiv(w, patch_size)
    conv_proj = self.conv_proj
    x4 = (conv_proj).forward(x, )
    hidden_dim = self.hidden_dim
    _6 = [n, hidden_dim, torch.mul(n_h, n_w)]
    x5 = torch.reshape(x4, _6)
    return torch.permute(x5, [0, 2, 1])
class Encoder(Module):
  __parameters__ = ["pos_embedding", ]
  __buffers__ = []
  pos_embedding : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  layers : __torch__.torch.nn.modules.container.Sequential
  ln : __torch__.torch.nn.modules.normalization.LayerNorm
  def forward(self: __torch__.torchvision.models.vision_transformer.Encoder,
    input: Tensor) -> Tensor:
    _7 = "Expected (batch_size, seq_length, hidden_dim) got {}"
    _8 = torch.eq(torch.dim(input), 3)
    _9 = torch.format(_7, torch.size(input))
    if _8:
      pass
    else:
      ops.prim.RaiseException(torch.add("AssertionError: ", _9))
    pos_embedding = self.pos_embedding
    input0 = torch.add(input, pos_embedding)
    ln = self.ln
    layers = self.layers
    dropout = self.dropout
    _10 = (layers).forward((dropout).forward(input0, ), )
    return (ln).forward(_10, )
class EncoderBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  num_heads : int
  ln_1 : __torch__.torch.nn.modules.normalization.LayerNorm
  self_attention : __torch__.torch.nn.modules.activation.MultiheadAttention
  dropout : __torch__.torch.nn.modules.dropout.Dropout
  ln_2 : __torch__.torch.nn.modules.normalization.LayerNorm
  mlp : __torch__.torchvision.models.vision_transformer.MLPBlock
  def forward(self: __torch__.torchvision.models.vision_transformer.EncoderBlock,
    input: Tensor) -> Tensor:
    _11 = "Expected (batch_size, seq_length, hidden_dim) got {}"
    _12 = torch.eq(torch.dim(input), 3)
    _13 = torch.format(_11, torch.size(input))
    if _12:
      pass
    else:
      _14 = torch.add("AssertionError: ", _13)
      ops.prim.RaiseException(_14)
    ln_1 = self.ln_1
    x = (ln_1).forward(input, )
    self_attention = self.self_attention
    _15 = (self_attention).forward(x, x, x, None, False, None, True, False, )
    x6, _16, = _15
    dropout = self.dropout
    x7 = (dropout).forward(x6, )
    x8 = torch.add(x7, input)
    ln_2 = self.ln_2
    y = (ln_2).forward(x8, )
    mlp = self.mlp
    y0 = (mlp).forward(y, )
    return torch.add(x8, y0)
class MLPBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["0"] = __torch__.torch.nn.modules.linear.Linear
  __annotations__["1"] = __torch__.torch.nn.modules.activation.GELU
  __annotations__["2"] = __torch__.torch.nn.modules.dropout.Dropout
  __annotations__["3"] = __torch__.torch.nn.modules.linear.___torch_mangle_0.Linear
  __annotations__["4"] = __torch__.torch.nn.modules.dropout.Dropout
  def forward(self: __torch__.torchvision.models.vision_transformer.MLPBlock,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    _2 = getattr(self, "2")
    _3 = getattr(self, "3")
    _4 = getattr(self, "4")
    input1 = (_0).forward(input, )
    input2 = (_1).forward(input1, )
    input3 = (_2).forward(input2, )
    input4 = (_3).forward(input3, )
    return (_4).forward(input4, )
  def __len__(self: __torch__.torchvision.models.vision_transformer.MLPBlock) -> int:
    return 5
