/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): recurrent layers (RNN, LSTM, GRU) and attention.
 */
#include "ts_ops.h"

const ts_op_table ts_rnn_table = {NULL, 0};
