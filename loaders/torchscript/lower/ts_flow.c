/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Control flow on tensor data in the TorchScript lowering (ts_flow.h): If and Loop nodes with
 * subgraphs, and the lists a Loop's body appends to.
 *
 * Where paths join (the two branches of an `if`; a loop's entry and the end of its body), each
 * variable the paths leave different gets a template: a known value both paths agree on, a
 * graph leaf (a tensor or a dynamic scalar, with the dtype and shape both paths fit), or a
 * tuple of templates. Leaves are what the node carries: an If's outputs, a Loop's carried
 * values. Numbers that differ become dynamic scalars; a number against a tensor becomes a
 * tensor; other values that differ are refused, naming the variable.
 */
#include "ts_flow.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

/* Lowerings of one loop body before its carried values must have settled: each lowering widens
 * a template (a known value to a leaf, a dtype, a rank, a dim) or finds a list appended to. */
#define TS_FLOW_MAX_LOWERINGS 16

typedef enum tt_kind { TT_KNOWN, TT_UNINIT, TT_LEAF, TT_TUPLE } tt_kind;

typedef struct tmpl tmpl;
struct tmpl {
    tt_kind k;
    ts_av *v;                      /* KNOWN: the value */
    ts_ak lk;                      /* LEAF: TA_TENSOR or TA_SCALAR */
    ember_dtype dt;
    int rank;                      /* -1: unknown */
    int64_t dims[EM_MAX_RANK];     /* -1: unknown */
    const char *syms[EM_MAX_RANK]; /* symbolic dims by name (each graph numbers its own) */
    tmpl **items;                  /* TUPLE */
    size_t n;
};

/* A join, for messages: the variable and where its paths meet. */
typedef struct join_ctx {
    const char *name;
    const char *where;
    em_ts_pos pos;
} join_ctx;

static bool is_num(const ts_av *a) { return a->k == TA_BOOL || a->k == TA_INT || a->k == TA_FLOAT; }
static bool is_graph(const ts_av *a) { return a->k == TA_TENSOR || a->k == TA_SCALAR; }

static ember_dtype num_dtype(const ts_av *a)
{
    return a->k == TA_BOOL ? EMBER_DTYPE_BOOL : a->k == TA_INT ? EMBER_DTYPE_I64 : EMBER_DTYPE_F64;
}

static const em_value *graph_value(const ts_av *a) { return &a->u.t.g->values[a->u.t.v]; }

/* Python's promotion of numbers: bool < int < float. */
static int dt_order(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_BOOL:
        return 0;
    case EMBER_DTYPE_F16: case EMBER_DTYPE_BF16: case EMBER_DTYPE_F32: case EMBER_DTYPE_F64:
        return 2;
    default:
        return 1;
    }
}

static ember_dtype promote(ember_dtype a, ember_dtype b)
{
    int oa = dt_order(a), ob = dt_order(b);
    if (oa != ob) {
        return oa > ob ? a : b;
    }
    return a == b ? a : oa == 2 ? EMBER_DTYPE_F64 : EMBER_DTYPE_I64;
}

static const char *node_name(ts_lower *L, const char *op)
{
    return L->path[0] != '\0' ? em_ts_printf(L, "%s/%s", L->path, op) : op;
}

/* ---- templates ---- */

/* t becomes the leaf of number or graph value v. */
static ember_status *leaf_set(ts_lower *L, tmpl *t, const ts_av *v)
{
    t->k = TT_LEAF;
    if (is_num(v)) {
        t->lk = TA_SCALAR;
        t->dt = num_dtype(v);
        t->rank = 0;
        return NULL;
    }
    const em_graph *g = v->u.t.g;
    const em_value *ev = graph_value(v);
    t->lk = v->k;
    t->dt = ev->dtype;
    t->rank = ev->rank;
    for (int d = 0; d < ev->rank; d++) {
        int32_t s = ev->dims[d].sym;
        t->dims[d] = ev->dims[d].v;
        t->syms[d] = NULL;
        if (s > 0 && s <= g->n_syms && (t->syms[d] = em_ts_strdup(L, g->sym_names[s - 1])) == NULL) {
            return em_status_oom(); /* copied: g may be a body lowering that is dropped */
        }
    }
    return NULL;
}

