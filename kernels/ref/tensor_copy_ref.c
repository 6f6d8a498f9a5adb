/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reshape (ONNX Reshape-14), Flatten (Flatten-13) and Identity for any dtype. These ops only
 * relabel the shape, which the planner has already inferred into out[0]; the data is the same
 * bytes in the same order. The planner may give the output input 0's memory (EM_OPF_ALIAS),
 * in which case there is nothing to do; otherwise the bytes are copied. Reshape's second input
 * (the target shape) was consumed by shape inference and is not read here.
 */
#include "ref.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct em_copy_attrs {
    size_t nbytes;
} em_copy_attrs;

ember_status *em_copy_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_copy_attrs a;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    int n_in = ki->node != NULL && ki->node->op == EM_OP_RESHAPE ? 2 : 1;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, n_in, n_in, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0"));
    if (em_ref_prod(x->dims, x->rank) != em_ref_prod(y->dims, y->rank)) {
        char sx[160], sy[160];
        em_tensor_shape_str(x, sx, sizeof sx);
        em_tensor_shape_str(y, sy, sizeof sy);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output %s does not have the element count of input %s", sy, sx);
    }
    if (!em_tensor_nbytes_checked(x, &a.nbytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 is too large");
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_copy__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_copy_attrs *a = state;
    (void)ctx;
    /* memmove: the planner promises equal or disjoint buffers, but overlap must not be UB. */
    if (a->nbytes > 0 && out[0].data != in[0].data) {
        memmove(out[0].data, in[0].data, a->nbytes);
    }
}
