/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Data movement for any dtype (elements of em_dtype_size bytes): Transpose-21, Concat-13,
 * Squeeze/Unsqueeze-21 (a plain copy, usually aliased away by the planner), Expand-13
 * (bidirectional broadcast), Tile-13, Split-18, DepthToSpace-13 (DCR and CRD) and SpaceToDepth-28
 * (DCR and CRD). Transpose, Expand and the depth/space rearrangements are one strided copy: each
 * output coordinate reads the input at sum c[d] * strides[d], where the strides are the input's
 * permuted strides (0 on broadcast axes). The depth/space ops are written as the spec's reshape to
 * 6-D + transpose.
 */
#include "ref.h"

#include <string.h>

/* ---- the strided-copy family: Transpose, Expand, DepthToSpace, SpaceToDepth ---------------- */

typedef struct strided_state {
    size_t esize;
    int rank;
    int64_t dims[EM_MAX_RANK];    /* the output viewed with `rank` axes */
    int64_t strides[EM_MAX_RANK]; /* element strides into the input */
} strided_state;

static void strided_run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const strided_state *s = state;
    (void)ctx;
    em_tref_strided_copy(s->esize, s->rank, s->dims, in[0].data, 0, s->strides, out[0].data);
}

/* Arity, input 0 of any dtype, output 0 of the same dtype. */
static ember_status *check_io(const em_kinfo *ki, int min_in, int max_in, int max_out)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, min_in, max_in, max_out));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0"));
    for (int o = 0; o < ki->n_out; o++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[o], ki->in[0].dtype, "an output"));
    }
    return NULL;
fail:
    return st;
}

ember_status *em_transpose_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    strided_state s;
    const em_tensor *x = &ki->in[0];
    int64_t perm[EM_MAX_RANK], xs[EM_MAX_RANK];
    bool given;
    unsigned seen = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 1, 1, 1));
    EMBER_TRY(em_ref_attr_ints(ki, "perm", x->rank, 0, perm, &given));
    em_tref_strides(x->dims, x->rank, xs);
    memset(&s, 0, sizeof s);
    s.esize = em_dtype_size(x->dtype);
    s.rank = x->rank;
    for (int d = 0; d < x->rank; d++) {
        int64_t p = given ? perm[d] : x->rank - 1 - d;
        if (p < 0 || p >= x->rank || (seen & (1u << p))) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'perm' is not a permutation");
        }
        seen |= 1u << p;
        s.dims[d] = x->dims[p];
        s.strides[d] = xs[p];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], s.dims, s.rank, "output 0"));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_transpose__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    strided_run(state, in, out, ctx);
}

ember_status *em_expand_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    strided_state s;
    const em_tensor *x = &ki->in[0], *sh = &ki->in[1], *y = &ki->out[0];
    int64_t xs[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, sh, EMBER_DTYPE_I64, "input 1 (shape)"));
    if (sh->rank != 1 || y->rank < x->rank || y->rank < sh->dims[0]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'shape' must be 1-D and the output rank max(rank(x), len(shape))");
    }
    em_tref_strides(x->dims, x->rank, xs);
    memset(&s, 0, sizeof s);
    s.esize = em_dtype_size(x->dtype);
    s.rank = y->rank;
    for (int d = 0; d < y->rank; d++) {
        int ix = d - (y->rank - x->rank), is = d - (y->rank - (int)sh->dims[0]);
        int64_t xd = ix >= 0 ? x->dims[ix] : 1;
        int64_t sd = is >= 0 && sh->data != NULL ? ((const int64_t *)sh->data)[is] : 1;
        int64_t want = sh->data == NULL ? y->dims[d] : (xd == 1 ? sd : xd);
        if ((xd != 1 && sd != 1 && xd != sd) || sd < 0 || (xd != 1 && y->dims[d] != xd) ||
            y->dims[d] != want) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output dim %d (%lld) is not the broadcast of %lld and %lld", d,
                                (long long)y->dims[d], (long long)xd, (long long)sd);
        }
        s.dims[d] = y->dims[d];
        s.strides[d] = ix >= 0 && xd != 1 ? xs[ix] : 0;
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_expand__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    strided_run(state, in, out, ctx);
}