static ember_status *tmpl_from(ts_lower *L, ts_av *v, tmpl **out)
{
    tmpl *t = em_ts_arena_alloc(&L->arena, sizeof *t);
    if (t == NULL) {
        return em_status_oom();
    }
    memset(t, 0, sizeof *t); /* TT_KNOWN */
    *out = t;
    if (is_graph(v)) {
        return leaf_set(L, t, v);
    }
    if (v->k == TA_UNINIT) {
        t->k = TT_UNINIT;
    } else if (v->k == TA_TUPLE) {
        t->k = TT_TUPLE;
        t->n = v->u.seq.n;
        t->items = em_ts_arena_alloc(&L->arena, (t->n + 1) * sizeof(tmpl *));
        if (t->items == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < t->n; i++) {
            TS_TRY(tmpl_from(L, v->u.seq.items[i], &t->items[i]));
        }
    } else {
        t->v = v;
    }
    return NULL;
}

static const char *tmpl_kind_name(const tmpl *t)
{
    switch (t->k) {
    case TT_KNOWN: return em_ts_kind_name(t->v->k);
    case TT_LEAF: return em_ts_kind_name(t->lk);
    case TT_TUPLE: return "tuple";
    default: return "uninitialized value";
    }
}

static ember_status *join_err(ts_lower *L, const join_ctx *jc, const tmpl *t, const ts_av *v)
{
    const char *a = tmpl_kind_name(t), *b = em_ts_kind_name(v->k);
    if (strcmp(a, b) == 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, jc->pos, "variable '%s' holds two different %s "
                      "values %s: only numbers, tensors and tuples of them may differ there",
                      jc->name, a, jc->where);
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, jc->pos, "variable '%s' is a %s and a %s %s%s: not "
                  "supported", jc->name, a, b, jc->where,
                  t->k == TT_KNOWN && (t->v->k == TA_NONE || v->k == TA_NONE)
                      ? " (an Optional that is None on one path only)" : "");
}

/* Whether v holds a value of graph g (any graph when g is NULL) in a list, tuple or dict. */
static bool holds_graph(const ts_av *v, const em_graph *g, int depth)
{
    if (v->k == TA_TENSOR || v->k == TA_SCALAR || v->k == TA_STACK) {
        return g == NULL || v->u.t.g == g;
    }
    bool seq = v->k == TA_LIST || v->k == TA_TUPLE;
    size_t n = seq ? v->u.seq.n : v->k == TA_DICT ? v->u.dict.n : 0;
    for (size_t i = 0; i < n && depth < 8; i++) {
        if (holds_graph(seq ? v->u.seq.items[i] : v->u.dict.vals[i], g, depth + 1)) {
            return true;
        }
    }
    return false;
}

/* Widens leaf t's shape to fit v's too (a number is 0-d). */
static void leaf_relax(tmpl *t, const ts_av *v, bool *changed)
{
    const em_graph *g = is_num(v) ? NULL : v->u.t.g;
    const em_value *ev = g != NULL ? graph_value(v) : NULL;
    int rank = ev != NULL ? ev->rank : 0;
    if (t->rank != rank) {
        *changed = *changed || t->rank >= 0;
        t->rank = -1;
        return;
    }
    for (int d = 0; d < rank; d++) {
        int32_t s = ev->dims[d].sym;
        const char *vs = s > 0 && s <= g->n_syms ? g->sym_names[s - 1] : NULL;
        int64_t vd = ev->dims[d].v;
        bool same = t->dims[d] >= 0 ? t->dims[d] == vd
                                    : vd < 0 && t->syms[d] != NULL && vs != NULL &&
                                          strcmp(t->syms[d], vs) == 0;
        if (!same && (t->dims[d] >= 0 || t->syms[d] != NULL)) {
            t->dims[d] = -1;
            t->syms[d] = NULL;
            *changed = true;
        }
    }
}

