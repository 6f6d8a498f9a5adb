/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h) that lay tensors out anew: expand and its
 * kin, repeat / tile, stack / hstack / vstack, movedim, padding (constant, reflect,
 * replicate, circular), upsampling (nearest, nearest-exact, linear, bilinear, bicubic,
 * trilinear: Resize with torch's coordinate rules), pixel and channel shuffles, tril / triu.
 * Sizes may be dynamic scalars: shapes are computed in the graph where they are not known.
 */
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

ember_status *em_ts_norm_dim(ts_lower *L, const ts_call *c, int64_t d, int rank, int64_t *out)
{
    int64_t n = rank > 0 ? rank : 1; /* a 0-d tensor takes dim 0 and -1 */
    if (d < -n || d >= n) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: dim %lld is out of range for a "
                      "rank-%d tensor", c->op, (long long)d, rank);
    }
    *out = d < 0 ? d + n : d;
    return NULL;
}

static ember_status *set_ints(ts_lower *L, int node, const char *name, const int64_t *v, int n)
{
    return em_node_set_ints(L->g, node, name, v, n);
}

/* Unsqueeze x at axes [0, k): rank r becomes r + k. */
static ember_status *lead_ones(ts_lower *L, const ts_call *c, int x, int k, int *out)
{
    int64_t axes[EMBER_MAX_RANK];
    int in[2] = {x, -1};
    if (k <= 0) {
        *out = x;
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        axes[i] = i;
    }
    TS_TRY(em_ts_const_i64s(L, axes, k, &in[1]));
    return em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, out, 1, NULL);
}

static ember_status *unsqueeze1(ts_lower *L, const ts_call *c, int x, int64_t axis, int *out)
{
    int in[2] = {x, -1};
    TS_TRY(em_ts_const_i64s(L, &axis, 1, &in[1]));
    return em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, out, 1, NULL);
}

/* ---- expand family ---- */

/* expand(self, size, *, implicit=False) / broadcast_to(self, size): -1 keeps a dim, which is
 * Expand's 1 (broadcasting keeps the input's dim). */
static ember_status *lower_expand(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *size = c->a[1];
    int in[2] = {-1, -1}, y = -1, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_rank(L, c, in[0], &rank));
    if (size->k != TA_LIST && size->k != TA_TUPLE) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: size must be a list", c->op);
    }
    size_t n = size->u.seq.n;
    ts_av *s = em_ts_seq(L, TA_LIST, n), one = {.k = TA_INT, .u.i = 1};
    if (s == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < n; i++) {
        const ts_av *it = size->u.seq.items[i];
        s->u.seq.items[i] = it->k == TA_INT && it->u.i == -1 ? &one : (ts_av *)it;
    }
    TS_TRY(em_ts_int_list_tensor(L, c, s, &in[1]));
    TS_TRY(em_ts_emit(L, c, EM_OP_EXPAND, in, 2, &y, 1, NULL));
    em_ts_refine_dims(L, y, size);
    em_value *yv = &L->g->values[y];
    for (size_t i = 0; i < n && yv->rank == (int)n; i++) {
        int64_t d = (int64_t)i - ((int64_t)n - rank);
        const ts_av *it = size->u.seq.items[i];
        if (it->k == TA_INT && it->u.i == -1 && d >= 0 && yv->dims[i].v < 0 &&
            yv->dims[i].sym == 0) {
            yv->dims[i] = em_ts_val(L, in[0])->dims[d];
        }
    }
    return em_ts_ret_tensor(L, y, out);
}

/* expand_as(self, other) / view_as / reshape_as: self to other's shape. */
static ember_status *as_shape_of(ts_lower *L, const ts_call *c, em_op op, ts_av **out)
{
    int in[2] = {-1, -1}, other = -1, y = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_arg_tensor(L, c, 1, &other));
    TS_TRY(em_ts_shape_of(L, c, other, 0, EMBER_MAX_RANK, &in[1]));
    TS_TRY(em_ts_emit(L, c, op, in, 2, &y, 1, NULL));
    em_ts_copy_dims(L, y, other);
    return em_ts_ret_tensor(L, y, out);
}

static ember_status *lower_expand_as(ts_lower *L, const ts_call *c, ts_av **out)
{
    return as_shape_of(L, c, EM_OP_EXPAND, out);
}

