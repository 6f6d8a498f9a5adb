/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constant evaluation for the graph passes' folding (passes.h, em_pass_eval_fn): a node whose
 * inputs are all constants runs once through the portable reference kernels (ISA 0, one
 * thread), so folded values do not depend on the CPU that loaded the model.
 */
#ifndef EMBER_PLAN_FOLD_H
#define EMBER_PLAN_FOLD_H

#include "ir/graph.h"

#include <stdbool.h>

ember_status *em_plan_eval_const(const em_node *n, const em_tensor *in, em_tensor *out,
                                 const ember_allocator *al, em_storage **sto, bool *ran);

#endif /* EMBER_PLAN_FOLD_H */
