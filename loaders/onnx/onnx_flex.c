/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FlexAttention of ai.onnx.preview (version 1), expanded at load into default-domain nodes the
 * way ONNX's function body does (onnx/defs/preview/defs.cc). With Q [B, Hq, L, E], K [B, Hkv,
 * S, E], V [B, Hkv, S, Ev] and sp the softmax precision (attribute softmax_precision; by
 * default double for double inputs, float otherwise):
 *
 *   s     = Cast(sqrt(scale) in f32, Q's type)       scale defaults to 1 / sqrt(E)
 *   Kr,Vr = K, V with each head repeated Hq / Hkv times in a row (GQA; skipped when the head
 *           counts are known to be equal)
 *   Score = Cast((Q * s) @ transpose(Kr * s), sp)    pre-scaled as the reference rounds in f16
 *   Score = score_mod(Score)
 *   P     = prob_mod(Softmax(Score, axis -1))
 *   Y     = Cast(P @ Cast(Vr, sp), Q's type)         (no casts when sp is Q's type)
 *
 * A negative scale (NaN in ONNX's body, which takes sqrt(scale)) puts its sign on Q's factor.
 * score_mod and prob_mod are graphs of one input and one output, inlined where they stand:
 * their input is bound to the score / probability value, their initializers become constants
 * and every name they define gets a fresh name in the enclosing graph, also where a nested
 * subgraph (an If inside score_mod) reads it; names they do not define resolve in the
 * enclosing graph. Their nodes then go through the loader like any node (opset rewrites, a
 * nested FlexAttention). A nested subgraph must not define a name the modifier defines (ONNX's
 * single-assignment rule), or its readers would be renamed to the modifier's value. The loader
 * does not see the renamed names among those read, so an inlined node's outputs beyond those
 * ember computes count as unused (a later reader then finds its input undefined).
 *
 * Checks at load (INVALID_MODEL naming the node): inputs Q, K, V and at most one output; ranks
 * 4 and the dims that must agree, where known; one float type for Q, K, V; the attributes (no
 * others, of the right kinds, softmax_precision a float type) and the modifiers' signatures.
 * Shapes and types are the declared ones, or those inferred from the nodes before this one.
 * Unknown ranks get a Reshape to [0, 0, 0, 0] that refuses other ranks at run time. sp must be
 * known at load: when no type of Q, K, V is, softmax_precision has to be set (and the result
 * is cast back with CastLike).
 */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLEX_SCORE_MOD = 0, FLEX_PROB_MOD = 1 };

static const char *const mod_names[2] = {"score_mod", "prob_mod"};
static const char *const mod_values[2] = {"scores", "probabilities"};

/* The node being expanded. */
typedef struct flex {
    onnx_ctx *c;
    onnx_scope *sc;
    const onnx_pending *p;
    ember_dtype dt; /* of Q, K and V (one known is enough); UNDEFINED when none is known */
    ember_dtype sp; /* softmax precision */
    const Onnx__AttributeProto *scale, *precision, *mods[2];
} flex;

static ember_status *bad(const flex *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static ember_status *bad(const flex *f, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_onnx_err(f->c, EMBER_ERR_INVALID_MODEL, "node '%s' (FlexAttention): %s", f->p->name,
                    msg);
}

/* ---- checks ---- */

/* Whether `ap` is of kind `type`; attributes of old IR versions tell it by the field set. */
static bool attr_is(const Onnx__AttributeProto *ap, Onnx__AttributeProto__AttributeType type,
                    bool field_set)
{
    return field_set && (!ap->has_type || ap->type == type);
}

static ember_status *read_attrs(flex *f)
{
    const Onnx__NodeProto *np = f->p->np;
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *ap = np->attribute[i];
        const char *n = ap->name != NULL ? ap->name : "";
        int k = strcmp(n, "score_mod") == 0  ? FLEX_SCORE_MOD
                : strcmp(n, "prob_mod") == 0 ? FLEX_PROB_MOD
                                             : -1;
        if (strcmp(n, "scale") == 0) {
            if (!attr_is(ap, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, ap->has_f)) {
                return bad(f, "attribute 'scale' must be a float");
            }
            f->scale = ap;
        } else if (strcmp(n, "softmax_precision") == 0) {
            if (!attr_is(ap, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, ap->has_i)) {
                return bad(f, "attribute 'softmax_precision' must be an int");
            }
            f->precision = ap;
        } else if (k >= 0) {
            if (!attr_is(ap, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ap->g != NULL)) {
                return bad(f, "attribute '%s' must be a graph", n);
            }
            f->mods[k] = ap;
        } else {
            return bad(f,
                       "unknown attribute '%s' (FlexAttention has scale, softmax_precision, "
                       "score_mod and prob_mod)",
                       n);
        }
    }
    return NULL;
}

static bool is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16 ||
           dt == EMBER_DTYPE_F64;
}

