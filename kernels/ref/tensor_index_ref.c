/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Indexing for any dtype: Gather-13, GatherElements-13, GatherND-13 (batch_dims),
 * ScatterElements-18 and ScatterND-18 (reduction none/add/mul/max/min), OneHot-11.
 * Indices are int32 or int64 (OneHot: any numeric, truncated toward zero); negative indices
 * count from the end of their axis. Out-of-range indices are refused in prepare when the
 * indices are constant; at run time they select nothing (gathers write zeros, scatters skip
 * the update), since run cannot fail. Scatter reductions compute in double for float dtypes
 * (f16/bf16 rounded back) and in wrapping two's complement for integers; duplicate indices
 * apply in index order, as the ONNX reference does.
 */
#include "ref.h"

#include <string.h>

typedef struct index_state {
    size_t esize;
    int axis;      /* Gather/GatherElements/ScatterElements/OneHot axis; GatherND batch_dims */
    int reduction; /* scatters */
} index_state;

static ember_status *check_io(const em_kinfo *ki, int n_in)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, n_in, n_in, 1));
    for (int i = 0; i < n_in; i++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], EMBER_DTYPE_UNDEFINED, "an input"));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_UNDEFINED, "output 0"));
    return NULL;
fail:
    return st;
}

static bool is_index_dtype(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_I64;
}

/* Constant indices must lie in [-dim, dim). */
static ember_status *check_index_range(const em_kinfo *ki, const em_tensor *idx, int64_t dim)
{
    int64_t n = em_tensor_numel(idx);
    for (int64_t i = 0; idx->data != NULL && i < n; i++) {
        int64_t v = em_tref_index(idx, i);
        if (v < -dim || v >= dim) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "index %lld is out of range for an axis of %lld", (long long)v,
                                (long long)dim);
        }
    }
    return NULL;
}

static int64_t fix_index(int64_t v, int64_t dim)
{
    v = v < 0 ? v + dim : v;
    return v >= 0 && v < dim ? v : -1;
}

/* ---- Gather --------------------------------------------------------------------------------- */

ember_status *em_gather_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    index_state s;
    const em_tensor *x = &ki->in[0], *idx = &ki->in[1];
    int64_t axis, dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 2));
    EMBER_TRY(em_ref_attr_int(ki, "axis", 0, &axis));
    if (x->rank < 1 || !is_index_dtype(idx->dtype) || x->rank - 1 + idx->rank > EM_MAX_RANK) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "need data of rank >= 1 and int32/int64 indices");
    }
    EMBER_TRY(em_tref_axis(ki, axis, x->rank, &s.axis));
    EMBER_TRY(check_index_range(ki, idx, x->dims[s.axis]));
    int r = 0;
    for (int d = 0; d < s.axis; d++) {
        dims[r++] = x->dims[d];
    }
    for (int d = 0; d < idx->rank; d++) {
        dims[r++] = idx->dims[d];
    }
    for (int d = s.axis + 1; d < x->rank; d++) {
        dims[r++] = x->dims[d];
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, r, "output 0"));
    s.esize = em_dtype_size(x->dtype);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_gather__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const index_state *s = state;
    const em_tensor *x = &in[0], *idx = &in[1];
    (void)ctx;
    int64_t outer = em_ref_prod(x->dims, s->axis), dim = x->dims[s->axis];
    int64_t inner = em_ref_prod(x->dims + s->axis + 1, x->rank - s->axis - 1);
    int64_t ni = em_tensor_numel(idx);
    size_t block = (size_t)inner * s->esize;
    unsigned char *dst = out[0].data;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < ni; j++) {
            int64_t v = fix_index(em_tref_index(idx, j), dim);
            unsigned char *d = dst + (size_t)(o * ni + j) * block;
            if (block == 0) {
                continue;
            }
            if (v < 0) {
                memset(d, 0, block);
            } else {
                memcpy(d, (const unsigned char *)x->data + (size_t)(o * dim + v) * block, block);
            }
        }
    }
}

/* ---- GatherElements / ScatterElements ------------------------------------------------------- */

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static ember_status *parse_reduction(const em_kinfo *ki, ember_dtype dt, int *red)
{
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    const char *r;
    ember_status *st = em_ref_attr_string(ki, "reduction", "none", &r);
    if (st != NULL) {
        return st;
    }
    *red = -1;
    for (int i = 0; i < 5; i++) {
        *red = strcmp(r, names[i]) == 0 ? i : *red;
    }
    if (*red < 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "unknown reduction '%s'", r);
    }
    if (*red != RED_NONE && (dt == EMBER_DTYPE_U64 || dt == EMBER_DTYPE_BOOL)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "reduction '%s' on %s", r,
                            em_dtype_name(dt));
    }
    return NULL;
}

