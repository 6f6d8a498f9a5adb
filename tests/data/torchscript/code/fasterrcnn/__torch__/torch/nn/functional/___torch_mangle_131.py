def interpolate(input: Tensor,
    size: Optional[List[int]]=None,
    scale_factor: Optional[float]=None,
    mode: str="nearest",
    align_corners: Optional[bool]=None,
    recompute_scale_factor: Optional[bool]=None,
    antialias: bool=False) -> Tensor:
  _0 = "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
  _1 = "only one of size or scale_factor should be defined"
  _2 = "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {} and output size of {}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
  _3 = "either size or scale_factor should be defined"
  _4 = "recompute_scale_factor is not meaningful with an explicit size."
  _5 = "Anti-alias option is only supported for bilinear and bicubic modes"
  _6 = __torch__.torch.nn.functional.adaptive_avg_pool2d
  _7 = __torch__.torch.nn.functional.adaptive_avg_pool3d
  _8 = "Got 3D input, but bilinear mode needs 4D input"
  _9 = "Got 3D input, but trilinear mode needs 5D input"
  _10 = "Got 4D input, but linear mode needs 3D input"
  _11 = "Got 4D input, but trilinear mode needs 5D input"
  _12 = "Got 5D input, but linear mode needs 3D input"
  _13 = "Got 5D input, but bilinear mode needs 4D input"
  _14 = "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {})"
  _15 = uninitialized(Tensor)
  _16 = uninitialized(List[int])
  _17 = uninitialized(Optional[bool])
  _18 = uninitialized(NoneType)
  _19 = uninitialized(List[float])
  _20 = uninitialized(Optional[List[int]])
  _21 = uninitialized(Optional[List[float]])
  _22 = uninitialized(Optional[List[int]])
  _23 = uninitialized(Optional[bool])
  _24 = uninitialized(bool)
  _25 = torch.__contains__(["nearest", "area", "nearest-exact"], mode)
  if _25:
    _26 = torch.__isnot__(align_corners, None)
    if _26:
      ops.prim.RaiseException(_0, "builtins.ValueError")
      align_corners1 : Optional[bool] = _23
    else:
      align_corners1 = align_corners
    align_corners0 : Optional[bool] = align_corners1
  else:
    if torch.__is__(align_corners, None):
      align_corners2 = False
    else:
      align_corners3 = unchecked_cast(bool, align_corners)
      align_corners2 = align_corners3
    align_corners0 = align_corners2
  dim = torch.sub(torch.dim(input), 2)
  if torch.__isnot__(size, None):
    size1 = unchecked_cast(List[int], size)
    _27, size0 = torch.__isnot__(scale_factor, None), size1
  else:
    _27, size0 = False, size
  if _27:
    ops.prim.RaiseException(_1, "builtins.ValueError")
    size2, output_size, scale_factors = _22, _20, _21
  else:
    if torch.__isnot__(size0, None):
      size4 = unchecked_cast(List[int], size0)
      if torch.__is__(scale_factor, None):
        pass
      else:
        ops.prim.RaiseException("AssertionError: ")
      size5 = unchecked_cast(List[int], size4)
      if torch.ne(torch.len(size5), dim):
        _28 = torch.slice(torch.size(input), 2)
        _29 = torch.format(_2, torch.list(_28), size5)
        ops.prim.RaiseException(_29, "builtins.ValueError")
      else:
        pass
      size3, output_size0, scale_factors0 = size5, size5, None
    else:
      _30 = torch.__isnot__(scale_factor, None)
      if _30:
        scale_factor0 = unchecked_cast(float, scale_factor)
        if torch.__is__(size0, None):
          size7 : Optional[List[int]] = size0
        else:
          ops.prim.RaiseException("AssertionError: ")
          size7 = _22
        scale_factor1 = unchecked_cast(float, scale_factor0)
        scale_factors2 = annotate(List[float], [])
        for _31 in range(dim):
          _32 = torch.append(scale_factors2, scale_factor1)
        size6, output_size1, scale_factors1 = size7, None, scale_factors2
      else:
        ops.prim.RaiseException(_3, "builtins.ValueError")
        size6, output_size1, scale_factors1 = _22, _18, _19
      size3, output_size0, scale_factors0 = size6, output_size1, scale_factors1
    size2, output_size, scale_factors = size3, output_size0, scale_factors0
  _33 = torch.__isnot__(recompute_scale_factor, None)
  if _33:
    recompute_scale_factor1 = unchecked_cast(bool, recompute_scale_factor)
    _34, recompute_scale_factor0 = recompute_scale_factor1, recompute_scale_factor1
  else:
    _34, recompute_scale_factor0 = False, recompute_scale_factor
  if _34:
    recompute_scale_factor3 = unchecked_cast(bool, recompute_scale_factor0)
    _35, recompute_scale_factor2 = torch.__isnot__(size2, None), recompute_scale_factor3
  else:
    _35, recompute_scale_factor2 = False, recompute_scale_factor0
  if _35:
    ops.prim.RaiseException(_4, "builtins.ValueError")
    recompute_scale_factor4 : Optional[bool] = _17
  else:
    recompute_scale_factor4 = recompute_scale_factor2
  if torch.eq(mode, "area"):
    _36 = torch.__is__(output_size, None)
  else:
    _36 = False
  if _36:
    recompute_scale_factor5 : Optional[bool] = True
  else:
    recompute_scale_factor5 = recompute_scale_factor4
  _37 = torch.__isnot__(recompute_scale_factor5, None)
  if _37:
    recompute_scale_factor6 = unchecked_cast(bool, recompute_scale_factor5)
    _38 = recompute_scale_factor6
  else:
    _38 = False
  if _38:
    _39 = torch.__isnot__(scale_factors, None)
    if _39:
      scale_factors5 = unchecked_cast(List[float], scale_factors)
      scale_factors4 = scale_factors5
    else:
      ops.prim.RaiseException("AssertionError: ")
      scale_factors4 = _19
    output_size3 = annotate(List[int], [])
    for i in range(dim):
      _40 = torch.size(input, torch.add(i, 2))
      _41 = torch.mul(float(_40), scale_factors4[i])
      _42 = torch.append(output_size3, torch.floor(_41))
    output_size2, scale_factors3 = output_size3, None
  else:
    output_size2, scale_factors3 = output_size, scale_factors
  if antialias:
    _44 = torch.__contains__(["bilinear", "bicubic"], mode)
    if _44:
      _45 = torch.eq(torch.dim(input), 4)
    else:
      _45 = False
    _43 = torch.__not__(_45)
  else:
    _43 = False
  if _43:
    ops.prim.RaiseException(_5, "builtins.ValueError")
  else:
    pass
  if torch.eq(torch.dim(input), 3):
    _46 = torch.eq(mode, "nearest")
  else:
    _46 = False
  if _46:
    _48 = torch.upsample_nearest1d(input, output_size2, scale_factors3)
    _47 = _48
  else:
    if torch.eq(torch.dim(input), 4):
      _49 = torch.eq(mode, "nearest")
    else:
      _49 = False
    if _49:
      _51 = torch.upsample_nearest2d(input, output_size2, scale_factors3)
      _50 = _51
    else:
      if torch.eq(torch.dim(input), 5):
        _52 = torch.eq(mode, "nearest")
      else:
        _52 = False
      if _52:
        _54 = torch.upsample_nearest3d(input, output_size2, scale_factors3)
        _53 = _54
      else:
        if torch.eq(torch.dim(input), 3):
          _56 = torch.eq(mode, "nearest-exact")
          _55 = _56
        else:
          _55 = False
        if _55:
          _58 = torch._upsample_nearest_exact1d(input, output_size2, scale_factors3)
          _57 = _58
        else:
          if torch.eq(torch.dim(input), 4):
            _60 = torch.eq(mode, "nearest-exact")
            _59 = _60
          else:
            _59 = False
          if _59:
            _62 = torch._upsample_nearest_exact2d(input, output_size2, scale_factors3)
            _61 = _62
          else:
            _63 = torch.eq(torch.dim(input), 5)
            if _63:
              _65 = torch.eq(mode, "nearest-exact")
              _64 = _65
            else:
              _64 = False
            if _64:
              _67 = torch._upsample_nearest_exact3d(input, output_size2, scale_factors3)
              _66 = _67
            else:
              _68 = torch.eq(torch.dim(input), 3)
              if _68:
                _69 = torch.eq(mode, "area")
              else:
                _69 = False
              if _69:
                _71 = torch.__isnot__(output_size2, None)
                if _71:
                  output_size5 = unchecked_cast(List[int], output_size2)
                  output_size4 = output_size5
                else:
                  ops.prim.RaiseException("AssertionError: ")
                  output_size4 = _16
                _72 = torch.adaptive_avg_pool1d(input, output_size4)
                _70 = _72
              else:
                _73 = torch.eq(torch.dim(input), 4)
                if _73:
                  _75 = torch.eq(mode, "area")
                  _74 = _75
                else:
                  _74 = False
                if _74:
                  _77 = torch.__isnot__(output_size2, None)
                  if _77:
                    output_size7 = unchecked_cast(List[int], output_size2)
                    output_size6 = output_size7
                  else:
                    ops.prim.RaiseException("AssertionError: ")
                    output_size6 = _16
                  _78 = _6(input, output_size6, )
                  _76 = _78
                else:
                  _79 = torch.eq(torch.dim(input), 5)
                  if _79:
                    _81 = torch.eq(mode, "area")
                    _80 = _81
                  else:
                    _80 = False
                  if _80:
                    _83 = torch.__isnot__(output_size2, None)
                    if _83:
                      output_size9 = unchecked_cast(List[int], output_size2)
                      output_size8 = output_size9
                    else:
                      ops.prim.RaiseException("AssertionError: ")
                      output_size8 = _16
                    _84 = _7(input, output_size8, )
                    _82 = _84
                  else:
                    _85 = torch.eq(torch.dim(input), 3)
                    if _85:
                      _87 = torch.eq(mode, "linear")
                      _86 = _87
                    else:
                      _86 = False
                    if _86:
                      _89 = torch.__isnot__(align_corners0, None)
                      if _89:
                        align_corners5 = unchecked_cast(bool, align_corners0)
                        align_corners4 = align_corners5
                      else:
                        ops.prim.RaiseException("AssertionError: ")
                        align_corners4 = _24
                      _90 = torch.upsample_linear1d(input, output_size2, align_corners4, scale_factors3)
                      _88 = _90
                    else:
                      _91 = torch.eq(torch.dim(input), 4)
                      if _91:
                        _93 = torch.eq(mode, "bilinear")
                        _92 = _93
                      else:
                        _92 = False
                      if _92:
                        _95 = torch.__isnot__(align_corners0, None)
                        if _95:
                          align_corners7 = unchecked_cast(bool, align_corners0)
                          align_corners6 = align_corners7
                        else:
                          ops.prim.RaiseException("AssertionError: ")
                          align_corners6 = _24
                        if antialias:
                          _97 = torch._upsample_bilinear2d_aa(input, output_size2, align_corners6, scale_factors3)
                          _96 = _97
                        else:
                          _98 = torch.upsample_bilinear2d(input, output_size2, align_corners6, scale_factors3)
                          _96 = _98
                        _94 = _96
                      else:
                        _99 = torch.dim(input)
                        _100 = torch.eq(_99, 5)
                        if _100:
                          _102 = torch.eq(mode, "trilinear")
                          _101 = _102
                        else:
                          _101 = False
                        if _101:
                          _104 = torch.__isnot__(align_corners0, None)
                          if _104:
                            align_corners9 = unchecked_cast(bool, align_corners0)
                            align_corners8 = align_corners9
                          else:
                            ops.prim.RaiseException("AssertionError: ")
                            align_corners8 = _24
                          _105 = torch.upsample_trilinear3d(input, output_size2, align_corners8, scale_factors3)
                          _103 = _105
                        else:
                          _106 = torch.dim(input)
                          _107 = torch.eq(_106, 4)
                          if _107:
                            _109 = torch.eq(mode, "bicubic")
                            _108 = _109
                          else:
                            _108 = False
                          if _108:
                            _111 = torch.__isnot__(align_corners0, None)
                            if _111:
                              align_corners11 = unchecked_cast(bool, align_corners0)
                              align_corners10 = align_corners11
                            else:
                              ops.prim.RaiseException("AssertionError: ")
                              align_corners10 = _24
                            if antialias:
                              _113 = torch._upsample_bicubic2d_aa(input, output_size2, align_corners10, scale_factors3)
                              _112 = _113
                            else:
                              _114 = torch.upsample_bicubic2d(input, output_size2, align_corners10, scale_factors3)
                              _112 = _114
                            _110 = _112
                          else:
                            _115 = torch.dim(input)
                            _116 = torch.eq(_115, 3)
                            if _116:
                              _118 = torch.eq(mode, "bilinear")
                              _117 = _118
                            else:
                              _117 = False
                            if _117:
                              ops.prim.RaiseException(_8, "builtins.NotImplementedError")
                            else:
                              pass
                            _119 = torch.dim(input)
                            _120 = torch.eq(_119, 3)
                            if _120:
                              _122 = torch.eq(mode, "trilinear")
                              _121 = _122
                            else:
                              _121 = False
                            if _121:
                              ops.prim.RaiseException(_9, "builtins.NotImplementedError")
                            else:
                              pass
                            _123 = torch.dim(input)
                            _124 = torch.eq(_123, 4)
                            if _124:
                              _126 = torch.eq(mode, "linear")
                              _125 = _126
                            else:
                              _125 = False
                            if _125:
                              ops.prim.RaiseException(_10, "builtins.NotImplementedError")
                            else:
                              pass
                            _127 = torch.dim(input)
                            _128 = torch.eq(_127, 4)
                            if _128:
                              _130 = torch.eq(mode, "trilinear")
                              _129 = _130
                            else:
                              _129 = False
                            if _129:
                              ops.prim.RaiseException(_11, "builtins.NotImplementedError")
                            else:
                              pass
                            _131 = torch.dim(input)
                            _132 = torch.eq(_131, 5)
                            if _132:
                              _134 = torch.eq(mode, "linear")
                              _133 = _134
                            else:
                              _133 = False
                            if _133:
                              ops.prim.RaiseException(_12, "builtins.NotImplementedError")
                            else:
                              pass
                            _135 = torch.dim(input)
                            _136 = torch.eq(_135, 5)
                            if _136:
                              _138 = torch.eq(mode, "bilinear")
                              _137 = _138
                            else:
                              _137 = False
                            if _137:
                              ops.prim.RaiseException(_13, "builtins.NotImplementedError")
                            else:
                              pass
                            _139 = torch.dim(input)
                            _140 = torch.format(_14, _139, mode)
                            ops.prim.RaiseException(_140, "builtins.NotImplementedError")
                            _110 = _15
                          _103 = _110
                        _94 = _103
                      _88 = _94
                    _82 = _88
                  _76 = _82
                _70 = _76
              _66 = _70
            _61 = _66
          _57 = _61
        _53 = _57
      _50 = _53
    _47 = _50
  return _47
