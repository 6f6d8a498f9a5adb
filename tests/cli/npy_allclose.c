/* SPDX-License-Identifier: Apache-2.0 */
/* npy_allclose GOT WANT [RTOL ATOL]: exit 0 when two f32 .npy files have the same shape and
 * |got - want| <= atol + rtol * |want| everywhere, or two string .npy files are equal. A test
 * tool built on ember.h. */
#include "ember.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    ember_tensor *a = NULL, *b = NULL;
    ember_status *st;
    if (argc < 3) {
        fprintf(stderr, "usage: npy_allclose GOT WANT [RTOL ATOL]\n");
        return 2;
    }
    double rtol = argc > 3 ? atof(argv[3]) : 1e-4, atol = argc > 4 ? atof(argv[4]) : 1e-6;
    if ((st = ember_tensor_load_npy(argv[1], &a)) || (st = ember_tensor_load_npy(argv[2], &b))) {
        fprintf(stderr, "%s\n", ember_status_message(st));
        ember_status_destroy(st);
        ember_tensor_destroy(a);
        return 1;
    }
    int rc = 0;
    bool strings = ember_tensor_dtype(a) == EMBER_DTYPE_STRING &&
                   ember_tensor_dtype(b) == EMBER_DTYPE_STRING &&
                   ember_tensor_elem_count(a) == ember_tensor_elem_count(b);
    for (int64_t i = 0; strings && rc == 0 && i < ember_tensor_elem_count(a); i++) {
        if (strcmp(ember_tensor_string(a, i), ember_tensor_string(b, i)) != 0) {
            fprintf(stderr, "element %lld: \"%s\" vs \"%s\"\n", (long long)i,
                    ember_tensor_string(a, i), ember_tensor_string(b, i));
            rc = 1;
        }
    }
    if (strings) {
        /* compared above */
    } else if (ember_tensor_dtype(a) != EMBER_DTYPE_F32 || ember_tensor_dtype(b) != EMBER_DTYPE_F32 ||
        ember_tensor_rank(a) != ember_tensor_rank(b) ||
        memcmp(ember_tensor_dims(a), ember_tensor_dims(b),
               sizeof(int64_t) * (size_t)ember_tensor_rank(a)) != 0) {
        fprintf(stderr, "dtype or shape differs\n");
        rc = 1;
    } else {
        const float *x = ember_tensor_data(a), *y = ember_tensor_data(b);
        for (int64_t i = 0; i < ember_tensor_elem_count(a); i++) {
            if (x[i] != y[i] && /* equal infinities */
                !(fabs((double)x[i] - (double)y[i]) <= atol + rtol * fabs((double)y[i]))) {
                fprintf(stderr, "element %lld: %.9g vs %.9g\n", (long long)i, (double)x[i],
                        (double)y[i]);
                rc = 1;
                break;
            }
        }
    }
    ember_tensor_destroy(a);
    ember_tensor_destroy(b);
    return rc;
}
