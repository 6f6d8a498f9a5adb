#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes loaders/torchscript/lang/ts_schemas.inc: the operator schemas ember's TorchScript loader
binds calls against (serialized code prints no overload names and drops trailing defaults).

Collects every node kind of the issue #4 models (tools/ts_models.py), traced and scripted
(inlined graphs, nested blocks included), with each PyTorch given on the command line, plus the
ops listed in EXTRA; then writes every overload of those ops as that PyTorch knows it. The
union over versions is kept; for an overload name both know, the newer text wins (it only
adds trailing defaulted arguments). Run with each interpreter writing a JSON part, then merge:
  /usr/bin/python3 tools/gen_ts_schemas.py part /tmp/s113.json
  /work/venv-torch/bin/python tools/gen_ts_schemas.py part /tmp/s2.json
  python3 tools/gen_ts_schemas.py merge loaders/torchscript/lang/ts_schemas.inc /tmp/s113.json /tmp/s2.json
"""
import json
import sys
import warnings

EXTRA = """aten::add aten::sub aten::mul aten::div aten::floordiv aten::remainder aten::neg aten::pow
aten::eq aten::ne aten::lt aten::le aten::gt aten::ge aten::__is__ aten::__isnot__ aten::__not__
aten::__and__ aten::__or__ aten::len aten::dim aten::size aten::format aten::list aten::append
aten::Int aten::Float aten::Bool aten::ScalarImplicit aten::IntImplicit aten::FloatImplicit
aten::__getitem__ aten::__contains__ aten::min aten::max aten::abs aten::sqrt aten::exp aten::log
aten::tanh aten::sigmoid aten::relu aten::relu_ aten::gelu aten::silu aten::hardswish
aten::hardsigmoid aten::hardtanh aten::hardtanh_ aten::softmax aten::log_softmax aten::matmul
aten::linear aten::addmm aten::mm aten::bmm aten::t aten::transpose aten::permute aten::reshape
aten::view aten::flatten aten::contiguous aten::unsqueeze aten::squeeze aten::cat aten::stack
aten::chunk aten::split aten::select aten::slice aten::expand aten::zeros aten::ones aten::full
aten::arange aten::to aten::type_as aten::dropout aten::layer_norm aten::batch_norm
aten::conv1d aten::conv2d aten::conv3d aten::_convolution aten::max_pool2d aten::avg_pool2d
aten::adaptive_avg_pool2d aten::mean aten::sum aten::where aten::masked_fill aten::clamp
aten::zeros_like aten::ones_like aten::item aten::numel aten::floor aten::ceil aten::round
aten::scaled_dot_product_attention aten::embedding aten::lstm aten::gru aten::copy_
aten::index aten::index_put_ aten::baddbmm aten::einsum aten::fill_ aten::zero_
aten::swapaxes aten::swapdims aten::erf aten::rsqrt aten::tensor
prim::NumToTensor prim::RaiseException prim::unchecked_cast prim::device prim::dtype
prim::min prim::max prim::abs prim::data prim::is_cuda prim::layout
quantized::conv2d quantized::conv2d_relu quantized::linear quantized::add quantized::cat
quantized::conv2d_prepack quantized::linear_prepack
quantized::linear_dynamic quantized::linear_relu_dynamic quantized::hardswish prim::is_quantized
aten::quantized_lstm aten::quantized_gru aten::quantize_per_channel
aten::add_ aten::sub_ aten::rsub aten::mul_ aten::div_ aten::true_divide aten::floor_divide
aten::floor_divide_ aten::remainder_ aten::fmod aten::fmod_ aten::pow_ aten::neg_ aten::abs_
aten::sqrt_ aten::rsqrt_ aten::exp_ aten::log_ aten::log1p aten::log1p_ aten::log2 aten::log2_
aten::erf_ aten::sin aten::sin_ aten::cos aten::cos_ aten::tanh_ aten::sigmoid_
aten::reciprocal aten::reciprocal_ aten::sign aten::sign_ aten::floor_ aten::ceil_ aten::round_
aten::trunc aten::trunc_ aten::maximum aten::minimum aten::clamp_ aten::clip aten::clip_
aten::clamp_min aten::clamp_min_ aten::clamp_max aten::clamp_max_ aten::eq_ aten::ne_ aten::lt_
aten::le_ aten::gt_ aten::ge_ aten::logical_and aten::logical_and_ aten::logical_or
aten::logical_or_ aten::logical_not aten::logical_not_ aten::logical_xor aten::logical_xor_
aten::bitwise_not aten::bitwise_not_ aten::bitwise_and aten::bitwise_and_ aten::bitwise_or
aten::bitwise_or_ aten::bitwise_xor aten::bitwise_xor_ aten::__xor__ aten::__iand__
aten::__ior__ aten::__ixor__ aten::masked_fill_ aten::relu6 aten::relu6_ aten::leaky_relu
aten::leaky_relu_ aten::elu aten::elu_ aten::selu aten::selu_ aten::celu aten::celu_
aten::gelu_ aten::silu_ aten::mish aten::mish_ aten::softplus aten::hardswish_
aten::hardsigmoid_ aten::log_sigmoid aten::prelu aten::glu aten::_softmax aten::_log_softmax
aten::threshold aten::threshold_ aten::amax aten::amin aten::argmax aten::argmin aten::prod
aten::std aten::var aten::norm aten::linalg_vector_norm aten::frobenius_norm aten::all
aten::any aten::logsumexp aten::cumsum aten::square
aten::empty aten::full_like aten::empty_like aten::new_zeros aten::new_ones aten::new_full
aten::new_empty aten::linspace aten::scalar_tensor aten::eye aten::rand aten::randn
aten::rand_like aten::randn_like aten::randint aten::randint_like aten::randperm aten::normal
aten::as_tensor aten::new_tensor aten::expand_as aten::view_as aten::reshape_as aten::repeat
aten::tile aten::broadcast_to aten::flip aten::roll aten::narrow aten::split_with_sizes
aten::unbind aten::hstack aten::vstack aten::index_select aten::gather aten::scatter
aten::take_along_dim aten::constant_pad_nd aten::pad aten::reflection_pad1d
aten::reflection_pad2d aten::reflection_pad3d aten::replication_pad1d aten::replication_pad2d
aten::replication_pad3d aten::_pad_circular aten::upsample_nearest1d aten::upsample_nearest2d
aten::upsample_nearest3d aten::upsample_linear1d aten::upsample_bilinear2d
aten::upsample_trilinear3d aten::upsample_bicubic2d aten::__interpolate aten::__upsample
aten::__upsample_bilinear aten::pixel_shuffle aten::pixel_unshuffle aten::channel_shuffle
aten::tril aten::triu aten::masked_select aten::is_floating_point aten::movedim
aten::_upsample_nearest_exact1d aten::_upsample_nearest_exact2d aten::_upsample_nearest_exact3d
aten::scatter_add aten::index_put aten::masked_fill_ aten::index_fill aten::index_fill_
aten::rnn_tanh aten::rnn_relu aten::lstm_cell aten::gru_cell aten::rnn_tanh_cell
aten::rnn_relu_cell aten::_scaled_dot_product_attention aten::unsafe_chunk""".split()


def kinds_of(graph, out):
    for node in graph.nodes():
        out.add(node.kind())
        for b in node.blocks():
            kinds_of(b, out)


def part(path):
    import torch
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import ts_models
    warnings.filterwarnings("ignore")
    kinds = set(EXTRA)
    for name in ts_models.ALL:
        for kind in ("trace", "script"):
            try:
                m, _ = ts_models.export(name, kind)
                kinds_of(m.inlined_graph, kinds)
            except Exception as e:  # a model a torch version cannot export: say so
                print("gen_ts_schemas: %s %s: %s" % (name, kind, str(e).splitlines()[0]),
                      file=sys.stderr)
    schemas = {}
    for s in torch._C._jit_get_all_schemas():
        name = s.name
        if name in kinds:
            schemas["%s.%s" % (name, s.overload_name)] = str(s)
    json.dump({"torch": torch.__version__, "kinds": sorted(kinds), "schemas": schemas},
              open(path, "w"), indent=0, sort_keys=True)
    print("gen_ts_schemas: %s: %d kinds, %d schemas" % (torch.__version__, len(kinds),
                                                       len(schemas)), file=sys.stderr)


def version_key(v):
    return tuple(int(p) for p in v.split("+")[0].split("a")[0].split(".")[:2])


def merge(out_path, parts):
    loaded = sorted((json.load(open(p)) for p in parts), key=lambda d: version_key(d["torch"]))
    merged = {}
    for d in loaded:  # oldest first: newer texts overwrite
        merged.update(d["schemas"])
    with open(out_path, "w") as f:
        f.write("/* SPDX-License-Identifier: Apache-2.0 */\n")
        f.write("/* Generated by tools/gen_ts_schemas.py from PyTorch %s: do not edit.\n"
                " * The operator schemas the TorchScript loader binds calls against. */\n"
                % ", ".join(d["torch"] for d in loaded))
        for key in sorted(merged):
            f.write('"%s",\n' % merged[key].replace("\\", "\\\\").replace('"', '\\"'))
    print("gen_ts_schemas: wrote %d schemas to %s" % (len(merged), out_path), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "part":
        part(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "merge":
        merge(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
