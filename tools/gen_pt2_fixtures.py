#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the torch.export fixtures of tests/data/pt2 (tests/loaders/test_pt2_load.c).

Run with the torch 2.x venv (bench/.env/torch2/bin/python tools/gen_pt2_fixtures.py [OUT]).
Each model M gives M.pt2 (torch.export.save), M_input.npy and M_expected.npy (PyTorch eager
on that input). `*_core` variants are the same program after ep.run_decompositions() (the
core-aten op set: addmm, convolution, _native_batch_norm_legit_no_training, ...).
Seeds are fixed; weights are small, so the archives stay a few kB.

The seeds of tests/fuzz/fuzz_pt2.c (tests/fuzz/corpus/fuzz_pt2) are the fixtures' programs,
node metadata left out, a NUL byte, and their weights configs.

bad_*.pt2 are mlp.pt2 rewritten (zipfile, records stored) with one defect each, for the
loader's error messages; node metadata and sample inputs are dropped there to keep them small.
"""
import json
import os
import sys
import zipfile

import numpy as np
import torch

OUT = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "pt2")


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(4, 8)
        self.l2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.l2(torch.relu(self.l1(x))), dim=-1)


class Cnn(torch.nn.Module):
    """conv / batch norm / relu / max pool / residual add / adaptive avg pool / flatten / linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.avg = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn1(self.conv1(x))))
        y = torch.relu(y + self.bn2(self.conv2(y)))
        return self.fc(torch.flatten(self.avg(y), 1))


class Cond(torch.nn.Module):
    """torch.cond on data: the program holds a higher_order.cond node with two subgraphs."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, x):
        def pos(x):
            return torch.relu(self.l(x)) + 1.0

        def neg(x):
            return torch.sigmoid(self.l(x)) * x - 1.0

        return torch.cond(x.sum() > 0, pos, neg, (x,))


class Lstm(torch.nn.Module):
    """A two-layer nn.LSTM (exported as aten.lstm.input) and a Linear on its last step."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 8, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


class QCnn(torch.nn.Module):
    """For PT2E: conv / relu / max pool / 1x1 conv / adaptive avg pool / flatten."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.c3 = torch.nn.Conv2d(16, 8, 1)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)
        y = torch.relu(self.c3(torch.relu(self.c2(y))))
        return torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)


class QMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(16, 32)
        self.l2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def write_pt2e(name, model, x, quantizer):
    """A PT2E static quantization (torchao's prepare_pt2e / convert_pt2e, 8 calibration
    batches) exported again: the program holds torch.ops.quantized_decomposed Q / DQ nodes.
    M_expected.npy is the converted model's output (PyTorch's quantized model: float ops
    between the Q / DQ pairs). M_lsb.npy is the output's quantization step, for the test's
    count of elements within one step: the scale of the output's dequantize_per_tensor when
    the output is a dequantized tensor (qcnn), else (a float linear last: qmlp) the change one
    step of that linear's quantized input makes, its scale times the largest |weight|."""
    if ONLY and name not in ONLY[0]:
        return
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    ep = torch.export.export(model.eval(), (x,))
    prepared = prepare_pt2e(ep.module(), quantizer)
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn_like(x))
    converted = convert_pt2e(prepared)
    run_x = torch.randn_like(x)
    with torch.no_grad():
        expected = converted(run_x)
    qep = torch.export.export(converted, (x,))
    torch.export.save(qep, os.path.join(OUT, name + ".pt2"))
    np.save(os.path.join(OUT, name + "_input.npy"), run_x.numpy())
    np.save(os.path.join(OUT, name + "_expected.npy"), expected.numpy())
    nodes = [n for n in qep.graph.nodes if n.op == "call_function"]
    last = list(qep.graph.nodes)[-1].args[0][0]
    if "dequantize_per_tensor" in str(last.target):
        lsb = last.args[1]
    else:  # linear(dequantize_per_tensor(q, scale, ...), dequantize_per_channel(w, ...), b)
        x_dq, w_dq = last.args[0], last.args[1]
        state = dict(qep.state_dict, **qep.constants)
        w = state[qep.graph_signature.inputs_to_buffers[w_dq.args[0].name]].float()
        scales = state[qep.graph_signature.inputs_to_buffers[w_dq.args[1].name]]
        zps = state[qep.graph_signature.inputs_to_buffers[w_dq.args[2].name]]
        lsb = x_dq.args[1] * ((w - zps[:, None]) * scales[:, None]).abs().max().item()
    np.save(os.path.join(OUT, name + "_lsb.npy"), np.array([lsb], np.float32))
    print(name, ", ".join(sorted({str(n.target) for n in nodes})))


