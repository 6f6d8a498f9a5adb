/* SPDX-License-Identifier: Apache-2.0 */
/* The op enumeration expanded from ops.def, and per-op static facts. */
#ifndef EMBER_IR_OP_H
#define EMBER_IR_OP_H

#include <stdbool.h>

enum {
    EM_OPF_EW = 1u << 0,         /* elementwise: may run in place over input 0 */
    EM_OPF_ALIAS = 1u << 1,      /* output 0 is input 0's bytes under another shape */
    EM_OPF_SHAPE_ONLY = 1u << 2, /* outputs depend on the inputs' shapes only (Shape, Size) */
    EM_OPF_NONDET = 1u << 3,     /* not a function of its inputs (random): never folded */
    EM_OPF_DYNAMIC = 1u << 4,    /* output shapes depend on input data (NonZero, Unique, ...) */
    EM_OPF_INTERP = 1u << 5,     /* run by the interpreter itself, not a kernel: control flow
                                  * (If, Loop, Scan) and sequence / optional values */
    EM_OPF_STRINGS = 1u << 6     /* may see string tensors: its kernels move string elements
                                  * as 8-byte values, or have string kernels of their own
                                  * (runtime/exec/interp_str.c refuses strings to other ops) */
};

typedef enum em_op {
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad) \
    EM_OP_##id,
#include "ir/ops.def"
#undef EM_OP
    EM_OP_COUNT
} em_op;

typedef struct em_op_info {
    const char *name;
    int min_in, max_in, min_out, max_out;
    unsigned flags;
    unsigned value_inputs; /* bitmask: inputs whose values decide the output shapes */
    const char *family;    /* "math", "nn", ...: the ops_<family>.def holding the row, and the
                            * name of the op's shape, kernel and gradient files (ops.def) */
} em_op_info;

const em_op_info *em_op_info_of(em_op op);
const char *em_op_name(em_op op);
/* The op's family ("?" for an op out of range). */
const char *em_op_family(em_op op);
/* Looks an op up by its (ONNX) name; returns false when there is none. */
bool em_op_from_name(const char *name, em_op *out);

#endif /* EMBER_IR_OP_H */