/* Widens t to describe v too; *changed when it had to. */
static ember_status *tmpl_join(ts_lower *L, tmpl *t, ts_av *v, const join_ctx *jc,
                               bool *changed)
{
    if (v->k == TA_UNINIT && t->k != TT_UNINIT) {
        return NULL; /* a path that raises (or never reads the variable) */
    }
    switch (t->k) {
    case TT_UNINIT: {
        tmpl *n = NULL;
        if (v->k == TA_UNINIT) {
            return NULL;
        }
        TS_TRY(tmpl_from(L, v, &n));
        if (n->k == TT_KNOWN && holds_graph(v, NULL, 0)) {
            /* A list of tensors made on one path: it stays uninitialized, code after cannot
             * read it (its tensors live in a branch, or in one lowering of a loop body). */
            return NULL;
        }
        *t = *n;
        *changed = true;
        return NULL;
    }
    case TT_KNOWN:
        if (em_ts_same_value(t->v, v)) {
            return NULL;
        }
        if (is_num(t->v) && (is_num(v) || is_graph(v))) { /* a number becomes dynamic */
            TS_TRY(leaf_set(L, t, t->v));
            *changed = true;
            return tmpl_join(L, t, v, jc, changed);
        }
        return join_err(L, jc, t, v);
    case TT_LEAF: {
        if (is_num(v)) {
            ember_dtype d = t->lk == TA_SCALAR ? promote(t->dt, num_dtype(v)) : t->dt;
            *changed = *changed || d != t->dt;
            t->dt = d;
            leaf_relax(t, v, changed);
            return NULL;
        }
        if (!is_graph(v)) {
            return join_err(L, jc, t, v);
        }
        ember_dtype vdt = graph_value(v)->dtype;
        if (t->lk == TA_TENSOR && v->k == TA_TENSOR && vdt != t->dt) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, jc->pos, "tensor '%s' is %s and %s %s: not "
                          "supported", jc->name, ember_dtype_name(t->dt), ember_dtype_name(vdt),
                          jc->where);
        }
        if (t->lk == TA_SCALAR && v->k == TA_TENSOR) {
            t->lk = TA_TENSOR;
            t->dt = vdt;
            *changed = true;
        } else if (t->lk == TA_SCALAR) {
            ember_dtype d = promote(t->dt, vdt);
            *changed = *changed || d != t->dt;
            t->dt = d;
        }
        leaf_relax(t, v, changed);
        return NULL;
    }
    case TT_TUPLE:
        if (v->k != TA_TUPLE || v->u.seq.n != t->n) {
            return join_err(L, jc, t, v);
        }
        for (size_t i = 0; i < t->n; i++) {
            TS_TRY(tmpl_join(L, t->items[i], v->u.seq.items[i], jc, changed));
        }
        return NULL;
    }
    return NULL;
}

static int tmpl_leaves(const tmpl *t)
{
    int n = t->k == TT_LEAF;
    for (size_t i = 0; t->k == TT_TUPLE && i < t->n; i++) {
        n += tmpl_leaves(t->items[i]);
    }
    return n;
}

/* The leaves of v (one path's value) as values of the current graph, in template order. */
static ember_status *tmpl_values(ts_lower *L, const ts_call *c, const tmpl *t, const ts_av *v,
                                 int *vals, int *k)
{
    if (t->k == TT_TUPLE) {
        for (size_t i = 0; i < t->n; i++) {
            const ts_av *item = v != NULL && v->k == TA_TUPLE ? v->u.seq.items[i] : NULL;
            TS_TRY(tmpl_values(L, c, t->items[i], item, vals, k));
        }
        return NULL;
    }
    if (t->k != TT_LEAF) {
        return NULL;
    }
    int x = -1;
    if (v == NULL || v->k == TA_UNINIT) {
        /* TorchScript leaves a variable uninitialized only where it is not read: any value of
         * the leaf's dtype does. */
        TS_TRY(em_ts_const_scalar(L, t->dt, 0, &x));
    } else {
        TS_TRY(em_ts_as_tensor(L, c, v, t->dt, &x));
        TS_TRY(em_ts_cast(L, c, x, t->dt, &x));
    }
    vals[(*k)++] = x;
    return NULL;
}

