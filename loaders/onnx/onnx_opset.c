/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opset normalisation: every node leaves the loader in the newest form of its op, so kernels
 * and shape functions know one form. What changed across opsets of the default domain:
 *
 *  - attributes that became inputs (table `moved` below): Reshape shape (<5), Squeeze and
 *    Unsqueeze axes (<13), ReduceSum axes (<13), the other Reduce* axes (<18), Split split
 *    (<13), Slice starts/ends/axes (<10), Pad pads/value (<11; `paddings` before 2), Clip
 *    min/max (<11), TopK k (<10). They become constant initializers.
 *  - Softmax, LogSoftmax, Hardmax (<13): `axis` meant "flatten to 2-D at axis, normalise each
 *    row": rewritten as Flatten(axis) -> op(axis=1) -> Reshape(input's shape), or just
 *    op(axis=rank-1) when the axis is the last one.
 *  - Split (<18) without sizes: num_outputs. Concat (<4): axis defaulted to 1. Cast (<6): `to`
 *    was a type name. Legacy broadcasting (<7: broadcast=1 with axis) of binary ops.
 *  - BatchNormalization (<9) spatial / is_test / consumed_inputs, (<14) training told by the
 *    running-statistics outputs; Dropout (<12) keeps only its data input (inference); DFT
 *    (<20) axis attribute -> input 2; PRelu (<7) per-channel slope -> [C,1,...]; Upsample and
 *    Resize-10 -> Resize-11+ with (X, roi, scales); Scatter -> ScatterElements; Scan (<9)
 *    marked ember_scan8 (batch axes and sequence_lens, run by the interpreter); RoiAlign (<16)
 *    computed as output_half_pixel; LpPool and GlobalLpPool (<2) had a float p.
 * Where a rewrite needs an op ember lacks, em_op_from_name fails and the node is reported
 * UNSUPPORTED (check_ops lists those before any graph is built).
 * Opsets 22-28 need no rewrite: their changes are new dtypes, new attributes with defaults
 * that keep the old behaviour, or definitions the kernels implement for every opset (review:
 * docs/onnx_opsets.md).
 */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

/* Attributes that became inputs: below opset `before`, attribute `attr` is input `pos`. */
typedef enum { MV_INTS, MV_INT1, MV_SCALAR } mv_kind; /* 1-D i64 / i64 [1] / scalar of X's type */

typedef struct moved {
    const char *op;
    int before;
    const char *attr;
    int pos;
    mv_kind kind;
} moved;

/* clang-format off */
static const moved moved_attrs[] = {
    {"Reshape", 5, "shape", 1, MV_INTS},
    {"Squeeze", 13, "axes", 1, MV_INTS},      {"Unsqueeze", 13, "axes", 1, MV_INTS},
    {"ReduceSum", 13, "axes", 1, MV_INTS},
    {"ReduceMean", 18, "axes", 1, MV_INTS},   {"ReduceMax", 18, "axes", 1, MV_INTS},
    {"ReduceMin", 18, "axes", 1, MV_INTS},    {"ReduceProd", 18, "axes", 1, MV_INTS},
    {"ReduceL1", 18, "axes", 1, MV_INTS},     {"ReduceL2", 18, "axes", 1, MV_INTS},
    {"ReduceLogSum", 18, "axes", 1, MV_INTS}, {"ReduceLogSumExp", 18, "axes", 1, MV_INTS},
    {"ReduceSumSquare", 18, "axes", 1, MV_INTS},
    {"Split", 13, "split", 1, MV_INTS},
    {"Slice", 10, "starts", 1, MV_INTS},      {"Slice", 10, "ends", 2, MV_INTS},
    {"Slice", 10, "axes", 3, MV_INTS},
    {"Pad", 2, "paddings", 1, MV_INTS},       {"Pad", 11, "pads", 1, MV_INTS},
    {"Pad", 11, "value", 2, MV_SCALAR},
    {"Clip", 11, "min", 1, MV_SCALAR},        {"Clip", 11, "max", 2, MV_SCALAR},
    {"TopK", 10, "k", 1, MV_INT1},
};
/* clang-format on */

const char *em_onnx_opset_target(const char *op_type)
{
    if (op_type == NULL) {
        return "";
    }
    if (strcmp(op_type, "Upsample") == 0) {
        return "Resize";
    }
    if (strcmp(op_type, "Scatter") == 0) {
        return "ScatterElements";
    }
    return op_type;
}

