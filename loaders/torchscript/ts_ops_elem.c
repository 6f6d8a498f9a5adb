/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): elementwise math, comparisons, dtype promotion and reductions.
 */
#include "ts_ops.h"

const ts_op_table ts_elem_table = {NULL, 0};