/* The value t describes, its leaves taken from vals[*k...], or (vals NULL) declared as fresh
 * inputs of the current graph. */
static ember_status *tmpl_value(ts_lower *L, const tmpl *t, const int *vals, int *k,
                                ts_av **out)
{
    switch (t->k) {
    case TT_KNOWN:
        *out = t->v;
        return NULL;
    case TT_UNINIT:
        *out = em_ts_new(L, TA_UNINIT);
        break;
    case TT_LEAF: {
        int x = -1;
        if (vals != NULL) {
            x = vals[(*k)++];
        } else {
            TS_TRY(em_ts_add_input(L, "carried", t->dt, t->rank, t->dims, t->syms, &x));
        }
        *out = em_ts_tensor(L, x);
        if (*out != NULL) {
            (*out)->k = t->lk;
        }
        break;
    }
    case TT_TUPLE:
        *out = em_ts_seq(L, TA_TUPLE, t->n);
        for (size_t i = 0; *out != NULL && i < t->n; i++) {
            TS_TRY(tmpl_value(L, t->items[i], vals, k, &(*out)->u.seq.items[i]));
        }
        break;
    }
    return *out != NULL ? NULL : em_status_oom();
}

/* ---- small graph pieces ---- */

static ember_status *cond_bool(ts_lower *L, const ts_call *c, const ts_av *cond, int *out)
{
    TS_TRY(em_ts_as_tensor(L, c, cond, EMBER_DTYPE_BOOL, out));
    return em_ts_cast(L, c, *out, EMBER_DTYPE_BOOL, out); /* a tensor's truth: nonzero */
}

/* ---- if ---- */

/* What the two branches are: blocks (an `if` statement) or expressions (`a if c else b`, whose
 * value goes to variable `result`). */
typedef struct branch_src {
    const em_ts_block *block[2];
    const em_ts_expr *expr[2];
    const char *result;
} branch_src;

typedef struct joined {
    const char *name;
    tmpl *t;
} joined;

/* Lowers branch b into its own graph *g, from a copy of env into *out. */
static ember_status *run_branch(ts_lower *L, const ts_env *env, const ts_snap *snap,
                                const branch_src *bs, int b, em_ts_pos pos, ts_env *out,
                                em_graph **g)
{
    TS_TRY(em_ts_env_copy(L, env, out));
    TS_TRY(em_graph_new(L->al, g));
    TS_TRY(em_ts_sub_enter(L, *g));
    ts_flow_kind fl = TS_FLOW_NORMAL;
    ember_status *st = NULL;
    if (bs->block[b] != NULL) {
        st = bs->block[b]->n > 0 ? em_ts_exec_block(L, out, bs->block[b], &fl) : NULL;
    } else {
        ts_av *v = NULL;
        st = em_ts_eval(L, out, bs->expr[b], &v);
        if (st == NULL) {
            st = em_ts_env_set(L, out, bs->result, v);
        }
    }
    em_ts_sub_leave(L);
    if (st == NULL && fl != TS_FLOW_NORMAL) {
        st = em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "`return`, `break` or `continue` inside an "
                    "`if` on tensor data is not supported");
    }
    for (size_t i = 0; i < snap->n && st == NULL; i++) {
        bool grown = false;
        if (em_ts_snap_changed(snap, i, &grown)) {
            st = em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "a list or dict is %s inside an `if` on "
                        "tensor data (an If node): not supported, only variables may differ "
                        "between its branches", grown ? "appended to" : "changed");
        }
    }
    em_ts_snap_restore(snap);
    return st;
}