def write_quantized():
    """qcnn: XNNPACKQuantizer (torchao.testing.pt2e; int8 activations, per-channel int8
    weights in -127..127), every conv's output quantized, so the program's output is a
    dequantized int8 tensor. qmlp: X86InductorQuantizer (uint8 activations, per-channel int8
    weights), the last linear's output float. qmlp_rr: the same with reduce_range (uint8
    activations in 0..127). torchao (pip install torchao) must be importable: torch 2.15 has no
    torch.ao.quantization.quantize_pt2e any more."""
    if ONLY and not {"qcnn", "qmlp", "qmlp_rr"} & set(ONLY[0]):
        return
    try:
        import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq
        from torchao.testing.pt2e._xnnpack_quantizer import (
            XNNPACKQuantizer, get_symmetric_quantization_config)
    except ImportError:
        print("torchao not importable: the PT2E fixtures (qcnn, qmlp) are not written")
        return
    torch.manual_seed(1)
    xnn = XNNPACKQuantizer()
    xnn.set_global(get_symmetric_quantization_config(is_per_channel=True))
    write_pt2e("qcnn", QCnn(), torch.randn(16, 3, 16, 16), xnn)
    for name, rr in (("qmlp", False), ("qmlp_rr", True)):
        x86 = xiq.X86InductorQuantizer()
        x86.set_global(xiq.get_default_x86_inductor_quantization_config(reduce_range=rr))
        torch.manual_seed(2)
        write_pt2e(name, QMlp(), torch.randn(16, 16), x86)


class BnTrain(torch.nn.Module):
    """Exported in train mode: BatchNorm normalizes by the batch statistics and updates its
    running statistics and num_batches_tracked (in-place ops, or buffer_mutation outputs after
    run_decompositions())."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Ema(torch.nn.Module):
    """Keeps a running average of its outputs in a buffer no output reads."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)
        self.register_buffer("avg", torch.zeros(4))

    def forward(self, x):
        y = self.l(x)
        self.avg.mul_(0.9).add_(0.1 * y.mean(0).detach())
        return y


class Counter(torch.nn.Module):
    """Counts its calls in a buffer its output reads: the output changes from call to call."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x):
        self.steps.add_(1)
        return self.l(x) * self.steps


def write_mutating(name, model, x, core=False, expected=True):
    """A program that updates buffers, exported as it is (in-place aten ops on the buffers) or
    after run_decompositions() (functional: buffer_mutation outputs). The expected output is
    PyTorch's on the second call of a fresh copy (the first call updated the buffers)."""
    if ONLY and name not in ONLY[0]:
        return
    import copy
    ep = torch.export.export(copy.deepcopy(model), (x,))
    if core:
        ep = ep.run_decompositions()
    torch.export.save(ep, os.path.join(OUT, name + ".pt2"))
    print(name, ep.graph_signature.buffers_to_mutate)
    if not expected:  # refused by ember: no run
        return
    fresh = copy.deepcopy(model)
    with torch.no_grad():
        fresh(x)
        expected = fresh(x)
    np.save(os.path.join(OUT, name + "_input.npy"), x.numpy())
    np.save(os.path.join(OUT, name + "_expected.npy"), expected.numpy())