static bool is(const onnx_pending *p, const char *op)
{
    return strcmp(p->np->op_type, op) == 0;
}

static const Onnx__AttributeProto *take(onnx_pending *p, const char *attr)
{
    size_t i;
    const Onnx__AttributeProto *ap = em_onnx_node_attr(p->np, attr, &i);
    if (ap != NULL) {
        p->skip_attr[i] = true;
    }
    return ap;
}

static void extra_int(onnx_pending *p, const char *name, int64_t v)
{
    EMBER_ASSERT(p->n_extra < ONNX_MAX_EXTRA_ATTRS);
    p->extra[p->n_extra++] = (onnx_extra_attr){name, EM_ATTR_INT, v, NULL};
}

static void extra_str(onnx_pending *p, const char *name, const char *v)
{
    EMBER_ASSERT(p->n_extra < ONNX_MAX_EXTRA_ATTRS);
    p->extra[p->n_extra++] = (onnx_extra_attr){name, EM_ATTR_STRING, 0, v};
}

/* Sets input `pos`, padding with absent inputs. The buffer holds ONNX_EXTRA_INPUTS spare. */
static void set_input(onnx_pending *p, int pos, int v)
{
    EMBER_ASSERT(pos < (int)p->np->n_input + ONNX_EXTRA_INPUTS);
    while (p->n_in <= pos) {
        p->in[p->n_in++] = -1;
    }
    p->in[pos] = v;
}

static void trim_inputs(onnx_pending *p)
{
    while (p->n_in > 0 && p->in[p->n_in - 1] < 0) {
        p->n_in--;
    }
}

/* dtype and shape of value `v`, running shape inference over the graph built so far when an
 * intermediate is not known yet. Failures there leave it unknown: model_finish reports them. */
static const em_value *value_meta(onnx_scope *sc, int v)
{
    em_value *val = &sc->g->values[v];
    if (val->kind == EM_VAL_INTERMEDIATE && (val->rank < 0 || val->dtype == 0)) {
        ember_status_destroy(em_graph_infer_shapes(sc->g));
    }
    return &sc->g->values[v];
}

static ember_status *move_scalar(onnx_ctx *c, onnx_scope *sc, onnx_pending *p,
                                 const Onnx__AttributeProto *ap, int *idx)
{
    ember_dtype dt = p->n_in > 0 && p->in[0] >= 0 ? value_meta(sc, p->in[0])->dtype : 0;
    double v = ap->f;
    if (dt == EMBER_DTYPE_F64) {
        return em_onnx_add_const(c, sc, p->name, ap->name, dt, &v, 1, 0, idx);
    }
    if (dt != EMBER_DTYPE_F32 && dt != EMBER_DTYPE_UNDEFINED) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (%s): attribute '%s' of opset %lld on %s data", p->name,
                        p->np->op_type, ap->name, (long long)c->opset, em_dtype_name(dt));
    }
    float f = ap->f;
    return em_onnx_add_const(c, sc, p->name, ap->name, EMBER_DTYPE_F32, &f, 1, 0, idx);
}

static ember_status *move_attrs(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    bool moved_any = false;
    for (size_t i = 0; i < sizeof moved_attrs / sizeof moved_attrs[0]; i++) {
        const moved *m = &moved_attrs[i];
        if (c->opset >= m->before || !is(p, m->op)) {
            continue;
        }
        const Onnx__AttributeProto *ap = take(p, m->attr);
        if (ap == NULL || (m->pos < p->n_in && p->in[m->pos] >= 0)) {
            continue;
        }
        int idx = -1;
        ember_status *st;
        if (m->kind == MV_SCALAR) {
            st = move_scalar(c, sc, p, ap, &idx);
        } else if (m->kind == MV_INT1) {
            st = em_onnx_add_const(c, sc, p->name, m->attr, EMBER_DTYPE_I64, &ap->i, 1, 1, &idx);
        } else {
            st = em_onnx_add_const(c, sc, p->name, m->attr, EMBER_DTYPE_I64, ap->ints,
                                (int64_t)ap->n_ints, 1, &idx);
        }
        if (st != NULL) {
            return st;
        }
        set_input(p, m->pos, idx);
        moved_any = true;
    }
    if (moved_any) {
        trim_inputs(p);
    }
    return NULL;
}

/* ---- Softmax, LogSoftmax, Hardmax before opset 13 ---- */