static ember_status *lower_reshape_as(ts_lower *L, const ts_call *c, ts_av **out)
{
    return as_shape_of(L, c, EM_OP_RESHAPE, out);
}

/* repeat(self, repeats) / tile(self, dims): Tile, the input given leading 1-dims when the
 * list is longer than its rank (tile also pads a shorter list with leading 1s). */
static ember_status *lower_repeat(ts_lower *L, const ts_call *c, ts_av **out)
{
    const ts_av *reps = c->a[1];
    int in[2] = {-1, -1}, rank = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_rank(L, c, in[0], &rank));
    if (reps->k != TA_LIST && reps->k != TA_TUPLE) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: repeats must be a list", c->op);
    }
    int n = (int)reps->u.seq.n;
    if (n < rank && strcmp(c->op, "aten::tile") == 0) {
        ts_av *r = em_ts_seq(L, TA_LIST, (size_t)rank), one = {.k = TA_INT, .u.i = 1};
        if (r == NULL) {
            return em_status_oom();
        }
        for (int i = 0; i < rank; i++) {
            r->u.seq.items[i] = i < rank - n ? &one : reps->u.seq.items[i - (rank - n)];
        }
        TS_TRY(em_ts_int_list_tensor(L, c, r, &in[1]));
    } else if (n < rank) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: %d repeats for a rank-%d tensor",
                      c->op, n, rank);
    } else {
        TS_TRY(em_ts_int_list_tensor(L, c, reps, &in[1]));
        TS_TRY(lead_ones(L, c, in[0], n - rank, &in[0]));
    }
    return em_ts_emit1(L, c, EM_OP_TILE, in, 2, NULL, out);
}

/* ---- joining ---- */

/* The tensors of a list argument, at least `min_rank`-D (0-d and 1-d ones gain leading 1s, as
 * atleast_1d / atleast_2d do). */
static ember_status *tensor_list(ts_lower *L, const ts_call *c, int min_rank, int **v, int *n)
{
    const ts_av *l = c->a[0];
    if ((l->k != TA_LIST && l->k != TA_TUPLE) || l->u.seq.n == 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s needs a non-empty list of tensors",
                      c->op);
    }
    *n = (int)l->u.seq.n;
    *v = em_ts_arena_alloc(&L->arena, l->u.seq.n * sizeof(int));
    if (*v == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < *n; i++) {
        int r = 0;
        TS_TRY(em_ts_as_tensor(L, c, l->u.seq.items[i], EMBER_DTYPE_UNDEFINED, &(*v)[i]));
        TS_TRY(em_ts_rank(L, c, (*v)[i], &r));
        TS_TRY(lead_ones(L, c, (*v)[i], min_rank - r, &(*v)[i]));
    }
    return NULL;
}

static ember_status *concat(ts_lower *L, const ts_call *c, const int *v, int n, int64_t axis,
                            ts_av **out)
{
    int node = -1;
    if (n == 1) {
        return em_ts_ret_tensor(L, v[0], out);
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_CONCAT, v, n, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "axis", axis));
    return em_ts_infer(L, c, node);
}

/* stack(tensors, dim=0): each unsqueezed at dim, then Concat. */
static ember_status *lower_stack(ts_lower *L, const ts_call *c, ts_av **out)
{
    int *v = NULL, n = 0, rank = 0;
    int64_t dim = 0;
    TS_TRY(tensor_list(L, c, 0, &v, &n));
    TS_TRY(em_ts_arg_int(L, c, 1, &dim));
    TS_TRY(em_ts_rank(L, c, v[0], &rank));
    TS_TRY(em_ts_norm_dim(L, c, dim, rank + 1, &dim));
    for (int i = 0; i < n; i++) {
        TS_TRY(unsqueeze1(L, c, v[i], dim, &v[i]));
    }
    return concat(L, c, v, n, dim, out);
}

/* hstack(tensors): Concat on dim 1, or dim 0 of 1-D tensors (0-d ones become 1-D). */
static ember_status *lower_hstack(ts_lower *L, const ts_call *c, ts_av **out)
{
    int *v = NULL, n = 0, rank = 0;
    TS_TRY(tensor_list(L, c, 1, &v, &n));
    TS_TRY(em_ts_rank(L, c, v[0], &rank));
    return concat(L, c, v, n, rank == 1 ? 0 : 1, out);
}

