/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the attn family's reference kernels: the float-dtype check, and
 * the split of a kernel's rows into per-thread scratch slots (slot count fixed in prepare, so
 * every row is computed by the same operations whatever the pool does).
 */
#include "ref.h"

ember_status *em_attn_check_float(const em_kinfo *ki, const em_tensor *t, const char *what)
{
    ember_status *st = em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, what);
    return st != NULL ? st : em_nn_check_dtype(ki, t, EM_ATTN_FLOATS, what);
}

void em_attn_slot_range(int64_t n, int64_t slots, int64_t s, int64_t *begin, int64_t *end)
{
    *begin = n / slots * s + (s < n % slots ? s : n % slots);
    *end = *begin + n / slots + (s < n % slots ? 1 : 0);
}

int64_t em_attn_slots(const em_kinfo *ki, int64_t n)
{
    int64_t t = ki->n_threads > 1 ? ki->n_threads : 1;
    return n < 1 ? 1 : n < t ? n : t;
}
