/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TreeEnsemble-5 of domain ai.onnx.ml (kernels_ml.def). Interior nodes are the nodes_* tuples; a
 * node's true / false branch is another node or, when nodes_trueleafs / nodes_falseleafs say
 * so, a leaf_* tuple (weight, target). Each row of X walks every tree from its root to a leaf;
 * the leaves' weights are aggregated per target, then post-transformed. Computed in double.
 */
#include "ref.h"

#include "core/alloc.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { MODE_LEQ, MODE_LT, MODE_GTE, MODE_GT, MODE_EQ, MODE_NEQ, MODE_MEMBER };
enum { AGG_AVERAGE, AGG_SUM, AGG_MIN, AGG_MAX };
enum { POST_NONE, POST_SOFTMAX, POST_LOGISTIC, POST_SOFTMAX_ZERO, POST_PROBIT };

typedef struct tnode {
    int64_t feature;
    double split;
    int64_t next[2];   /* [false, true]: a node or a leaf index */
    uint8_t leaf[2];   /* whether next[b] is a leaf */
    uint8_t mode;
    uint8_t missing_true;
    int64_t set_off, set_n; /* MEMBER: its values in members[set_off .. + set_n) */
} tnode;

typedef struct tree_state {
    int64_t n_nodes, n_leaves, n_roots, n_targets, n_members, feats;
    int agg, post;
    tnode *nodes;
    double *weights;
    int64_t *targets, *roots;
    double *members;
} tree_state;

/* Reads an int list attribute that must have `n` entries (n < 0: any count, set into *n). */
static ember_status *ints_attr(const em_kinfo *ki, const char *name, bool required, int64_t *n,
                               const int64_t **v)
{
    int64_t c = em_node_attr_ints(ki->node, name, v);
    if (c < 0 && !required) {
        *v = NULL;
        return NULL;
    }
    if (c < 0 || (*n >= 0 && c != *n)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, c < 0 ? "attribute '%s' is missing"
                            : "attribute '%s' has %lld entries, expected %lld", name,
                            (long long)c, (long long)*n);
    }
    *n = c;
    return NULL;
}

/* A tensor attribute of `n` entries (n < 0: any) of a float dtype (or uint8 for the modes). */
static ember_status *tensor_attr(const em_kinfo *ki, const char *name, bool required, int64_t *n,
                                 const em_tensor **t)
{
    const em_attr *a = em_node_attr(ki->node, name);
    *t = NULL;
    if (a == NULL) {
        return required ? em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' is missing",
                                       name)
                        : NULL;
    }
    int64_t c = a->type == EM_ATTR_TENSOR && a->t.rank <= 1 ? em_tensor_numel(&a->t) : -1;
    bool modes = strcmp(name, "nodes_modes") == 0;
    ember_dtype dt = a->t.dtype;
    bool ok = modes ? dt == EMBER_DTYPE_U8
                    : dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16;
    if (c < 0 || !ok || (*n >= 0 && c != *n)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' must be a 1-D %s tensor"
                            "%s", name, modes ? "uint8" : "float", *n >= 0 ? " of one entry "
                            "per node (or leaf)" : "");
    }
    *n = c;
    *t = &a->t;
    return NULL;
}

/* Depth-first search over the interior nodes reachable from `root`: false on a cycle (a
 * hostile model would otherwise walk forever). color: 0 unseen, 1 on the path, 2 done; `it`
 * the next branch to visit per node; `stack` holds at most n_nodes nodes (each is pushed once). */
static bool acyclic_from(const tree_state *s, int64_t root, uint8_t *color, uint8_t *it,
                         int64_t *stack)
{
    int64_t top = 0;
    if (color[root] == 2) {
        return true;
    }
    color[root] = 1;
    it[root] = 0;
    stack[top++] = root;
    while (top > 0) {
        int64_t node = stack[top - 1];
        if (it[node] == 2) {
            color[node] = 2;
            top--;
            continue;
        }
        int b = it[node]++;
        const tnode *t = &s->nodes[node];
        if (t->leaf[b]) {
            continue;
        }
        int64_t child = t->next[b];
        if (color[child] == 1) {
            return false;
        }
        if (color[child] == 0) {
            color[child] = 1;
            it[child] = 0;
            stack[top++] = child;
        }
    }
    return true;
}

