class LSTM(Module):
  __parameters__ = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", ]
  __buffers__ = []
  weight_ih_l0 : Tensor
  weight_hh_l0 : Tensor
  bias_ih_l0 : Tensor
  bias_hh_l0 : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.rnn.LSTM,
    input: Tensor) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
    bias_hh_l0 = self.bias_hh_l0
    bias_ih_l0 = self.bias_ih_l0
    weight_hh_l0 = self.weight_hh_l0
    weight_ih_l0 = self.weight_ih_l0
    max_batch_size = ops.prim.NumToTensor(torch.size(input, 1))
    _0 = int(max_batch_size)
    hx = torch.zeros([1, int(max_batch_size), 8], dtype=6, layout=None, device=torch.device("cpu"), pin_memory=False)
    hx0 = torch.zeros([1, _0, 8], dtype=6, layout=None, device=torch.device("cpu"), pin_memory=False)
    _1 = [hx, hx0]
    _2 = [weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0]
    _3, _4, _5 = torch.lstm(input, _1, _2, True, 1, 0., True, False, False)
    return (_3, (_4, _5))
