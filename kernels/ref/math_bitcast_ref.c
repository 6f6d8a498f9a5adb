/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BitCast-26: the output holds input 0's bytes unchanged, labelled with the dtype 'to', which
 * must have the input's bit width (ONNX counts 4 bits for int4, 2 for int2; bool has 8). The
 * bytes are little-endian on every host ember supports. The sub-byte types take one byte per
 * element in memory (ember.h) with the unused high bits 0, so a byte copy reinterprets them
 * too. The planner usually makes the output a view of the input (EM_OPF_ALIAS); then run has
 * nothing to copy.
 */
#include "ref.h"

#include "core/lowp.h"

#include <string.h>

ember_status *em_bitcast_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    int64_t to;
    size_t nbytes;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0"));
    if (em_node_attr(ki->node, "to") == NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'to' is missing");
    }
    EMBER_TRY(em_ref_attr_int(ki, "to", 0, &to));
    if (to <= 0 || to > 64 || !em_dtype_valid((ember_dtype)to) || to == EMBER_DTYPE_STRING ||
        x->dtype == EMBER_DTYPE_STRING) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "bitcast to type %lld is not supported",
                            (long long)to);
    }
    if (em_dtype_bits(x->dtype) != em_dtype_bits((ember_dtype)to)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input dtype %s has %d bits, 'to' (%s) %d; the widths must match",
                            em_dtype_name(x->dtype), em_dtype_bits(x->dtype),
                            em_dtype_name((ember_dtype)to), em_dtype_bits((ember_dtype)to));
    }
    EMBER_TRY(em_ref_check_tensor(ki, y, (ember_dtype)to, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, y, x->dims, x->rank, "output 0"));
    if (!em_tensor_nbytes_checked(x, &nbytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 is too large");
    }
    return em_ref_state_new(ki, &nbytes, sizeof nbytes, state);
fail:
    return st;
}

void em_bitcast__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const size_t nbytes = *(const size_t *)state;
    (void)ctx;
    if (nbytes > 0 && out[0].data != in[0].data) {
        memmove(out[0].data, in[0].data, nbytes);
    }
}