/* vstack(tensors): Concat on dim 0 of the tensors made at least 2-D. */
static ember_status *lower_vstack(ts_lower *L, const ts_call *c, ts_av **out)
{
    int *v = NULL, n = 0;
    TS_TRY(tensor_list(L, c, 2, &v, &n));
    return concat(L, c, v, n, 0, out);
}

/* movedim(self, source, destination) with ints or int lists: a Transpose. */
static ember_status *lower_movedim(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t src[EMBER_MAX_RANK], dst[EMBER_MAX_RANK], perm[EMBER_MAX_RANK];
    size_t ns = 0, nd = 0;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &x));
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_arg_ints(L, c, 1, src, EMBER_MAX_RANK, 1, &ns));
    TS_TRY(em_ts_arg_ints(L, c, 2, dst, EMBER_MAX_RANK, 1, &nd));
    if (ns != nd) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: source and destination differ in "
                      "length", c->op);
    }
    bool used[EMBER_MAX_RANK] = {false}, placed[EMBER_MAX_RANK] = {false};
    for (size_t i = 0; i < ns; i++) {
        TS_TRY(em_ts_norm_dim(L, c, src[i], rank, &src[i]));
        TS_TRY(em_ts_norm_dim(L, c, dst[i], rank, &dst[i]));
        if (used[src[i]] || placed[dst[i]]) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: repeated dims", c->op);
        }
        perm[dst[i]] = src[i];
        used[src[i]] = placed[dst[i]] = true;
    }
    for (int d = 0, s = 0; d < rank; d++) { /* the other dims keep their order */
        if (!placed[d]) {
            while (used[s]) {
                s++;
            }
            perm[d] = s++;
        }
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_TRANSPOSE, &x, 1, &node, out));
    TS_TRY(set_ints(L, node, "perm", perm, rank));
    return em_ts_infer(L, c, node);
}

/* ---- padding ---- */

/* Pad(x, torch's pad list: (begin, end) pairs from the last dim backwards; items may be
 * dynamic scalars; negative pads crop) in ONNX mode `mode`, constant `value` (or NULL). */
static ember_status *pad(ts_lower *L, const ts_call *c, const ts_av *list, const char *mode,
                         const ts_av *value, ts_av **out)
{
    int in[3] = {-1, -1, -1}, rank = 0, node = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_rank(L, c, in[0], &rank));
    size_t n = list->k == TA_LIST || list->k == TA_TUPLE ? list->u.seq.n : 0;
    if (n % 2 != 0 || n / 2 > (size_t)rank || n == 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: the pad list must have an even "
                      "length of at most twice the rank", c->op);
    }
    ts_av *pads = em_ts_seq(L, TA_LIST, 2 * (size_t)rank), zero = {.k = TA_INT, .u.i = 0};
    if (pads == NULL) {
        return em_status_oom();
    }
    for (int d = 0; d < rank; d++) {
        size_t i = (size_t)(rank - 1 - d); /* pair index of dim d */
        pads->u.seq.items[d] = i < n / 2 ? list->u.seq.items[2 * i] : &zero;
        pads->u.seq.items[rank + d] = i < n / 2 ? list->u.seq.items[2 * i + 1] : &zero;
    }
    TS_TRY(em_ts_int_list_tensor(L, c, pads, &in[1]));
    if (value != NULL) {
        TS_TRY(em_ts_as_tensor(L, c, value, em_ts_val(L, in[0])->dtype, &in[2]));
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_PAD, in, value != NULL ? 3 : 2, &node, out));
    TS_TRY(em_node_set_string(L->g, node, "mode", mode));
    return em_ts_infer(L, c, node);
}

/* constant_pad_nd(self, pad, value=0) */
static ember_status *lower_constant_pad_nd(ts_lower *L, const ts_call *c, ts_av **out)
{
    return pad(L, c, c->a[1], "constant", c->a[2], out);
}

/* pad(self, pad, mode="constant", value=None) */
static ember_status *lower_pad(ts_lower *L, const ts_call *c, ts_av **out)
{
    static const char *const modes[][2] = {{"constant", "constant"}, {"reflect", "reflect"},
                                           {"replicate", "edge"}, {"circular", "wrap"}};
    const char *m = c->a[2]->k == TA_STR ? c->a[2]->u.str.s : "";
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(m, modes[i][0]) == 0) {
            bool constant = i == 0 && !em_ts_arg_none(c, 3);
            return pad(L, c, c->a[1], modes[i][1], constant ? c->a[3] : NULL, out);
        }
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: mode '%s'", c->op, m);
}