/* Checks ids, targets, features and the membership sets; fills the nodes' set ranges. */
static ember_status *check_trees(const em_kinfo *ki, tree_state *s)
{
    int64_t next_set = 0;
    for (int64_t i = 0; i < s->n_nodes; i++) {
        tnode *t = &s->nodes[i];
        bool degenerate = t->leaf[0] && t->leaf[1] && t->next[0] == t->next[1];
        for (int b = 0; b < 2; b++) {
            int64_t lim = t->leaf[b] ? s->n_leaves : s->n_nodes;
            if (t->next[b] < 0 || t->next[b] >= lim) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "node %lld: %s branch %lld is "
                                    "out of range (%lld %s)", (long long)i, b ? "true" : "false",
                                    (long long)t->next[b], (long long)lim,
                                    t->leaf[b] ? "leaves" : "nodes");
            }
        }
        if (t->mode > MODE_MEMBER) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "node %lld: mode %d is not one of "
                                "0..6", (long long)i, t->mode);
        }
        if (!degenerate && (t->feature < 0 || t->feature >= s->feats)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "node %lld: feature %lld is out of "
                                "range for %lld features", (long long)i, (long long)t->feature,
                                (long long)s->feats);
        }
        if (t->mode == MODE_MEMBER) { /* the next NaN-terminated run of membership_values */
            t->set_off = next_set;
            while (next_set < s->n_members && !isnan(s->members[next_set])) {
                next_set++;
            }
            if (next_set >= s->n_members) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "node %lld: no NaN-terminated "
                                    "set of membership_values left for it", (long long)i);
            }
            t->set_n = next_set++ - t->set_off;
        }
    }
    for (int64_t l = 0; l < s->n_leaves; l++) {
        if (s->targets[l] < 0 || s->targets[l] >= s->n_targets) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "leaf %lld: target %lld is out of "
                                "range (n_targets %lld)", (long long)l, (long long)s->targets[l],
                                (long long)s->n_targets);
        }
    }
    for (int64_t r = 0; r < s->n_roots; r++) {
        if (s->roots[r] < 0 || s->roots[r] >= s->n_nodes) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "tree_roots[%lld] = %lld is out of "
                                "range", (long long)r, (long long)s->roots[r]);
        }
    }
    return NULL;
}

static ember_status *check_acyclic(const em_kinfo *ki, const tree_state *s)
{
    size_t n = (size_t)s->n_nodes;
    uint8_t *color = em_calloc(ki->al, 2 * n + 1, 1);
    int64_t *stack = em_malloc(ki->al, sizeof(int64_t) * (n + 1));
    ember_status *st = NULL;
    if (color == NULL || stack == NULL) {
        st = em_status_oom();
    }
    for (int64_t r = 0; st == NULL && r < s->n_roots; r++) {
        if (!acyclic_from(s, s->roots[r], color, color + n, stack)) {
            st = em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the tree of root %lld has a cycle",
                              (long long)s->roots[r]);
        }
    }
    em_free(ki->al, color);
    em_free(ki->al, stack);
    return st;
}