static int64_t dim_of(const em_value *v, int d)
{
    return v->rank == 4 ? v->dims[d].v : -1;
}

/* Whether dim d of a and dim e of b are known to differ. */
static bool dims_differ(const em_value *a, int d, const em_value *b, int e)
{
    int64_t x = dim_of(a, d), y = dim_of(b, e);
    return x >= 0 && y >= 0 && x != y;
}

static ember_status *check_dims(const flex *f, const em_value *q, const em_value *k,
                                const em_value *v)
{
    if (dims_differ(q, 0, k, 0) || dims_differ(k, 0, v, 0) || dims_differ(q, 0, v, 0)) {
        return bad(f, "batch sizes differ: Q %lld, K %lld, V %lld", (long long)dim_of(q, 0),
                   (long long)dim_of(k, 0), (long long)dim_of(v, 0));
    }
    if (dims_differ(k, 1, v, 1)) {
        return bad(f, "K has %lld heads, V %lld", (long long)dim_of(k, 1), (long long)dim_of(v, 1));
    }
    if (dims_differ(k, 2, v, 2)) {
        return bad(f, "K has %lld positions (kv_sequence_length), V %lld", (long long)dim_of(k, 2),
                   (long long)dim_of(v, 2));
    }
    if (dims_differ(q, 3, k, 3)) {
        return bad(f, "Q's head size %lld differs from K's %lld", (long long)dim_of(q, 3),
                   (long long)dim_of(k, 3));
    }
    int64_t hq = dim_of(q, 1), hkv = dim_of(k, 1);
    if (hq >= 0 && hkv >= 0 && (hkv == 0 ? hq != 0 : hq % hkv != 0)) {
        return bad(f,
                   "Q's %lld heads are not a multiple of K's and V's %lld (grouped query "
                   "attention)",
                   (long long)hq, (long long)hkv);
    }
    return NULL;
}