/* Joins the branches' scopes: variables they agree on go to env now; the others to js. */
static ember_status *join_branches(ts_lower *L, ts_env *env, ts_env *envs, em_graph **g,
                                   em_ts_pos pos, joined *js, size_t *nj, int *n_out)
{
    *nj = 0;
    *n_out = 0;
    for (size_t i = 0; i < envs[0].n; i++) {
        const char *name = envs[0].names[i];
        ts_av *a = envs[0].vals[i], *b = em_ts_env_get(&envs[1], name), *v = a;
        if (b == NULL) {
            continue; /* assigned in one branch only: TorchScript does not read it after */
        }
        if (a != b) {
            tmpl *t = NULL;
            bool changed = false;
            join_ctx jc = {name, "in the branches of an `if` on tensor data", pos};
            TS_TRY(tmpl_from(L, a, &t));
            TS_TRY(tmpl_join(L, t, b, &jc, &changed));
            if (tmpl_leaves(t) > 0) {
                js[(*nj)++] = (joined){name, t};
                *n_out += tmpl_leaves(t);
                continue;
            }
            int k = 0, none = -1;
            TS_TRY(tmpl_value(L, t, &none, &k, &v));
        }
        if (holds_graph(v, g[0], 0) || holds_graph(v, g[1], 0)) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "variable '%s' holds, in a list or "
                          "tuple, tensors computed in a branch of an `if` on tensor data: not "
                          "supported", name);
        }
        TS_TRY(em_ts_env_set(L, env, name, v));
    }
    return NULL;
}

/* The If node, once both branches are lowered into g[0], g[1]. */
static ember_status *emit_if(ts_lower *L, ts_env *env, const ts_call *c, ts_av *cond,
                             ts_env *envs, em_graph **g, const joined *js, size_t nj, int n_out)
{
    int *vals = em_ts_arena_alloc(&L->arena, (size_t)n_out * sizeof(int));
    int *outs = em_ts_arena_alloc(&L->arena, (size_t)n_out * sizeof(int));
    if (vals == NULL || outs == NULL) {
        return em_status_oom();
    }
    for (int b = 0; b < 2; b++) {
        int k = 0;
        TS_TRY(em_ts_sub_enter(L, g[b]));
        ember_status *st = NULL;
        for (size_t j = 0; j < nj && st == NULL; j++) {
            st = tmpl_values(L, c, js[j].t, em_ts_env_get(&envs[b], js[j].name), vals, &k);
        }
        for (int j = 0; j < n_out && st == NULL; j++) {
            st = em_ts_add_output(L, c, vals[j]);
        }
        em_ts_sub_leave(L);
        TS_TRY(st);
    }
    int cv = -1, node = -1, k = 0;
    TS_TRY(cond_bool(L, c, cond, &cv));
    TS_TRY(em_ts_emit(L, c, EM_OP_IF, &cv, 1, outs, n_out, &node));
    TS_TRY(em_ts_sub_attach(L, node, "then_branch", &g[0]));
    TS_TRY(em_ts_sub_attach(L, node, "else_branch", &g[1]));
    TS_TRY(em_ts_infer(L, c, node));
    for (size_t j = 0; j < nj; j++) {
        ts_av *v = NULL;
        TS_TRY(tmpl_value(L, js[j].t, outs, &k, &v));
        TS_TRY(em_ts_env_set(L, env, js[j].name, v));
    }
    return NULL;
}

static ember_status *dyn_if(ts_lower *L, ts_env *env, em_ts_pos pos, ts_av *cond,
                            const branch_src *bs)
{
    ts_call c = {.op = "if", .pos = pos, .node = node_name(L, "If")};
    ts_snap snap;
    ts_env envs[2] = {{0}, {0}};
    em_graph *g[2] = {NULL, NULL};
    size_t nj = 0;
    int n_out = 0;
    if (c.node == NULL) {
        return em_status_oom();
    }
    ember_status *st = em_ts_snap_take(L, env, &snap);
    for (int b = 0; b < 2 && st == NULL; b++) {
        st = run_branch(L, env, &snap, bs, b, pos, &envs[b], &g[b]);
    }
    joined *js = em_ts_arena_alloc(&L->arena, (envs[0].n + 1) * sizeof *js);
    if (st == NULL && js == NULL) {
        st = em_status_oom();
    }
    if (st == NULL) {
        st = join_branches(L, env, envs, g, pos, js, &nj, &n_out);
    }
    /* Branches that change no variable leave nothing to run. */
    if (st == NULL && n_out > 0) {
        st = emit_if(L, env, &c, cond, envs, g, js, nj, n_out);
    }
    em_graph_destroy(g[0]);
    em_graph_destroy(g[1]);
    return st;
}