static bool is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

/* An integer element as int64 (exact for every integer dtype but u64, which is refused). */
static int64_t get_int(ember_dtype dt, const void *p, int64_t i)
{
    return dt == EMBER_DTYPE_I64 ? ((const int64_t *)p)[i] : (int64_t)em_tref_get(dt, p, i);
}

/* dst[di] = reduce(dst[di], src[si]). */
static void combine(ember_dtype dt, size_t es, int red, void *dst, int64_t di, const void *src,
                    int64_t si)
{
    if (red == RED_NONE) {
        em_tref_copy1(es, (unsigned char *)dst + (size_t)di * es,
                      (const unsigned char *)src + (size_t)si * es);
        return;
    }
    if (is_float(dt)) {
        double a = em_tref_get(dt, dst, di), b = em_tref_get(dt, src, si);
        double r = red == RED_ADD   ? a + b
                   : red == RED_MUL ? a * b
                   : red == RED_MAX ? (a >= b || a != a ? a : b)
                                    : (a <= b || a != a ? a : b);
        em_tref_set(dt, dst, di, r);
        return;
    }
    /* Integers wrap (two's complement, truncated to the dtype's width). */
    int64_t a = get_int(dt, dst, di), b = get_int(dt, src, si);
    uint64_t r = red == RED_ADD   ? (uint64_t)a + (uint64_t)b
                 : red == RED_MUL ? (uint64_t)a * (uint64_t)b
                 : red == RED_MAX ? (uint64_t)(a >= b ? a : b)
                                  : (uint64_t)(a <= b ? a : b);
    switch (es) {
    case 1:
        ((uint8_t *)dst)[di] = (uint8_t)r;
        break;
    case 2:
        ((uint16_t *)dst)[di] = (uint16_t)r;
        break;
    case 4:
        ((uint32_t *)dst)[di] = (uint32_t)r;
        break;
    default:
        ((uint64_t *)dst)[di] = r;
        break;
    }
}

/* Shared checks of GatherElements (n_in 2) and ScatterElements (n_in 3). */
static ember_status *elements_prepare(const em_kinfo *ki, void **state, bool scatter)
{
    ember_status *st = NULL;
    index_state s;
    const em_tensor *x = &ki->in[0], *idx = &ki->in[1];
    int64_t axis;

    *state = NULL;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, scatter ? 3 : 2));
    EMBER_TRY(em_ref_attr_int(ki, "axis", 0, &axis));
    if (x->rank < 1 || idx->rank != x->rank || !is_index_dtype(idx->dtype)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "indices must be int32/int64 of the data's rank (>= 1)");
    }
    EMBER_TRY(em_tref_axis(ki, axis, x->rank, &s.axis));
    for (int d = 0; d < x->rank; d++) {
        if (d != s.axis && idx->dims[d] > x->dims[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "indices dim %d exceeds the data's",
                                d);
        }
    }
    EMBER_TRY(check_index_range(ki, idx, x->dims[s.axis]));
    if (scatter) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (updates)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], idx->dims, idx->rank, "input 2 (updates)"));
        EMBER_TRY(parse_reduction(ki, x->dtype, &s.reduction));
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0"));
    } else {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], idx->dims, idx->rank, "output 0"));
    }
    s.esize = em_dtype_size(x->dtype);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

ember_status *em_gatherelements_prepare__ref(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    *scratch_bytes = 0;
    return elements_prepare(ki, state, false);
}

ember_status *em_scatterelements_prepare__ref(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    *scratch_bytes = 0;
    return elements_prepare(ki, state, true);
}

/* Calls visit(data offset, index position) for each element of the indices tensor. */
static void elements_walk(const index_state *s, const em_tensor *x, const em_tensor *idx,
                          void (*visit)(const index_state *, const em_tensor *, int64_t, int64_t,
                                        void *),
                          void *ctx)
{
    int64_t xs[EM_MAX_RANK], c[EM_MAX_RANK] = {0};
    em_tref_strides(x->dims, x->rank, xs);
    int64_t n = em_tensor_numel(idx);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = fix_index(em_tref_index(idx, i), x->dims[s->axis]), off = 0;
        for (int d = 0; d < x->rank; d++) {
            off += (d == s->axis ? v : c[d]) * xs[d];
        }
        visit(s, x, v < 0 ? -1 : off, i, ctx);
        em_ref_coord_next(c, idx->dims, idx->rank);
    }
}

typedef struct walk_io {
    const em_tensor *src;
    em_tensor *dst;
} walk_io;

