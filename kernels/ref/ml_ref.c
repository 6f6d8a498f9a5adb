/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ArrayFeatureExtractor-1, Binarizer-1 and LabelEncoder-4 of domain ai.onnx.ml (kernels_ml.def).
 */
#include "ref.h"

#include "core/alloc.h"
#include "core/strtensor.h"

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

/* The three kinds of key: compared as double (float/double inputs), as int64, or as strings. */
typedef enum le_kind { LE_INT, LE_FLOAT, LE_STRING } le_kind;

typedef union le_key {
    double f;
    int64_t i;
    const char *s; /* points into the node's attribute, which outlives the kernel */
} le_key;

/* Keys sorted for binary search (ties: the last of a repeated key wins), values in the output
 * dtype (strings as pointers into the node's attributes), laid out after the header in one
 * allocation. */
typedef struct le_state {
    le_kind kind;
    bool nan_key;      /* a NaN key exists: nan_value is its value's index */
    int64_t nan_value;
    int64_t n;         /* distinct keys */
    int64_t n_values;  /* keys as given: the default value sits at index n_values */
    size_t esize;      /* output element size */
    ember_dtype in_dt, out_dt;
    le_key *keys;      /* sorted */
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

static le_kind le_kind_of(ember_dtype dt)
{
    return dt == EMBER_DTYPE_STRING ? LE_STRING : is_float_dtype(dt) ? LE_FLOAT : LE_INT;
}

/* One of the keys_* / values_* attributes: a list or a tensor. */
typedef struct le_list {
    const char *kind; /* "int64s", "floats", "strings" or "tensor" */
    ember_dtype dt; /* I64 for int lists, F32 for float lists, STRING, the tensor's dtype */
    int64_t n;
    const int64_t *ints;
    const float *floats;
    const char *const *strs;
    const em_tensor *t;
} le_list;

/* Finds the one keys_* (kind "keys") or values_* (kind "values") attribute of the node. */
static ember_status *le_find(const em_kinfo *ki, const char *kind, le_list *l)
{
    static const char *const sfx[4] = {"int64s", "floats", "strings", "tensor"};
    int found = 0;
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s_%s", kind, sfx[i]);
        const em_attr *a = em_node_attr(ki->node, name);
        if (a == NULL) {
            continue;
        }
        found++;
        if (i == 0 && a->type == EM_ATTR_INTS) {
            *l = (le_list){sfx[i], EMBER_DTYPE_I64, a->n, a->ints, NULL, NULL, NULL};
        } else if (i == 1 && a->type == EM_ATTR_FLOATS) {
            *l = (le_list){sfx[i], EMBER_DTYPE_F32, a->n, NULL, a->floats, NULL, NULL};
        } else if (i == 2 && a->type == EM_ATTR_STRINGS) {
            *l = (le_list){sfx[i], EMBER_DTYPE_STRING, a->n, NULL, NULL,
                           (const char *const *)a->strings, NULL};
        } else if (i == 3 && a->type == EM_ATTR_TENSOR && a->t.rank <= 1 &&
                   (is_int_dtype(a->t.dtype) || is_float_dtype(a->t.dtype) ||
                    a->t.dtype == EMBER_DTYPE_STRING)) {
            *l = (le_list){sfx[i], a->t.dtype, em_tensor_numel(&a->t), NULL, NULL,
                           a->t.dtype == EMBER_DTYPE_STRING ? a->t.data : NULL, &a->t};
        } else {
            return em_ref_error(ki, i == 3 ? EMBER_ERR_UNSUPPORTED : EMBER_ERR_INVALID_MODEL,
                                "attribute '%s' must be a 1-D %s", name,
                                i == 3 ? "int, float or string tensor" : "list");
        }
    }
    if (found != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            found ? "more than one %s_* attribute" : "no %s_* attribute", kind);
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

static const char *le_get_s(const le_list *l, int64_t i)
{
    return l->strs[i] != NULL ? l->strs[i] : "";
}

static le_key le_get(le_kind k, const le_list *l, int64_t i)
{
    le_key key;
    if (k == LE_STRING) {
        key.s = le_get_s(l, i);
    } else if (k == LE_FLOAT) {
        key.f = le_get_f(l, i);
    } else {
        key.i = le_get_i(l, i);
    }
    return key;
}

static int le_cmp(le_kind k, le_key a, le_key b)
{
    if (k == LE_STRING) {
        return strcmp(a.s, b.s);
    }
    if (k == LE_FLOAT) {
        return a.f < b.f ? -1 : a.f > b.f;
    }
    return a.i < b.i ? -1 : a.i > b.i;
}

/* Stores element i of `l` (or the double `d` when l is NULL) as dtype dt at dst. */
static void le_store(ember_dtype dt, void *dst, const le_list *l, int64_t i, double d)
{
    if (dt == EMBER_DTYPE_STRING) {
        *(const char **)dst = le_get_s(l, i);
    } else if (dt == EMBER_DTYPE_I64) {
        *(int64_t *)dst = l != NULL ? le_get_i(l, i) : (int64_t)d;
    } else {
        em_tref_set(dt, dst, 0, l != NULL ? le_get_f(l, i) : d);
    }
}

/* The default value: default_tensor (one element of the values' dtype), else default_int64 /
 * default_float / default_string, else the spec's -1 / -0.0 / "_Unused". */
static ember_status *le_default(const em_kinfo *ki, ember_dtype dt, void *dst)
{
    const em_attr *t = em_node_attr(ki->node, "default_tensor");
    if (t != NULL) {
        if (t->type != EM_ATTR_TENSOR || t->t.dtype != dt || em_tensor_numel(&t->t) != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'default_tensor' must "
                                "hold one %s", em_dtype_name(dt));
        }
        memcpy(dst, t->t.data, ember_dtype_size(dt));
        if (dt == EMBER_DTYPE_STRING && *(const char **)dst == NULL) {
            *(const char **)dst = "";
        }
        return NULL;
    }
    if (dt == EMBER_DTYPE_STRING) {
        *(const char **)dst = em_node_attr_string(ki->node, "default_string", "_Unused");
    } else if (is_int_dtype(dt)) {
        le_store(dt, dst, NULL, 0, (double)em_node_attr_int(ki->node, "default_int64", -1));
    } else {
        le_store(dt, dst, NULL, 0, em_node_attr_float(ki->node, "default_float", -0.0f));
    }
    return NULL;
}

