def interpolate(input: Tensor,
    size: Optional[List[int]]=None,
    scale_factor: Optional[float]=None,
    mode: str="nearest",
    align_corners: Optional[bool]=None,
    recompute_scale_factor: Optional[bool]=None,
    antialias: bool=False) -> Tensor:
  _0 = "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
  _1 = "only one of size or scale_factor should be defined"
  _2 = "AssertionError: scale_factor must be None when size is specified"
  _3 = "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {} and output size of {}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
  _4 = "AssertionError: size must be None when scale_factor is specified"
  _5 = "either size or scale_factor should be defined"
  _6 = "recompute_scale_factor is not meaningful with an explicit size."
  _7 = "AssertionError: scale_factors is unexpectedly None"
  _8 = "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
  _9 = "AssertionError: output_size is unexpectedly None"
  _10 = __torch__.torch.nn.functional.adaptive_avg_pool2d
  _11 = __torch__.torch.nn.functional.adaptive_avg_pool3d
  _12 = "AssertionError: align_corners is unexpectedly None"
  _13 = "Lanczos mode does not support align_corners=True"
  _14 = "Lanczos mode requires antialias=True"
  _15 = "Got 3D input, but bilinear mode needs 4D input"
  _16 = "Got 3D input, but trilinear mode needs 5D input"
  _17 = "Got 4D input, but linear mode needs 3D input"
  _18 = "Got 4D input, but trilinear mode needs 5D input"
  _19 = "Got 5D input, but linear mode needs 3D input"
  _20 = "Got 5D input, but bilinear mode needs 4D input"
  _21 = "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {})"
  _22 = uninitialized(Tensor)
  _23 = uninitialized(List[int])
  _24 = uninitialized(Optional[bool])
  _25 = uninitialized(NoneType)
  _26 = uninitialized(List[float])
  _27 = uninitialized(Optional[List[int]])
  _28 = uninitialized(Optional[List[float]])
  _29 = uninitialized(Optional[List[int]])
  _30 = uninitialized(Optional[bool])
  _31 = uninitialized(bool)
  _32 = torch.__contains__(["nearest", "area", "nearest-exact"], mode)
  if _32:
    _33 = torch.__isnot__(align_corners, None)
    if _33:
      ops.prim.RaiseException(_0, "builtins.ValueError")
      align_corners1 : Optional[bool] = _30
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
    _34, size0 = torch.__isnot__(scale_factor, None), size1
  else:
    _34, size0 = False, size
  if _34:
    ops.prim.RaiseException(_1, "builtins.ValueError")
    size2, output_size, scale_factors = _29, _27, _28
  else:
    if torch.__isnot__(size0, None):
      size4 = unchecked_cast(List[int], size0)
      _35 = torch.__isnot__(scale_factor, None)
      if _35:
        ops.prim.RaiseException(_2)
      else:
        pass
      size5 = unchecked_cast(List[int], size4)
      if torch.ne(torch.len(size5), dim):
        _36 = torch.slice(torch.size(input), 2)
        _37 = torch.format(_3, torch.list(_36), size5)
        ops.prim.RaiseException(_37, "builtins.ValueError")
      else:
        pass
      size3, output_size0, scale_factors0 = size5, size5, None
    else:
      _38 = torch.__isnot__(scale_factor, None)
      if _38:
        scale_factor0 = unchecked_cast(float, scale_factor)
        if torch.__isnot__(size0, None):
          ops.prim.RaiseException(_4)
          size7 : Optional[List[int]] = _29
        else:
          size7 = size0
        scale_factor1 = unchecked_cast(float, scale_factor0)
        scale_factors2 = annotate(List[float], [])
        for _39 in range(dim):
          _40 = torch.append(scale_factors2, scale_factor1)
        size6, output_size1, scale_factors1 = size7, None, scale_factors2
      else:
        ops.prim.RaiseException(_5, "builtins.ValueError")
        size6, output_size1, scale_factors1 = _29, _25, _26
      size3, output_size0, scale_factors0 = size6, output_size1, scale_factors1
    size2, output_size, scale_factors = size3, output_size0, scale_factors0
  _41 = torch.__isnot__(recompute_scale_factor, None)
  if _41:
    recompute_scale_factor1 = unchecked_cast(bool, recompute_scale_factor)
    _42, recompute_scale_factor0 = recompute_scale_factor1, recompute_scale_factor1
  else:
    _42, recompute_scale_factor0 = False, recompute_scale_factor
  if _42:
    recompute_scale_factor3 = unchecked_cast(bool, recompute_scale_factor0)
    _43, recompute_scale_factor2 = torch.__isnot__(size2, None), recompute_scale_factor3
  else:
    _43, recompute_scale_factor2 = False, recompute_scale_factor0
  if _43:
    ops.prim.RaiseException(_6, "builtins.ValueError")
    recompute_scale_factor4 : Optional[bool] = _24
  else:
    recompute_scale_factor4 = recompute_scale_factor2
  if torch.eq(mode, "area"):
    _44 = torch.__is__(output_size, None)
  else:
    _44 = False
  if _44:
    recompute_scale_factor5 : Optional[bool] = True
  else:
    recompute_scale_factor5 = recompute_scale_factor4
  _45 = torch.__isnot__(recompute_scale_factor5, None)
  if _45:
    recompute_scale_factor6 = unchecked_cast(bool, recompute_scale_factor5)
    _46 = recompute_scale_factor6
  else:
    _46 = False
  if _46:
    if torch.__is__(scale_factors, None):
      ops.prim.RaiseException(_7)
      scale_factors4 = _26
    else:
      scale_factors5 = unchecked_cast(List[float], scale_factors)
      scale_factors4 = scale_factors5
    output_size3 = annotate(List[int], [])
    for i in range(dim):
      _47 = torch.size(input, torch.add(i, 2))
      _48 = torch.mul(float(_47), scale_factors4[i])
      _49 = torch.append(output_size3, torch.floor(_48))
    output_size2, scale_factors3 = output_size3, None
  else:
    output_size2, scale_factors3 = output_size, scale_factors
  if antialias:
    _51 = torch.__contains__(["bilinear", "bicubic", "lanczos"], mode)
    if _51:
      _52 = torch.eq(torch.dim(input), 4)
    else:
      _52 = False
    _50 = torch.__not__(_52)
  else:
    _50 = False
  if _50:
    ops.prim.RaiseException(_8, "builtins.ValueError")
  else:
    pass
  if torch.eq(torch.dim(input), 3):
    _53 = torch.eq(mode, "nearest")
  else:
    _53 = False
  if _53:
    _55 = torch.upsample_nearest1d(input, output_size2, scale_factors3)
    _54 = _55
  else:
    if torch.eq(torch.dim(input), 4):
      _56 = torch.eq(mode, "nearest")
    else:
      _56 = False
    if _56:
      _58 = torch.upsample_nearest2d(input, output_size2, scale_factors3)
      _57 = _58
    else:
      if torch.eq(torch.dim(input), 5):
        _59 = torch.eq(mode, "nearest")
      else:
        _59 = False
      if _59:
        _61 = torch.upsample_nearest3d(input, output_size2, scale_factors3)
        _60 = _61
      else:
        if torch.eq(torch.dim(input), 3):
          _63 = torch.eq(mode, "nearest-exact")
          _62 = _63
        else:
          _62 = False
        if _62:
          _65 = torch._upsample_nearest_exact1d(input, output_size2, scale_factors3)
          _64 = _65
        else:
          if torch.eq(torch.dim(input), 4):
            _67 = torch.eq(mode, "nearest-exact")
            _66 = _67
          else:
            _66 = False
          if _66:
            _69 = torch._upsample_nearest_exact2d(input, output_size2, scale_factors3)
            _68 = _69
          else:
            _70 = torch.eq(torch.dim(input), 5)
            if _70:
              _72 = torch.eq(mode, "nearest-exact")
              _71 = _72
            else:
              _71 = False
            if _71:
              _74 = torch._upsample_nearest_exact3d(input, output_size2, scale_factors3)
              _73 = _74
            else:
              _75 = torch.eq(torch.dim(input), 3)
              if _75:
                _76 = torch.eq(mode, "area")
              else:
                _76 = False
              if _76:
                _78 = torch.__is__(output_size2, None)
                if _78:
                  ops.prim.RaiseException(_9)
                  output_size4 = _23
                else:
                  output_size5 = unchecked_cast(List[int], output_size2)
                  output_size4 = output_size5
                _79 = torch.adaptive_avg_pool1d(input, output_size4)
                _77 = _79
              else:
                _80 = torch.eq(torch.dim(input), 4)
                if _80:
                  _82 = torch.eq(mode, "area")
                  _81 = _82
                else:
                  _81 = False
                if _81:
                  _84 = torch.__is__(output_size2, None)
                  if _84:
                    ops.prim.RaiseException(_9)
                    output_size6 = _23
                  else:
                    output_size7 = unchecked_cast(List[int], output_size2)
                    output_size6 = output_size7
                  _85 = _10(input, output_size6, )
                  _83 = _85
                else:
                  _86 = torch.eq(torch.dim(input), 5)
                  if _86:
                    _88 = torch.eq(mode, "area")
                    _87 = _88
                  else:
                    _87 = False
                  if _87:
                    _90 = torch.__is__(output_size2, None)
                    if _90:
                      ops.prim.RaiseException(_9)
                      output_size8 = _23
                    else:
                      output_size9 = unchecked_cast(List[int], output_size2)
                      output_size8 = output_size9
                    _91 = _11(input, output_size8, )
                    _89 = _91
                  else:
                    _92 = torch.eq(torch.dim(input), 3)
                    if _92:
                      _94 = torch.eq(mode, "linear")
                      _93 = _94
                    else:
                      _93 = False
                    if _93:
                      _96 = torch.__is__(align_corners0, None)
                      if _96:
                        ops.prim.RaiseException(_12)
                        align_corners4 = _31
                      else:
                        align_corners5 = unchecked_cast(bool, align_corners0)
                        align_corners4 = align_corners5
                      _97 = torch.upsample_linear1d(input, output_size2, align_corners4, scale_factors3)
                      _95 = _97
                    else:
                      _98 = torch.eq(torch.dim(input), 4)
                      if _98:
                        _100 = torch.eq(mode, "bilinear")
                        _99 = _100
                      else:
                        _99 = False
                      if _99:
                        _102 = torch.__is__(align_corners0, None)
                        if _102:
                          ops.prim.RaiseException(_12)
                          align_corners6 = _31
                        else:
                          align_corners7 = unchecked_cast(bool, align_corners0)
                          align_corners6 = align_corners7
                        if antialias:
                          _104 = torch._upsample_bilinear2d_aa(input, output_size2, align_corners6, scale_factors3)
                          _103 = _104
                        else:
                          _105 = torch.upsample_bilinear2d(input, output_size2, align_corners6, scale_factors3)
                          _103 = _105
                        _101 = _103
                      else:
                        _106 = torch.dim(input)
                        _107 = torch.eq(_106, 5)
                        if _107:
                          _109 = torch.eq(mode, "trilinear")
                          _108 = _109
                        else:
                          _108 = False
                        if _108:
                          _111 = torch.__is__(align_corners0, None)
                          if _111:
                            ops.prim.RaiseException(_12)
                            align_corners8 = _31
                          else:
                            align_corners9 = unchecked_cast(bool, align_corners0)
                            align_corners8 = align_corners9
                          _112 = torch.upsample_trilinear3d(input, output_size2, align_corners8, scale_factors3)
                          _110 = _112
                        else:
                          _113 = torch.dim(input)
                          _114 = torch.eq(_113, 4)
                          if _114:
                            _116 = torch.eq(mode, "bicubic")
                            _115 = _116
                          else:
                            _115 = False
                          if _115:
                            _118 = torch.__is__(align_corners0, None)
                            if _118:
                              ops.prim.RaiseException(_12)
                              align_corners10 = _31
                            else:
                              align_corners11 = unchecked_cast(bool, align_corners0)
                              align_corners10 = align_corners11
                            if antialias:
                              _120 = torch._upsample_bicubic2d_aa(input, output_size2, align_corners10, scale_factors3)
                              _119 = _120
                            else:
                              _121 = torch.upsample_bicubic2d(input, output_size2, align_corners10, scale_factors3)
                              _119 = _121
                            _117 = _119
                          else:
                            _122 = torch.dim(input)
                            _123 = torch.eq(_122, 4)
                            if _123:
                              _125 = torch.eq(mode, "lanczos")
                              _124 = _125
                            else:
                              _124 = False
                            if _124:
                              _127 = torch.__is__(align_corners0, None)
                              if _127:
                                ops.prim.RaiseException(_12)
                                align_corners12 = _31
                              else:
                                align_corners13 = unchecked_cast(bool, align_corners0)
                                align_corners12 = align_corners13
                              if align_corners12:
                                ops.prim.RaiseException(_13, "builtins.ValueError")
                              else:
                                pass
                              _128 = torch.__not__(antialias)
                              if _128:
                                ops.prim.RaiseException(_14, "builtins.ValueError")
                              else:
                                pass
                              _129 = torch._upsample_lanczos2d_aa(input, output_size2, align_corners12, scale_factors3)
                              _126 = _129
                            else:
                              _130 = torch.dim(input)
                              _131 = torch.eq(_130, 3)
                              if _131:
                                _133 = torch.eq(mode, "bilinear")
                                _132 = _133
                              else:
                                _132 = False
                              if _132:
                                ops.prim.RaiseException(_15, "builtins.NotImplementedError")
                              else:
                                pass
                              _134 = torch.dim(input)
                              _135 = torch.eq(_134, 3)
                              if _135:
                                _137 = torch.eq(mode, "trilinear")
                                _136 = _137
                              else:
                                _136 = False
                              if _136:
                                ops.prim.RaiseException(_16, "builtins.NotImplementedError")
                              else:
                                pass
                              _138 = torch.dim(input)
                              _139 = torch.eq(_138, 4)
                              if _139:
                                _141 = torch.eq(mode, "linear")
                                _140 = _141
                              else:
                                _140 = False
                              if _140:
                                ops.prim.RaiseException(_17, "builtins.NotImplementedError")
                              else:
                                pass
                              _142 = torch.dim(input)
                              _143 = torch.eq(_142, 4)
                              if _143:
                                _145 = torch.eq(mode, "trilinear")
                                _144 = _145
                              else:
                                _144 = False
                              if _144:
                                ops.prim.RaiseException(_18, "builtins.NotImplementedError")
                              else:
                                pass
                              _146 = torch.dim(input)
                              _147 = torch.eq(_146, 5)
                              if _147:
                                _149 = torch.eq(mode, "linear")
                                _148 = _149
                              else:
                                _148 = False
                              if _148:
                                ops.prim.RaiseException(_19, "builtins.NotImplementedError")
                              else:
                                pass
                              _150 = torch.dim(input)
                              _151 = torch.eq(_150, 5)
                              if _151:
                                _153 = torch.eq(mode, "bilinear")
                                _152 = _153
                              else:
                                _152 = False
                              if _152:
                                ops.prim.RaiseException(_20, "builtins.NotImplementedError")
                              else:
                                pass
                              _154 = torch.dim(input)
                              _155 = torch.format(_21, _154, mode)
                              ops.prim.RaiseException(_155, "builtins.NotImplementedError")
                              _126 = _22
                            _117 = _126
                          _110 = _117
                        _101 = _110
                      _95 = _101
                    _89 = _95
                  _83 = _89
                _77 = _83
              _73 = _77
            _68 = _73
          _64 = _68
        _60 = _64
      _57 = _60
    _54 = _57
  return _54