ember_status *em_treeensemble_prepare__ref(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    const int64_t *feat, *tid, *fid, *tleaf, *fleaf, *miss, *ltarget, *roots;
    const em_tensor *modes, *splits, *weights, *members;
    int64_t nn = -1, nl = -1, nr = -1, nm = -1, targets, agg, post;
    tree_state *s = NULL;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    if ((x->dtype != EMBER_DTYPE_F32 && x->dtype != EMBER_DTYPE_F64 &&
         x->dtype != EMBER_DTYPE_F16) || x->rank != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (X) must be a 2-D float, "
                            "double or float16 tensor");
    }
    EMBER_TRY(ints_attr(ki, "nodes_featureids", true, &nn, &feat));
    EMBER_TRY(ints_attr(ki, "nodes_truenodeids", true, &nn, &tid));
    EMBER_TRY(ints_attr(ki, "nodes_falsenodeids", true, &nn, &fid));
    EMBER_TRY(ints_attr(ki, "nodes_trueleafs", true, &nn, &tleaf));
    EMBER_TRY(ints_attr(ki, "nodes_falseleafs", true, &nn, &fleaf));
    EMBER_TRY(ints_attr(ki, "nodes_missing_value_tracks_true", false, &nn, &miss));
    EMBER_TRY(tensor_attr(ki, "nodes_modes", true, &nn, &modes));
    EMBER_TRY(tensor_attr(ki, "nodes_splits", true, &nn, &splits));
    EMBER_TRY(ints_attr(ki, "leaf_targetids", true, &nl, &ltarget));
    EMBER_TRY(tensor_attr(ki, "leaf_weights", true, &nl, &weights));
    EMBER_TRY(ints_attr(ki, "tree_roots", true, &nr, &roots));
    EMBER_TRY(tensor_attr(ki, "membership_values", false, &nm, &members));
    EMBER_TRY(em_ref_attr_int(ki, "n_targets", 0, &targets));
    EMBER_TRY(em_ref_attr_int(ki, "aggregate_function", AGG_SUM, &agg));
    EMBER_TRY(em_ref_attr_int(ki, "post_transform", POST_NONE, &post));
    if (targets < 1 || agg < AGG_AVERAGE || agg > AGG_MAX || post < POST_NONE ||
        post > POST_PROBIT || nr < 1 || nn < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "n_targets must be positive, "
                            "aggregate_function 0..3, post_transform 0..4, and there must be "
                            "trees");
    }
    int64_t dims[2] = {x->dims[0], targets};
    EMBER_TRY(em_ref_check_tensor(ki, y, x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, y, dims, 2, "output 0 (Y)"));
    nm = members != NULL ? nm : 0;
    size_t bytes = sizeof *s + sizeof(tnode) * (size_t)nn + sizeof(double) * (size_t)(nl + nm) +
                   sizeof(int64_t) * (size_t)(nl + nr);
    s = em_malloc(ki->al, bytes);
    if (s == NULL) {
        return em_status_oom();
    }
    *s = (tree_state){nn, nl, nr, targets, nm, x->dims[1], (int)agg, (int)post,
                      (tnode *)(s + 1), NULL, NULL, NULL, NULL};
    s->weights = (double *)(s->nodes + nn);
    s->members = s->weights + nl;
    s->targets = (int64_t *)(s->members + nm);
    s->roots = s->targets + nl;
    for (int64_t i = 0; i < nn; i++) {
        s->nodes[i] = (tnode){feat[i], em_tref_get(splits->dtype, splits->data, i),
                              {fid[i], tid[i]}, {fleaf[i] != 0, tleaf[i] != 0},
                              ((const uint8_t *)modes->data)[i], miss != NULL && miss[i] != 0,
                              0, 0};
    }
    for (int64_t l = 0; l < nl; l++) {
        s->weights[l] = em_tref_get(weights->dtype, weights->data, l);
        s->targets[l] = ltarget[l];
    }
    for (int64_t m = 0; m < nm; m++) {
        s->members[m] = em_tref_get(members->dtype, members->data, m);
    }
    memcpy(s->roots, roots, sizeof(int64_t) * (size_t)nr);
    EMBER_TRY(check_trees(ki, s));
    EMBER_TRY(check_acyclic(ki, s));
    *scratch_bytes = sizeof(double) * (size_t)targets;
    *state = s;
    return NULL;
fail:
    em_free(ki->al, s);
    return st;
}

static bool branch(const tree_state *s, const tnode *t, double v)
{
    if (isnan(v) && t->missing_true) {
        return true;
    }
    switch (t->mode) {
    case MODE_LEQ: return v <= t->split;
    case MODE_LT: return v < t->split;
    case MODE_GTE: return v >= t->split;
    case MODE_GT: return v > t->split;
    case MODE_EQ: return v == t->split;
    case MODE_NEQ: return v != t->split;
    default:
        for (int64_t k = 0; k < t->set_n; k++) {
            if (s->members[t->set_off + k] == v) {
                return true;
            }
        }
        return false;
    }
}