static void gather_one(const index_state *s, const em_tensor *x, int64_t off, int64_t i, void *ctx)
{
    walk_io *io = ctx;
    unsigned char *d = (unsigned char *)io->dst->data + (size_t)i * s->esize;
    if (off < 0) {
        memset(d, 0, s->esize);
    } else {
        em_tref_copy1(s->esize, d, (const unsigned char *)x->data + (size_t)off * s->esize);
    }
}

static void scatter_one(const index_state *s, const em_tensor *x, int64_t off, int64_t i, void *ctx)
{
    walk_io *io = ctx;
    if (off >= 0) {
        combine(x->dtype, s->esize, s->reduction, io->dst->data, off, io->src->data, i);
    }
}

void em_gatherelements__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    walk_io io = {NULL, &out[0]};
    (void)ctx;
    elements_walk(state, &in[0], &in[1], gather_one, &io);
}

void em_scatterelements__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    walk_io io = {&in[2], &out[0]};
    (void)ctx;
    if (out[0].data != in[0].data) {
        memmove(out[0].data, in[0].data, em_tensor_nbytes(&in[0]));
    }
    elements_walk(state, &in[0], &in[1], scatter_one, &io);
}

/* ---- GatherND / ScatterND ------------------------------------------------------------------- */

/* Geometry of index tuples: k = indices' last dim addresses data axes [b, b + k). */
typedef struct nd_geom {
    int64_t batches, tuples, k, slice, block;
    int64_t kdims[EM_MAX_RANK], kstrides[EM_MAX_RANK]; /* strides in elements */
} nd_geom;

static void nd_geometry(const em_tensor *x, const em_tensor *idx, int b, nd_geom *g)
{
    int r = x->rank, q = idx->rank;
    g->k = idx->dims[q - 1];
    g->batches = em_ref_prod(x->dims, b);
    g->tuples = em_ref_prod(idx->dims + b, q - 1 - b);
    g->slice = em_ref_prod(x->dims + b + g->k, r - b - (int)g->k);
    g->block = em_ref_prod(x->dims + b, r - b);
    int64_t st = g->slice;
    for (int j = (int)g->k - 1; j >= 0; j--) {
        g->kdims[j] = x->dims[b + j];
        g->kstrides[j] = st;
        st *= g->kdims[j];
    }
}

/* Element offset (within its batch block) of tuple t of batch bb, or -1 when out of range. */
static int64_t nd_offset(const nd_geom *g, const em_tensor *idx, int64_t bb, int64_t t)
{
    int64_t off = 0, base = (bb * g->tuples + t) * g->k;
    for (int64_t j = 0; j < g->k; j++) {
        int64_t v = fix_index(em_tref_index(idx, base + j), g->kdims[j]);
        if (v < 0) {
            return -1;
        }
        off += v * g->kstrides[j];
    }
    return off;
}

/* Checks shared by GatherND (batch_dims b) and ScatterND (b = 0); expected output/updates
 * shape in dims[0..*rank). */
static ember_status *nd_check(const em_kinfo *ki, int b, int64_t *dims, int *rank)
{
    const em_tensor *x = &ki->in[0], *idx = &ki->in[1];
    int r = x->rank, q = idx->rank;
    if (idx->dtype != EMBER_DTYPE_I64 || r < 1 || q < 1 || b < 0 || b >= q || b >= r) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "need int64 indices, ranks >= 1 and "
                            "batch_dims below both ranks");
    }
    int64_t k = idx->dims[q - 1];
    if (k < 1 || k > r - b || q - 1 + r - b - k > EM_MAX_RANK) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "indices' last dim %lld is not in "
                            "[1, %d]",
                            (long long)k, r - b);
    }
    for (int d = 0; d < b; d++) {
        if (x->dims[d] != idx->dims[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "batch dim %d differs", d);
        }
    }
    int64_t n = em_tensor_numel(idx);
    for (int64_t i = 0; idx->data != NULL && i < n; i++) {
        int64_t v = ((const int64_t *)idx->data)[i], dim = x->dims[b + i % k];
        if (v < -dim || v >= dim) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "index %lld is out of range for "
                                "an axis of %lld",
                                (long long)v, (long long)dim);
        }
    }
    *rank = 0;
    for (int d = 0; d < q - 1; d++) {
        dims[(*rank)++] = idx->dims[d];
    }
    for (int d = b + (int)k; d < r; d++) {
        dims[(*rank)++] = x->dims[d];
    }
    return NULL;
}