def write_mutations():
    torch.manual_seed(3)
    bn = BnTrain().train()
    with torch.no_grad():
        bn.bn.running_mean.uniform_(-0.5, 0.5)
        bn.bn.running_var.uniform_(0.5, 1.5)
        bn.bn.weight.uniform_(0.5, 1.5)
        bn.bn.bias.uniform_(-0.5, 0.5)
    x = torch.randn(2, 3, 8, 8)
    write_mutating("bn_train", bn, x)
    write_mutating("bn_train_core", bn, x, core=True)
    ema = Ema()
    write_mutating("ema", ema, torch.randn(3, 4))
    write_mutating("ema_core", ema, torch.randn(3, 4), core=True)
    counter = Counter()
    write_mutating("counter", counter, torch.randn(3, 4), expected=False)
    write_mutating("counter_core", counter, torch.randn(3, 4), core=True, expected=False)


class WhileLoop(torch.nn.Module):
    """torch._higher_order_ops.while_loop: h = tanh(l(h)) + h until 10 steps or until the sum
    of |h| reaches 8, which depends on the data (while_loop_big_input.npy exits earlier)."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop

        def cond_fn(i, h):
            return (i < 10) & (h.abs().sum() < 8.0)

        def body_fn(i, h):
            return i + 1, torch.tanh(self.l(h)) + h

        _, h = while_loop(cond_fn, body_fn, (torch.tensor(0), x))
        return h


class Map(torch.nn.Module):
    """torch._higher_order_ops.map over the first dim of xs, with an extra operand."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, xs, b):
        from torch._higher_order_ops.map import map as hop_map

        def f(x, b):
            return torch.relu(self.l(x)) + b

        return hop_map(f, xs, b)


def write_loops():
    torch.manual_seed(4)
    wl = WhileLoop()
    x = torch.randn(2, 4) * 0.1
    write("while_loop", wl, x)
    if not ONLY or "while_loop" in ONLY[0]:
        with torch.no_grad():
            np.save(os.path.join(OUT, "while_loop_big_input.npy"), (x * 20).numpy())
            np.save(os.path.join(OUT, "while_loop_big_expected.npy"), wl(x * 20).numpy())
    if ONLY and "map" not in ONLY[0]:
        return
    m = Map().eval()
    xs, b = torch.randn(5, 2, 4), torch.randn(4)
    ep = torch.export.export(m, (xs, b))
    torch.export.save(ep, os.path.join(OUT, "map.pt2"))
    np.save(os.path.join(OUT, "map_input.npy"), xs.numpy())
    np.save(os.path.join(OUT, "map_input_1.npy"), b.numpy())
    with torch.no_grad():
        np.save(os.path.join(OUT, "map_expected.npy"), m(xs, b).numpy())
    print("map", sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"}))


def encoder():
    return torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                            dropout=0.0, activation="gelu", batch_first=True)


def randomize_bn(m):
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.5, 0.5)


ONLY = [a[len("--only="):].split(",") for a in sys.argv if a.startswith("--only=")]


def write(name, model, x, core=False, dynamic=None, run_x=None):
    """run_x: the input the expected output is computed on (another batch size than the
    exported x, for a program with dynamic dims). With --only=a,b only those are written
    (torch.export.save writes a random serialization id: the others' bytes stay)."""
    if ONLY and name not in ONLY[0]:
        return
    model.eval()
    run_x = x if run_x is None else run_x
    with torch.no_grad():
        expected = model(run_x)
    ep = torch.export.export(model, (x,), dynamic_shapes=dynamic)
    if core:
        ep = ep.run_decompositions()
    torch.export.save(ep, os.path.join(OUT, name + ".pt2"))
    np.save(os.path.join(OUT, name + "_input.npy"), run_x.numpy())
    np.save(os.path.join(OUT, name + "_expected.npy"), expected.numpy())
    targets = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    print(name, ", ".join(targets))
    if name in LAYOUTS:
        write_layouts(name, ep)
    return ep


LAYOUTS = ["cnn", "mlp_dyn"]  # also written in the older layouts