/* reflection_padNd / replication_padNd / _pad_circular(self, padding) */
static ember_status *lower_mode_pad(ts_lower *L, const ts_call *c, ts_av **out)
{
    const char *mode = strstr(c->op, "reflection") != NULL    ? "reflect"
                       : strstr(c->op, "replication") != NULL ? "edge"
                                                              : "wrap";
    return pad(L, c, c->a[1], mode, NULL, out);
}

/* ---- upsampling ---- */

/* Resize of x to `size` (an int list, or None) or by `scales` (a float list or None; torch
 * then maps coordinates by 1/scale, as Resize does with scales), in torch's coordinate rules:
 * nearest is floor(dst * in/out) (asymmetric, floor), nearest-exact rounds half-pixel
 * centres, linear and cubic use half-pixel centres (A = -0.75) or align_corners. */
static ember_status *resize(ts_lower *L, const ts_call *c, const ts_av *size, const ts_av *scales,
                            const char *mode, bool align_corners, bool exact, ts_av **out)
{
    int in[4] = {-1, -1, -1, -1}, rank = 0, node = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_rank(L, c, in[0], &rank));
    int k = rank - 2;
    if (scales != NULL && scales->k != TA_NONE) {
        float s[EMBER_MAX_RANK] = {1, 1};
        bool ok = (scales->k == TA_LIST || scales->k == TA_TUPLE) && scales->u.seq.n == (size_t)k;
        for (int d = 0; ok && d < k; d++) {
            const ts_av *it = scales->u.seq.items[d];
            ok = it->k == TA_FLOAT || it->k == TA_INT;
            s[2 + d] = (float)(it->k == TA_FLOAT ? it->u.f : (double)it->u.i);
        }
        if (!ok || k < 1) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: scale factors must be %d "
                          "numbers known at load time", c->op, k);
        }
        int64_t r = rank;
        TS_TRY(em_ts_const(L, EMBER_DTYPE_F32, 1, &r, s, &in[2]));
    } else if (size != NULL && size->k != TA_NONE) {
        int parts[2] = {-1, -1}, cn = -1;
        TS_TRY(em_ts_shape_of(L, c, in[0], 0, 2, &parts[0]));
        TS_TRY(em_ts_int_list_tensor(L, c, size, &parts[1]));
        TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, parts, 2, &in[3], 1, &cn));
        TS_TRY(em_node_set_int(L->g, cn, "axis", 0));
        TS_TRY(em_ts_infer(L, c, cn));
    } else {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: neither output size nor scale "
                      "factors", c->op);
    }
    TS_TRY(em_ts_emit1(L, c, EM_OP_RESIZE, in, 4, &node, out));
    TS_TRY(em_node_set_string(L->g, node, "mode", mode));
    const char *ctm = strcmp(mode, "nearest") == 0 ? (exact ? "half_pixel" : "asymmetric")
                      : align_corners              ? "align_corners"
                                                   : "half_pixel";
    TS_TRY(em_node_set_string(L->g, node, "coordinate_transformation_mode", ctm));
    if (strcmp(mode, "nearest") == 0) {
        TS_TRY(em_node_set_string(L->g, node, "nearest_mode",
                                  exact ? "round_prefer_ceil" : "floor"));
    }
    if (strcmp(mode, "cubic") == 0) {
        TS_TRY(em_node_set_float(L->g, node, "cubic_coeff_a", -0.75f));
    }
    return em_ts_infer(L, c, node);
}

/* Float list of the scales_* arguments from index i on (None when the first is None). */
static ember_status *scales_args(ts_lower *L, const ts_call *c, size_t i, ts_av **out)
{
    *out = NULL;
    if (em_ts_arg_none(c, i)) {
        return NULL;
    }
    *out = em_ts_seq(L, TA_LIST, 0);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (; i < c->n; i++) {
        if (c->a[i]->k == TA_NONE) {
            *out = NULL; /* some scales missing: use the size */
            return NULL;
        }
        TS_TRY(em_ts_list_append(L, *out, c->a[i]));
    }
    return NULL;
}

