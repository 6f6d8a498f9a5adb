/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The torch.export loader's interface to the loader table: a `.pt2` archive written by
 * torch.export.save -> em_graph. The archive and the aten lowering are the TorchScript
 * loader's (loaders/torchscript: zip reader, ts_arena, the aten::* lowering table): one
 * lowering, two front ends (DESIGN.md). Built with EMBER_HAVE_PT2 (libzip); the layout
 * sniffing below needs nothing but bytes and is built always.
 * Threads: every function is reentrant and keeps no state.
 */
#ifndef EMBER_LOADERS_PT2_PT2_H
#define EMBER_LOADERS_PT2_PT2_H

#include "ember.h"
#include "ir/graph.h"
#include "ir/loader.h"

#include <stddef.h>

/* The archive layouts torch.export.save has written, told apart by the names in the zip's
 * central directory (never by a version number). */
typedef enum em_pt2_layout {
    EM_PT2_NONE = 0,  /* not a torch.export archive (maybe another zip: TorchScript) */
    EM_PT2_FLAT,      /* torch 2.1-2.7: serialized_exported_program.json + pickled state dict */
    EM_PT2_PACKAGE    /* torch 2.8+ package_pt2: <root>/archive_format, models/<name>.json */
} em_pt2_layout;

/* The layout of the zip in d[0..n) (the whole image: the central directory is at its end). */
em_pt2_layout em_pt2_layout_of(const unsigned char *d, size_t n);

/*
 * Builds `g` (empty) from the archive in a->image: the program a->model_name ("model" when
 * NULL) with its weights and constants, in any of the layouts above (pt2_load.c). User inputs
 * and outputs keep their names; parameters, buffers and lifted constants become initializers;
 * symbolic dims keep torch's symbols with their ranges. Returns INVALID_MODEL (naming the
 * record, field or node; a model the archive does not hold, listing those it does),
 * INVALID_ARG (another name than "model" for a flat archive), UNSUPPORTED (an op or dtype not
 * read, named), IO or OUT_OF_MEMORY; on failure `g` may be partial (the caller destroys it).
 */
ember_status *em_pt2_load(const em_load_args *a, em_graph *g);

#endif /* EMBER_LOADERS_PT2_PT2_H */
