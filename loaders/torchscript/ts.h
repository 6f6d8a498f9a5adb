/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TorchScript loader's interface to runtime/api/api.c: a torch.jit.save archive -> em_graph.
 * Built only with EMBER_HAVE_TORCHSCRIPT (libzip); this header needs neither.
 *
 * Layers (each with its own header and fuzz target):
 *   ts_zip.h     the zip container: records by name, stored ones mapped without a copy;
 *   ts_pickle.h  data.pkl / constants.pkl as a DAG of values (modules, tensors, lists...);
 *   ts_ast.h     the serialized code (code/__torch__/...py) parsed into classes and functions;
 *   ts_lower*.c  partial evaluation of forward() into the graph (docs/torchscript.md).
 * Threads: every function is reentrant and keeps no state.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_TS_H
#define EMBER_LOADERS_TORCHSCRIPT_TS_H

#include "ember.h"
#include "ir/graph.h"
#include "ir/loader.h"
#include "core/tensor.h"

#include <stddef.h>


/*
 * Builds `g` (empty, from em_graph_new) from the archive in a->image (retained by the graph's
 * weights). a->path names it in messages (NULL: "<memory>"). a->inputs[i] describes the i-th
 * tensor argument of forward() after self (a->n_inputs may be smaller than their count);
 * TorchScript declares no ranks, and dims always stay symbolic, so the graph serves every
 * shape of that rank (dtype UNDEFINED: float32; rank -1: code that needs it fails, naming the
 * input). Every record read is CRC-checked, but the storages (data/, constants/) when
 * a->trust_checksums. Returns INVALID_MODEL, UNSUPPORTED, IO or OUT_OF_MEMORY; on failure `g`
 * may hold a partial graph, which the caller destroys.
 */
ember_status *em_ts_load(const em_load_args *a, em_graph *g);

/*
 * ts_save.c, the loader table's save_weights (ir/loader.h): a copy of the archive `image` with
 * the tensors of `w` rewritten. Tensors are found as the loader names them: the path of
 * attributes from the root module in data.pkl ("layer1.0.conv1.weight", the state_dict
 * names); each must be a float32 (or, for add_i64, int64) tensor of numel elements stored in a
 * `data/<key>` record. The bytes of those records are replaced in place (strides and storage
 * offset honoured, so views and tied weights stay views of one storage), their CRC-32 updated
 * in the central directory, the local header and the data descriptor; every other byte of the
 * file (code, pickles, constants, alignment, record order) is kept, so torch.jit.load sees the
 * same module tree and code. Returns INVALID_ARG (a name not found, naming it; a dtype or size
 * that does not match), UNSUPPORTED (a compressed storage record), INVALID_MODEL (what opening
 * the archive finds), IO naming `path`, OUT_OF_MEMORY.
 */
ember_status *em_ts_save_weights(em_storage *image, const char *what, const em_weight_patch *w,
                                 size_t n, const char *path, const ember_allocator *al);

#endif /* EMBER_LOADERS_TORCHSCRIPT_TS_H */