def write_two_models(mlp, cnn):
    """two.pt2: an MLP ("model") and the CNN ("cnn") in one package (package_pt2 of 2.15,
    raw weights); two_pt28.pt2 the same in torch 2.8's layout. Run on mlp's / cnn's files."""
    if ONLY and "two" not in ONLY[0]:
        return
    from torch.export.pt2_archive._package import package_pt2
    eps = {"model": torch.export.export(mlp.eval(), (torch.randn(2, 4),)),
           "cnn": torch.export.export(cnn.eval(), (torch.randn(1, 3, 8, 8),))}
    package_pt2(os.path.join(OUT, "two.pt2"), exported_programs=eps)
    write_pt28(eps, os.path.join(OUT, "two_pt28.pt2"))


def write_flat(ep, path):
    """The flat layout torch.export.save wrote in torch 2.1-2.7 (torch/_export/__init__.py
    save: Python's zipfile, records stored, no root folder, in this order): the program JSON,
    the state dict and the constants as torch.save zips, the example inputs, and "version"
    (the schema version, "8.20"). The pieces come from this torch's serialize(), so the JSON is
    schema 8.x as 2.15 writes it (an older torch wrote an older minor version)."""
    from torch._export.serde.schema import SCHEMA_VERSION
    from torch._export.serde.serialize import serialize
    art = serialize(ep)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("serialized_exported_program.json", art.exported_program)
        z.writestr("serialized_state_dict.pt", art.state_dict)
        z.writestr("serialized_constants.pt", art.constants)
        z.writestr("serialized_example_inputs.pt", art.example_inputs)
        z.writestr("version", ".".join(map(str, SCHEMA_VERSION)))


def write_pt28(eps, path):
    """torch 2.8's package_pt2 (torch/export/pt2_archive/_package.py,
    _package_exported_programs): through the PT2ArchiveWriter (PyTorchFileWriter: one root
    folder, records stored and 64-byte aligned, archive_format, byteorder, .data/version),
    per model models/<name>.json and the torch.save'd data/weights/<name>.pt,
    data/constants/<name>.pt and data/sample_inputs/<name>.pt."""
    from torch._export.serde.serialize import serialize
    from torch.export.pt2_archive._package import PT2ArchiveWriter
    with PT2ArchiveWriter(path) as w:
        for name, ep in eps.items():
            art = serialize(ep)
            w.write_bytes("models/%s.json" % name, art.exported_program)
            w.write_bytes("data/weights/%s.pt" % name, art.state_dict)
            w.write_bytes("data/constants/%s.pt" % name, art.constants)
            w.write_bytes("data/sample_inputs/%s.pt" % name, art.example_inputs)


def write_layouts(name, ep):
    """<name>_flat.pt2 (torch 2.1-2.7) and <name>_pt28.pt2 (torch 2.8), run on <name>'s
    input and expected output."""
    write_flat(ep, os.path.join(OUT, name + "_flat.pt2"))
    write_pt28({"model": ep}, os.path.join(OUT, name + "_pt28.pt2"))


def rewrite(src, name, edit_json=None, edit_records=None, prefix="bad_"):
    """Copies archive src to <prefix><name>.pt2, model.json passed through edit_json(dict) and
    the records through edit_records(dict name -> bytes)."""
    with zipfile.ZipFile(src) as z:
        records = {i.filename: z.read(i.filename) for i in z.infolist()}
    root = next(iter(records)).split("/")[0]
    model = root + "/models/model.json"
    prog = json.loads(records[model])
    for n in prog["graph_module"]["graph"]["nodes"]:
        n["metadata"] = {}
    records.pop(root + "/data/sample_inputs/model.pt", None)
    if edit_json is not None:
        edit_json(prog)
    records[model] = json.dumps(prog).encode()
    if edit_records is not None:
        edit_records(records, root)
    write_zip(os.path.join(OUT, prefix + name + ".pt2"), records)