/* Sort of key positions by key; equal keys keep their order (merge sort: qsort is unstable
 * and takes no context). */
static void le_sort(le_kind k, const le_list *l, int64_t *p, int64_t *tmp, int64_t n)
{
    if (n < 2) {
        return;
    }
    int64_t h = n / 2, i = 0, j = h, o = 0;
    le_sort(k, l, p, tmp, h);
    le_sort(k, l, p + h, tmp, n - h);
    while (i < h || j < n) {
        bool take_left = j >= n || (i < h && le_cmp(k, le_get(k, l, p[j]), le_get(k, l, p[i])) >= 0);
        tmp[o++] = take_left ? p[i++] : p[j++];
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
    le_kind kk = le_kind_of(keys.dt);
    bool x_ok = kk == LE_STRING ? x->dtype == EMBER_DTYPE_STRING
                : kk == LE_FLOAT ? is_float_dtype(x->dtype) : is_int_dtype(x->dtype);
    if (!x_ok) {
        static const char *const kinds[3] = {"integers", "floating-point", "strings"};
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (X) is %s but the keys "
                            "(keys_%s) are %s", em_dtype_name(x->dtype), keys.kind, kinds[kk]);
    }
    EMBER_TRY(em_ref_check_tensor(ki, y, vals.dt, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, y, x->dims, x->rank, "output 0 (Y)"));
    size_t es = ember_dtype_size(vals.dt), n = (size_t)keys.n;
    size_t head = (sizeof *s + 7) & ~(size_t)7;
    size_t bytes = head + n * (sizeof(le_key) + sizeof(int64_t)) + (n + 1) * es;
    s = em_malloc(ki->al, bytes);
    order = em_malloc(ki->al, sizeof(int64_t) * (2 * n + 1));
    if (s == NULL || order == NULL) {
        st = em_status_oom();
        goto fail;
    }
    memset(s, 0, bytes);
    s->kind = kk;
    s->n_values = keys.n;
    s->esize = es;
    s->in_dt = x->dtype;
    s->out_dt = vals.dt;
    s->keys = (le_key *)((char *)s + head);
    s->vindex = (int64_t *)(s->keys + n);
    s->values = (char *)(s->vindex + n);
    for (int64_t j = 0; j < keys.n; j++) {
        le_store(vals.dt, s->values + (size_t)j * es, &vals, j, 0);
    }
    EMBER_TRY(le_default(ki, vals.dt, s->values + n * es));
    /* Sorted distinct keys; of equal keys (all NaNs are one key) the last one's value. */
    int64_t m = 0;
    for (int64_t j = 0; j < keys.n; j++) {
        if (kk == LE_FLOAT && isnan(le_get_f(&keys, j))) {
            s->nan_key = true;
            s->nan_value = j;
        } else {
            order[m++] = j;
        }
    }
    le_sort(kk, &keys, order, order + n, m);
    for (int64_t j = 0; j < m; j++) {
        bool same_next = j + 1 < m && le_cmp(kk, le_get(kk, &keys, order[j]),
                                             le_get(kk, &keys, order[j + 1])) == 0;
        if (!same_next) {
            s->keys[s->n] = le_get(kk, &keys, order[j]);
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

/* The value index of element i of x: a key's value, or -1 for the default. */
static int64_t le_lookup(const le_state *s, const em_tensor *x, int64_t i)
{
    le_key key;
    if (s->kind == LE_STRING) {
        key.s = em_str_at(x, i);
    } else if (s->kind == LE_FLOAT) {
        key.f = em_tref_get(s->in_dt, x->data, i);
        if (isnan(key.f)) {
            return s->nan_key ? s->nan_value : -1;
        }
    } else {
        key.i = s->in_dt == EMBER_DTYPE_I16 ? ((const int16_t *)x->data)[i] : em_tref_index(x, i);
    }
    int64_t lo = 0, hi = s->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (le_cmp(s->kind, s->keys[mid], key) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < s->n && le_cmp(s->kind, s->keys[lo], key) == 0 ? s->vindex[lo] : -1;
}

void em_labelencoder__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const le_state *s = state;
    int64_t n = em_tensor_numel(&in[0]);
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = le_lookup(s, &in[0], i);
        const char *src = s->values + (size_t)(v >= 0 ? v : s->n_values) * s->esize;
        if (s->out_dt == EMBER_DTYPE_STRING) {
            /* A copy in the output's arena: the value points into the node's attribute. */
            const char *str = *(const char *const *)src;
            ((const char **)out[0].data)[i] = em_str_dup(&out[0], str, strlen(str));
        } else {
            memcpy((char *)out[0].data + (size_t)i * s->esize, src, s->esize);
        }
    }
}
