/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Einsum equations ("ij,jk->ik", "...ii->...i"): the parser shared by the shape function
 * (runtime/shape/shape_reduce.c) and the reference kernel (kernels/ref/reduce_linalg_ref.c).
 * Labels: A-Z are 0..25, a-z 26..51; broadcast ("...") dims are EM_EIN_LETTERS + k.
 */
#ifndef EMBER_IR_EINSUM_H
#define EMBER_IR_EINSUM_H

#include "core/tensor.h"

#define EM_EIN_MAX_IN 8
#define EM_EIN_LETTERS 52
#define EM_EIN_MAX_LABELS (EM_EIN_LETTERS + EM_MAX_RANK)

typedef struct em_ein_labels {
    int n_ell;                        /* broadcast "..." dims */
    int lab[EM_EIN_MAX_IN][EM_MAX_RANK]; /* label of each input axis */
    int n_out, out[EM_MAX_RANK];      /* output labels in order */
} em_ein_labels;

/* Parses `eq` for n_in inputs of the given ranks into *p; NULL on success, else a static
 * message saying what is wrong. */
const char *em_einsum_parse(const char *eq, int n_in, const int *ranks, em_ein_labels *p);

#endif /* EMBER_IR_EINSUM_H */