/* The Reshape target restoring `x`'s shape after a 2-D flatten at `k`, from static dims, with
 * 0 (copy dim 0 of the 2-D tensor, equal to x's dim 0 when k == 1) and one -1. */
static bool static_target(const em_value *x, int k, int64_t *shape)
{
    int unknown = 0;
    for (int d = 0; d < x->rank; d++) {
        shape[d] = x->dims[d].v;
        if (shape[d] < 0) {
            shape[d] = d == 0 && k == 1 ? 0 : -1;
            unknown += shape[d] < 0;
        }
        if (x->dims[d].v == 0) {
            return false; /* a real 0 would read as "copy" */
        }
    }
    return unknown <= 1;
}

static ember_status *softmax_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__AttributeProto *ap = take(p, "axis");
    int64_t axis = ap != NULL ? ap->i : 1;
    if (p->n_in != 1 || p->n_out != 1) {
        return NULL; /* the arity check of node_commit reports it */
    }
    const em_value *x = value_meta(sc, p->in[0]);
    int r = x->rank;
    if (r < 0) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (%s): opset %lld flattens the input at axis %lld, and the "
                        "input's rank is unknown at load time",
                        p->name, p->np->op_type, (long long)c->opset, (long long)axis);
    }
    int64_t k = axis < 0 ? axis + r : axis;
    if (k < 0 || k > r) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (%s): axis %lld out of range for rank %d", p->name,
                        p->np->op_type, (long long)axis, r);
    }
    if (k == r - 1) {
        extra_int(p, "axis", k); /* the last axis: both forms agree */
        return NULL;
    }
    int64_t target[EM_MAX_RANK];
    int64_t r64 = r;
    em_op shape_op;
    bool fixed = static_target(x, (int)k, target);
    bool has_shape_op = em_op_from_name("Shape", &shape_op);
    if (!fixed && !has_shape_op) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (%s): opset %lld flattens at axis %lld; restoring a shape "
                        "with several unknown dims needs a Shape op",
                        p->name, p->np->op_type, (long long)c->opset, (long long)axis);
    }
    int in0 = p->in[0], flat = -1, node = -1, y = -1, shape_v = -1, in2[2];
    char nm[300];
    ember_status *st;
    if (fixed) {
        st = em_onnx_add_const(c, sc, p->name, "shape", EMBER_DTYPE_I64, target, r64, 1, &shape_v);
    } else {
        snprintf(nm, sizeof nm, "%s/shape", p->name);
        st = em_onnx_add_node(c, sc, "Shape", nm, &in0, 1, NULL, &node, &shape_v);
    }
    snprintf(nm, sizeof nm, "%s/flatten", p->name);
    if (st == NULL) {
        st = em_onnx_add_node(c, sc, "Flatten", nm, &in0, 1, NULL, &node, &flat);
    }
    if (st == NULL) {
        st = em_node_set_int(sc->g, node, "axis", k);
    }
    if (st == NULL) {
        st = em_onnx_add_node(c, sc, p->op, p->name, &flat, 1, NULL, &node, &y);
    }
    if (st == NULL) {
        extra_int(p, "axis", 1);
        st = em_onnx_copy_attrs(c, sc, p, node);
    }
    snprintf(nm, sizeof nm, "%s/reshape", p->name);
    in2[0] = y;
    in2[1] = shape_v;
    if (st == NULL) {
        st = em_onnx_add_node(c, sc, "Reshape", nm, in2, 2, p->np->output[0], &node, &y);
    }
    p->emitted = true;
    return st;
}

/* ---- the others ---- */

static ember_status *cast_legacy(onnx_ctx *c, onnx_pending *p)
{
    static const char *const names[] = {"",        "FLOAT",  "UINT8",  "INT8",   "UINT16",
                                        "INT16",   "INT32",  "INT64",  "STRING", "BOOL",
                                        "FLOAT16", "DOUBLE", "UINT32", "UINT64"};
    const Onnx__AttributeProto *ap = em_onnx_node_attr(p->np, "to", NULL);
    if (ap == NULL || !ap->has_s) {
        return NULL;
    }
    take(p, "to");
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (ap->s.len == strlen(names[i]) && memcmp(ap->s.data, names[i], ap->s.len) == 0) {
            extra_int(p, "to", i);
            return NULL;
        }
    }
    return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "node '%s' (Cast): unknown target type", p->name);
}