static ember_status *check_inputs(flex *f)
{
    static const char *const names[3] = {"Q", "K", "V"};
    static const char *const layouts[3] = {"batch, q_num_heads, q_sequence_length, head_size",
                                           "batch, kv_num_heads, kv_sequence_length, head_size",
                                           "batch, kv_num_heads, kv_sequence_length, v_head_size"};
    const onnx_pending *p = f->p;
    em_graph *g = f->sc->g;
    if (p->np->n_input != 3 || p->n_in != 3 || p->in[0] < 0 || p->in[1] < 0 || p->in[2] < 0) {
        return bad(f, "needs the three inputs Q, K and V (has %zu, some may be empty)",
                   p->np->n_input);
    }
    if (p->np->n_output > 1) {
        return bad(f, "has %zu outputs, FlexAttention has one (Y)", p->np->n_output);
    }
    bool unknown = false;
    for (int i = 0; i < 3; i++) {
        const em_value *v = &g->values[p->in[i]];
        unknown = unknown || v->rank < 0 || v->dtype == EMBER_DTYPE_UNDEFINED;
    }
    if (unknown) {
        /* Best effort: inputs that are outputs of earlier nodes get their types and shapes;
         * an error here is reported again, better placed, when the model is finished. */
        ember_status_destroy(em_graph_infer_shapes(g));
    }
    const em_value *v[3] = {&g->values[p->in[0]], &g->values[p->in[1]], &g->values[p->in[2]]};
    f->dt = EMBER_DTYPE_UNDEFINED;
    for (int i = 0; i < 3; i++) {
        if (v[i]->rank >= 0 && v[i]->rank != 4) {
            return bad(f, "input %s has rank %d, FlexAttention takes rank-4 inputs (%s)", names[i],
                       v[i]->rank, layouts[i]);
        }
        ember_dtype dt = v[i]->dtype;
        if (dt != EMBER_DTYPE_UNDEFINED && !is_float(dt)) {
            return bad(f,
                       "input %s is %s; Q, K and V must be of a float type (f16, bf16, f32 "
                       "or f64)",
                       names[i], em_dtype_name(dt));
        }
        if (dt != EMBER_DTYPE_UNDEFINED && f->dt != EMBER_DTYPE_UNDEFINED && dt != f->dt) {
            return bad(f, "Q, K and V must have one element type (%s is %s, not %s)", names[i],
                       em_dtype_name(dt), em_dtype_name(f->dt));
        }
        f->dt = dt != EMBER_DTYPE_UNDEFINED ? dt : f->dt;
    }
    return check_dims(f, v[0], v[1], v[2]);
}

static ember_status *pick_precision(flex *f)
{
    if (f->precision != NULL) {
        int64_t t = f->precision->i;
        f->sp = (ember_dtype)t;
        if (t != EMBER_DTYPE_F32 && t != EMBER_DTYPE_F16 && t != EMBER_DTYPE_BF16 &&
            t != EMBER_DTYPE_F64) {
            return bad(f,
                       "softmax_precision %lld is not 1 (float), 10 (float16), 16 (bfloat16) "
                       "or 11 (double)",
                       (long long)t);
        }
        return NULL;
    }
    if (f->dt == EMBER_DTYPE_UNDEFINED) {
        return em_onnx_err(f->c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (FlexAttention): the element type of Q, K and V is not known "
                        "at load, and without it the softmax precision is not either; set the "
                        "attribute softmax_precision",
                        f->p->name);
    }
    f->sp = f->dt == EMBER_DTYPE_F64 ? EMBER_DTYPE_F64 : EMBER_DTYPE_F32;
    return NULL;
}

/* The declared type of a modifier's input or output, when it has one, must be that of the
 * scores: sp, rank 4. */
static ember_status *check_mod_value(const flex *f, int k, const Onnx__ValueInfoProto *vi,
                                     const char *what)
{
    const char *mod = mod_names[k];
    if (vi->name == NULL || vi->name[0] == '\0') {
        return bad(f, "the %s of %s has no name", what, mod);
    }
    const Onnx__TypeProto *tp = vi->type;
    if (tp == NULL || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
        return NULL;
    }
    if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || tp->tensor_type == NULL) {
        return bad(f, "the %s of %s must be a tensor", what, mod);
    }
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    bool known;
    ember_dtype dt = em_onnx_dtype(tt->elem_type, &known);
    if (tt->elem_type != 0 && dt != f->sp) {
        return bad(f, "the %s of %s is %s; the %s are %s (softmax_precision)", what, mod,
                   known ? em_dtype_name(dt) : "of an unknown type", mod_values[k],
                   em_dtype_name(f->sp));
    }
    if (tt->shape != NULL && tt->shape->n_dim != 4) {
        return bad(f,
                   "the %s of %s has rank %zu; the %s are rank 4 (batch, q_num_heads, "
                   "q_sequence_length, kv_sequence_length)",
                   what, mod, tt->shape->n_dim, mod_values[k]);
    }
    return NULL;
}

