/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partial evaluator of the TorchScript lowering (ts_lower.h): statements and expressions
 * of the serialized code over abstract values. Calls of builtins go to ts_ops.c.
 */
#include "ts_flow.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

typedef ts_flow_kind flow;

typedef struct frame {
    ts_env env;
    ts_av *ret;
} frame;

static ember_status *exec_block(ts_lower *L, frame *f, const em_ts_block *b, flow *fl);

/* ---- helpers ---- */

/* Known truth value of `a`: *known false when it depends on data. */
static ember_status *truth(ts_lower *L, const ts_av *a, em_ts_pos pos, bool *v, bool *known)
{
    *known = true;
    switch (a->k) {
    case TA_BOOL:
        *v = a->u.b;
        return NULL;
    case TA_INT:
        *v = a->u.i != 0;
        return NULL;
    case TA_FLOAT:
        *v = a->u.f != 0.0;
        return NULL;
    case TA_NONE:
        *v = false;
        return NULL;
    case TA_STR:
        *v = a->u.str.n > 0;
        return NULL;
    case TA_LIST:
    case TA_TUPLE:
        *v = a->u.seq.n > 0;
        return NULL;
    case TA_DICT:
        *v = a->u.dict.n > 0;
        return NULL;
    case TA_TENSOR:
    case TA_SCALAR:
        *known = false;
        return NULL;
    default:
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "a %s has no truth value",
                      em_ts_kind_name(a->k));
    }
}

/* ---- assignment ---- */

ember_status *em_ts_assign(ts_lower *L, ts_env *env, const em_ts_expr *t, ts_av *v)
{
    switch (t->kind) {
    case EM_TS_NAME:
        return em_ts_env_set(L, env, t->u.name, v);
    case EM_TS_TUPLE:
    case EM_TS_LIST:
        if (v->k != TA_TUPLE && v->k != TA_LIST) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, t->pos, "cannot unpack a %s",
                          em_ts_kind_name(v->k));
        }
        if (v->u.seq.n != t->u.seq.n) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, t->pos, "unpacking %zu values into %zu "
                          "names", v->u.seq.n, t->u.seq.n);
        }
        for (size_t i = 0; i < t->u.seq.n; i++) {
            ember_status *st = em_ts_assign(L, env, t->u.seq.items[i], v->u.seq.items[i]);
            if (st != NULL) {
                return st;
            }
        }
        return NULL;
    case EM_TS_ATTR: {
        ts_av *base = NULL;
        ember_status *st = em_ts_eval(L, env, t->u.attr.base, &base);
        if (st != NULL) {
            return st;
        }
        if (L->n_frames > 0) {
            /* The write would hold in one branch or iteration only. */
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, t->pos, "setting attribute '%s' inside an "
                          "`if` or loop on tensor data is not supported", t->u.attr.name);
        }
        if (base->k != TA_OBJECT) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, t->pos, "cannot set attribute '%s' of a "
                          "%s", t->u.attr.name, em_ts_kind_name(base->k));
        }
        return em_ts_obj_set(L, base->u.obj, t->u.attr.name, v);
    }
    case EM_TS_SUBSCRIPT: {
        ts_av *base = NULL, *idx = NULL;
        ember_status *st = em_ts_eval(L, env, t->u.sub.base, &base);
        if (st == NULL) {
            st = em_ts_eval(L, env, t->u.sub.index, &idx);
        }
        if (st != NULL) {
            return st;
        }
        if (base->k == TA_LIST && idx->k == TA_INT) {
            int64_t i = idx->u.i < 0 ? idx->u.i + (int64_t)base->u.seq.n : idx->u.i;
            if (i < 0 || i >= (int64_t)base->u.seq.n) {
                return em_ts_err(L, EMBER_ERR_INVALID_MODEL, t->pos, "list index %lld out of range",
                              (long long)idx->u.i);
            }
            base->u.seq.items[i] = v;
            return NULL;
        }
        if (base->k == TA_DICT) {
            ts_av *args[3] = {base, idx, v};
            ts_av *r = NULL;
            return em_ts_builtin_call(L, "torch._set_item", args, 3, NULL, NULL, 0, t->pos, &r);
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, t->pos, "assignment to an item of a %s is not "
                      "supported", em_ts_kind_name(base->k));
    }
    default:
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, t->pos, "cannot assign to this expression");
    }
}

/* ---- statements ---- */