/* Before opset 7, binary ops broadcast only with broadcast=1, B aligned at `axis` of A. */
/* Replaces input `i` of p, an initializer, by a second initializer over the same bytes with
 * dims[0..rank) (as many elements). */
static ember_status *reshape_const(onnx_ctx *c, onnx_scope *sc, onnx_pending *p, int i,
                                   const int64_t *dims, int rank)
{
    const em_value *b = value_meta(sc, p->in[i]);
    char name[256];
    int idx;
    em_storage *s = b->storage;
    size_t off = (size_t)((const char *)b->init.data - (const char *)em_storage_data(s));
    em_onnx_fresh_name(c, sc, p->name, "reshaped", name, sizeof name);
    ember_status *st = em_graph_add_initializer(sc->g, name, b->dtype, rank, dims, s, off, &idx);
    if (st == NULL) {
        st = em_onnx_scope_put(c, sc, idx);
        p->in[i] = idx;
    }
    return st;
}

static ember_status *broadcast_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__AttributeProto *bc = take(p, "broadcast"), *ax = take(p, "axis");
    if (bc == NULL || bc->i == 0 || ax == NULL || p->n_in != 2) {
        return NULL;
    }
    const em_value *a = value_meta(sc, p->in[0]), *b = value_meta(sc, p->in[1]);
    int64_t axis = ax->i < 0 && a->rank >= 0 ? ax->i + a->rank : ax->i;
    if (a->rank >= 0 && b->rank >= 0 && axis + b->rank == a->rank) {
        return NULL; /* trailing alignment: what numpy broadcasting does */
    }
    if (a->rank < 0 || b->rank < 0 || b->kind != EM_VAL_INITIALIZER || axis < 0 ||
        axis + b->rank > a->rank) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (%s): legacy broadcast at axis %lld needs known ranks and a "
                        "constant B",
                        p->name, p->np->op_type, (long long)ax->i);
    }
    /* B gets trailing 1s. */
    int64_t dims[EM_MAX_RANK];
    int rank = (int)(a->rank - axis);
    for (int d = 0; d < rank; d++) {
        dims[d] = d < b->rank ? b->dims[d].v : 1;
    }
    return reshape_const(c, sc, p, 1, dims, rank);
}

/* PRelu before opset 7 applied a [C] slope per channel (axis 1) of X [N, C, ...]; numpy
 * broadcasting needs [C, 1, ..., 1]. */
static ember_status *prelu_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    if (p->n_in != 2) {
        return NULL;
    }
    const em_value *x = value_meta(sc, p->in[0]), *sl = value_meta(sc, p->in[1]);
    if (sl->rank != 1 || sl->dims[0].v == 1 || (x->rank >= 0 && x->rank <= 2)) {
        return NULL; /* a shared slope, or [N, C]: both forms agree */
    }
    if (x->rank < 0 || sl->kind != EM_VAL_INITIALIZER) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (PRelu, opset < 7): a per-channel slope needs X's rank and a "
                        "constant slope", p->name);
    }
    int64_t dims[EM_MAX_RANK];
    for (int d = 0; d < x->rank - 1; d++) {
        dims[d] = d == 0 ? sl->dims[0].v : 1;
    }
    return reshape_const(c, sc, p, 1, dims, x->rank - 1);
}

static bool output_used(const onnx_scope *sc, const onnx_pending *p, size_t i)
{
    return p->np->n_output > i && p->np->output[i][0] != '\0' &&
           em_onnx_name_used(sc, p->np->output[i]);
}

/* Before opset 14 BatchNormalization trained when its running statistics were outputs; from
 * 14 on, training_mode says so. saved_mean / saved_var (opsets < 14) are not computed. */
/* DFT before opset 20: `axis` was an attribute (default 1); now input 2 (default -2). */
static ember_status *dft_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__AttributeProto *ax = take(p, "axis");
    int64_t axis = ax != NULL ? ax->i : 1;
    int idx;
    ember_status *st = em_onnx_add_const(c, sc, p->name, "axis", EMBER_DTYPE_I64, &axis, 1, 0, &idx);
    if (st == NULL) {
        set_input(p, 2, idx);
    }
    return st;
}