ember_status *em_ts_flow_if(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av *cond)
{
    branch_src bs = {{&s->u.if_.then, &s->u.if_.other}, {NULL, NULL}, NULL};
    return dyn_if(L, env, s->pos, cond, &bs);
}

ember_status *em_ts_flow_ifexp(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av *cond,
                            ts_av **out)
{
    /* The value goes through a variable no code can name. */
    branch_src bs = {{NULL, NULL}, {e->u.ifexp.then, e->u.ifexp.other}, em_ts_value_name(L, " if")};
    if (bs.result == NULL) {
        return em_status_oom();
    }
    TS_TRY(dyn_if(L, env, e->pos, cond, &bs));
    *out = em_ts_env_get(env, bs.result);
    return *out != NULL ? NULL : em_ts_err(L, EMBER_ERR_INTERNAL, e->pos, "if-expression lost");
}

/* ---- loops ---- */

typedef struct loop_spec {
    const em_ts_stmt *s;
    const em_ts_block *body;
    const em_ts_expr *target; /* for: the counter variable */
    const em_ts_expr *cond;   /* while: the condition, evaluated again after the body */
    ts_av *trips;             /* for: the trip count */
    ts_av *cond0;             /* while: the condition before the first iteration */
} loop_spec;

/* One lowering of the body. */
typedef struct body_run {
    em_graph *g;
    ts_env env;  /* the scope after the body */
    ts_av *cond; /* while: the condition after it */
    int cond_in; /* the body's condition input */
} body_run;

/* Lowers the body once into br->g: carried variables (templates t, by env index) are its
 * inputs, the lists of ap are marked so that appends are collected and reads refused. */
static ember_status *body_lower(ts_lower *L, const ts_env *env, const loop_spec *ls,
                                const ts_call *c, tmpl **t, body_run *br)
{
    int iter = -1;
    (void)c;
    TS_TRY(em_ts_add_input(L, "iter", EMBER_DTYPE_I64, 0, NULL, NULL, &iter));
    TS_TRY(em_ts_add_input(L, "cond", EMBER_DTYPE_BOOL, 0, NULL, NULL, &br->cond_in));
    TS_TRY(em_ts_env_copy(L, env, &br->env));
    for (size_t i = 0; i < env->n; i++) {
        ts_av *v = NULL;
        int k = 0;
        if (t[i] != NULL) {
            TS_TRY(tmpl_value(L, t[i], NULL, &k, &v));
            TS_TRY(em_ts_env_set(L, &br->env, env->names[i], v));
        }
    }
    if (ls->target != NULL) { /* range(n): the counter is the iteration number */
        ts_av *i = em_ts_tensor(L, iter);
        if (i == NULL) {
            return em_status_oom();
        }
        i->k = TA_SCALAR;
        TS_TRY(em_ts_assign(L, &br->env, ls->target, i));
    }
    ts_flow_kind fl = TS_FLOW_NORMAL;
    TS_TRY(em_ts_exec_block(L, &br->env, ls->body, &fl));
    if (fl != TS_FLOW_NORMAL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, ls->s->pos, "`return`, `break` or `continue` "
                      "inside a loop on tensor data is not supported");
    }
    return ls->cond != NULL ? em_ts_eval(L, &br->env, ls->cond, &br->cond) : NULL;
}

static ember_status *run_body(ts_lower *L, const ts_env *env, const loop_spec *ls,
                              const ts_call *c, tmpl **t, const ts_appended *ap, size_t n_ap,
                              body_run *br)
{
    em_graph_destroy(br->g);
    memset(br, 0, sizeof *br);
    TS_TRY(em_graph_new(L->al, &br->g));
    TS_TRY(em_ts_flow_mark_appends(L, ap, n_ap));
    TS_TRY(em_ts_sub_enter(L, br->g));
    ember_status *st = body_lower(L, env, ls, c, t, br);
    em_ts_sub_leave(L);
    return st;
}

