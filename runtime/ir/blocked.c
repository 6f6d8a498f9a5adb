/* SPDX-License-Identifier: Apache-2.0 */
/* BlockedPool's `pool` attribute and BlockedAffine's per-channel operands (blocked.h). */
#include "ir/blocked.h"

#include <string.h>

em_op em_blocked_pool_op(const em_node *n)
{
    static const em_op ops[] = {EM_OP_MAXPOOL, EM_OP_AVERAGEPOOL, EM_OP_GLOBALMAXPOOL,
                                EM_OP_GLOBALAVERAGEPOOL};
    const char *name = em_node_attr_string(n, "pool", "");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(name, em_op_name(ops[i])) == 0) {
            return ops[i];
        }
    }
    return EM_OP_COUNT;
}

/* d is unknown (< 0) or equal to one of a, b. */
static bool dim_is(int64_t d, int64_t a, int64_t b)
{
    return d < 0 || d == a || d == b;
}

bool em_chan_operand_parse(int rank, const int64_t *dims, int64_t n, int64_t c, int64_t b,
                           em_chan_operand *out)
{
    int64_t cb = b > 0 ? (c + b - 1) / b : -1;
    out->blocked = rank == 5;
    out->batch_stride = 0;
    switch (rank) {
    case 1:
        return dim_is(dims[0], c, c);
    case 3:
        return dim_is(dims[0], c, c) && dim_is(dims[1], 1, 1) && dim_is(dims[2], 1, 1);
    case 4:
    case 5:
        if (!dim_is(dims[0], 1, n) || !dim_is(dims[1], rank == 4 ? c : cb, rank == 4 ? c : cb) ||
            !dim_is(dims[2], 1, 1) || !dim_is(dims[3], 1, 1) ||
            (rank == 5 && !dim_is(dims[4], b, b))) {
            return false;
        }
        if (dims[0] > 1 || (dims[0] < 0 && n != 1)) { /* one vector per batch */
            out->batch_stride = rank == 4 ? c : cb * b;
        }
        return true;
    default:
        return false;
    }
}
