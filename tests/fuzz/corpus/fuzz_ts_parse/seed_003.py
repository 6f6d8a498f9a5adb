class Sequential(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["0"] = __torch__.torch.nn.modules.activation.ReLU
  __annotations__["1"] = __torch__.torch.nn.modules.linear.Identity
  def forward(self: __torch__.torch.nn.modules.container.Sequential,
    input: Tensor) -> Tensor:
    _0 = getattr(self, "0")
    _1 = getattr(self, "1")
    input0 = (_0).forward(input, )
    return (_1).forward(input0, )
  def __len__(self: __torch__.torch.nn.modules.container.Sequential) -> int:
    return 2
class ModuleList(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  __annotations__["0"] = __torch__.torch.nn.modules.linear.Linear
  __annotations__["1"] = __torch__.torch.nn.modules.linear.Linear
  def __len__(self: __torch__.torch.nn.modules.container.ModuleList) -> int:
    return 2
class ModuleDict(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  a : __torch__.torch.nn.modules.activation.Tanh
  b : __torch__.torch.nn.modules.activation.Sigmoid
  def __len__(self: __torch__.torch.nn.modules.container.ModuleDict) -> int:
    return 2
  def __contains__(self: __torch__.torch.nn.modules.container.ModuleDict,
    key: str) -> bool:
    return torch.__contains__(["a", "b"], key)