/* Widens the templates of the variables the body changed (t[i] NULL: unchanged so far). */
static ember_status *body_carry(ts_lower *L, const ts_env *env, const ts_env *after, tmpl **t,
                                em_ts_pos pos, bool *changed)
{
    for (size_t i = 0; i < env->n; i++) {
        ts_av *b = env->vals[i], *a = em_ts_env_get(after, env->names[i]);
        join_ctx jc = {env->names[i], "before a loop on tensor data and after its body", pos};
        bool first = false;
        if (t[i] == NULL) {
            if (a == b || em_ts_same_value(a, b)) {
                continue;
            }
            TS_TRY(tmpl_from(L, b, &t[i]));
            *changed = true;
            TS_TRY(tmpl_join(L, t[i], a, &jc, &first));
            continue;
        }
        TS_TRY(tmpl_join(L, t[i], a, &jc, changed));
    }
    return NULL;
}

/* The body's outputs: condition, carried values, then the appended items. */
static ember_status *body_outputs(ts_lower *L, const ts_call *c, const loop_spec *ls,
                                  const ts_env *env, tmpl **t, const ts_appended *ap, size_t n_ap,
                                  const body_run *br, int *vals, int n_vals)
{
    int k = 1;
    if (ls->cond != NULL) {
        TS_TRY(cond_bool(L, c, br->cond, &vals[0]));
    } else {
        vals[0] = br->cond_in;
    }
    for (size_t i = 0; i < env->n; i++) {
        if (t[i] != NULL) {
            TS_TRY(tmpl_values(L, c, t[i], em_ts_env_get(&br->env, env->names[i]), vals, &k));
        }
    }
    for (size_t j = 0; j < n_ap; j++) {
        for (size_t i = 0; i < ap[j].n; i++) {
            if (ap[j].items[i]->k != TA_TENSOR) {
                return em_ts_err(L, EMBER_ERR_UNSUPPORTED, ls->s->pos, "a %s is appended to a list "
                              "in a loop on tensor data: only tensors are supported",
                              em_ts_kind_name(ap[j].items[i]->k));
            }
            TS_TRY(em_ts_use(L, ap[j].items[i], &vals[k++]));
        }
    }
    for (int i = 0; i < n_vals; i++) {
        TS_TRY(em_ts_add_output(L, c, vals[i]));
    }
    return NULL;
}

/* The Loop node from the last lowering; variables and lists of env get its outputs. */
static ember_status *emit_loop(ts_lower *L, ts_env *env, const loop_spec *ls, const ts_call *c,
                               tmpl **t, const ts_appended *ap, size_t n_ap, body_run *br)
{
    int n_carry = 0, n_scan = 0, k = 0, node = -1;
    for (size_t i = 0; i < env->n; i++) {
        n_carry += t[i] != NULL ? tmpl_leaves(t[i]) : 0;
    }
    for (size_t j = 0; j < n_ap; j++) {
        n_scan += (int)ap[j].n;
    }
    int n_out = n_carry + n_scan;
    int *vals = em_ts_arena_alloc(&L->arena, (size_t)(n_out + 2) * sizeof(int));
    int *outs = em_ts_arena_alloc(&L->arena, (size_t)(n_out + 1) * sizeof(int));
    if (vals == NULL || outs == NULL) {
        return em_status_oom();
    }
    if (n_out == 0) {
        return NULL; /* the body changes nothing the code reads after it */
    }
    TS_TRY(em_ts_sub_enter(L, br->g));
    ember_status *st = body_outputs(L, c, ls, env, t, ap, n_ap, br, vals, 1 + n_out);
    em_ts_sub_leave(L);
    TS_TRY(st);
    /* Inputs: trip count (for) or first condition (while), then the carried values. */
    vals[0] = vals[1] = -1;
    if (ls->trips != NULL) {
        TS_TRY(em_ts_as_tensor(L, c, ls->trips, EMBER_DTYPE_I64, &vals[0]));
    } else {
        TS_TRY(cond_bool(L, c, ls->cond0, &vals[1]));
    }
    k = 2;
    for (size_t i = 0; i < env->n; i++) {
        if (t[i] != NULL) {
            TS_TRY(tmpl_values(L, c, t[i], env->vals[i], vals, &k));
        }
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_LOOP, vals, 2 + n_carry, outs, n_out, &node));
    TS_TRY(em_ts_sub_attach(L, node, "body", &br->g));
    TS_TRY(em_ts_infer(L, c, node));
    k = 0;
    for (size_t i = 0; i < env->n; i++) {
        ts_av *v = NULL;
        if (t[i] != NULL) {
            TS_TRY(tmpl_value(L, t[i], outs, &k, &v));
            env->vals[i] = v;
        }
    }
    for (size_t j = 0; j < n_ap; j++) {
        if (ap[j].n > 0) {
            TS_TRY(em_ts_flow_stack_list(L, c, ap[j].list, outs + k, ap[j].n));
            k += (int)ap[j].n;
        }
    }
    return NULL;
}