static ember_status *check_mod(const flex *f, int k)
{
    const Onnx__GraphProto *gp = f->mods[k]->g;
    if (gp->n_input != 1 || gp->n_output != 1) {
        return bad(f, "%s has %zu inputs and %zu outputs; it must map one tensor (the %s) to one",
                   mod_names[k], gp->n_input, gp->n_output, mod_values[k]);
    }
    ember_status *st = check_mod_value(f, k, gp->input[0], "input");
    return st != NULL ? st : check_mod_value(f, k, gp->output[0], "output");
}

/* ---- node builders: every node is named after the FlexAttention node ---- */

/* Adds `op` on in[0..n); its output is the node's output Y when `y`, else a fresh value. */
static ember_status *add(const flex *f, const char *op, const int *in, int n, bool y, int *out,
                         int *node)
{
    int nd;
    return em_onnx_add_node(f->c, f->sc, op, f->p->name, in, n, y ? f->p->np->output[0] : NULL,
                         node != NULL ? node : &nd, out);
}

static ember_status *op1(const flex *f, const char *op, int a, int *out)
{
    return add(f, op, &a, 1, false, out, NULL);
}

static ember_status *op2(const flex *f, const char *op, int a, int b, bool y, int *out)
{
    int in[2] = {a, b};
    return add(f, op, in, 2, y, out, NULL);
}

/* `op` on `a` with the int attribute `attr` = `value` (Cast's to, Softmax's axis). */
static ember_status *op_int(const flex *f, const char *op, int a, const char *attr, int64_t value,
                            bool y, int *out)
{
    int node;
    ember_status *st = add(f, op, &a, 1, y, out, &node);
    return st != NULL ? st : em_node_set_int(f->sc->g, node, attr, value);
}

/* Shape(x)[start:end]. */
static ember_status *shape_slice(const flex *f, int x, int64_t start, int64_t end, int *out)
{
    int node;
    ember_status *st = add(f, "Shape", &x, 1, false, out, &node);
    if (st == NULL) {
        st = em_node_set_int(f->sc->g, node, "start", start);
    }
    return st != NULL ? st : em_node_set_int(f->sc->g, node, "end", end);
}

static ember_status *const_i64(const flex *f, const int64_t *v, int64_t n, int *out)
{
    return em_onnx_add_const(f->c, f->sc, f->p->name, "const", EMBER_DTYPE_I64, v, n, 1, out);
}

static ember_status *concat(const flex *f, const int *in, int n, int *out)
{
    int node;
    ember_status *st = add(f, "Concat", in, n, false, out, &node);
    return st != NULL ? st : em_node_set_int(f->sc->g, node, "axis", 0);
}

/* x as a rank-4 view: a Reshape to [0, 0, 0, 0] fails at run time on any other rank. */
static ember_status *rank4(const flex *f, int *x)
{
    static const int64_t zeros[4] = {0, 0, 0, 0};
    int shape;
    ember_status *st = const_i64(f, zeros, 4, &shape);
    return st != NULL ? st : op2(f, "Reshape", *x, shape, false, x);
}

/* K or V [B, Hkv, S, D] with each head repeated in a row: [B, Hq, S, D]. `reps` is
 * [1, 1, Hq / Hkv, 1, 1], `hq` is [Hq]. */
static ember_status *repeat_heads(const flex *f, int x, int reps, int hq, int *out)
{
    static const int64_t axis2 = 2;
    int ax, u, e, b, sd, shape;
    ember_status *st = NULL;
    EMBER_TRY(const_i64(f, &axis2, 1, &ax));
    EMBER_TRY(op2(f, "Unsqueeze", x, ax, false, &u)); /* [B, Hkv, 1, S, D] */
    EMBER_TRY(op2(f, "Expand", u, reps, false, &e));  /* [B, Hkv, Hq / Hkv, S, D] */
    EMBER_TRY(shape_slice(f, x, 0, 1, &b));
    EMBER_TRY(shape_slice(f, x, 2, 4, &sd));
    EMBER_TRY(concat(f, (int[]){b, hq, sd}, 3, &shape));
    EMBER_TRY(op2(f, "Reshape", e, shape, false, out));
fail:
    return st;
}

