/* SPDX-License-Identifier: Apache-2.0 */
/* The op table, expanded from ops.def. */
#include "ir/op.h"

#include <stddef.h>
#include <string.h>

/* EM_FAMILY is defined around each family's rows (ops.def); two steps so that it expands. */
#define OP_STR(x) #x
#define OP_FAMILY(x) OP_STR(x)

static const em_op_info op_table[EM_OP_COUNT] = {
#define EM_OP(id, nm, min_in, max_in, min_out, max_out, fl, shape, vin, grad) \
    [EM_OP_##id] = {nm, min_in, max_in, min_out, max_out, fl, vin, OP_FAMILY(EM_FAMILY)},
#include "ir/ops.def"
#undef EM_OP
};

const em_op_info *em_op_info_of(em_op op)
{
    return (unsigned)op < EM_OP_COUNT ? &op_table[op] : NULL;
}

const char *em_op_name(em_op op)
{
    return (unsigned)op < EM_OP_COUNT ? op_table[op].name : "?";
}

const char *em_op_family(em_op op)
{
    return (unsigned)op < EM_OP_COUNT ? op_table[op].family : "?";
}

bool em_op_from_name(const char *name, em_op *out)
{
    for (int i = 0; i < EM_OP_COUNT; i++) {
        if (strcmp(op_table[i].name, name) == 0) {
            *out = (em_op)i;
            return true;
        }
    }
    return false;
}
