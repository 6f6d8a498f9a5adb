/* SPDX-License-Identifier: Apache-2.0 */
/* The internals the rnn family's reference kernel shares between rnn_prepare_ref.c and
 * rnn_cell_ref.c; its entry points are declared by ref.h from kernels_rnn.def. Included by
 * ref.h. */
#ifndef EMBER_KERNELS_REF_RNN_REF_H
#define EMBER_KERNELS_REF_RNN_REF_H

#include "plan/kernel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Internals shared by rnn_prepare_ref.c and rnn_cell_ref.c ----------------------------- */

/* The activation functions ONNX lists for the recurrent ops (alpha/beta use in brackets). */
typedef enum em_rnn_act_kind {
    EM_RNN_RELU = 0,        /* max(0, x) */
    EM_RNN_TANH,            /* tanh(x) */
    EM_RNN_SIGMOID,         /* 1 / (1 + e^-x) */
    EM_RNN_AFFINE,          /* alpha * x + beta            [alpha 1, beta 0] */
    EM_RNN_LEAKYRELU,       /* x >= 0 ? x : alpha * x      [alpha 0.01] */
    EM_RNN_THRESHOLDEDRELU, /* x >= alpha ? x : 0 (the RNN spec) [alpha 1] */
    EM_RNN_SCALEDTANH,      /* alpha * tanh(beta * x)      [alpha 1, beta 1] */
    EM_RNN_HARDSIGMOID,     /* clamp(alpha * x + beta, 0, 1) [alpha 0.2, beta 0.5] */
    EM_RNN_ELU,             /* x >= 0 ? x : alpha * (e^x - 1) [alpha 1] */
    EM_RNN_SOFTSIGN,        /* x / (1 + |x|) */
    EM_RNN_SOFTPLUS         /* log(1 + e^x) */
} em_rnn_act_kind;

typedef struct em_rnn_act {
    em_rnn_act_kind kind;
    double alpha, beta;
} em_rnn_act;

enum { EM_RNN_MAX_ACTS = 3 }; /* f (RNN); f, g (GRU); f, g, h (LSTM) */

/* Input and output slots. */
enum { EM_RNN_X = 0, EM_RNN_W, EM_RNN_R, EM_RNN_B, EM_RNN_LENS, EM_RNN_H0, EM_RNN_C0, EM_RNN_P };
enum { EM_RNN_Y = 0, EM_RNN_YH, EM_RNN_YC };

typedef struct em_rnn_attrs {
    em_op op;
    ember_dtype dt;
    int gates;    /* G: 1 (RNN), 3 (GRU: z r h), 4 (LSTM: i o f c) */
    int dirs;     /* 2 for bidirectional, else 1 */
    bool reverse; /* direction "reverse" (then dirs == 1); direction 1 of bidirectional always is */
    int layout;   /* 0: X [seq, batch, input]; 1: X [batch, seq, input] */
    int64_t seq, batch, input, hidden;
    em_rnn_act act[2][EM_RNN_MAX_ACTS]; /* per direction */
    bool has_clip;
    double clip; /* pre-activation values are clamped to [-clip, clip] */
    bool lbr;    /* GRU linear_before_reset */
    bool input_forget;
    int dyn_qmax;    /* em_dynamic_qmax: h fake-quantized per step to 0..qmax; 0: off */
    bool has_in[8];  /* optional inputs given (B, sequence_lens, initial_h, initial_c, P) */
    bool has_out[3]; /* outputs computed (Y, Y_h, Y_c) */
    /* Scratch layout, in doubles: xw [seq][batch][G*hidden] (input projection of one
     * direction), hr [batch][G*hidden] (recurrent projection of one step), h, c and tmp
     * [batch][hidden], hq [batch][hidden] (the fake-quantized h of em_dynamic_qmax). */
    size_t xw_off, hr_off, h_off, c_off, tmp_off, hq_off;
} em_rnn_attrs;

/* Applies activation `a` to x. */
double em_rnn_act_eval(const em_rnn_act *a, double x);

#endif /* EMBER_KERNELS_REF_RNN_REF_H */