/* upsample_nearestNd / _upsample_nearest_exactNd: .vec(input, output_size?, scale_factors?)
 * or (self, output_size, scales...?) */
static ember_status *lower_upsample_nearest(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool exact = strstr(c->op, "exact") != NULL;
    if (strcmp(c->overload, "vec") == 0) {
        return resize(L, c, c->a[1], c->a[2], "nearest", false, exact, out);
    }
    ts_av *scales = NULL;
    TS_TRY(scales_args(L, c, 2, &scales));
    return resize(L, c, c->a[1], scales, "nearest", false, exact, out);
}

/* upsample_linear1d / bilinear2d / trilinear3d / bicubic2d: .vec(input, output_size?,
 * align_corners, scale_factors?) or (self, output_size, align_corners, scales...?) */
static ember_status *lower_upsample_interp(ts_lower *L, const ts_call *c, ts_av **out)
{
    bool align = false;
    const char *mode = strstr(c->op, "bicubic") != NULL ? "cubic" : "linear";
    TS_TRY(em_ts_arg_bool(L, c, 2, &align));
    if (strcmp(c->overload, "vec") == 0) {
        return resize(L, c, c->a[1], c->a[3], mode, align, false, out);
    }
    ts_av *scales = NULL;
    TS_TRY(scales_args(L, c, 3, &scales));
    return resize(L, c, c->a[1], scales, mode, align, false, out);
}

/* ---- shuffles and triangles ---- */

/* Tensor argument 0 and int argument 1 of a shuffle, whose rank must be 4 (need4) or >= 2. */
static ember_status *shuffle_args(ts_lower *L, const ts_call *c, bool need4, int *x, int64_t *k,
                                  int *rank)
{
    TS_TRY(em_ts_arg_tensor(L, c, 0, x));
    TS_TRY(em_ts_arg_int(L, c, 1, k));
    TS_TRY(em_ts_rank(L, c, *x, rank));
    if (need4 ? *rank != 4 : *rank < 2) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s of a rank-%d tensor (%s supported)",
                      c->op, *rank, need4 ? "4" : "2 and more");
    }
    return NULL;
}

/* pixel_shuffle(self, upscale_factor): DepthToSpace in CRD order, torch's. */
static ember_status *lower_pixel_shuffle(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1;
    int64_t r = 1;
    TS_TRY(shuffle_args(L, c, true, &x, &r, &rank));
    TS_TRY(em_ts_emit1(L, c, EM_OP_DEPTHTOSPACE, &x, 1, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "blocksize", r));
    TS_TRY(em_node_set_string(L->g, node, "mode", "CRD"));
    return em_ts_infer(L, c, node);
}

/* Reshape x [A, B, rest...] to [A, g, -1, rest...], swap dims 1 and 2, and reshape to
 * `final` (a 1-D shape value): channel_shuffle's view/transpose/view. */
static ember_status *swap_groups(ts_lower *L, const ts_call *c, int x, int64_t g, int final,
                                 ts_av **out)
{
    int rank = 0, parts[3] = {-1, -1, -1}, shape = -1, r = -1, t = -1, node = -1;
    int64_t mid[2] = {g, -1}, perm[EMBER_MAX_RANK + 1];
    TS_TRY(em_ts_rank(L, c, x, &rank));
    TS_TRY(em_ts_shape_of(L, c, x, 0, 1, &parts[0]));
    TS_TRY(em_ts_const_i64s(L, mid, 2, &parts[1]));
    if (rank > 2) {
        TS_TRY(em_ts_shape_of(L, c, x, 2, rank, &parts[2]));
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, parts, rank > 2 ? 3 : 2, &shape, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    TS_TRY(em_ts_infer(L, c, node));
    int in[2] = {x, shape};
    TS_TRY(em_ts_emit(L, c, EM_OP_RESHAPE, in, 2, &r, 1, NULL));
    for (int d = 0; d <= rank; d++) {
        perm[d] = d == 1 ? 2 : d == 2 ? 1 : d;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &r, 1, &t, 1, &node));
    TS_TRY(set_ints(L, node, "perm", perm, rank + 1));
    TS_TRY(em_ts_infer(L, c, node));
    int in2[2] = {t, final};
    TS_TRY(em_ts_emit1(L, c, EM_OP_RESHAPE, in2, 2, NULL, out));
    em_ts_copy_dims(L, (*out)->u.t.v, x);
    return NULL;
}