static ember_status *repeat_kv(const flex *f, int q, int *k, int *v)
{
    static const int64_t ones[2] = {1, 1};
    int hq, hkv, r, one, reps;
    ember_status *st = NULL;
    EMBER_TRY(shape_slice(f, q, 1, 2, &hq));
    EMBER_TRY(shape_slice(f, *k, 1, 2, &hkv));
    EMBER_TRY(op2(f, "Div", hq, hkv, false, &r));
    EMBER_TRY(const_i64(f, ones, 2, &one));
    EMBER_TRY(concat(f, (int[]){one, r, one}, 3, &reps));
    EMBER_TRY(repeat_heads(f, *k, reps, hq, k));
    EMBER_TRY(repeat_heads(f, *v, reps, hq, v));
fail:
    return st;
}

/* Whether Q and K are known to have as many heads. */
static bool same_heads(const flex *f, int q, int k)
{
    const em_dim *a = &f->sc->g->values[q].dims[1], *b = &f->sc->g->values[k].dims[1];
    if (f->sc->g->values[q].rank != 4 || f->sc->g->values[k].rank != 4) {
        return false;
    }
    return (a->v >= 0 && a->v == b->v) || (a->sym > 0 && a->sym == b->sym);
}

/* The factors of Q and K, in Q's type: sqrt(scale) on both (-sqrt(-scale) on Q when scale is
 * negative); sqrt(1 / sqrt(E)), computed in f32, by default. */
static ember_status *scale_factors(const flex *f, int q, int *sq, int *sk)
{
    ember_status *st = NULL;
    int r, e;
    if (f->scale != NULL) {
        float s = f->scale->f, root = sqrtf(fabsf(s)), neg = -root;
        EMBER_TRY(
            em_onnx_add_const(f->c, f->sc, f->p->name, "scale", EMBER_DTYPE_F32, &root, 1, 1, &r));
        EMBER_TRY(op2(f, "CastLike", r, q, false, sk));
        *sq = *sk;
        if (s < 0) {
            EMBER_TRY(
                em_onnx_add_const(f->c, f->sc, f->p->name, "scale", EMBER_DTYPE_F32, &neg, 1, 1, &r));
            EMBER_TRY(op2(f, "CastLike", r, q, false, sq));
        }
        return NULL;
    }
    EMBER_TRY(shape_slice(f, q, 3, 4, &e));
    EMBER_TRY(op_int(f, "Cast", e, "to", EMBER_DTYPE_F32, false, &e));
    EMBER_TRY(op1(f, "Sqrt", e, &e));
    EMBER_TRY(op1(f, "Reciprocal", e, &e));
    EMBER_TRY(op1(f, "Sqrt", e, &e));
    EMBER_TRY(op2(f, "CastLike", e, q, false, sk));
    *sq = *sk;
fail:
    return st;
}

/* ---- inlining score_mod / prob_mod ---- */

typedef struct inl_block {
    struct inl_block *next;
    max_align_t data[];
} inl_block;

typedef struct inl_rename {
    const char *from, *to;
} inl_rename;

/* The renaming of one modifier; every copy lives in `blocks` until the inlining ends. */
typedef struct flex_inl {
    const flex *f;
    inl_block *blocks;
    inl_rename *map; /* sorted by `from` once complete */
    size_t n_map;
} flex_inl;

static void *inl_alloc(flex_inl *r, size_t n)
{
    inl_block *b = em_malloc(r->f->sc->g->al, sizeof *b + (n ? n : 1));
    if (b == NULL) {
        return NULL;
    }
    b->next = r->blocks;
    r->blocks = b;
    return b->data;
}

static void inl_free(flex_inl *r)
{
    while (r->blocks != NULL) {
        inl_block *b = r->blocks;
        r->blocks = b->next;
        em_free(r->f->sc->g->al, b);
    }
}

static int cmp_rename(const void *a, const void *b)
{
    return strcmp(((const inl_rename *)a)->from, ((const inl_rename *)b)->from);
}