static ember_status *batchnorm_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__AttributeProto *sp = take(p, "spatial");
    take(p, "is_test");
    if (c->opset < 9 && sp != NULL && sp->i == 0) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (BatchNormalization): spatial=0 (per-element statistics) is "
                        "not supported",
                        p->name);
    }
    if (c->opset < 14 && (output_used(sc, p, 3) || output_used(sc, p, 4))) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (BatchNormalization): outputs saved_mean / saved_var are not "
                        "supported",
                        p->name);
    }
    if (c->opset < 14 && (output_used(sc, p, 1) || output_used(sc, p, 2))) {
        extra_int(p, "training_mode", 1);
    }
    return NULL;
}

static ember_status *resize_legacy(onnx_ctx *c, onnx_pending *p, onnx_scope *sc)
{
    bool upsample = is(p, "Upsample");
    if (!upsample && c->opset >= 11) {
        return NULL;
    }
    if (upsample && c->opset < 7) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (Upsample): opset %lld is not supported (7 and later are)",
                        p->name, (long long)c->opset);
    }
    int scales = p->n_in > 1 ? p->in[1] : -1;
    const Onnx__AttributeProto *ap = take(p, "scales");
    if (ap != NULL && scales < 0) {
        ember_status *st = em_onnx_add_const(c, sc, p->name, "scales", EMBER_DTYPE_F32, ap->floats,
                                          (int64_t)ap->n_floats, 1, &scales);
        if (st != NULL) {
            return st;
        }
    }
    p->n_in = 1;
    set_input(p, 1, -1); /* roi */
    set_input(p, 2, scales);
    /* Upsample and Resize-10 index the input as x_out / scale, rounded down for nearest. */
    extra_str(p, "coordinate_transformation_mode", "asymmetric");
    extra_str(p, "nearest_mode", "floor");
    return NULL;
}

static ember_status *groupnorm_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p);

ember_status *em_onnx_opset_normalise(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    take(p, "consumed_inputs"); /* an optimisation hint of opsets < 6, gone since */
    ember_status *st = move_attrs(c, sc, p);
    if (st != NULL) {
        return st;
    }
    if (c->opset < 13 && (is(p, "Softmax") || is(p, "LogSoftmax") || is(p, "Hardmax"))) {
        return softmax_legacy(c, sc, p);
    }
    if (is(p, "GroupNormalization") && c->opset < 21) {
        return groupnorm_legacy(c, sc, p);
    }
    if (is(p, "Split") && c->opset < 18 && p->n_in < 2) {
        extra_int(p, "num_outputs", (int64_t)p->np->n_output);
    } else if (is(p, "Concat") && c->opset < 4 && em_onnx_node_attr(p->np, "axis", NULL) == NULL) {
        extra_int(p, "axis", 1);
    } else if (is(p, "Cast") && c->opset < 6) {
        return cast_legacy(c, p);
    } else if (c->opset < 7 && (is(p, "Add") || is(p, "Sub") || is(p, "Mul") || is(p, "Div") ||
                                is(p, "Pow") || is(p, "And") || is(p, "Or") || is(p, "Xor") ||
                                is(p, "Equal") || is(p, "Greater") || is(p, "Less"))) {
        return broadcast_legacy(c, sc, p);
    } else if (is(p, "Gemm") && c->opset < 7) {
        take(p, "broadcast");
    } else if (is(p, "RoiAlign") && c->opset < 16 &&
               em_onnx_node_attr(p->np, "coordinate_transformation_mode", NULL) == NULL) {
        extra_str(p, "coordinate_transformation_mode", "output_half_pixel"); /* opset 10 */
    } else if ((is(p, "LpPool") || is(p, "GlobalLpPool")) && c->opset < 2) {
        const Onnx__AttributeProto *pa = take(p, "p"); /* a float before opset 2 */
        extra_int(p, "p", pa != NULL ? (int64_t)pa->f : 2);
    } else if (is(p, "DFT") && c->opset < 20) {
        return dft_legacy(c, sc, p);
    } else if (is(p, "PRelu") && c->opset < 7) {
        return prelu_legacy(c, sc, p);
    } else if (is(p, "Scan") && c->opset < 9) {
        extra_int(p, "ember_scan8", 1); /* sequence_lens first, batch axes: see interp.c */
    } else if (is(p, "BatchNormalization")) {
        return batchnorm_legacy(c, sc, p);
    } else if (is(p, "Dropout") && c->opset < 12) {
        /* Before opset 12 Dropout had no training_mode input: it ran as in inference. The
         * mask was of the data's dtype before opset 10. */
        if (c->opset < 10 && p->np->n_output > 1 && p->np->output[1][0] != '\0' &&
            em_onnx_name_used(sc, p->np->output[1])) {
            return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                            "node '%s' (Dropout, opset %lld): its mask output (of the data's "
                            "dtype before opset 10) is not supported",
                            p->name, (long long)c->opset);
        }
        for (size_t i = 0; i < p->np->n_attribute; i++) {
            p->skip_attr[i] = true; /* ratio, is_test, seed: inference ignores them */
        }
        p->n_in = p->n_in > 1 ? 1 : p->n_in;
    } else if (is(p, "Upsample") || is(p, "Resize")) {
        return resize_legacy(c, p, sc);
    }
    return NULL;
}