/* Whether a block always ends in a raise (so a branch holding it can be dropped). */
static bool block_raises(const em_ts_block *b)
{
    if (b->n == 0) {
        return false;
    }
    const em_ts_stmt *s = b->stmts[b->n - 1];
    if (s->kind == EM_TS_S_RAISE) {
        return true;
    }
    if (s->kind == EM_TS_S_EXPR && s->u.expr->kind == EM_TS_CALL &&
        em_ts_expr_is_dotted(s->u.expr->u.call.fn, "ops.prim.RaiseException")) {
        return true;
    }
    if (s->kind == EM_TS_S_IF) {
        return block_raises(&s->u.if_.then) && block_raises(&s->u.if_.other);
    }
    return false;
}

static ember_status *exec_if(ts_lower *L, frame *f, const em_ts_stmt *s, flow *fl)
{
    ts_av *c = NULL;
    bool v = false, known = false;
    ember_status *st = em_ts_eval(L, &f->env, s->u.if_.cond, &c);
    if (st == NULL) {
        st = truth(L, c, s->pos, &v, &known);
    }
    if (st != NULL) {
        return st;
    }
    if (!known) {
        /* A branch that only raises is a check on the data: the lowered graph assumes it
         * passes (as torch.onnx does) and takes the other branch. */
        bool rt = block_raises(&s->u.if_.then), ro = block_raises(&s->u.if_.other);
        if (rt != ro) {
            v = ro;
            known = true;
        }
    }
    if (!known) {
        return em_ts_flow_if(L, &f->env, s, c);
    }
    const em_ts_block *b = v ? &s->u.if_.then : &s->u.if_.other;
    return b->n > 0 ? exec_block(L, f, b, fl) : NULL;
}

/* The items a `for` iterates over when they are known at load time. */
static ember_status *for_items(ts_lower *L, const em_ts_stmt *s, ts_av *it, ts_av ***items,
                               size_t *n)
{
    if (it->k == TA_LIST || it->k == TA_TUPLE) {
        *items = it->u.seq.items;
        *n = it->u.seq.n;
        return NULL;
    }
    if (it->k == TA_DICT) {
        *items = it->u.dict.keys;
        *n = it->u.dict.n;
        return NULL;
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, s->pos, "a `for` over a %s is not supported (a "
                  "loop on tensor data must be `for i in range(n)` or a `while`)",
                  em_ts_kind_name(it->k));
}

/* `for ... in range(...)`: its arguments when one of them is a dynamic scalar (a loop on
 * tensor data), else *args NULL and *it the range as a known list. */
static ember_status *for_range(ts_lower *L, frame *f, const em_ts_expr *e, ts_av ***args,
                               size_t *n, ts_av **it)
{
    *args = NULL;
    *it = NULL;
    if (e->kind != EM_TS_CALL || e->u.call.fn->kind != EM_TS_NAME ||
        strcmp(e->u.call.fn->u.name, "range") != 0 || e->u.call.n_kwargs > 0 ||
        em_ts_env_get(&f->env, "range") != NULL) {
        return em_ts_eval(L, &f->env, e, it);
    }
    size_t na = e->u.call.n_args;
    ts_av **a = em_ts_arena_alloc(&L->arena, (na + 1) * sizeof(ts_av *));
    if (a == NULL) {
        return em_status_oom();
    }
    bool dynamic = false;
    for (size_t i = 0; i < na; i++) {
        TS_TRY(em_ts_eval(L, &f->env, e->u.call.args[i], &a[i]));
        dynamic = dynamic || a[i]->k == TA_SCALAR;
    }
    if (dynamic) {
        *args = a;
        *n = na;
        return NULL;
    }
    return em_ts_builtin_call(L, "range", a, na, NULL, NULL, 0, e->pos, it);
}

static ember_status *exec_for(ts_lower *L, frame *f, const em_ts_stmt *s, flow *fl)
{
    ts_av *it = NULL, **items = NULL, **range_args = NULL;
    size_t n = 0;
    ember_status *st = for_range(L, f, s->u.for_.iter, &range_args, &n, &it);
    if (st == NULL && range_args != NULL) {
        return em_ts_flow_for(L, &f->env, s, range_args, n);
    }
    if (st == NULL) {
        st = for_items(L, s, it, &items, &n);
    }
    for (size_t i = 0; i < n && st == NULL; i++) {
        st = em_ts_assign(L, &f->env, s->u.for_.target, items[i]);
        if (st == NULL) {
            st = exec_block(L, f, &s->u.for_.body, fl);
        }
        if (*fl == TS_FLOW_BREAK) {
            *fl = TS_FLOW_NORMAL;
            break;
        }
        if (*fl == TS_FLOW_CONTINUE) {
            *fl = TS_FLOW_NORMAL;
        }
        if (*fl == TS_FLOW_RETURN) {
            break;
        }
    }
    return st;
}

