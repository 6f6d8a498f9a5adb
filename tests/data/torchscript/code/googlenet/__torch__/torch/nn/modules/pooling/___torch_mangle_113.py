class MaxPool2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  return_indices : Final[bool] = False
  padding : Final[int] = 0
  stride : Final[int] = 2
  dilation : Final[int] = 1
  kernel_size : Final[int] = 2
  ceil_mode : Final[bool] = True
  def forward(self: __torch__.torch.nn.modules.pooling.___torch_mangle_113.MaxPool2d,
    input: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional._max_pool2d
    _1 = _0(input, [2, 2], [2, 2], [0, 0], [1, 1], True, False, )
    return _1