/* DepthToSpace (to_space) and SpaceToDepth as a 6-D strided copy of the NCHW input. */
static ember_status *depth_space_prepare(const em_kinfo *ki, void **state, bool to_space)
{
    ember_status *st = NULL;
    strided_state s;
    const em_tensor *x = &ki->in[0];
    int64_t b, y[4];
    const char *mode = "DCR";

    EMBER_TRY(check_io(ki, 1, 1, 1));
    EMBER_TRY(em_ref_attr_int(ki, "blocksize", 0, &b));
    EMBER_TRY(em_ref_attr_string(ki, "mode", "DCR", &mode));
    if (x->rank != 4 || b < 1 || b > ((int64_t)1 << 20)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "need a 4-D (NCHW) input and 'blocksize' >= 1");
    }
    bool crd = strcmp(mode, "CRD") == 0;
    if (!crd && strcmp(mode, "DCR") != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "unknown mode '%s'", mode);
    }
    int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3];
    if (to_space ? c % (b * b) != 0 : (h % b != 0 || w % b != 0)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s is not a multiple of the block",
                            to_space ? "C" : "H or W");
    }
    memset(&s, 0, sizeof s);
    s.esize = em_dtype_size(x->dtype);
    s.rank = 6;
    if (to_space) { /* y[n, c', h*b + i, w*b + j] = x[n, chan(c', i, j), h, w] */
        int64_t cc = c / (b * b), hw = h * w;
        int64_t dims[6] = {n, cc, h, b, w, b};
        int64_t dcr[6] = {c * hw, hw, w, b * cc * hw, 1, cc * hw};
        int64_t crd_s[6] = {c * hw, b * b * hw, w, b * hw, 1, hw};
        memcpy(s.dims, dims, sizeof dims);
        memcpy(s.strides, crd ? crd_s : dcr, sizeof dcr);
        y[0] = n, y[1] = cc, y[2] = h * b, y[3] = w * b;
    } else { /* DCR: y[n, (i*b + j)*C + c, h', w'] = x[n, c, h'*b + i, w'*b + j];
              * CRD: y[n, (c*b + i)*b + j, h', w'] = the same x element */
        int64_t hh = h / b, ww = w / b;
        int64_t dcr_d[6] = {n, b, b, c, hh, ww}, crd_d[6] = {n, c, b, b, hh, ww};
        int64_t dcr[6] = {c * h * w, w, 1, h * w, b * w, b};
        int64_t crd_s[6] = {c * h * w, h * w, w, 1, b * w, b};
        memcpy(s.dims, crd ? crd_d : dcr_d, sizeof dcr_d);
        memcpy(s.strides, crd ? crd_s : dcr, sizeof dcr);
        y[0] = n, y[1] = c * b * b, y[2] = hh, y[3] = ww;
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y, 4, "output 0"));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

ember_status *em_depthtospace_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    return depth_space_prepare(ki, state, true);
}

void em_depthtospace__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    strided_run(state, in, out, ctx);
}

ember_status *em_spacetodepth_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    return depth_space_prepare(ki, state, false);
}

void em_spacetodepth__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    strided_run(state, in, out, ctx);
}

/* ---- Squeeze / Unsqueeze: the same bytes under another shape -------------------------------- */

typedef struct copy_state {
    size_t nbytes;
} copy_state;

ember_status *em_squeeze_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    copy_state s;
    bool unsq = ki->node != NULL && ki->node->op == EM_OP_UNSQUEEZE;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, unsq ? 2 : 1, 2, 1));
    if (em_ref_has_input(ki, 1) && ki->in[1].dtype != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'axes' must be int64");
    }
    if (em_ref_has_input(ki, 1)) {
        int64_t k = em_tensor_numel(&ki->in[1]);
        if (ki->out[0].rank != ki->in[0].rank + (unsq ? k : -k)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output rank %d does not match %lld axes", ki->out[0].rank,
                                (long long)k);
        }
    }
    if (em_tensor_numel(&ki->in[0]) != em_tensor_numel(&ki->out[0])) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output does not have the input's element count");
    }
    s.nbytes = em_tensor_nbytes(&ki->in[0]);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_squeeze__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const copy_state *s = state;
    (void)ctx;
    if (s->nbytes > 0 && out[0].data != in[0].data) {
        memmove(out[0].data, in[0].data, s->nbytes);
    }
}