static ember_status *dyn_loop(ts_lower *L, ts_env *env, const loop_spec *ls)
{
    em_ts_pos pos = ls->s->pos;
    ts_call c = {.op = ls->target != NULL ? "for" : "while", .pos = pos,
                 .node = node_name(L, "Loop")};
    ts_snap snap;
    body_run br = {0};
    size_t n_ap = 0;
    tmpl **t = em_ts_arena_alloc(&L->arena, (env->n + 1) * sizeof(tmpl *));
    if (t == NULL || c.node == NULL) {
        return em_status_oom();
    }
    memset(t, 0, (env->n + 1) * sizeof(tmpl *));
    TS_TRY(em_ts_snap_take(L, env, &snap));
    ts_appended *ap = em_ts_arena_alloc(&L->arena, (snap.n + 1) * sizeof *ap);
    if (ap == NULL) {
        return em_status_oom();
    }
    ember_status *st = NULL;
    for (int lowering = 0; st == NULL; lowering++) {
        bool changed = false;
        if (lowering == TS_FLOW_MAX_LOWERINGS) {
            st = em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "the values carried through this loop on "
                        "tensor data do not settle after %d lowerings of its body",
                        TS_FLOW_MAX_LOWERINGS);
            break;
        }
        st = run_body(L, env, ls, &c, t, ap, n_ap, &br);
        if (st == NULL) {
            st = em_ts_flow_appends(L, &snap, ap, &n_ap, pos, &changed);
        }
        em_ts_snap_restore(&snap);
        if (st == NULL) {
            st = body_carry(L, env, &br.env, t, pos, &changed);
        }
        if (st == NULL && !changed) {
            st = emit_loop(L, env, ls, &c, t, ap, n_ap, &br);
            break;
        }
    }
    em_graph_destroy(br.g);
    return st;
}

ember_status *em_ts_flow_for(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av **args,
                          size_t n)
{
    loop_spec ls = {.s = s, .body = &s->u.for_.body, .target = s->u.for_.target};
    /* TorchScript writes range(lo, hi, step) as range(__range_length(...)) with the counter from
     * __derive_index (ts_expr.c): serialized loops have one argument. */
    if (n != 1 || args[0]->k != TA_SCALAR || graph_value(args[0])->dtype != EMBER_DTYPE_I64) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, s->pos, "a loop on tensor data must be "
                      "`for i in range(n)` with one int argument");
    }
    ls.trips = args[0];
    return dyn_loop(L, env, &ls);
}

ember_status *em_ts_flow_while(ts_lower *L, ts_env *env, const em_ts_stmt *s, ts_av *cond)
{
    loop_spec ls = {.s = s, .body = &s->u.while_.body, .cond = s->u.while_.cond, .cond0 = cond};
    return dyn_loop(L, env, &ls);
}
