/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ArrayFeatureExtractor-1, Binarizer-1 and LabelEncoder-4 of domain ai.onnx.ml (ml_ref.h).
 */
#include "ref.h"

#include "alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ArrayFeatureExtractor ------------------------------------------------------------------ */

typedef struct afe_state {
    int64_t rows, feats, n; /* X as [rows, feats]; n indices */
    size_t esize;
} afe_state;

ember_status *em_arrayfeatureextractor_prepare__ref(const em_kinfo *ki, void **state,
                                                    size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *idx = &ki->in[1], *y = &ki->out[0];
    afe_state s;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, idx, EMBER_DTYPE_I64, "input 1 (Y, the indices)"));
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Z)"));
    if (x->rank < 1 || ember_dtype_size(x->dtype) == 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 (X) must have at least one dim and a fixed-size dtype");
    }
    s.feats = x->dims[x->rank - 1];
    s.rows = em_ref_prod(x->dims, x->rank - 1);
    s.n = em_tensor_numel(idx);
    s.esize = ember_dtype_size(x->dtype);
    int64_t dims[EM_MAX_RANK];
    int rank = x->rank == 1 ? 2 : x->rank;
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    dims[0] = x->rank == 1 ? 1 : dims[0];
    dims[rank - 1] = s.n;
    EMBER_TRY(em_ref_check_shape(ki, y, dims, rank, "output 0 (Z)"));
    for (int64_t i = 0; idx->data != NULL && i < s.n; i++) {
        int64_t v = ((const int64_t *)idx->data)[i];
        if (v < -s.feats || v >= s.feats) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "index %lld is out of range for %lld features", (long long)v,
                                (long long)s.feats);
        }
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_arrayfeatureextractor__ref(const void *state, const em_tensor *in, em_tensor *out,
                                   const em_kctx *ctx)
{
    const afe_state *s = state;
    const int64_t *idx = in[1].data;
    const char *x = in[0].data;
    char *y = out[0].data;
    (void)ctx;
    for (int64_t r = 0; r < s->rows; r++) {
        for (int64_t k = 0; k < s->n; k++) {
            int64_t f = idx[k] < 0 ? idx[k] + s->feats : idx[k];
            char *dst = y + (size_t)(r * s->n + k) * s->esize;
            if (f >= 0 && f < s->feats) {
                memcpy(dst, x + (size_t)(r * s->feats + f) * s->esize, s->esize);
            } else {
                memset(dst, 0, s->esize);
            }
        }
    }
}

/* ---- Binarizer ------------------------------------------------------------------------------ */

ember_status *em_binarizer_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    float threshold = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    if (x->dtype != EMBER_DTYPE_F32 && x->dtype != EMBER_DTYPE_F64 &&
        x->dtype != EMBER_DTYPE_I32 && x->dtype != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s (float, double, int32 or "
                            "int64 expected)", em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_float(ki, "threshold", 0.0f, &threshold));
    double t = threshold;
    return em_ref_state_new(ki, &t, sizeof t, state);
fail:
    return st;
}

void em_binarizer__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    double t = *(const double *)state;
    int64_t n = em_tensor_numel(&in[0]);
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        em_tref_set(out[0].dtype, out[0].data, i, em_tref_get(in[0].dtype, in[0].data, i) > t);
    }
}

/* ---- LabelEncoder --------------------------------------------------------------------------- */

/* Keys sorted for binary search (ties: the last of a repeated key wins), values in the output
 * dtype, laid out after the header in one allocation. */
typedef struct le_state {
    bool float_keys;   /* keys compared as double (float/double inputs), else as int64 */
    bool nan_key;      /* a NaN key exists: nan_value is its value's index */
    int64_t nan_value;
    int64_t n;         /* distinct keys */
    int64_t n_values;  /* keys as given: the default value sits at index n_values */
    size_t esize;      /* output element size */
    ember_dtype in_dt;
    double *fkeys;     /* float keys, sorted */
    int64_t *ikeys;    /* int keys, sorted */
    int64_t *vindex;   /* value index of sorted key i */
    char *values;      /* value j at values + j * esize; the default at index n_values */
} le_state;

static bool is_int_dtype(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I64 || dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_I16;
}

static bool is_float_dtype(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64;
}

