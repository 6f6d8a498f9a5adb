class ImageList:
  tensors : Tensor
  image_sizes : List[Tuple[int, int]]
  def __init__(self: __torch__.torchvision.models.detection.image_list.ImageList,
    tensors: Tensor,
    image_sizes: List[Tuple[int, int]]) -> NoneType:
    self.tensors = tensors
    self.image_sizes = image_sizes
    return None
  def to(self: __torch__.torchvision.models.detection.image_list.ImageList,
    device: Device) -> __torch__.torchvision.models.detection.image_list.ImageList:
    tensors = self.tensors
    cast_tensor = torch.to(tensors, device)
    image_sizes = self.image_sizes
    _0 = __torch__.torchvision.models.detection.image_list.ImageList.__new__(__torch__.torchvision.models.detection.image_list.ImageList)
    _1 = (_0).__init__(cast_tensor, image_sizes, )
    return _0