/* `name` after the renaming. */
static const char *inl_name(const flex_inl *r, const char *name)
{
    inl_rename key = {name, NULL};
    const inl_rename *hit = name != NULL && name[0] != '\0'
                                ? bsearch(&key, r->map, r->n_map, sizeof key, cmp_rename)
                                : NULL;
    return hit != NULL ? hit->to : name;
}

/* Adds the renaming of `from` to `to` (copied). */
static ember_status *inl_map(flex_inl *r, const char *from, const char *to)
{
    size_t n = strlen(to) + 1;
    char *copy = inl_alloc(r, n);
    if (copy == NULL) {
        return em_status_oom();
    }
    memcpy(copy, to, n);
    r->map[r->n_map++] = (inl_rename){from, copy};
    return NULL;
}

/* A fresh name in the enclosing graph for `from`, defined by modifier k. */
static ember_status *inl_fresh(flex_inl *r, int k, const char *from)
{
    char suffix[160], name[256];
    snprintf(suffix, sizeof suffix, "%s.%s", mod_names[k], from);
    em_onnx_fresh_name(r->f->c, r->f->sc, r->f->p->name, suffix, name, sizeof name);
    return inl_map(r, from, name);
}

static Onnx__GraphProto *inl_graph(flex_inl *r, const Onnx__GraphProto *gp);

/* A copy of `np` reading (and, when `outputs`, writing) renamed values; nested graphs are
 * copied renamed too. `name` replaces the node's name when not NULL. */
static Onnx__NodeProto *inl_node(flex_inl *r, const Onnx__NodeProto *np, const char *name,
                                 bool outputs)
{
    Onnx__NodeProto *n = inl_alloc(r, sizeof *n);
    char **in = inl_alloc(r, sizeof(char *) * np->n_input);
    char **out = inl_alloc(r, sizeof(char *) * np->n_output);
    Onnx__AttributeProto **attrs = inl_alloc(r, sizeof(Onnx__AttributeProto *) * np->n_attribute);
    if (n == NULL || in == NULL || out == NULL || attrs == NULL) {
        return NULL;
    }
    *n = *np;
    for (size_t i = 0; i < np->n_input; i++) {
        in[i] = (char *)inl_name(r, np->input[i]);
    }
    for (size_t i = 0; i < np->n_output; i++) {
        out[i] = outputs ? (char *)inl_name(r, np->output[i]) : np->output[i];
    }
    for (size_t i = 0; i < np->n_attribute; i++) {
        attrs[i] = np->attribute[i];
        if (attrs[i]->g != NULL) {
            Onnx__AttributeProto *a = inl_alloc(r, sizeof *a);
            if (a == NULL) {
                return NULL;
            }
            *a = *attrs[i];
            a->g = inl_graph(r, attrs[i]->g);
            if (a->g == NULL) {
                return NULL;
            }
            attrs[i] = a;
        }
    }
    n->input = in;
    n->output = out;
    n->attribute = attrs;
    if (name != NULL) {
        n->name = (char *)name;
    }
    return n;
}

/* A nested graph whose reads of the modifier's values are renamed (its nodes and outputs). */
static Onnx__GraphProto *inl_graph(flex_inl *r, const Onnx__GraphProto *gp)
{
    Onnx__GraphProto *g = inl_alloc(r, sizeof *g);
    Onnx__NodeProto **nodes = inl_alloc(r, sizeof(Onnx__NodeProto *) * gp->n_node);
    Onnx__ValueInfoProto **outs = inl_alloc(r, sizeof(Onnx__ValueInfoProto *) * gp->n_output);
    if (g == NULL || nodes == NULL || outs == NULL) {
        return NULL;
    }
    *g = *gp;
    for (size_t i = 0; i < gp->n_node; i++) {
        if ((nodes[i] = inl_node(r, gp->node[i], NULL, false)) == NULL) {
            return NULL;
        }
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        if ((outs[i] = inl_alloc(r, sizeof *outs[i])) == NULL) {
            return NULL;
        }
        *outs[i] = *gp->output[i];
        outs[i]->name = (char *)inl_name(r, gp->output[i]->name);
    }
    g->node = nodes;
    g->output = outs;
    return g;
}