/* One of the keys_* / values_* attributes: a list or a tensor, as doubles or int64s. */
typedef struct le_list {
    const char *kind; /* "int64s", "floats" or "tensor" */
    ember_dtype dt; /* I64 for int lists, F32 for float lists, the tensor's dtype */
    int64_t n;
    const int64_t *ints;
    const float *floats;
    const em_tensor *t;
} le_list;

/* Finds the one keys_* (kind "keys") or values_* (kind "values") attribute of the node. */
static ember_status *le_find(const em_kinfo *ki, const char *kind, le_list *l)
{
    static const char *const sfx[3] = {"int64s", "floats", "tensor"};
    int found = 0;
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s_%s", kind, sfx[i]);
        const em_attr *a = em_node_attr(ki->node, name);
        if (a == NULL) {
            continue;
        }
        found++;
        if (i == 0 && a->type == EM_ATTR_INTS) {
            *l = (le_list){sfx[i], EMBER_DTYPE_I64, a->n, a->ints, NULL, NULL};
        } else if (i == 1 && a->type == EM_ATTR_FLOATS) {
            *l = (le_list){sfx[i], EMBER_DTYPE_F32, a->n, NULL, a->floats, NULL};
        } else if (i == 2 && a->type == EM_ATTR_TENSOR && a->t.rank <= 1 &&
                   (is_int_dtype(a->t.dtype) || is_float_dtype(a->t.dtype))) {
            *l = (le_list){sfx[i], a->t.dtype, em_tensor_numel(&a->t), NULL, NULL, &a->t};
        } else {
            return em_ref_error(ki, i == 2 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL,
                                "attribute '%s' must be a 1-D %s", name,
                                i == 2 ? "int or float tensor" : "list");
        }
    }
    if (found != 1) {
        return em_ref_error(ki, found ? EMBER_ERR_INVALID_MODEL : EMBER_ERR_UNSUPPORTED,
                            found ? "more than one %s_* attribute"
                                  : "no numeric %s_* attribute (string ones need string "
                                    "tensors)",
                            kind);
    }
    return NULL;
}

static double le_get_f(const le_list *l, int64_t i)
{
    return l->floats ? l->floats[i] : l->ints ? (double)l->ints[i]
                                              : em_tref_get(l->t->dtype, l->t->data, i);
}

static int64_t le_get_i(const le_list *l, int64_t i)
{
    return l->ints ? l->ints[i] : l->floats ? (int64_t)l->floats[i] : em_tref_index(l->t, i);
}

/* Stores element i of `l` (or the double `d` when l is NULL) as dtype dt at dst. */
static void le_store(ember_dtype dt, void *dst, const le_list *l, int64_t i, double d)
{
    if (dt == EMBER_DTYPE_I64) {
        *(int64_t *)dst = l != NULL ? le_get_i(l, i) : (int64_t)d;
    } else {
        em_tref_set(dt, dst, 0, l != NULL ? le_get_f(l, i) : d);
    }
}

/* The default value: default_tensor (one element of the values' dtype), else default_int64 /
 * default_float, else the spec's -1 / -0.0. */
static ember_status *le_default(const em_kinfo *ki, ember_dtype dt, void *dst)
{
    const em_attr *t = em_node_attr(ki->node, "default_tensor");
    if (t != NULL) {
        if (t->type != EM_ATTR_TENSOR || t->t.dtype != dt || em_tensor_numel(&t->t) != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'default_tensor' must "
                                "hold one %s", em_dtype_name(dt));
        }
        memcpy(dst, t->t.data, ember_dtype_size(dt));
        return NULL;
    }
    if (is_int_dtype(dt)) {
        le_store(dt, dst, NULL, 0, (double)em_node_attr_int(ki->node, "default_int64", -1));
    } else {
        le_store(dt, dst, NULL, 0, em_node_attr_float(ki->node, "default_float", -0.0f));
    }
    return NULL;
}

/* Sort of key positions by key; equal keys keep their order (merge sort: qsort is unstable
 * and takes no context). */
static bool le_less(const le_state *s, const le_list *k, int64_t a, int64_t b)
{
    return s->float_keys ? le_get_f(k, a) < le_get_f(k, b) : le_get_i(k, a) < le_get_i(k, b);
}