/* The leaf row `x` reaches from root node `r` (prepare ruled out cycles). */
static int64_t walk(const tree_state *s, int64_t r, const em_tensor *x, int64_t row)
{
    const tnode *t = &s->nodes[r];
    if (t->leaf[0] && t->leaf[1] && t->next[0] == t->next[1]) {
        return t->next[0];
    }
    for (;;) {
        double v = em_tref_get(x->dtype, x->data, row * s->feats + t->feature);
        int b = branch(s, t, v);
        if (t->leaf[b]) {
            return t->next[b];
        }
        t = &s->nodes[t->next[b]];
    }
}

/* The inverse error function: a rational first guess refined by Newton steps on erf. */
static double erfinv(double y)
{
    if (y <= -1 || y >= 1) {
        return y == -1 ? -INFINITY : y == 1 ? INFINITY : NAN;
    }
    double w = -log((1 - y) * (1 + y)), x;
    x = w < 5 ? y * (1.5 + 0.25 * (w - 2.5)) : y * (2.8 + 0.15 * (sqrt(w) - 3));
    for (int i = 0; i < 40; i++) {
        double dx = (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
        x -= dx;
        if (fabs(dx) <= 1e-15 * (1 + fabs(x))) {
            break;
        }
    }
    return x;
}

static void post_transform(int post, double *v, int64_t n)
{
    double mx = -INFINITY, sum = 0;
    bool zero = post == POST_SOFTMAX_ZERO;
    switch (post) {
    case POST_SOFTMAX:
    case POST_SOFTMAX_ZERO: /* zeros stay zero and take no share */
        for (int64_t i = 0; i < n; i++) {
            mx = (!zero || v[i] != 0) && v[i] > mx ? v[i] : mx;
        }
        for (int64_t i = 0; i < n; i++) {
            v[i] = zero && v[i] == 0 ? 0 : exp(v[i] - mx);
            sum += v[i];
        }
        for (int64_t i = 0; i < n && sum > 0; i++) {
            v[i] /= sum;
        }
        break;
    case POST_LOGISTIC:
        for (int64_t i = 0; i < n; i++) {
            v[i] = 1 / (1 + exp(-v[i]));
        }
        break;
    case POST_PROBIT:
        for (int64_t i = 0; i < n; i++) {
            v[i] = 1.4142135623730951 * erfinv(2 * v[i] - 1);
        }
        break;
    default: break;
    }
}

void em_treeensemble__ref(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const tree_state *s = state;
    double *acc = ctx->scratch;
    double big = in[0].dtype == EMBER_DTYPE_F64 ? DBL_MAX
                 : in[0].dtype == EMBER_DTYPE_F32 ? FLT_MAX
                                                   : 65504.0; /* float16's largest */
    for (int64_t row = 0; row < in[0].dims[0]; row++) {
        double init = s->agg == AGG_MIN ? big : s->agg == AGG_MAX ? -big : 0;
        for (int64_t t = 0; t < s->n_targets; t++) {
            acc[t] = init;
        }
        for (int64_t r = 0; r < s->n_roots; r++) {
            int64_t leaf = walk(s, s->roots[r], &in[0], row);
            double w = s->weights[leaf], *a = &acc[s->targets[leaf]];
            switch (s->agg) {
            case AGG_AVERAGE: *a += w / (double)s->n_roots; break;
            case AGG_MIN: *a = w < *a ? w : *a; break;
            case AGG_MAX: *a = w > *a ? w : *a; break;
            default: *a += w; break;
            }
        }
        post_transform(s->post, acc, s->n_targets);
        for (int64_t t = 0; t < s->n_targets; t++) {
            em_tref_set(out[0].dtype, out[0].data, row * s->n_targets + t, acc[t]);
        }
    }
}
