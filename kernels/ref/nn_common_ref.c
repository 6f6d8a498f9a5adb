/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the nn family's reference kernels: dtype checks, element loads and stores
 * through double (the tensor and reduce families' converters: integers truncate and saturate),
 * string attributes with a fixed set of values, and Keys' cubic convolution weights (Resize,
 * GridSample).
 */
#include "ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

ember_status *em_nn_check_dtype(const em_kinfo *ki, const em_tensor *t, uint32_t mask,
                                const char *what)
{
    if ((unsigned)t->dtype < 32 && (mask & (1u << t->dtype)) != 0) {
        return NULL;
    }
    return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "%s: dtype %s is not supported", what,
                        em_dtype_name(t->dtype));
}

double em_nn_get(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    default:
        return em_tref_get(dt, p, i);
    }
}

void em_nn_set(ember_dtype dt, void *p, int64_t i, double v)
{
    if (dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16) {
        em_tref_set(dt, p, i, v);
    } else {
        em_rd_store_f(p, dt, i, v); /* f32 f64 bool, and the saturating integers */
    }
}

double em_nn_lowest(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return -FLT_MAX;
    case EMBER_DTYPE_F16:
        return -65504.0;
    case EMBER_DTYPE_BF16:
        return -3.38953139e38;
    case EMBER_DTYPE_I8:
        return INT8_MIN;
    case EMBER_DTYPE_I16:
        return INT16_MIN;
    case EMBER_DTYPE_I32:
        return INT32_MIN;
    case EMBER_DTYPE_I64:
        return (double)INT64_MIN;
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_U16:
    case EMBER_DTYPE_U32:
    case EMBER_DTYPE_U64:
    case EMBER_DTYPE_BOOL:
        return 0.0;
    default:
        return -DBL_MAX;
    }
}

ember_status *em_nn_attr_enum(const em_kinfo *ki, const char *name, const char *const *names, int n,
                              int dflt, int *out)
{
    const char *s;
    ember_status *st = em_ref_attr_string(ki, name, NULL, &s);
    if (st != NULL) {
        return st;
    }
    *out = dflt;
    if (s == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (names[i] != NULL && strcmp(s, names[i]) == 0) {
            *out = i;
            return NULL;
        }
    }
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++) {
        if (names[i] != NULL) {
            int w = snprintf(list + len, sizeof list - len, "%s%s", len > 0 ? ", " : "", names[i]);
            len += w > 0 ? (size_t)w : 0;
        }
    }
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s = '%s', expected one of: %s", name, s,
                        list);
}

void em_nn_cubic_coeffs(double t, double a, double c[4])
{
    double u = 1.0 - t;
    c[0] = ((a * (t + 1.0) - 5.0 * a) * (t + 1.0) + 8.0 * a) * (t + 1.0) - 4.0 * a;
    c[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    c[2] = ((a + 2.0) * u - (a + 3.0)) * u * u + 1.0;
    c[3] = ((a * (u + 1.0) - 5.0 * a) * (u + 1.0) + 8.0 * a) * (u + 1.0) - 4.0 * a;
}
