def interpolate(input: Tensor,
    size: Optional[List[int]]=None,
    scale_factor: Optional[List[float]]=None,
    mode: str="nearest",
    align_corners: Optional[bool]=None,
    recompute_scale_factor: Optional[bool]=None,
    antialias: bool=False) -> Tensor:
  _0 = "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
  _1 = "only one of size or scale_factor should be defined"
  _2 = "AssertionError: scale_factor must be None when size is specified"
  _3 = "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {} and output size of {}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
  _4 = "AssertionError: size must be None when scale_factor is specified"
  _5 = "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {} and scale_factor of shape {}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
  _6 = "either size or scale_factor should be defined"
  _7 = "recompute_scale_factor is not meaningful with an explicit size."
  _8 = "AssertionError: scale_factors is unexpectedly None"
  _9 = "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
  _10 = "AssertionError: output_size is unexpectedly None"
  _11 = __torch__.torch.nn.functional.adaptive_avg_pool2d
  _12 = __torch__.torch.nn.functional.adaptive_avg_pool3d
  _13 = "AssertionError: align_corners is unexpectedly None"
  _14 = "Lanczos mode does not support align_corners=True"
  _15 = "Lanczos mode requires antialias=True"
  _16 = "Got 3D input, but bilinear mode needs 4D input"
  _17 = "Got 3D input, but trilinear mode needs 5D input"
  _18 = "Got 4D input, but linear mode needs 3D input"
  _19 = "Got 4D input, but trilinear mode needs 5D input"
  _20 = "Got 5D input, but linear mode needs 3D input"
  _21 = "Got 5D input, but bilinear mode needs 4D input"
  _22 = "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {})"
  _23 = uninitialized(Tensor)
  _24 = uninitialized(List[int])
  _25 = uninitialized(Optional[bool])
  _26 = uninitialized(NoneType)
  _27 = uninitialized(List[float])
  _28 = uninitialized(Optional[List[int]])
  _29 = uninitialized(Optional[List[float]])
  _30 = uninitialized(Optional[List[int]])
  _31 = uninitialized(Optional[bool])
  _32 = uninitialized(bool)
  _33 = torch.__contains__(["nearest", "area", "nearest-exact"], mode)
  if _33:
    _34 = torch.__isnot__(align_corners, None)
    if _34:
      ops.prim.RaiseException(_0, "builtins.ValueError")
      align_corners1 : Optional[bool] = _31
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
    _35, size0 = torch.__isnot__(scale_factor, None), size1
  else:
    _35, size0 = False, size
  if _35:
    ops.prim.RaiseException(_1, "builtins.ValueError")
    size2, output_size, scale_factors = _30, _28, _29
  else:
    if torch.__isnot__(size0, None):
      size4 = unchecked_cast(List[int], size0)
      _36 = torch.__isnot__(scale_factor, None)
      if _36:
        ops.prim.RaiseException(_2)
      else:
        pass
      size5 = unchecked_cast(List[int], size4)
      if torch.ne(torch.len(size5), dim):
        _37 = torch.slice(torch.size(input), 2)
        _38 = torch.format(_3, torch.list(_37), size5)
        ops.prim.RaiseException(_38, "builtins.ValueError")
      else:
        pass
      size3, output_size0, scale_factors0 = size5, size5, None
    else:
      _39 = torch.__isnot__(scale_factor, None)
      if _39:
        scale_factor0 = unchecked_cast(List[float], scale_factor)
        if torch.__isnot__(size0, None):
          ops.prim.RaiseException(_4)
          size7 : Optional[List[int]] = _30
        else:
          size7 = size0
        scale_factor1 = unchecked_cast(List[float], scale_factor0)
        _40 = torch.ne(torch.len(scale_factor1), dim)
        if _40:
          _41 = torch.slice(torch.size(input), 2)
          _42 = torch.format(_5, torch.list(_41), scale_factor1)
          ops.prim.RaiseException(_42, "builtins.ValueError")
        else:
          pass
        size6, output_size1, scale_factors1 = size7, None, scale_factor1
      else:
        ops.prim.RaiseException(_6, "builtins.ValueError")
        size6, output_size1, scale_factors1 = _30, _26, _27
      size3, output_size0, scale_factors0 = size6, output_size1, scale_factors1
    size2, output_size, scale_factors = size3, output_size0, scale_factors0
  _43 = torch.__isnot__(recompute_scale_factor, None)
  if _43:
    recompute_scale_factor1 = unchecked_cast(bool, recompute_scale_factor)
    _44, recompute_scale_factor0 = recompute_scale_factor1, recompute_scale_factor1
  else:
    _44, recompute_scale_factor0 = False, recompute_scale_factor
  if _44:
    recompute_scale_factor3 = unchecked_cast(bool, recompute_scale_factor0)
    _45, recompute_scale_factor2 = torch.__isnot__(size2, None), recompute_scale_factor3
  else:
    _45, recompute_scale_factor2 = False, recompute_scale_factor0
  if _45:
    ops.prim.RaiseException(_7, "builtins.ValueError")
    recompute_scale_factor4 : Optional[bool] = _25
  else:
    recompute_scale_factor4 = recompute_scale_factor2
  if torch.eq(mode, "area"):
    _46 = torch.__is__(output_size, None)
  else:
    _46 = False
  if _46:
    recompute_scale_factor5 : Optional[bool] = True
  else:
    recompute_scale_factor5 = recompute_scale_factor4
  _47 = torch.__isnot__(recompute_scale_factor5, None)
  if _47:
    recompute_scale_factor6 = unchecked_cast(bool, recompute_scale_factor5)
    _48 = recompute_scale_factor6
  else:
    _48 = False
  if _48:
    if torch.__is__(scale_factors, None):
      ops.prim.RaiseException(_8)
      scale_factors3 = _27
    else:
      scale_factors4 = unchecked_cast(List[float], scale_factors)
      scale_factors3 = scale_factors4
    output_size3 = annotate(List[int], [])
    for i in range(dim):
      _49 = torch.size(input, torch.add(i, 2))
      _50 = torch.mul(float(_49), scale_factors3[i])
      _51 = torch.append(output_size3, torch.floor(_50))
    output_size2, scale_factors2 = output_size3, None
  else:
    output_size2, scale_factors2 = output_size, scale_factors
  if antialias:
    _53 = torch.__contains__(["bilinear", "bicubic", "lanczos"], mode)
    if _53:
      _54 = torch.eq(torch.dim(input), 4)
    else:
      _54 = False
    _52 = torch.__not__(_54)
  else:
    _52 = False
  if _52:
    ops.prim.RaiseException(_9, "builtins.ValueError")
  else:
    pass
  if torch.eq(torch.dim(input), 3):
    _55 = torch.eq(mode, "nearest")
  else:
    _55 = False
  if _55:
    _57 = torch.upsample_nearest1d(input, output_size2, scale_factors2)
    _56 = _57
  else:
    if torch.eq(torch.dim(input), 4):
      _58 = torch.eq(mode, "nearest")
    else:
      _58 = False
    if _58:
      _60 = torch.upsample_nearest2d(input, output_size2, scale_factors2)
      _59 = _60
    else:
      if torch.eq(torch.dim(input), 5):
        _61 = torch.eq(mode, "nearest")
      else:
        _61 = False
      if _61:
        _63 = torch.upsample_nearest3d(input, output_size2, scale_factors2)
        _62 = _63
      else:
        if torch.eq(torch.dim(input), 3):
          _65 = torch.eq(mode, "nearest-exact")
          _64 = _65
        else:
          _64 = False
        if _64:
          _67 = torch._upsample_nearest_exact1d(input, output_size2, scale_factors2)
          _66 = _67
        else:
          if torch.eq(torch.dim(input), 4):
            _69 = torch.eq(mode, "nearest-exact")
            _68 = _69
          else:
            _68 = False
          if _68:
            _71 = torch._upsample_nearest_exact2d(input, output_size2, scale_factors2)
            _70 = _71
          else:
            _72 = torch.eq(torch.dim(input), 5)
            if _72:
              _74 = torch.eq(mode, "nearest-exact")
              _73 = _74
            else:
              _73 = False
            if _73:
              _76 = torch._upsample_nearest_exact3d(input, output_size2, scale_factors2)
              _75 = _76
            else:
              _77 = torch.eq(torch.dim(input), 3)
              if _77:
                _78 = torch.eq(mode, "area")
              else:
                _78 = False
              if _78:
                _80 = torch.__is__(output_size2, None)
                if _80:
                  ops.prim.RaiseException(_10)
                  output_size4 = _24
                else:
                  output_size5 = unchecked_cast(List[int], output_size2)
                  output_size4 = output_size5
                _81 = torch.adaptive_avg_pool1d(input, output_size4)
                _79 = _81
              else:
                _82 = torch.eq(torch.dim(input), 4)
                if _82:
                  _84 = torch.eq(mode, "area")
                  _83 = _84
                else:
                  _83 = False
                if _83:
                  _86 = torch.__is__(output_size2, None)
                  if _86:
                    ops.prim.RaiseException(_10)
                    output_size6 = _24
                  else:
                    output_size7 = unchecked_cast(List[int], output_size2)
                    output_size6 = output_size7
                  _87 = _11(input, output_size6, )
                  _85 = _87
                else:
                  _88 = torch.eq(torch.dim(input), 5)
                  if _88:
                    _90 = torch.eq(mode, "area")
                    _89 = _90
                  else:
                    _89 = False
                  if _89:
                    _92 = torch.__is__(output_size2, None)
                    if _92:
                      ops.prim.RaiseException(_10)
                      output_size8 = _24
                    else:
                      output_size9 = unchecked_cast(List[int], output_size2)
                      output_size8 = output_size9
                    _93 = _12(input, output_size8, )
                    _91 = _93
                  else:
                    _94 = torch.eq(torch.dim(input), 3)
                    if _94:
                      _96 = torch.eq(mode, "linear")
                      _95 = _96
                    else:
                      _95 = False
                    if _95:
                      _98 = torch.__is__(align_corners0, None)
                      if _98:
                        ops.prim.RaiseException(_13)
                        align_corners4 = _32
                      else:
                        align_corners5 = unchecked_cast(bool, align_corners0)
                        align_corners4 = align_corners5
                      _99 = torch.upsample_linear1d(input, output_size2, align_corners4, scale_factors2)
                      _97 = _99
                    else:
                      _100 = torch.eq(torch.dim(input), 4)
                      if _100:
                        _102 = torch.eq(mode, "bilinear")
                        _101 = _102
                      else:
                        _101 = False
                      if _101:
                        _104 = torch.__is__(align_corners0, None)
                        if _104:
                          ops.prim.RaiseException(_13)
                          align_corners6 = _32
                        else:
                          align_corners7 = unchecked_cast(bool, align_corners0)
                          align_corners6 = align_corners7
                        if antialias:
                          _106 = torch._upsample_bilinear2d_aa(input, output_size2, align_corners6, scale_factors2)
                          _105 = _106
                        else:
                          _107 = torch.upsample_bilinear2d(input, output_size2, align_corners6, scale_factors2)
                          _105 = _107
                        _103 = _105
                      else:
                        _108 = torch.dim(input)
                        _109 = torch.eq(_108, 5)
                        if _109:
                          _111 = torch.eq(mode, "trilinear")
                          _110 = _111
                        else:
                          _110 = False
                        if _110:
                          _113 = torch.__is__(align_corners0, None)
                          if _113:
                            ops.prim.RaiseException(_13)
                            align_corners8 = _32
                          else:
                            align_corners9 = unchecked_cast(bool, align_corners0)
                            align_corners8 = align_corners9
                          _114 = torch.upsample_trilinear3d(input, output_size2, align_corners8, scale_factors2)
                          _112 = _114
                        else:
                          _115 = torch.dim(input)
                          _116 = torch.eq(_115, 4)
                          if _116:
                            _118 = torch.eq(mode, "bicubic")
                            _117 = _118
                          else:
                            _117 = False
                          if _117:
                            _120 = torch.__is__(align_corners0, None)
                            if _120:
                              ops.prim.RaiseException(_13)
                              align_corners10 = _32
                            else:
                              align_corners11 = unchecked_cast(bool, align_corners0)
                              align_corners10 = align_corners11
                            if antialias:
                              _122 = torch._upsample_bicubic2d_aa(input, output_size2, align_corners10, scale_factors2)
                              _121 = _122
                            else:
                              _123 = torch.upsample_bicubic2d(input, output_size2, align_corners10, scale_factors2)
                              _121 = _123
                            _119 = _121
                          else:
                            _124 = torch.dim(input)
                            _125 = torch.eq(_124, 4)
                            if _125:
                              _127 = torch.eq(mode, "lanczos")
                              _126 = _127
                            else:
                              _126 = False
                            if _126:
                              _129 = torch.__is__(align_corners0, None)
                              if _129:
                                ops.prim.RaiseException(_13)
                                align_corners12 = _32
                              else:
                                align_corners13 = unchecked_cast(bool, align_corners0)
                                align_corners12 = align_corners13
                              if align_corners12:
                                ops.prim.RaiseException(_14, "builtins.ValueError")
                              else:
                                pass
                              _130 = torch.__not__(antialias)
                              if _130:
                                ops.prim.RaiseException(_15, "builtins.ValueError")
                              else:
                                pass
                              _131 = torch._upsample_lanczos2d_aa(input, output_size2, align_corners12, scale_factors2)
                              _128 = _131
                            else:
                              _132 = torch.dim(input)
                              _133 = torch.eq(_132, 3)
                              if _133:
                                _135 = torch.eq(mode, "bilinear")
                                _134 = _135
                              else:
                                _134 = False
                              if _134:
                                ops.prim.RaiseException(_16, "builtins.NotImplementedError")
                              else:
                                pass
                              _136 = torch.dim(input)
                              _137 = torch.eq(_136, 3)
                              if _137:
                                _139 = torch.eq(mode, "trilinear")
                                _138 = _139
                              else:
                                _138 = False
                              if _138:
                                ops.prim.RaiseException(_17, "builtins.NotImplementedError")
                              else:
                                pass
                              _140 = torch.dim(input)
                              _141 = torch.eq(_140, 4)
                              if _141:
                                _143 = torch.eq(mode, "linear")
                                _142 = _143
                              else:
                                _142 = False
                              if _142:
                                ops.prim.RaiseException(_18, "builtins.NotImplementedError")
                              else:
                                pass
                              _144 = torch.dim(input)
                              _145 = torch.eq(_144, 4)
                              if _145:
                                _147 = torch.eq(mode, "trilinear")
                                _146 = _147
                              else:
                                _146 = False
                              if _146:
                                ops.prim.RaiseException(_19, "builtins.NotImplementedError")
                              else:
                                pass
                              _148 = torch.dim(input)
                              _149 = torch.eq(_148, 5)
                              if _149:
                                _151 = torch.eq(mode, "linear")
                                _150 = _151
                              else:
                                _150 = False
                              if _150:
                                ops.prim.RaiseException(_20, "builtins.NotImplementedError")
                              else:
                                pass
                              _152 = torch.dim(input)
                              _153 = torch.eq(_152, 5)
                              if _153:
                                _155 = torch.eq(mode, "bilinear")
                                _154 = _155
                              else:
                                _154 = False
                              if _154:
                                ops.prim.RaiseException(_21, "builtins.NotImplementedError")
                              else:
                                pass
                              _156 = torch.dim(input)
                              _157 = torch.format(_22, _156, mode)
                              ops.prim.RaiseException(_157, "builtins.NotImplementedError")
                              _128 = _23
                            _119 = _128
                          _112 = _119
                        _103 = _112
                      _97 = _103
                    _91 = _97
                  _85 = _91
                _79 = _85
              _75 = _79
            _70 = _75
          _66 = _70
        _62 = _66
      _59 = _62
    _56 = _59
  return _56