def write_zip(path, records):
    """Stored records with a fixed date, so that the bytes do not change between runs."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for k, v in records.items():
            z.writestr(zipfile.ZipInfo(k, date_time=(1980, 1, 1, 0, 0, 0)), v)


def set_target(prog, node, target):
    for n in prog["graph_module"]["graph"]["nodes"]:
        if n["name"] == node:
            n["target"] = target


def weights_config(records, root, edit):
    key = root + "/data/weights/model_weights_config.json"
    cfg = json.loads(records[key])
    edit(cfg["config"])
    records[key] = json.dumps(cfg).encode()


def write_bad():
    src = os.path.join(OUT, "mlp.pt2")
    rewrite(src, "ok")  # the rewriting alone: must still load
    rewrite(src, "no_signature", lambda p: p["graph_module"].pop("signature"))
    rewrite(src, "unknown_op",
            lambda p: set_target(p, "relu", "torch.ops.aten.frobnicate.default"))
    rewrite(src, "schema_major", lambda p: p["schema_version"].update(major=99))
    rewrite(src, "weight_size", edit_records=lambda r, root: weights_config(
        r, root, lambda c: c["l1.weight"]["tensor_meta"]["sizes"][1].update(as_int=40)))
    rewrite(src, "missing_weight", edit_records=lambda r, root: weights_config(
        r, root, lambda c: c["l1.weight"].update(path_name="weight_9")))
    # The older layouts with placeholders where the torch.save zips belong: torch 2.8's
    # pickled weights (data/weights/model.pt instead of the config and raw records) and the
    # flat layout of torch 2.1-2.7.
    def pickled(records, root):
        for k in [k for k in records if "/data/weights/" in k]:
            del records[k]
        records[root + "/data/weights/model.pt"] = b"placeholder"
    rewrite(src, "pickled_weights", edit_records=pickled)
    write_zip(os.path.join(OUT, "bad_flat.pt2"), {
        "serialized_exported_program.json": b"{}", "serialized_state_dict.pt": b"",
        "serialized_constants.pt": b"", "version": b"1"})
    rewrite(src, "while_loop",
            lambda p: set_target(p, "relu", "torch.ops.higher_order.while_loop"))
    def two_outputs(p):  # the false branch of cond.pt2 returns its result twice
        for n in p["graph_module"]["graph"]["nodes"]:
            if n["target"] == "torch.ops.higher_order.cond":
                g = n["inputs"][2]["arg"]["as_graph"]["graph"]
                g["outputs"] = g["outputs"] * 2
    rewrite(os.path.join(OUT, "cond.pt2"), "cond_outputs", two_outputs)
    # mlp_dyn with a low bound torch enforces (3 or more; Dim(min=3) would write it)
    rewrite(os.path.join(OUT, "mlp_dyn.pt2"), "min3", lambda p: p["range_constraints"]["s77"]
            .update(min_val=3), prefix="mlp_dyn_")
    rewrite(src, "undefined_arg", lambda p: p["graph_module"]["graph"]["nodes"][1]["inputs"][0]
            ["arg"]["as_tensor"].update(name="nowhere"))
    # PT2E programs with a bad quantization argument (qmlp.pt2: node quantize_per_tensor
    # quantizes the input, dequantize_per_channel the first weight)
    def qarg(node, arg, value):
        def edit(p):
            for n in p["graph_module"]["graph"]["nodes"]:
                for a in n["inputs"] if n["name"] == node else []:
                    if a["name"] == arg:
                        a["arg"] = value
        return edit
    qsrc = os.path.join(OUT, "qmlp.pt2")
    rewrite(qsrc, "qdtype", qarg("quantize_per_tensor", "dtype", {"as_scalar_type": 4}))
    rewrite(qsrc, "qrange", qarg("quantize_per_tensor", "quant_max", {"as_int": 300}))
    rewrite(qsrc, "qaxis", qarg("dequantize_per_channel", "axis", {"as_int": 1}))
    rewrite(qsrc, "qdynamic", lambda p: set_target(
        p, "quantize_per_tensor", "torch.ops.quantized_decomposed.choose_qparams.tensor"))


def write_seeds():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz",
                          "corpus", "fuzz_pt2")
    os.makedirs(corpus, exist_ok=True)
    for name in ["mlp", "mlp_core", "mlp_dyn", "cnn", "cnn_core", "encoder", "encoder_core",
                 "encoder_dyn", "cond", "lstm", "qcnn", "qmlp", "while_loop", "map",
                 "bn_train_core", "ema"]:
        with zipfile.ZipFile(os.path.join(OUT, name + ".pt2")) as z:
            prog = json.loads(z.read(name + "/models/model.json"))
            cfg = z.read(name + "/data/weights/model_weights_config.json")
            ccfg = name + "/data/constants/model_constants_config.json"
            if ccfg in z.namelist():  # lifted constants: a second config after a NUL
                cfg += b"\0" + z.read(ccfg)
        for n in prog["graph_module"]["graph"]["nodes"]:
            n["metadata"] = {}
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(json.dumps(prog, separators=(",", ":")).encode() + b"\0" + cfg)


def write_flat_seeds():
    """Seeds of fuzz_pt2_flat: the flat fixtures' program (node metadata left out), a NUL
    byte, the sizes of the state dict's storages ("864,32\\n") and its data.pkl (the harness
    writes storages of those sizes)."""
    import io
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz",
                          "corpus", "fuzz_pt2_flat")
    os.makedirs(corpus, exist_ok=True)
    for name in ["cnn_flat", "mlp_dyn_flat"]:
        with zipfile.ZipFile(os.path.join(OUT, name + ".pt2")) as z:
            prog = json.loads(z.read("serialized_exported_program.json"))
            with zipfile.ZipFile(io.BytesIO(z.read("serialized_state_dict.pt"))) as sd:
                pkl = sd.read("archive/data.pkl")
                sizes = []
                while "archive/data/%d" % len(sizes) in sd.namelist():
                    sizes.append(sd.getinfo("archive/data/%d" % len(sizes)).file_size)
        for n in prog["graph_module"]["graph"]["nodes"]:
            n["metadata"] = {}
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(json.dumps(prog, separators=(",", ":")).encode() + b"\0" +
                    ",".join(map(str, sizes)).encode() + b"\n" + pkl)


def main():
    os.makedirs(OUT, exist_ok=True)
    if "--bad-only" in sys.argv:  # the bad archives and seeds alone, from the committed mlp.pt2
        write_bad()
        write_seeds()
        write_flat_seeds()
        return
    torch.manual_seed(0)
    mlp = Mlp()
    write("mlp", mlp, torch.randn(2, 4))
    write("mlp_core", mlp, torch.randn(2, 4), core=True)
    batch = torch.export.Dim("batch", min=1, max=64)
    write("mlp_dyn", mlp, torch.randn(2, 4), dynamic={"x": {0: batch}}, run_x=torch.randn(5, 4))
    cnn = Cnn()
    randomize_bn(cnn)
    write("cnn", cnn, torch.randn(1, 3, 8, 8))
    write("cnn_core", cnn, torch.randn(2, 3, 8, 8), core=True)
    enc = encoder()
    write("encoder", enc, torch.randn(1, 5, 16))
    write("encoder_core", enc, torch.randn(2, 5, 16), core=True)
    b = torch.export.Dim("B", min=1, max=16)
    seq = torch.export.Dim("S", min=2, max=64)
    write("encoder_dyn", enc, torch.randn(2, 5, 16), dynamic={"src": {0: b, 1: seq}},
          run_x=torch.randn(3, 7, 16))
    cond = Cond()
    x = torch.randn(3, 4).abs()
    write("cond", cond, x)  # exported and run on a positive sum: the true branch
    if not ONLY or "cond" in ONLY[0]:  # the false branch, on the same program
        with torch.no_grad():
            np.save(os.path.join(OUT, "cond_neg_input.npy"), (-x).numpy())
            np.save(os.path.join(OUT, "cond_neg_expected.npy"), cond(-x).numpy())
    # batch symbolic: exported with 2, run with 3 (torch.export specializes nn.LSTM's
    # sequence length: a Dim on it is a constraint violation)
    write("lstm", Lstm(), torch.randn(2, 5, 4),
          dynamic={"x": {0: torch.export.Dim("LB", min=1, max=32)}},
          run_x=torch.randn(3, 5, 4))
    write_two_models(mlp, cnn)
    write_quantized()
    write_mutations()
    write_loops()
    if not ONLY:
        write_bad()
    write_seeds()
    write_flat_seeds()


if __name__ == "__main__":
    main()