/* Builds the renaming of modifier k: its input to value `x`, its initializers (added as
 * constants) and its nodes' outputs to fresh names. */
static ember_status *inl_prepare(flex_inl *r, int k, const Onnx__GraphProto *gp, int x)
{
    const flex *f = r->f;
    size_t n = 1 + gp->n_initializer;
    for (size_t i = 0; i < gp->n_node; i++) {
        n += gp->node[i]->n_output;
    }
    r->map = inl_alloc(r, sizeof *r->map * n);
    if (r->map == NULL) {
        return em_status_oom();
    }
    ember_status *st = inl_map(r, gp->input[0]->name, f->sc->g->values[x].name);
    for (size_t i = 0; i < gp->n_initializer && st == NULL; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        const char *from = tp->name != NULL ? tp->name : "";
        em_tensor t;
        em_storage *s = NULL;
        size_t off;
        int idx;
        if (from[0] == '\0') {
            return bad(f, "initializer %zu of %s has no name", i, mod_names[k]);
        }
        st = inl_fresh(r, k, from);
        if (st == NULL) {
            st = em_onnx_tensor_convert(f->c, tp, from, &t, &s, &off);
        }
        if (st == NULL) {
            st = em_graph_add_initializer(f->sc->g, r->map[r->n_map - 1].to, t.dtype, t.rank,
                                          t.dims, s, off, &idx);
            st = st != NULL ? st : em_onnx_scope_put(f->c, f->sc, idx);
        }
        em_storage_release(s);
    }
    for (size_t i = 0; i < gp->n_node && st == NULL; i++) {
        for (size_t o = 0; o < gp->node[i]->n_output && st == NULL; o++) {
            const char *from = gp->node[i]->output[o];
            st = from[0] != '\0' ? inl_fresh(r, k, from) : NULL;
        }
    }
    if (st != NULL) {
        return st;
    }
    qsort(r->map, r->n_map, sizeof *r->map, cmp_rename);
    for (size_t i = 1; i < r->n_map; i++) {
        if (strcmp(r->map[i - 1].from, r->map[i].from) == 0) {
            return bad(f, "%s defines '%s' twice", mod_names[k], r->map[i].from);
        }
    }
    return NULL;
}

/* The value the modifier's output names: one of its own, or a value of the enclosing graphs
 * (read through an Identity so that the loader captures it). */
static ember_status *inl_output(flex_inl *r, int k, const char *out, int *y)
{
    const flex *f = r->f;
    char name[256], from[160];
    *y = em_graph_find_value(f->sc->g, out);
    if (*y >= 0) {
        return NULL;
    }
    if (f->sc->parent == NULL) {
        return bad(f, "the output '%s' of %s is not defined", out, mod_names[k]);
    }
    snprintf(from, sizeof from, "%s.output", mod_names[k]);
    em_onnx_fresh_name(f->c, f->sc, f->p->name, from, name, sizeof name);
    char *in[1] = {(char *)out}, *outs[1] = {name};
    Onnx__NodeProto np = ONNX__NODE_PROTO__INIT;
    np.n_input = np.n_output = 1;
    np.input = in;
    np.output = outs;
    np.op_type = (char *)"Identity";
    np.name = (char *)f->p->name;
    ember_status *st = em_onnx_node_convert(f->c, f->sc, &np, 0);
    *y = st == NULL ? em_graph_find_value(f->sc->g, name) : -1;
    return st;
}