static void le_sort(const le_state *s, const le_list *k, int64_t *p, int64_t *tmp, int64_t n)
{
    if (n < 2) {
        return;
    }
    int64_t h = n / 2, i = 0, j = h, o = 0;
    le_sort(s, k, p, tmp, h);
    le_sort(s, k, p + h, tmp, n - h);
    while (i < h || j < n) {
        tmp[o++] = j >= n || (i < h && !le_less(s, k, p[j], p[i])) ? p[i++] : p[j++];
    }
    memcpy(p, tmp, sizeof(int64_t) * (size_t)n);
}

ember_status *em_labelencoder_prepare__ref(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    le_list keys = {0}, vals = {0};
    le_state *s = NULL;
    int64_t *order = NULL;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    EMBER_TRY(le_find(ki, "keys", &keys));
    EMBER_TRY(le_find(ki, "values", &vals));
    if (keys.n != vals.n) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%lld keys but %lld values",
                            (long long)keys.n, (long long)vals.n);
    }
    bool fk = is_float_dtype(keys.dt);
    if (fk ? !is_float_dtype(x->dtype) : !is_int_dtype(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (X) is %s but the keys "
                            "(keys_%s) are %s", em_dtype_name(x->dtype), keys.kind,
                            fk ? "floating-point" : "integers");
    }
    EMBER_TRY(em_ref_check_tensor(ki, y, vals.dt, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, y, x->dims, x->rank, "output 0 (Y)"));
    size_t es = ember_dtype_size(vals.dt), n = (size_t)keys.n;
    size_t head = (sizeof *s + 7) & ~(size_t)7;
    size_t bytes = head + n * (sizeof(double) + 2 * sizeof(int64_t)) + (n + 1) * es;
    s = em_malloc(ki->al, bytes);
    order = em_malloc(ki->al, sizeof(int64_t) * (2 * n + 1));
    if (s == NULL || order == NULL) {
        st = em_status_oom();
        goto fail;
    }
    memset(s, 0, bytes);
    s->float_keys = fk;
    s->n_values = keys.n;
    s->esize = es;
    s->in_dt = x->dtype;
    s->fkeys = (double *)((char *)s + head);
    s->ikeys = (int64_t *)(s->fkeys + n);
    s->vindex = s->ikeys + n;
    s->values = (char *)(s->vindex + n);
    for (int64_t j = 0; j < keys.n; j++) {
        le_store(vals.dt, s->values + (size_t)j * es, &vals, j, 0);
    }
    EMBER_TRY(le_default(ki, vals.dt, s->values + n * es));
    /* Sorted distinct keys; of equal keys (all NaNs are one key) the last one's value. */
    int64_t m = 0;
    for (int64_t j = 0; j < keys.n; j++) {
        if (fk && isnan(le_get_f(&keys, j))) {
            s->nan_key = true;
            s->nan_value = j;
        } else {
            order[m++] = j;
        }
    }
    le_sort(s, &keys, order, order + n, m);
    for (int64_t j = 0; j < m; j++) {
        bool same_next = j + 1 < m && !le_less(s, &keys, order[j], order[j + 1]);
        if (!same_next) {
            s->fkeys[s->n] = fk ? le_get_f(&keys, order[j]) : 0;
            s->ikeys[s->n] = fk ? 0 : le_get_i(&keys, order[j]);
            s->vindex[s->n++] = order[j];
        }
    }
    em_free(ki->al, order);
    *state = s;
    return NULL;
fail:
    em_free(ki->al, order);
    em_free(ki->al, s);
    return st;
}

void em_labelencoder__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const le_state *s = state;
    int64_t n = em_tensor_numel(&in[0]);
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = 0, hi = s->n, v = -1;
        if (s->float_keys) {
            double x = em_tref_get(s->in_dt, in[0].data, i);
            if (isnan(x)) {
                v = s->nan_key ? s->nan_value : -1;
                hi = 0;
            }
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (s->fkeys[mid] < x) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            v = !isnan(x) && lo < s->n && s->fkeys[lo] == x ? s->vindex[lo] : v;
        } else {
            int64_t x = s->in_dt == EMBER_DTYPE_I16 ? ((const int16_t *)in[0].data)[i]
                                                    : em_tref_index(&in[0], i);
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (s->ikeys[mid] < x) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            v = lo < s->n && s->ikeys[lo] == x ? s->vindex[lo] : -1;
        }
        memcpy((char *)out[0].data + (size_t)i * s->esize,
               s->values + (size_t)(v >= 0 ? v : s->n_values) * s->esize, s->esize);
    }
}