/* ---- Concat ---------------------------------------------------------------------------------- */

typedef struct axis_state {
    int axis, n_in;
    size_t esize;
} axis_state;

ember_status *em_concat_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    axis_state s;
    const em_tensor *x = &ki->in[0];
    const em_attr *a = ki->node != NULL ? em_node_attr(ki->node, "axis") : NULL;
    int64_t dims[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 1, ki->n_in > 0 ? ki->n_in : 1, 1));
    if (a == NULL || a->type != EM_ATTR_INT || x->rank < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "needs an int 'axis' and inputs of rank >= 1");
    }
    EMBER_TRY(em_tref_axis(ki, a->i, x->rank, &s.axis));
    memcpy(dims, x->dims, sizeof dims);
    dims[s.axis] = 0;
    for (int i = 0; i < ki->n_in; i++) {
        const em_tensor *t = &ki->in[i];
        EMBER_TRY(em_ref_check_tensor(ki, t, x->dtype, "an input"));
        bool ok = t->rank == x->rank;
        for (int d = 0; ok && d < x->rank; d++) {
            ok = d == s.axis || t->dims[d] == x->dims[d];
        }
        if (!ok) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input %d differs from input 0 in rank or a dim other than %d", i,
                                s.axis);
        }
        dims[s.axis] += t->dims[s.axis];
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, x->rank, "output 0"));
    s.esize = em_dtype_size(x->dtype);
    s.n_in = ki->n_in;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_concat__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const axis_state *s = state;
    (void)ctx;
    /* Each outer index holds, in input order, one block of dims[axis] * inner per input. */
    int64_t outer = em_ref_prod(out[0].dims, s->axis);
    int64_t inner = em_ref_prod(out[0].dims + s->axis + 1, out[0].rank - s->axis - 1);
    int64_t row = out[0].dims[s->axis] * inner;
    unsigned char *dst = out[0].data;
    for (int64_t o = 0; o < outer; o++) {
        int64_t done = 0;
        for (int i = 0; i < s->n_in; i++) {
            size_t bytes = (size_t)(in[i].dims[s->axis] * inner) * s->esize;
            if (bytes > 0) {
                memcpy(dst + (size_t)(o * row + done) * s->esize,
                       (const unsigned char *)in[i].data + (size_t)o * bytes, bytes);
            }
            done += in[i].dims[s->axis] * inner;
        }
    }
}

/* ---- Tile ------------------------------------------------------------------------------------ */

typedef struct tile_state {
    size_t esize;
    int rank;
    int64_t in_dims[EM_MAX_RANK];
} tile_state;

ember_status *em_tile_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    tile_state s;
    const em_tensor *x = &ki->in[0], *rep = &ki->in[1], *y = &ki->out[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, rep, EMBER_DTYPE_I64, "input 1 (repeats)"));
    if (rep->rank != 1 || rep->dims[0] != x->rank || y->rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'repeats' must be 1-D with one entry per input axis");
    }
    for (int d = 0; d < x->rank; d++) {
        int64_t r = rep->data != NULL ? ((const int64_t *)rep->data)[d] : -1;
        bool ok = x->dims[d] == 0 ? y->dims[d] == 0 : y->dims[d] % x->dims[d] == 0;
        if (r >= 0 && x->dims[d] != 0) {
            ok = ok && y->dims[d] / x->dims[d] == r;
        }
        if (!ok || (rep->data != NULL && r < 0)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "output dim %d (%lld) is not input dim %lld times 'repeats'", d,
                                (long long)y->dims[d], (long long)x->dims[d]);
        }
    }
    memset(&s, 0, sizeof s);
    s.esize = em_dtype_size(x->dtype);
    s.rank = x->rank;
    memcpy(s.in_dims, x->dims, sizeof s.in_dims);
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_tile__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const tile_state *s = state;
    int64_t xs[EM_MAX_RANK], c[EM_MAX_RANK] = {0};
    (void)ctx;
    em_tref_strides(s->in_dims, s->rank, xs);
    int64_t n = em_ref_prod(out[0].dims, s->rank);
    const unsigned char *src = in[0].data;
    unsigned char *dst = out[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int d = 0; d < s->rank; d++) {
            off += (c[d] % s->in_dims[d]) * xs[d];
        }
        em_tref_copy1(s->esize, dst + (size_t)i * s->esize, src + (size_t)off * s->esize);
        em_ref_coord_next(c, out[0].dims, s->rank);
    }
}