/* channel_shuffle(self, groups) */
static ember_status *lower_channel_shuffle(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, shape = -1;
    int64_t g = 1;
    TS_TRY(shuffle_args(L, c, false, &x, &g, &rank));
    TS_TRY(em_ts_shape_of(L, c, x, 0, rank, &shape));
    return swap_groups(L, c, x, g, shape, out);
}

/* pixel_unshuffle(self, downscale_factor): SpaceToDepth gives channels in DCR order
 * ((i * r + j) * C + c); torch's are CRD (c * r * r + i * r + j): a group swap fixes it. */
static ember_status *lower_pixel_unshuffle(ts_lower *L, const ts_call *c, ts_av **out)
{
    int x = -1, rank = 0, node = -1, y = -1, shape = -1;
    int64_t r = 1;
    TS_TRY(shuffle_args(L, c, true, &x, &r, &rank));
    TS_TRY(em_ts_emit(L, c, EM_OP_SPACETODEPTH, &x, 1, &y, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "blocksize", r));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(em_ts_shape_of(L, c, y, 0, 4, &shape));
    return swap_groups(L, c, y, r * r, shape, out);
}

/* tril / triu(self, diagonal=0): Trilu. */
static ember_status *lower_trilu(ts_lower *L, const ts_call *c, ts_av **out)
{
    int in[2] = {-1, -1}, node = -1;
    TS_TRY(em_ts_arg_tensor(L, c, 0, &in[0]));
    TS_TRY(em_ts_as_tensor(L, c, c->a[1], EMBER_DTYPE_I64, &in[1]));
    TS_TRY(em_ts_emit1(L, c, EM_OP_TRILU, in, 2, &node, out));
    TS_TRY(em_node_set_int(L->g, node, "upper", strcmp(c->op, "aten::triu") == 0));
    return em_ts_infer(L, c, node);
}

static const ts_op_entry layout_ops[] = {
    {"aten::expand", lower_expand},
    {"aten::broadcast_to", lower_expand},
    {"aten::expand_as", lower_expand_as},
    {"aten::view_as", lower_reshape_as},
    {"aten::reshape_as", lower_reshape_as},
    {"aten::repeat", lower_repeat},
    {"aten::tile", lower_repeat},
    {"aten::stack", lower_stack},
    {"aten::hstack", lower_hstack},
    {"aten::vstack", lower_vstack},
    {"aten::movedim", lower_movedim},
    {"aten::constant_pad_nd", lower_constant_pad_nd},
    {"aten::pad", lower_pad},
    {"aten::reflection_pad1d", lower_mode_pad},
    {"aten::reflection_pad2d", lower_mode_pad},
    {"aten::reflection_pad3d", lower_mode_pad},
    {"aten::replication_pad1d", lower_mode_pad},
    {"aten::replication_pad2d", lower_mode_pad},
    {"aten::replication_pad3d", lower_mode_pad},
    {"aten::_pad_circular", lower_mode_pad},
    {"aten::upsample_nearest1d", lower_upsample_nearest},
    {"aten::upsample_nearest2d", lower_upsample_nearest},
    {"aten::upsample_nearest3d", lower_upsample_nearest},
    {"aten::_upsample_nearest_exact1d", lower_upsample_nearest},
    {"aten::_upsample_nearest_exact2d", lower_upsample_nearest},
    {"aten::_upsample_nearest_exact3d", lower_upsample_nearest},
    {"aten::upsample_linear1d", lower_upsample_interp},
    {"aten::upsample_bilinear2d", lower_upsample_interp},
    {"aten::upsample_trilinear3d", lower_upsample_interp},
    {"aten::upsample_bicubic2d", lower_upsample_interp},
    {"aten::pixel_shuffle", lower_pixel_shuffle},
    {"aten::pixel_unshuffle", lower_pixel_unshuffle},
    {"aten::channel_shuffle", lower_channel_shuffle},
    {"aten::tril", lower_trilu},
    {"aten::triu", lower_trilu},
};

const ts_op_table em_ts_layout_table = {layout_ops, sizeof layout_ops / sizeof layout_ops[0]};