static ember_status *exec_while(ts_lower *L, frame *f, const em_ts_stmt *s, flow *fl)
{
    for (int64_t iter = 0;; iter++) {
        ts_av *c = NULL;
        bool v = false, known = false;
        ember_status *st = em_ts_eval(L, &f->env, s->u.while_.cond, &c);
        if (st == NULL) {
            st = truth(L, c, s->pos, &v, &known);
        }
        if (st != NULL) {
            return st;
        }
        if (!known) { /* the iterations so far are unrolled; the rest is a Loop node */
            return em_ts_flow_while(L, &f->env, s, c);
        }
        if (!v) {
            return NULL;
        }
        if (iter >= TS_MAX_UNROLL) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, s->pos, "loop runs over %d iterations at "
                          "load time", TS_MAX_UNROLL);
        }
        st = exec_block(L, f, &s->u.while_.body, fl);
        if (st != NULL) {
            return st;
        }
        if (*fl == TS_FLOW_BREAK) {
            *fl = TS_FLOW_NORMAL;
            return NULL;
        }
        if (*fl == TS_FLOW_CONTINUE) {
            *fl = TS_FLOW_NORMAL;
        }
        if (*fl == TS_FLOW_RETURN) {
            return NULL;
        }
    }
}

/* A raise reached at load time: the model refuses these inputs. */
static ember_status *raised(ts_lower *L, frame *f, const em_ts_stmt *s, const em_ts_expr *e)
{
    ts_av *msg = NULL;
    const char *text = "";
    if (e != NULL && e->kind == EM_TS_CALL && e->u.call.n_args > 0) {
        if (em_ts_eval(L, &f->env, e->u.call.args[0], &msg) == NULL && msg->k == TA_STR) {
            text = msg->u.str.s;
        }
    } else if (e != NULL && em_ts_eval(L, &f->env, e, &msg) == NULL && msg->k == TA_STR) {
        text = msg->u.str.s;
    }
    return em_ts_err(L, EMBER_ERR_INVALID_ARG, s->pos, "the model raises an exception for inputs "
                  "of this rank or type: %s", text[0] != '\0' ? text : "(no message)");
}

static ember_status *exec_stmt(ts_lower *L, frame *f, const em_ts_stmt *s, flow *fl)
{
    ts_av *v = NULL;
    ember_status *st = NULL;
    switch (s->kind) {
    case EM_TS_S_EXPR:
        if (s->u.expr->kind == EM_TS_CALL &&
            em_ts_expr_is_dotted(s->u.expr->u.call.fn, "ops.prim.RaiseException")) {
            return raised(L, f, s, s->u.expr);
        }
        return em_ts_eval(L, &f->env, s->u.expr, &v);
    case EM_TS_S_ASSIGN:
        if (s->u.assign.value == NULL) {
            return NULL; /* `x : T` alone */
        }
        EMBER_TRY(em_ts_eval(L, &f->env, s->u.assign.value, &v));
        for (size_t i = 0; i < s->u.assign.n_targets; i++) {
            EMBER_TRY(em_ts_assign(L, &f->env, s->u.assign.targets[i], v));
        }
        return NULL;
    case EM_TS_S_AUGASSIGN: {
        /* x op= v evaluates as x = x op v. */
        em_ts_expr bin = {0};
        bin.kind = EM_TS_BINARY;
        bin.pos = s->pos;
        bin.u.bin.op = s->u.aug.op;
        bin.u.bin.lhs = s->u.aug.target;
        bin.u.bin.rhs = s->u.aug.value;
        EMBER_TRY(em_ts_eval(L, &f->env, &bin, &v));
        return em_ts_assign(L, &f->env, s->u.aug.target, v);
    }
    case EM_TS_S_IF:
        return exec_if(L, f, s, fl);
    case EM_TS_S_FOR:
        return exec_for(L, f, s, fl);
    case EM_TS_S_WHILE:
        return exec_while(L, f, s, fl);
    case EM_TS_S_BREAK:
        *fl = TS_FLOW_BREAK;
        return NULL;
    case EM_TS_S_CONTINUE:
        *fl = TS_FLOW_CONTINUE;
        return NULL;
    case EM_TS_S_RETURN:
        if (s->u.expr != NULL) {
            EMBER_TRY(em_ts_eval(L, &f->env, s->u.expr, &f->ret));
        } else {
            f->ret = em_ts_none(L);
        }
        *fl = TS_FLOW_RETURN;
        return f->ret != NULL ? NULL : em_status_oom();
    case EM_TS_S_PASS:
    case EM_TS_S_DEL:
        return NULL;
    case EM_TS_S_RAISE:
        return raised(L, f, s, s->u.expr);
    case EM_TS_S_ASSERT: {
        bool b = true, known = false;
        EMBER_TRY(em_ts_eval(L, &f->env, s->u.assert_.test, &v));
        EMBER_TRY(truth(L, v, s->pos, &b, &known));
        if (known && !b) {
            return raised(L, f, s, s->u.assert_.msg);
        }
        return NULL; /* a check on data: assumed to hold */
    }
    case EM_TS_S_WITH:
        return exec_block(L, f, &s->u.with.body, fl);
    case EM_TS_S_DEF:
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, s->pos, "nested functions (fork closures) are "
                      "not supported");
    }
    return em_ts_err(L, EMBER_ERR_INTERNAL, s->pos, "unknown statement");