/* ---- Split ----------------------------------------------------------------------------------- */

/* The sizes Split-18 gives output o when they follow from the node: the 'split' input (when
 * constant), 'num_outputs' (ceil-sized chunks, the last one smaller) or equal parts. -1 when
 * they are not known here (a non-constant 'split'). */
static ember_status *split_expected(const em_kinfo *ki, int64_t dim, int64_t *sizes)
{
    ember_status *st = NULL;
    int64_t nout = ki->n_out, num = -1;
    EMBER_TRY(em_ref_attr_int(ki, "num_outputs", -1, &num));
    if (em_ref_has_input(ki, 1)) {
        const em_tensor *sp = &ki->in[1];
        EMBER_TRY(em_ref_check_tensor(ki, sp, EMBER_DTYPE_I64, "input 1 (split)"));
        if (sp->rank != 1 || sp->dims[0] != nout || num != -1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "'split' must be 1-D with one "
                                "entry per output (and no 'num_outputs')");
        }
        for (int64_t o = 0; o < nout; o++) {
            sizes[o] = sp->data != NULL ? ((const int64_t *)sp->data)[o] : -1;
        }
        return NULL;
    }
    if (num != -1 && num != nout) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'num_outputs' is %lld but there are "
                            "%lld outputs",
                            (long long)num, (long long)nout);
    }
    if (num == -1 && dim % nout != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "axis of %lld does not split into %lld "
                            "equal parts",
                            (long long)dim, (long long)nout);
    }
    int64_t chunk = (dim + nout - 1) / nout;
    for (int64_t o = 0; o < nout; o++) {
        int64_t left = dim - chunk * o;
        sizes[o] = left < 0 ? 0 : (left < chunk ? left : chunk);
    }
    return NULL;
fail:
    return st;
}

ember_status *em_split_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    axis_state s;
    const em_tensor *x = &ki->in[0];
    int64_t axis, sizes[64], sum = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 1, 2, 64));
    EMBER_TRY(em_ref_attr_int(ki, "axis", 0, &axis));
    if (x->rank < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input must have rank >= 1");
    }
    EMBER_TRY(em_tref_axis(ki, axis, x->rank, &s.axis));
    EMBER_TRY(split_expected(ki, x->dims[s.axis], sizes));
    for (int o = 0; o < ki->n_out; o++) {
        int64_t dims[EM_MAX_RANK];
        memcpy(dims, x->dims, sizeof dims);
        dims[s.axis] = sizes[o] >= 0 ? sizes[o] : ki->out[o].dims[s.axis];
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[o], dims, x->rank, "an output"));
        sum += dims[s.axis];
    }
    if (sum != x->dims[s.axis]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "outputs do not add up to the axis");
    }
    s.esize = em_dtype_size(x->dtype);
    s.n_in = ki->n_out; /* here: the number of outputs */
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_split__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const axis_state *s = state;
    (void)ctx;
    int64_t outer = em_ref_prod(in[0].dims, s->axis);
    int64_t inner = em_ref_prod(in[0].dims + s->axis + 1, in[0].rank - s->axis - 1);
    int64_t row = in[0].dims[s->axis] * inner;
    const unsigned char *src = in[0].data;
    for (int64_t o = 0; o < outer; o++) {
        int64_t done = 0;
        for (int i = 0; i < s->n_in; i++) {
            int64_t len = out[i].dims[s->axis] * inner;
            if (len > 0) {
                memcpy((unsigned char *)out[i].data + (size_t)(o * len) * s->esize,
                       src + (size_t)(o * row + done) * s->esize, (size_t)len * s->esize);
            }
            done += len;
        }
    }
}
