class Sequential(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  encoder_layer_0 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_1 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_2 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_3 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_4 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_5 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_6 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_7 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_8 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_9 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_10 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  encoder_layer_11 : __torch__.torchvision.models.vision_transformer.EncoderBlock
  def forward(self: __torch__.torch.nn.modules.container.Sequential,
    input: Tensor) -> Tensor:
    encoder_layer_0 = self.encoder_layer_0
    encoder_layer_1 = self.encoder_layer_1
    encoder_layer_2 = self.encoder_layer_2
    encoder_layer_3 = self.encoder_layer_3
    encoder_layer_4 = self.encoder_layer_4
    encoder_layer_5 = self.encoder_layer_5
    encoder_layer_6 = self.encoder_layer_6
    encoder_layer_7 = self.encoder_layer_7
    encoder_layer_8 = self.encoder_layer_8
    encoder_layer_9 = self.encoder_layer_9
    encoder_layer_10 = self.encoder_layer_10
    encoder_layer_11 = self.encoder_layer_11
    input0 = (encoder_layer_0).forward(input, )
    input1 = (encoder_layer_1).forward(input0, )
    input2 = (encoder_layer_2).forward(input1, )
    input3 = (encoder_layer_3).forward(input2, )
    input4 = (encoder_layer_4).forward(input3, )
    input5 = (encoder_layer_5).forward(input4, )
    input6 = (encoder_layer_6).forward(input5, )
    input7 = (encoder_layer_7).forward(input6, )
    input8 = (encoder_layer_8).forward(input7, )
    input9 = (encoder_layer_9).forward(input8, )
    input10 = (encoder_layer_10).forward(input9, )
    input11 = (encoder_layer_11).forward(input10, )
    return input11
  def __len__(self: __torch__.torch.nn.modules.container.Sequential) -> int:
    return 12