fail:
    return st;
}

static ember_status *exec_block(ts_lower *L, frame *f, const em_ts_block *b, flow *fl)
{
    for (size_t i = 0; i < b->n; i++) {
        ember_status *st = exec_stmt(L, f, b->stmts[i], fl);
        if (st != NULL) {
            return st;
        }
        if (*fl != TS_FLOW_NORMAL) {
            return NULL;
        }
    }
    return NULL;
}

ember_status *em_ts_exec_block(ts_lower *L, ts_env *env, const em_ts_block *b, ts_flow_kind *fl)
{
    frame f = {*env, NULL};
    *fl = TS_FLOW_NORMAL;
    ember_status *st = exec_block(L, &f, b, fl);
    *env = f.env;
    return st;
}

/* ---- calls of serialized functions ---- */

ember_status *em_ts_call_func(ts_lower *L, const ts_av *fn, ts_av **args, size_t n_args,
                           const char **kw_names, ts_av **kw_vals, size_t n_kw, em_ts_pos pos,
                           ts_av **out)
{
    const em_ts_func *func = fn->u.fn.fn;
    frame f = {0};
    size_t p = 0;
    *out = NULL;
    if (L->depth >= TS_MAX_CALL_DEPTH) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "calls nest deeper than %d (recursion?)",
                      TS_MAX_CALL_DEPTH);
    }
    if (fn->u.fn.self != NULL) {
        if (func->n_params == 0) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, func->pos, "method %s has no self",
                          func->name);
        }
        TS_TRY(em_ts_env_set(L, &f.env, func->params[0].name, fn->u.fn.self));
        p = 1;
    }
    if (n_args > func->n_params - p) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s takes %zu arguments, %zu given",
                      func->name, func->n_params - p, n_args);
    }
    for (size_t i = 0; i < n_args; i++) {
        TS_TRY(em_ts_env_set(L, &f.env, func->params[p + i].name, args[i]));
    }
    for (size_t k = 0; k < n_kw; k++) {
        size_t i = p;
        while (i < func->n_params && strcmp(func->params[i].name, kw_names[k]) != 0) {
            i++;
        }
        if (i == func->n_params) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s has no argument '%s'",
                          func->name, kw_names[k]);
        }
        TS_TRY(em_ts_env_set(L, &f.env, func->params[i].name, kw_vals[k]));
    }
    for (size_t i = p; i < func->n_params; i++) {
        if (em_ts_env_get(&f.env, func->params[i].name) != NULL) {
            continue;
        }
        if (func->params[i].def == NULL) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s: argument '%s' is missing",
                          func->name, func->params[i].name);
        }
        ts_av *d = NULL;
        ts_env empty = {0};
        TS_TRY(em_ts_eval(L, &empty, func->params[i].def, &d));
        TS_TRY(em_ts_env_set(L, &f.env, func->params[i].name, d));
    }
    /* Node names follow the module path of the method's object. */
    const char *saved_path = L->path;
    if (fn->u.fn.self != NULL && fn->u.fn.self->k == TA_OBJECT) {
        L->path = fn->u.fn.self->u.obj->path;
    }
    flow fl = TS_FLOW_NORMAL;
    L->depth++;
    ember_status *st = exec_block(L, &f, &func->body, &fl);
    L->depth--;
    L->path = saved_path;
    if (st != NULL) {
        return st;
    }
    *out = f.ret != NULL ? f.ret : em_ts_none(L);
    return *out != NULL ? NULL : em_status_oom();
}
