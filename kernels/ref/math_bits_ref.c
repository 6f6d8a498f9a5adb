/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BitwiseAnd, BitwiseOr, BitwiseXor (broadcasting) and BitwiseNot (opset 18) on the elementwise
 * engine (math_ew_ref.c), for the signed and unsigned integer dtypes. Signed values arrive
 * sign-extended to 64 bits and unsigned ones zero-extended, so the 64-bit operation followed by
 * the engine's wrapping store to the dtype's width gives the dtype's own bits.
 */
#include "ref.h"

typedef const em_math_blk *const *xs_t;

static void bitwiseand_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k] & x[1]->u[k];
    }
}

static void bitwiseor_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k] | x[1]->u[k];
    }
}

static void bitwisexor_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = x[0]->u[k] ^ x[1]->u[k];
    }
}

static void bitwisenot_fn(const em_math_state *s, xs_t x, em_math_blk *y, int n)
{
    (void)s;
    for (int k = 0; k < n; k++) {
        y->u[k] = ~x[0]->u[k];
    }
}

#define INTS (EM_MATH_SINTS | EM_MATH_UINTS)
#define ROW(op, fn)                                                                                \
    {                                                                                              \
        EM_OP_##op, INTS, 0, EM_MATH_IN_SAME, EM_MATH_OUT_SAME, EM_MATH_BC_MULTI, fn, NULL         \
    }

static const em_math_opdef bits_defs[] = {
    ROW(BITWISEAND, bitwiseand_fn),
    ROW(BITWISEOR, bitwiseor_fn),
    ROW(BITWISEXOR, bitwisexor_fn),
    ROW(BITWISENOT, bitwisenot_fn),
};

const em_math_opdef *em_math_bits_def(em_op op)
{
    for (size_t i = 0; i < sizeof bits_defs / sizeof bits_defs[0]; i++) {
        if (bits_defs[i].op == op) {
            return &bits_defs[i];
        }
    }
    return NULL;
}