/* ---- GroupNormalization before opset 21 ---- */

/* Input i (scale or bias) of GroupNormalization-18, one value per group [G], as one value per
 * channel [C]: each value repeated C / G times. A constant is expanded here; otherwise
 * Reshape [G, 1] -> Expand [G, C / G] -> Reshape [C] nodes do it. */
static ember_status *groupnorm_per_channel(onnx_ctx *c, onnx_scope *sc, onnx_pending *p, int i,
                                           int64_t groups, int64_t ch)
{
    const em_value *v = value_meta(sc, p->in[i]);
    const char *what = i == 1 ? "scale" : "bias";
    if (v->kind == EM_VAL_INITIALIZER && v->rank == 1 && v->dims[0].v == groups) {
        size_t es = em_dtype_size(v->dtype);
        char *buf = em_malloc(sc->g->al, (size_t)ch * es);
        if (buf == NULL) {
            return em_status_oom();
        }
        for (int64_t k = 0; k < ch; k++) {
            memcpy(buf + (size_t)k * es,
                   (const char *)v->init.data + (size_t)(k / (ch / groups)) * es, es);
        }
        int idx;
        ember_status *st = em_onnx_add_const(c, sc, p->name, what, v->dtype, buf, ch, 1, &idx);
        em_free(sc->g->al, buf);
        if (st == NULL) {
            p->in[i] = idx;
        }
        return st;
    }
    const int64_t shapes[3][2] = {{groups, 1}, {groups, ch / groups}, {ch, 0}};
    static const char *const ops[3] = {"Reshape", "Expand", "Reshape"};
    int x = p->in[i];
    for (int k = 0; k < 3; k++) {
        char nm[300], suffix[32];
        int shape, node, in2[2];
        snprintf(suffix, sizeof suffix, "%s_shape%d", what, k);
        snprintf(nm, sizeof nm, "%s/%s_per_channel%d", p->name, what, k);
        ember_status *st = em_onnx_add_const(c, sc, p->name, suffix, EMBER_DTYPE_I64, shapes[k],
                                          k < 2 ? 2 : 1, 1, &shape);
        in2[0] = x;
        in2[1] = shape;
        if (st == NULL) {
            st = em_onnx_add_node(c, sc, ops[k], nm, in2, 2, NULL, &node, &x);
        }
        if (st != NULL) {
            return st;
        }
    }
    p->in[i] = x;
    return NULL;
}

/* GroupNormalization-18 took scale and bias per group ([num_groups]); opset 21 takes them per
 * channel ([C]), the form the kernel computes. Needs C (X's dim 1) at load time unless the two
 * forms agree (num_groups == C). */
static ember_status *groupnorm_legacy(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__AttributeProto *ap = em_onnx_node_attr(p->np, "num_groups", NULL);
    if (ap == NULL || ap->i < 1 || p->n_in != 3 || p->in[0] < 0 || p->in[1] < 0 || p->in[2] < 0) {
        return NULL; /* the shape function and the kernel report it */
    }
    const em_value *x = value_meta(sc, p->in[0]);
    int64_t ch = x->rank >= 2 ? x->dims[1].v : -1;
    if (ch == ap->i) {
        return NULL;
    }
    if (ch < 0) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (GroupNormalization, opset %lld): per-group scale and bias "
                        "need X's channel count at load time",
                        p->name, (long long)c->opset);
    }
    if (ch % ap->i != 0) {
        return NULL;
    }
    ember_status *st = groupnorm_per_channel(c, sc, p, 1, ap->i, ch);
    return st != NULL ? st : groupnorm_per_channel(c, sc, p, 2, ap->i, ch);
}