/* Inlines modifier k on value x; *y is its result. */
static ember_status *inline_mod(const flex *f, int k, int x, int *y)
{
    const Onnx__GraphProto *gp = f->mods[k]->g;
    flex_inl r = {f, NULL, NULL, 0};
    ember_status *st = inl_prepare(&r, k, gp, x);
    for (size_t i = 0; i < gp->n_node && st == NULL; i++) {
        const Onnx__NodeProto *src = gp->node[i];
        char name[300];
        if (src->name != NULL && src->name[0] != '\0') {
            snprintf(name, sizeof name, "%s/%s/%s", f->p->name, mod_names[k], src->name);
        } else {
            snprintf(name, sizeof name, "%s/%s/#%zu", f->p->name, mod_names[k], i);
        }
        Onnx__NodeProto *np = inl_node(&r, src, name, true);
        st = np != NULL ? em_onnx_node_convert(f->c, f->sc, np, i) : em_status_oom();
    }
    if (st == NULL) {
        st = inl_output(&r, k, inl_name(&r, gp->output[0]->name), y);
    }
    inl_free(&r);
    return st;
}

/* ---- the expansion ---- */

static ember_status *expand(const flex *f)
{
    const onnx_pending *p = f->p;
    int q = p->in[0], k = p->in[1], v = p->in[2], sq, sk, x, kt, node;
    ember_status *st = NULL;
    int *qkv[3] = {&q, &k, &v};
    for (int i = 0; i < 3; i++) {
        if (f->sc->g->values[*qkv[i]].rank < 0) {
            EMBER_TRY(rank4(f, qkv[i]));
        }
    }
    if (!same_heads(f, q, k)) {
        EMBER_TRY(repeat_kv(f, q, &k, &v));
    }
    EMBER_TRY(scale_factors(f, q, &sq, &sk));
    EMBER_TRY(op2(f, "Mul", q, sq, false, &q));
    EMBER_TRY(op2(f, "Mul", k, sk, false, &k));
    EMBER_TRY(add(f, "Transpose", &k, 1, false, &kt, &node));
    EMBER_TRY(em_node_set_ints(f->sc->g, node, "perm", (const int64_t[]){0, 1, 3, 2}, 4));
    EMBER_TRY(op2(f, "MatMul", q, kt, false, &x));
    bool cast = f->dt != f->sp; /* also when Q's type is not known at load */
    if (cast) {
        EMBER_TRY(op_int(f, "Cast", x, "to", f->sp, false, &x));
    }
    if (f->mods[FLEX_SCORE_MOD] != NULL) {
        EMBER_TRY(inline_mod(f, FLEX_SCORE_MOD, x, &x));
    }
    EMBER_TRY(op_int(f, "Softmax", x, "axis", -1, false, &x));
    if (f->mods[FLEX_PROB_MOD] != NULL) {
        EMBER_TRY(inline_mod(f, FLEX_PROB_MOD, x, &x));
    }
    if (!cast) {
        return op2(f, "MatMul", x, v, true, &x);
    }
    EMBER_TRY(op_int(f, "Cast", v, "to", f->sp, false, &v));
    EMBER_TRY(op2(f, "MatMul", x, v, false, &x));
    if (f->dt != EMBER_DTYPE_UNDEFINED) {
        return op_int(f, "Cast", x, "to", f->dt, true, &x);
    }
    EMBER_TRY(op2(f, "CastLike", x, p->in[0], true, &x));
fail:
    return st;
}

ember_status *em_onnx_flex_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    flex f = {.c = c, .sc = sc, .p = p};
    ember_status *st = NULL;
    p->emitted = true;
    EMBER_TRY(read_attrs(&f));
    EMBER_TRY(check_inputs(&f));
    EMBER_TRY(pick_precision(&f));
    for (int k = 0; k < 2; k++) {
        if (f.mods[k] != NULL) {
            EMBER_TRY(check_mod(&f, k));
        }
    }
    if (p->n_out > 0) { /* an empty output name: nothing to compute */
        EMBER_TRY(expand(&f));
    }
fail:
    if (st != NULL && strncmp(ember_status_message(st), "onnx:", 5) != 0) {
        st = em_status_wrap(st, "onnx: %s: node '%s' (FlexAttention)", c->what, p->name);
    }
    return st;
}