ember_status *em_gathernd_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    index_state s;
    int64_t b, dims[EM_MAX_RANK];
    int rank = 0;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 2));
    EMBER_TRY(em_ref_attr_int(ki, "batch_dims", 0, &b));
    if (b < 0 || b >= EM_MAX_RANK) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'batch_dims' is out of range");
    }
    EMBER_TRY(nd_check(ki, (int)b, dims, &rank));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], ki->in[0].dtype, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, rank, "output 0"));
    s.esize = em_dtype_size(ki->in[0].dtype);
    s.axis = (int)b;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_gathernd__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const index_state *s = state;
    nd_geom g;
    (void)ctx;
    nd_geometry(&in[0], &in[1], s->axis, &g);
    size_t bytes = (size_t)g.slice * s->esize;
    const unsigned char *src = in[0].data;
    unsigned char *dst = out[0].data;
    for (int64_t bb = 0; bb < g.batches; bb++) {
        for (int64_t t = 0; t < g.tuples && bytes > 0; t++) {
            int64_t off = nd_offset(&g, &in[1], bb, t);
            unsigned char *d = dst + (size_t)(bb * g.tuples + t) * bytes;
            if (off < 0) {
                memset(d, 0, bytes);
            } else {
                memcpy(d, src + (size_t)(bb * g.block + off) * s->esize, bytes);
            }
        }
    }
}

ember_status *em_scatternd_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    index_state s;
    const em_tensor *x = &ki->in[0];
    int64_t dims[EM_MAX_RANK];
    int rank = 0;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 3));
    EMBER_TRY(nd_check(ki, 0, dims, &rank));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (updates)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], dims, rank, "input 2 (updates)"));
    EMBER_TRY(parse_reduction(ki, x->dtype, &s.reduction));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0"));
    s.esize = em_dtype_size(x->dtype);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_scatternd__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const index_state *s = state;
    nd_geom g;
    (void)ctx;
    if (out[0].data != in[0].data) {
        memmove(out[0].data, in[0].data, em_tensor_nbytes(&in[0]));
    }
    nd_geometry(&in[0], &in[1], 0, &g);
    for (int64_t t = 0; t < g.tuples; t++) {
        int64_t off = nd_offset(&g, &in[1], 0, t);
        for (int64_t e = 0; off >= 0 && e < g.slice; e++) {
            combine(in[0].dtype, s->esize, s->reduction, out[0].data, off + e, in[2].data,
                    t * g.slice + e);
        }
    }
}

/* ---- OneHot --------------------------------------------------------------------------------- */

static bool is_numeric(ember_dtype dt)
{
    return em_dtype_valid(dt) && dt != EMBER_DTYPE_BOOL;
}

ember_status *em_onehot_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    index_state s;
    const em_tensor *idx = &ki->in[0], *depth = &ki->in[1], *vals = &ki->in[2], *y = &ki->out[0];
    int64_t axis, dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 3));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    if (!is_numeric(idx->dtype) || !is_numeric(depth->dtype) || em_tensor_numel(depth) != 1 ||
        vals->rank != 1 || vals->dims[0] != 2 || idx->rank + 1 > EM_MAX_RANK) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "need numeric indices, one numeric "
                            "depth and 2 values");
    }
    EMBER_TRY(em_tref_axis(ki, axis, idx->rank + 1, &s.axis));
    EMBER_TRY(em_ref_check_tensor(ki, y, vals->dtype, "output 0"));
    for (int d = 0, i = 0; d <= idx->rank; d++) {
        dims[d] = d == s.axis ? y->dims[d < y->rank ? d : 0] : idx->dims[i++];
    }
    if (depth->data != NULL) {
        double dv = em_tref_get(depth->dtype, depth->data, 0);
        if (!(dv >= 1 && dv < 1e15)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "depth must be >= 1");
        }
        dims[s.axis] = (int64_t)dv;
    }
    EMBER_TRY(em_ref_check_shape(ki, y, dims, idx->rank + 1, "output 0"));
    s.esize = em_dtype_size(vals->dtype);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_onehot__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const index_state *s = state;
    const em_tensor *idx = &in[0];
    (void)ctx;
    int64_t depth = out[0].dims[s->axis];
    int64_t outer = em_ref_prod(idx->dims, s->axis);
    int64_t inner = em_ref_prod(idx->dims + s->axis, idx->rank - s->axis);
    const unsigned char *off = in[2].data, *on = off + s->esize;
    unsigned char *dst = out[0].data;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            double v = em_tref_get(idx->dtype, idx->data, o * inner + i);
            /* Truncate toward zero; NaN and huge values match no position. */
            int64_t hot = v > -1e15 && v < 1e15 ? (int64_t)v : -1;
            hot = hot < 0 ? hot + depth : hot;
            for (int64_t d = 0; d < depth; d++) {
                em_tref_copy1(s->esize, dst + (size_t)((o * depth + d) * inner + i) * s->esize,
                              d == hot ? on : off);
            }
        }
    }
}
