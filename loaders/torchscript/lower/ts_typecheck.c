/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checks torch.jit.load makes when it compiles a class, and that need the archive
 * (ts_lower.h, em_ts_typecheck_*); those of one record alone are lang/ts_check.c's.
 *
 * Classes named by types. Every class an attribute, constant or signature names must be
 * defined by a code/ record (or be a TorchBind class, __torch__.torch.classes.*):
 * torch.jit.load's "Unknown type name".
 *
 * Function bodies, checked statically for every class and function of every record the
 * loader parses (torch.jit.load compiles them all, whether forward() reaches them or not):
 *   - each `return` against the declared return type, and falling off the end of a function
 *     declared to return something else than None ("does not return along all paths");
 *   - each call of a method or of a __torch__ function: the method exists, and the arguments
 *     bind to its parameters (counts, keyword names, missing arguments, argument types);
 *   - each attribute read or written on an object of a known class: the class has it.
 * Types come from a small inference that only says what is certain and answers "unknown"
 * otherwise: literals, tuple/list/dict displays, parameters and locals bound once (by their
 * annotation or their value), attributes of objects of known classes (their declarations),
 * results of methods and functions (their declared returns), annotate/unchecked_cast, the
 * int/float/bool/str/len builtins, `not`, `is`, `in`, arithmetic on known ints and floats,
 * subscripts of known lists, tuples and dicts. Calls of torch operators are unknown.
 * Compatibility follows TorchScript's subtyping (Optional, Union, Any; no int -> float, no
 * bool -> int) but gives way where the inference is blind: Optional and Union values (a
 * refinement such as `if x is not None` may have narrowed them), interfaces and classes
 * against classes, type variables. Arguments also take torch's implicit conversions
 * (Tensor, number or bool to int/float, str to Device, list to tuple).
 *
 * Objects of data.pkl: every object reached from the root whose class has code and no
 * __setstate__ holds an attribute dict with a value for each declared attribute (torch.jit.load:
 * "Argument passed to at() was not in the map"), and each value fits the declared type (Tensor
 * a tensor, int an int, List[int] a list of ints, a module class an object of that class...).
 * torch.jit.load itself does not compare them (a contradiction fails later, when the model
 * runs, or never); ember refuses them at load.
 *
 * Bounds: expression and type trees are bounded by the parser (EM_TS_MAX_DEPTH), the
 * inference's recursion by TC_MAX_DEPTH; the pickle's values by its depth bound, with visited
 * sets so that shared values are checked once per declared type and a shared attribute dict
 * once per class. Work is linear in the code and the pickle.
 */
#include "ts_lower.h"
#include "loaders/torchscript/lang/ts_check.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Deepest recursion of the inference (through expressions and the values of locals): beyond
 * it a type is unknown. */
#define TC_MAX_DEPTH (EM_TS_MAX_DEPTH + 56)

#define TORCHBIND_PREFIX "__torch__.torch.classes."

/* INVALID_MODEL at `pos` with the caret message, after the archive's name. */
static ember_status *tc_err(ts_lower *L, em_ts_pos pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static ember_status *tc_err(ts_lower *L, em_ts_pos pos, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_status_wrap(em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s", msg), "%s", L->what);
}

/* ---- classes by name ---------------------------------------------------------------------- */

/* The class `qual` names: *cls its code, or NULL for a TorchBind class or a name that is not a
 * class (then *known is false). Cached in L->tc_classes. */
static ember_status *find_class(ts_lower *L, const char *qual, em_ts_pos pos,
                                const em_ts_class **cls, bool *known)
{
    static const em_ts_class none; /* cached "not a class with code" */
    *cls = NULL;
    *known = false;
    if (L->tc_classes.a == NULL) {
        L->tc_classes = (em_ts_map){.a = L->ast, .strings = true};
    }
    const em_ts_class *c = em_ts_map_get(&L->tc_classes, qual, NULL);
    if (c == NULL) {
        ts_av *av = NULL;
        TS_TRY(em_ts_resolve(L, qual, pos, &av));
        c = av != NULL && av->k == TA_CLASS && av->u.cls.cls != NULL ? av->u.cls.cls : &none;
        const char *key = em_ts_ast_strndup(L->ast, qual, strlen(qual));
        if (key == NULL) {
            return em_status_oom();
        }
        TS_TRY(em_ts_map_put(&L->tc_classes, key, NULL, c, NULL));
    }
    if (c != &none) {
        *cls = c;
        *known = true;
    }
    return NULL;
}

static bool torchbind(const char *qual)
{
    return strncmp(qual, TORCHBIND_PREFIX, strlen(TORCHBIND_PREFIX)) == 0;
}

/* A class whose members are all known: its objects have nothing but what it declares. */
static bool closed_class(const em_ts_class *c)
{
    return c != NULL && (c->base == EM_TS_BASE_NONE || c->base == EM_TS_BASE_MODULE);
}

/* A class's attributes and constants, and its methods, by name (the first of a name). */
typedef struct class_index {
    em_ts_map attrs, methods;
} class_index;

static ember_status *index_of(ts_lower *L, const em_ts_class *c, const class_index **out)
{
    if (L->tc_index.a == NULL) {
        L->tc_index = (em_ts_map){.a = L->ast};
    }
    *out = em_ts_map_get(&L->tc_index, c, NULL);
    if (*out != NULL) {
        return NULL;
    }
    class_index *ix = em_ts_ast_alloc(L->ast, sizeof *ix);
    if (ix == NULL) {
        return em_status_oom();
    }
    ix->attrs = (em_ts_map){.a = L->ast, .strings = true};
    ix->methods = (em_ts_map){.a = L->ast, .strings = true};
    for (size_t i = 0; i < c->n_members; i++) {
        const em_ts_member *m = &c->members[i];
        em_ts_map *to = m->kind == EM_TS_M_METHOD                             ? &ix->methods
                        : m->kind == EM_TS_M_ATTR || m->kind == EM_TS_M_CONST ? &ix->attrs
                                                                              : NULL;
        if (to != NULL) {
            TS_TRY(em_ts_map_put(to, m->name, NULL, m, NULL));
        }
    }
    TS_TRY(em_ts_map_put(&L->tc_index, c, NULL, ix, NULL));
    *out = ix;
    return NULL;
}

/* The method (`method`) or the attribute or constant `name` of `c`; NULL when `c` is NULL or
 * has none. */
static ember_status *member_of(ts_lower *L, const em_ts_class *c, const char *name, bool method,
                               const em_ts_member **out)
{
    const class_index *ix = NULL;
    *out = NULL;
    if (c != NULL) {
        TS_TRY(index_of(L, c, &ix));
        *out = em_ts_map_get(method ? &ix->methods : &ix->attrs, name, NULL);
    }
    return NULL;
}

static ember_status *method_of(ts_lower *L, const em_ts_class *c, const char *name,
                               const em_ts_func **out)
{
    const em_ts_member *m = NULL;
    ember_status *st = member_of(L, c, name, true, &m);
    *out = m != NULL ? m->method : NULL;
    return st;
}

/* Every class type `t` names (written at `e`) is defined by code or is a TorchBind class. */
static ember_status *classes_exist(ts_lower *L, const em_ts_type *t, const em_ts_expr *e)
{
    if (t->kind == EM_TS_TY_CLASS && !torchbind(t->name)) {
        const em_ts_class *c = NULL;
        bool known = false;
        TS_TRY(find_class(L, t->name, e->pos, &c, &known));
        if (!known) {
            return tc_err(L, e->pos, "unknown type name '%s': no "
                             "code/ record defines that class", t->name);
        }
    }
    for (size_t i = 0; i < t->n_items; i++) {
        TS_TRY(classes_exist(L, t->items[i], e));
    }
    return NULL;
}

/* The declared type of annotation `e` (NULL when `e` is); its classes must exist. */
static ember_status *declared(ts_lower *L, const em_ts_expr *e, const em_ts_type **out)
{
    em_ts_type *t = NULL;
    *out = NULL;
    if (e == NULL) {
        return NULL;
    }
    TS_TRY(em_ts_check_type(L->ast, e, &t));
    TS_TRY(classes_exist(L, t, e));
    *out = t;
    return NULL;
}

/* ---- types -------------------------------------------------------------------------------- */

static const em_ts_type *basic(ts_lower *L, em_ts_type_kind k)
{
    return em_ts_type_new(L->ast, k, 0);
}

static const char *type_text(ts_lower *L, const em_ts_type *t)
{
    em_strbuf sb;
    em_strbuf_init(&sb, L->al);
    em_ts_type_print(&sb, t); /* unknown items as "?" */
    char *s = sb.failed ? NULL : em_ts_strdup(L, sb.data != NULL ? sb.data : "");
    em_strbuf_free(&sb);
    return s != NULL ? s : "?";
}

/*
 * Whether a value of inferred type `a` may be where `d` is declared. NULL (unknown) fits
 * anything; so do what the inference cannot see through (Optional and Union values, which a
 * refinement may have narrowed; classes, which may implement an interface; type variables).
 */
static bool fits(const em_ts_type *a, const em_ts_type *d)
{
    if (a == NULL || d == NULL || a->kind == EM_TS_TY_ANY || d->kind == EM_TS_TY_ANY ||
        a->kind == EM_TS_TY_VAR || d->kind == EM_TS_TY_VAR || a->kind == EM_TS_TY_OPTIONAL ||
        a->kind == EM_TS_TY_UNION) {
        return true;
    }
    switch (d->kind) {
    case EM_TS_TY_OPTIONAL:
        return a->kind == EM_TS_TY_NONE || fits(a, em_ts_type_elem(d));
    case EM_TS_TY_UNION:
        for (size_t i = 0; i < d->n_items; i++) {
            if (fits(a, d->items[i])) {
                return true;
            }
        }
        return false;
    case EM_TS_TY_NUMBER:
        return a->kind == EM_TS_TY_INT || a->kind == EM_TS_TY_FLOAT ||
               a->kind == EM_TS_TY_COMPLEX || a->kind == EM_TS_TY_NUMBER ||
               a->kind == EM_TS_TY_BOOL;
    case EM_TS_TY_CLASS:
        return a->kind == EM_TS_TY_CLASS || a->kind == EM_TS_TY_TUPLE; /* NamedTuple */
    case EM_TS_TY_TUPLE:
        if (a->kind == EM_TS_TY_CLASS) {
            return true; /* a NamedTuple is a tuple */
        }
        if (a->kind != EM_TS_TY_TUPLE || a->n_items != d->n_items) {
            return false;
        }
        for (size_t i = 0; i < d->n_items; i++) {
            if (!fits(a->items[i], d->items[i])) {
                return false;
            }
        }
        return true;
    case EM_TS_TY_LIST:
    case EM_TS_TY_DICT:
        if (a->kind != d->kind) {
            return false;
        }
        for (size_t i = 0; i < d->n_items && i < a->n_items; i++) {
            if (!fits(a->items[i], d->items[i])) {
                return false;
            }
        }
        return true;
    case EM_TS_TY_TENSOR:
    case EM_TS_TY_INT:
    case EM_TS_TY_FLOAT:
    case EM_TS_TY_BOOL:
    case EM_TS_TY_STR:
    case EM_TS_TY_NONE:
        return a->kind == d->kind || (d->kind == EM_TS_TY_INT && a->kind == EM_TS_TY_SYMINT);
    default:
        return true; /* Device, ScalarType, Future...: the inference never gives them */
    }
}

/* fits() plus the implicit conversions of a call's arguments (torch's tryConvertToType). */
static bool converts(const em_ts_type *a, const em_ts_type *d)
{
    if (fits(a, d)) {
        return true;
    }
    if (d->kind == EM_TS_TY_OPTIONAL) {
        d = em_ts_type_elem(d);
    }
    bool number = d->kind == EM_TS_TY_INT || d->kind == EM_TS_TY_FLOAT ||
                  d->kind == EM_TS_TY_NUMBER;
    /* bool -> int / float: not in torch 1.13, but newer versions convert it */
    return (number && (a->kind == EM_TS_TY_TENSOR || a->kind == EM_TS_TY_NUMBER ||
                       a->kind == EM_TS_TY_BOOL)) ||
           (d->kind == EM_TS_TY_DEVICE && a->kind == EM_TS_TY_STR) ||
           (d->kind == EM_TS_TY_TUPLE && a->kind == EM_TS_TY_LIST);
}

/* ---- one function ------------------------------------------------------------------------- */

typedef struct local {
    const em_ts_expr *value; /* its one plain assignment's value (or NULL) */
    const em_ts_expr *ann;   /* its declared type: a parameter's or `x: T = v` annotation */
    int bindings;            /* parameters and assignments that bind it */
    bool opaque;             /* also bound another way (for, with, unpacking, +=, def) */
    bool param;
    int state;               /* inference: 0 not started, 1 running, 2 done */
    const em_ts_type *type;  /* inferred (state 2); NULL: unknown */
} local;

typedef struct fn_ctx {
    ts_lower *L;
    const em_ts_func *fn;
    const char *cls_qual; /* the class of a method, else NULL */
    em_ts_map locals;     /* name -> local */
    const em_ts_type *ret;
    int depth;            /* of infer() */
} fn_ctx;

static ember_status *bind(fn_ctx *fx, const char *name, const em_ts_expr *value,
                          const em_ts_expr *ann, bool opaque)
{
    local *l = (local *)(uintptr_t)em_ts_map_get(&fx->locals, name, NULL);
    if (l == NULL) {
        if ((l = em_ts_ast_alloc(fx->L->ast, sizeof *l)) == NULL) {
            return em_status_oom();
        }
        TS_TRY(em_ts_map_put(&fx->locals, name, NULL, l, NULL));
    }
    l->bindings++;
    l->opaque |= opaque;
    l->value = value;
    l->ann = l->ann != NULL ? l->ann : ann;
    return NULL;
}

/* Binds the names of an assignment target; `value` only for a plain NAME target. */
static ember_status *bind_target(fn_ctx *fx, const em_ts_expr *t, const em_ts_expr *value,
                                 const em_ts_expr *ann, bool opaque)
{
    if (t->kind == EM_TS_NAME) {
        return bind(fx, t->u.name, opaque ? NULL : value, ann, opaque);
    }
    if (t->kind == EM_TS_TUPLE || t->kind == EM_TS_LIST) {
        for (size_t i = 0; i < t->u.seq.n; i++) {
            TS_TRY(bind_target(fx, t->u.seq.items[i], NULL, NULL, true));
        }
    }
    return NULL; /* attributes and subscripts bind no name */
}

static ember_status *collect(fn_ctx *fx, const em_ts_block *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const em_ts_stmt *s = b->stmts[i];
        switch (s->kind) {
        case EM_TS_S_ASSIGN:
            for (size_t k = 0; k < s->u.assign.n_targets; k++) {
                TS_TRY(bind_target(fx, s->u.assign.targets[k], s->u.assign.value,
                                   s->u.assign.type, false));
            }
            break;
        case EM_TS_S_AUGASSIGN:
            TS_TRY(bind_target(fx, s->u.aug.target, NULL, NULL, true));
            break;
        case EM_TS_S_IF:
            TS_TRY(collect(fx, &s->u.if_.then));
            TS_TRY(collect(fx, &s->u.if_.other));
            break;
        case EM_TS_S_FOR:
            TS_TRY(bind_target(fx, s->u.for_.target, NULL, NULL, true));
            TS_TRY(collect(fx, &s->u.for_.body));
            break;
        case EM_TS_S_WHILE:
            TS_TRY(collect(fx, &s->u.while_.body));
            break;
        case EM_TS_S_WITH:
            for (size_t k = 0; k < s->u.with.n; k++) {
                if (s->u.with.items[k].target != NULL) {
                    TS_TRY(bind_target(fx, s->u.with.items[k].target, NULL, NULL, true));
                }
            }
            TS_TRY(collect(fx, &s->u.with.body));
            break;
        case EM_TS_S_DEF:
            TS_TRY(bind(fx, s->u.def->name, NULL, NULL, true));
            break;
        default:
            break;
        }
    }
    return NULL;
}

static ember_status *infer(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out);

static ember_status *infer_name(fn_ctx *fx, const char *name, const em_ts_type **out)
{
    local *l = (local *)(uintptr_t)em_ts_map_get(&fx->locals, name, NULL);
    *out = NULL;
    if (l == NULL || l->opaque || l->bindings != 1 || l->state == 1) {
        return NULL; /* a global, a name bound several ways, or a cycle: unknown */
    }
    if (l->state == 2) {
        *out = l->type;
        return NULL;
    }
    l->state = 1;
    ember_status *st = NULL;
    if (l->ann != NULL) {
        em_ts_type *t = NULL;
        st = em_ts_check_type(fx->L->ast, l->ann, &t);
        l->type = t;
    } else if (l->param && fx->cls_qual != NULL && fx->fn->n_params > 0 &&
               l == em_ts_map_get(&fx->locals, fx->fn->params[0].name, NULL)) {
        em_ts_type *t = em_ts_type_new(fx->L->ast, EM_TS_TY_CLASS, 0); /* self */
        if (t == NULL) {
            st = em_status_oom();
        } else {
            t->name = fx->cls_qual;
            l->type = t;
        }
    } else if (l->value != NULL) {
        st = infer(fx, l->value, &l->type);
    }
    l->state = 2;
    *out = l->type;
    return st;
}

/* The class of an object of inferred type `t`, when it is a class with code. */
static ember_status *class_of(fn_ctx *fx, const em_ts_type *t, em_ts_pos pos,
                              const em_ts_class **cls)
{
    bool known = false;
    *cls = NULL;
    if (t == NULL || t->kind != EM_TS_TY_CLASS || torchbind(t->name)) {
        return NULL;
    }
    return find_class(fx->L, t->name, pos, cls, &known);
}

/* The function a callee expression names: a __torch__ function, directly or through a local
 * bound once to its name (`_0 = __torch__.a.f` then `_0(x)`). *qual gets its name. */
static ember_status *callee_func(fn_ctx *fx, const em_ts_expr *fn, const em_ts_func **out,
                                 const char **qual)
{
    *out = NULL;
    *qual = NULL;
    if (fn->kind == EM_TS_NAME) {
        const local *l = em_ts_map_get(&fx->locals, fn->u.name, NULL);
        if (l == NULL || l->opaque || l->bindings != 1 || l->value == NULL) {
            return NULL;
        }
        fn = l->value;
    }
    if (fn->kind != EM_TS_ATTR) {
        return NULL;
    }
    const char *q = em_ts_expr_dotted(fx->L->ast, fn);
    if (q == NULL || strncmp(q, "__torch__.", 10) != 0) {
        return NULL;
    }
    ts_av *av = NULL;
    TS_TRY(em_ts_resolve(fx->L, q, fn->pos, &av));
    if (av != NULL && av->k == TA_FUNC) {
        *out = av->u.fn.fn;
        *qual = q;
    }
    return NULL;
}

/* The serialized function a call of `fn` runs: a method of an object of a known class
 * (`(obj).m(...)`: *method set, *name "<class>.m()"), or a __torch__ function (*name
 * "<qualified name>()"); NULL when it is neither. */
static ember_status *callee(fn_ctx *fx, const em_ts_expr *fn, const em_ts_func **out,
                            bool *method, const char **name)
{
    *out = NULL;
    *method = false;
    if (fn->kind == EM_TS_ATTR) {
        const em_ts_type *bt = NULL;
        const em_ts_class *c = NULL;
        TS_TRY(infer(fx, fn->u.attr.base, &bt));
        TS_TRY(class_of(fx, bt, fn->pos, &c));
        TS_TRY(method_of(fx->L, c, fn->u.attr.name, out));
        if (*out != NULL) {
            *method = true;
            *name = em_ts_printf(fx->L, "%s.%s()", bt->name, fn->u.attr.name);
            return *name != NULL ? NULL : em_status_oom();
        }
    }
    const char *qual = NULL;
    TS_TRY(callee_func(fx, fn, out, &qual));
    if (*out != NULL && (*name = em_ts_printf(fx->L, "%s()", qual)) == NULL) {
        return em_status_oom();
    }
    return NULL;
}

static bool is_number_kind(const em_ts_type *t)
{
    return t != NULL && (t->kind == EM_TS_TY_INT || t->kind == EM_TS_TY_FLOAT);
}

static ember_status *infer_call(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out)
{
    const em_ts_expr *fn = e->u.call.fn;
    ts_lower *L = fx->L;
    *out = NULL;
    if (fn->kind == EM_TS_NAME && em_ts_map_get(&fx->locals, fn->u.name, NULL) == NULL) {
        static const struct {
            const char *name;
            em_ts_type_kind kind;
        } casts[] = {{"int", EM_TS_TY_INT}, {"float", EM_TS_TY_FLOAT}, {"bool", EM_TS_TY_BOOL},
                     {"str", EM_TS_TY_STR}, {"len", EM_TS_TY_INT}};
        for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++) {
            if (strcmp(fn->u.name, casts[i].name) == 0) {
                *out = basic(L, casts[i].kind);
                return *out != NULL ? NULL : em_status_oom();
            }
        }
        if ((strcmp(fn->u.name, "annotate") == 0 || strcmp(fn->u.name, "unchecked_cast") == 0) &&
            e->u.call.n_args == 2) {
            return declared(L, e->u.call.args[0], out);
        }
    }
    const em_ts_func *f = NULL;
    const char *name = NULL;
    bool method = false;
    TS_TRY(callee(fx, fn, &f, &method, &name));
    return f != NULL ? declared(L, f->ret, out) : NULL;
}

static ember_status *infer_seq(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out)
{
    ts_lower *L = fx->L;
    size_t n = e->u.seq.n;
    em_ts_type *t = em_ts_type_new(L->ast, e->kind == EM_TS_TUPLE ? EM_TS_TY_TUPLE
                                                                  : EM_TS_TY_LIST,
                                   e->kind == EM_TS_TUPLE ? n : 1);
    if (t == NULL) {
        return em_status_oom();
    }
    *out = t;
    for (size_t i = 0; i < n; i++) {
        const em_ts_type *it = NULL;
        TS_TRY(infer(fx, e->u.seq.items[i], &it));
        if (e->kind == EM_TS_TUPLE) {
            t->items[i] = (em_ts_type *)(uintptr_t)it;
        } else if (i == 0 || (t->items[0] != NULL && it != NULL &&
                              em_ts_type_equal(t->items[0], it))) {
            t->items[0] = (em_ts_type *)(uintptr_t)it; /* List[T] when all items agree */
        } else {
            t->items[0] = NULL;
        }
    }
    if (e->kind == EM_TS_LIST && n == 0) {
        t->items[0] = NULL;
    }
    return NULL;
}

static ember_status *infer_expr(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out);

/* The type of `e`, NULL when unknown. Items of an inferred type may be NULL (unknown) too,
 * unlike those of declared types: fits() takes both. */
static ember_status *infer(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out)
{
    *out = NULL;
    if (fx->depth >= TC_MAX_DEPTH) {
        return NULL;
    }
    fx->depth++;
    ember_status *st = infer_expr(fx, e, out);
    fx->depth--;
    return st;
}

static ember_status *infer_expr(fn_ctx *fx, const em_ts_expr *e, const em_ts_type **out)
{
    ts_lower *L = fx->L;
    const em_ts_type *a = NULL, *b = NULL;
    *out = NULL;
    switch (e->kind) {
    case EM_TS_INT: *out = basic(L, EM_TS_TY_INT); break;
    case EM_TS_FLOAT: *out = basic(L, EM_TS_TY_FLOAT); break;
    case EM_TS_STR: *out = basic(L, EM_TS_TY_STR); break;
    case EM_TS_BOOL: *out = basic(L, EM_TS_TY_BOOL); break;
    case EM_TS_NONE: *out = basic(L, EM_TS_TY_NONE); break;
    case EM_TS_NAME: return infer_name(fx, e->u.name, out);
    case EM_TS_TUPLE:
    case EM_TS_LIST: return infer_seq(fx, e, out);
    case EM_TS_DICT: *out = em_ts_type_new(L->ast, EM_TS_TY_DICT, 2); break;
    case EM_TS_CALL: return infer_call(fx, e, out);
    case EM_TS_ATTR: {
        const em_ts_class *c = NULL;
        const em_ts_member *m = NULL;
        TS_TRY(infer(fx, e->u.attr.base, &a));
        TS_TRY(class_of(fx, a, e->pos, &c));
        TS_TRY(member_of(L, c, e->u.attr.name, false, &m));
        return m != NULL ? declared(L, m->type, out) : NULL;
    }
    case EM_TS_SUBSCRIPT:
        TS_TRY(infer(fx, e->u.sub.base, &a));
        if (a == NULL || e->u.sub.index->kind == EM_TS_SLICE) {
            return NULL;
        }
        if (a->kind == EM_TS_TY_LIST) {
            *out = em_ts_type_elem(a);
        } else if (a->kind == EM_TS_TY_DICT && a->n_items == 2) {
            *out = a->items[1];
        } else if (a->kind == EM_TS_TY_TUPLE && e->u.sub.index->kind == EM_TS_INT &&
                   e->u.sub.index->u.num.i >= 0 && (uint64_t)e->u.sub.index->u.num.i < a->n_items) {
            *out = a->items[e->u.sub.index->u.num.i];
        }
        return NULL;
    case EM_TS_UNARY:
        if (e->u.unary.op == EM_TS_OP_NOT) {
            *out = basic(L, EM_TS_TY_BOOL);
            break;
        }
        TS_TRY(infer(fx, e->u.unary.operand, &a));
        *out = is_number_kind(a) && e->u.unary.op != EM_TS_OP_INVERT ? a : NULL;
        return NULL;
    case EM_TS_COMPARE: {
        bool boolean = true;
        for (size_t i = 0; i < e->u.cmp.n_ops; i++) {
            em_ts_op op = e->u.cmp.ops[i];
            boolean &= op == EM_TS_OP_IS || op == EM_TS_OP_IS_NOT || op == EM_TS_OP_IN ||
                       op == EM_TS_OP_NOT_IN;
        }
        for (size_t i = 0; !boolean && i <= e->u.cmp.n_ops; i++) {
            TS_TRY(infer(fx, e->u.cmp.operands[i], &a));
            if (!is_number_kind(a)) {
                return NULL; /* tensors compare into tensors */
            }
        }
        *out = basic(L, EM_TS_TY_BOOL);
        break;
    }
    case EM_TS_BINARY: {
        em_ts_op op = e->u.bin.op;
        if (op == EM_TS_OP_AND || op == EM_TS_OP_OR || op == EM_TS_OP_POW ||
            op == EM_TS_OP_MATMUL) {
            return NULL;
        }
        TS_TRY(infer(fx, e->u.bin.lhs, &a));
        TS_TRY(infer(fx, e->u.bin.rhs, &b));
        if (!is_number_kind(a) || !is_number_kind(b)) {
            return NULL;
        }
        bool ints = a->kind == EM_TS_TY_INT && b->kind == EM_TS_TY_INT;
        if (op == EM_TS_OP_DIV || (!ints && (op == EM_TS_OP_ADD || op == EM_TS_OP_SUB ||
                                             op == EM_TS_OP_MUL))) {
            *out = basic(L, EM_TS_TY_FLOAT);
        } else if (ints) {
            *out = a;
        }
        return NULL;
    }
    case EM_TS_IFEXP:
        TS_TRY(infer(fx, e->u.ifexp.then, &a));
        TS_TRY(infer(fx, e->u.ifexp.other, &b));
        *out = a != NULL && b != NULL && em_ts_type_equal(a, b) ? a : NULL;
        return NULL;
    default:
        return NULL;
    }
    return *out != NULL ? NULL : em_status_oom();
}

/* ---- the checks of a body ----------------------------------------------------------------- */

/* A function's parameters after self by name (index + 1), and how many of those from each
 * index on have no default. */
typedef struct fn_index {
    em_ts_map params;
    size_t *required_from; /* n + 1 entries */
} fn_index;

static ember_status *fn_index_of(ts_lower *L, const em_ts_func *f, size_t p0,
                                 const fn_index **out)
{
    if (L->tc_index.a == NULL) {
        L->tc_index = (em_ts_map){.a = L->ast};
    }
    *out = em_ts_map_get(&L->tc_index, f, NULL);
    if (*out != NULL) {
        return NULL;
    }
    size_t n = f->n_params - p0;
    fn_index *fi = em_ts_ast_alloc(L->ast, sizeof *fi);
    if (fi == NULL || (fi->required_from = em_ts_ast_alloc(L->ast, (n + 1) * sizeof(size_t))) ==
                          NULL) {
        return em_status_oom();
    }
    fi->params = (em_ts_map){.a = L->ast, .strings = true};
    for (size_t i = n; i-- > 0;) {
        fi->required_from[i] = fi->required_from[i + 1] + (f->params[p0 + i].def == NULL);
    }
    for (size_t i = 0; i < n; i++) {
        TS_TRY(em_ts_map_put(&fi->params, f->params[p0 + i].name, NULL, (void *)(uintptr_t)(i + 1),
                             NULL));
    }
    TS_TRY(em_ts_map_put(&L->tc_index, f, NULL, fi, NULL));
    *out = fi;
    return NULL;
}

/* Argument `arg` for parameter `p`: its type must convert to the declared one. */
static ember_status *check_arg(fn_ctx *fx, const em_ts_param *p, const em_ts_expr *arg,
                               const char *what)
{
    const em_ts_type *d = NULL, *a = NULL;
    TS_TRY(declared(fx->L, p->type, &d));
    TS_TRY(infer(fx, arg, &a));
    if (d == NULL || a == NULL || converts(a, d)) {
        return NULL;
    }
    return tc_err(fx->L, arg->pos, "%s: argument '%s' is declared %s, but %s is given", what,
                  p->name, type_text(fx->L, d), type_text(fx->L, a));
}

/* Arguments of a call of `f` (a method when `method`: its first parameter is self). Work is
 * linear in the call's arguments. */
static ember_status *check_args(fn_ctx *fx, const em_ts_expr *call, const em_ts_func *f,
                                bool method, const char *what)
{
    ts_lower *L = fx->L;
    size_t p0 = method && f->n_params > 0 ? 1 : 0, n_params = f->n_params - p0;
    size_t n_args = call->u.call.n_args, required_kw = 0;
    const fn_index *fi = NULL;
    if (n_args > n_params) {
        return tc_err(L, call->pos, "%s takes %zu arguments, %zu given", what, n_params, n_args);
    }
    TS_TRY(fn_index_of(L, f, p0, &fi));
    for (size_t i = 0; i < n_args; i++) {
        TS_TRY(check_arg(fx, &f->params[p0 + i], call->u.call.args[i], what));
    }
    em_ts_map kw = {.a = L->ast, .strings = true};
    for (size_t k = 0; k < call->u.call.n_kwargs; k++) {
        const em_ts_kwarg *a = &call->u.call.kwargs[k];
        size_t i = (size_t)(uintptr_t)em_ts_map_get(&fi->params, a->name, NULL);
        const void *prev = NULL;
        if (i == 0) {
            return tc_err(L, a->pos, "%s has no argument '%s'", what, a->name);
        }
        TS_TRY(em_ts_map_put(&kw, a->name, NULL, a, &prev));
        if (--i < n_args || prev != NULL) {
            return tc_err(L, a->pos, "%s: argument '%s' is given twice", what, a->name);
        }
        required_kw += f->params[p0 + i].def == NULL;
        TS_TRY(check_arg(fx, &f->params[p0 + i], a->value, what));
    }
    if (fi->required_from[n_args] == required_kw) {
        return NULL;
    }
    for (size_t i = n_args;; i++) { /* one is missing: name it */
        const em_ts_param *p = &f->params[p0 + i];
        if (p->def == NULL && em_ts_map_get(&kw, p->name, NULL) == NULL) {
            return tc_err(L, call->pos, "%s: argument '%s' is missing", what, p->name);
        }
    }
}

static ember_status *check_call(fn_ctx *fx, const em_ts_expr *e)
{
    const em_ts_func *f = NULL;
    const char *name = NULL;
    bool method = false;
    TS_TRY(callee(fx, e->u.call.fn, &f, &method, &name));
    return f != NULL ? check_args(fx, e, f, method, name) : NULL;
}

/* `obj.name` on an object of a class that declares everything it has. */
static ember_status *check_attr(fn_ctx *fx, const em_ts_expr *e)
{
    const em_ts_type *bt = NULL;
    const em_ts_class *c = NULL;
    const em_ts_member *a = NULL, *m = NULL;
    TS_TRY(infer(fx, e->u.attr.base, &bt));
    TS_TRY(class_of(fx, bt, e->pos, &c));
    if (!closed_class(c)) {
        return NULL;
    }
    TS_TRY(member_of(fx->L, c, e->u.attr.name, false, &a));
    TS_TRY(member_of(fx->L, c, e->u.attr.name, true, &m));
    if (a != NULL || m != NULL) {
        return NULL;
    }
    return tc_err(fx->L, e->u.attr.name_pos, "class %s has no "
                     "attribute or method '%s'", bt->name, e->u.attr.name);
}

static ember_status *visit(fn_ctx *fx, const em_ts_expr *e)
{
    if (e == NULL) {
        return NULL;
    }
    switch (e->kind) {
    case EM_TS_TUPLE:
    case EM_TS_LIST:
        for (size_t i = 0; i < e->u.seq.n; i++) {
            TS_TRY(visit(fx, e->u.seq.items[i]));
        }
        return NULL;
    case EM_TS_DICT:
        for (size_t i = 0; i < e->u.dict.n; i++) {
            TS_TRY(visit(fx, e->u.dict.keys[i]));
            TS_TRY(visit(fx, e->u.dict.values[i]));
        }
        return NULL;
    case EM_TS_ATTR:
        TS_TRY(visit(fx, e->u.attr.base));
        return check_attr(fx, e);
    case EM_TS_CALL:
        if (e->u.call.fn->kind == EM_TS_NAME && (strcmp(e->u.call.fn->u.name, "annotate") == 0 ||
                                                 strcmp(e->u.call.fn->u.name,
                                                        "unchecked_cast") == 0) &&
            e->u.call.n_args == 2) {
            return visit(fx, e->u.call.args[1]); /* args[0] is a type */
        }
        TS_TRY(visit(fx, e->u.call.fn));
        for (size_t i = 0; i < e->u.call.n_args; i++) {
            TS_TRY(visit(fx, e->u.call.args[i]));
        }
        for (size_t i = 0; i < e->u.call.n_kwargs; i++) {
            TS_TRY(visit(fx, e->u.call.kwargs[i].value));
        }
        return check_call(fx, e);
    case EM_TS_SUBSCRIPT:
        TS_TRY(visit(fx, e->u.sub.base));
        return visit(fx, e->u.sub.index);
    case EM_TS_SLICE:
        TS_TRY(visit(fx, e->u.slice.lo));
        TS_TRY(visit(fx, e->u.slice.hi));
        return visit(fx, e->u.slice.step);
    case EM_TS_UNARY:
        return visit(fx, e->u.unary.operand);
    case EM_TS_BINARY:
        TS_TRY(visit(fx, e->u.bin.lhs));
        return visit(fx, e->u.bin.rhs);
    case EM_TS_COMPARE:
        for (size_t i = 0; i <= e->u.cmp.n_ops; i++) {
            TS_TRY(visit(fx, e->u.cmp.operands[i]));
        }
        return NULL;
    case EM_TS_IFEXP:
        TS_TRY(visit(fx, e->u.ifexp.then));
        TS_TRY(visit(fx, e->u.ifexp.cond));
        return visit(fx, e->u.ifexp.other);
    default:
        return NULL;
    }
}

static ember_status *check_return(fn_ctx *fx, const em_ts_stmt *s)
{
    const em_ts_type *a = NULL;
    if (fx->ret == NULL) {
        return NULL;
    }
    if (s->u.expr != NULL) {
        TS_TRY(infer(fx, s->u.expr, &a));
    } else if ((a = basic(fx->L, EM_TS_TY_NONE)) == NULL) {
        return em_status_oom();
    }
    if (fits(a, fx->ret)) {
        return NULL;
    }
    return tc_err(fx->L, s->u.expr != NULL ? s->u.expr->pos : s->pos,
                     "%s() returns %s, but it is declared to return %s", fx->fn->name,
                     type_text(fx->L, a), type_text(fx->L, fx->ret));
}

static bool raises(const em_ts_stmt *s)
{
    return s->kind == EM_TS_S_RAISE ||
           (s->kind == EM_TS_S_EXPR && s->u.expr->kind == EM_TS_CALL &&
            em_ts_expr_is_dotted(s->u.expr->u.call.fn, "ops.prim.RaiseException"));
}

/* Whether control can reach the end of block `b` (loops may always end). */
static bool falls_through(const em_ts_block *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const em_ts_stmt *s = b->stmts[i];
        if (s->kind == EM_TS_S_RETURN || raises(s) ||
            (s->kind == EM_TS_S_IF && s->u.if_.other.n > 0 && !falls_through(&s->u.if_.then) &&
             !falls_through(&s->u.if_.other)) ||
            (s->kind == EM_TS_S_WITH && !falls_through(&s->u.with.body))) {
            return false;
        }
    }
    return true;
}

static ember_status *check_function(ts_lower *L, const em_ts_func *fn, const char *cls_qual,
                                     bool body);

static ember_status *check_block(fn_ctx *fx, const em_ts_block *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const em_ts_stmt *s = b->stmts[i];
        switch (s->kind) {
        case EM_TS_S_EXPR:
        case EM_TS_S_RAISE:
            TS_TRY(visit(fx, s->u.expr));
            break;
        case EM_TS_S_RETURN:
            TS_TRY(visit(fx, s->u.expr));
            TS_TRY(check_return(fx, s));
            break;
        case EM_TS_S_ASSIGN:
            for (size_t k = 0; k < s->u.assign.n_targets; k++) {
                TS_TRY(visit(fx, s->u.assign.targets[k]));
            }
            TS_TRY(visit(fx, s->u.assign.value));
            break;
        case EM_TS_S_AUGASSIGN:
            TS_TRY(visit(fx, s->u.aug.target));
            TS_TRY(visit(fx, s->u.aug.value));
            break;
        case EM_TS_S_IF:
            TS_TRY(visit(fx, s->u.if_.cond));
            TS_TRY(check_block(fx, &s->u.if_.then));
            TS_TRY(check_block(fx, &s->u.if_.other));
            break;
        case EM_TS_S_FOR:
            TS_TRY(visit(fx, s->u.for_.target));
            TS_TRY(visit(fx, s->u.for_.iter));
            TS_TRY(check_block(fx, &s->u.for_.body));
            break;
        case EM_TS_S_WHILE:
            TS_TRY(visit(fx, s->u.while_.cond));
            TS_TRY(check_block(fx, &s->u.while_.body));
            break;
        case EM_TS_S_ASSERT:
            TS_TRY(visit(fx, s->u.assert_.test));
            TS_TRY(visit(fx, s->u.assert_.msg));
            break;
        case EM_TS_S_WITH:
            for (size_t k = 0; k < s->u.with.n; k++) {
                TS_TRY(visit(fx, s->u.with.items[k].ctx));
                TS_TRY(visit(fx, s->u.with.items[k].target));
            }
            TS_TRY(check_block(fx, &s->u.with.body));
            break;
        case EM_TS_S_DEL:
            for (size_t k = 0; k < s->u.del.n; k++) {
                TS_TRY(visit(fx, s->u.del.targets[k]));
            }
            break;
        case EM_TS_S_DEF:
            TS_TRY(check_function(fx->L, s->u.def, NULL, true));
            break;
        default:
            break;
        }
    }
    return NULL;
}

/* The signature's types, and the body's checks unless `body` is false (an interface's
 * methods have none). */
static ember_status *check_function(ts_lower *L, const em_ts_func *fn, const char *cls_qual,
                                    bool body)
{
    fn_ctx fx = {.L = L, .fn = fn, .cls_qual = cls_qual,
                 .locals = {.a = L->ast, .strings = true}};
    for (size_t i = 0; i < fn->n_params; i++) {
        const em_ts_type *t = NULL;
        TS_TRY(declared(L, fn->params[i].type, &t));
        TS_TRY(bind(&fx, fn->params[i].name, NULL, fn->params[i].type, false));
        local *l = (local *)(uintptr_t)em_ts_map_get(&fx.locals, fn->params[i].name, NULL);
        l->param = true;
    }
    TS_TRY(declared(L, fn->ret, &fx.ret));
    if (!body) {
        return NULL;
    }
    TS_TRY(collect(&fx, &fn->body));
    TS_TRY(check_block(&fx, &fn->body));
    const em_ts_type *r = fx.ret, *none = basic(L, EM_TS_TY_NONE);
    if (none == NULL) {
        return em_status_oom();
    }
    if (r != NULL && !fits(none, r) && falls_through(&fn->body)) {
        return tc_err(L, fn->pos, "%s() is declared to return %s, "
                         "but it does not return on every path", fn->name, type_text(L, r));
    }
    return NULL;
}

ember_status *em_ts_typecheck_module(ts_lower *L, const em_ts_module *m, const char *qual)
{
    for (size_t i = 0; i < m->n_decls; i++) {
        const em_ts_decl *d = &m->decls[i];
        if (d->kind == EM_TS_D_FUNC) {
            TS_TRY(check_function(L, d->u.func, NULL, true));
            continue;
        }
        if (d->kind != EM_TS_D_CLASS) {
            continue;
        }
        const em_ts_class *c = d->u.cls;
        char *cq = em_ts_printf(L, "%s.%s", qual, c->name);
        if (cq == NULL) {
            return em_status_oom();
        }
        for (size_t k = 0; k < c->n_members; k++) {
            const em_ts_member *mb = &c->members[k];
            const em_ts_type *t = NULL;
            if (mb->kind == EM_TS_M_ATTR || mb->kind == EM_TS_M_CONST) {
                TS_TRY(declared(L, mb->type, &t));
            }
        }
        bool interface = c->base == EM_TS_BASE_INTERFACE ||
                         c->base == EM_TS_BASE_MODULE_INTERFACE;
        for (size_t k = 0; k < c->n_members; k++) {
            if (c->members[k].kind == EM_TS_M_METHOD) {
                TS_TRY(check_function(L, c->members[k].method, cq, !interface));
            }
        }
    }
    return NULL;
}

/* ---- the objects of data.pkl -------------------------------------------------------------- */

/* Where a value sits, from the root object: attribute names and container indices. */
typedef struct obj_path {
    const struct obj_path *up;
    const char *key; /* NULL: index */
    size_t index;
} obj_path;

typedef struct obj_ctx {
    ts_lower *L;
    em_ts_map seen;  /* (container, NULL): walked; (value, type): found to fit; (class, state):
                        an attribute dict checked for a class */
    em_ts_map types; /* (member, NULL) -> its declared type */
} obj_ctx;

static void print_path(em_strbuf *sb, const obj_path *p)
{
    if (p == NULL) {
        return;
    }
    print_path(sb, p->up);
    if (p->key != NULL) {
        em_strbuf_printf(sb, "%s%s", p->up != NULL ? "." : "", p->key);
    } else {
        em_strbuf_printf(sb, "%s%zu", p->up != NULL ? "." : "", p->index);
    }
}

/* "the root object" or "the object at 'layer1.0'". */
static const char *path_text(ts_lower *L, const obj_path *p)
{
    if (p == NULL) {
        return "the root object";
    }
    em_strbuf sb;
    em_strbuf_init(&sb, L->al);
    em_strbuf_printf(&sb, "the object at '");
    print_path(&sb, p);
    em_strbuf_printf(&sb, "'");
    char *s = sb.failed ? NULL : em_ts_strdup(L, sb.data);
    em_strbuf_free(&sb);
    return s != NULL ? s : "an object";
}

/* "a tensor", "an int", "None", "an object of class __torch__.a.B". */
static const char *value_text(ts_lower *L, const em_tsv *v)
{
    const char *k = em_tsv_kind_name(v->kind);
    if (v->kind == EM_TSV_NONE) {
        return "None";
    }
    if (v->kind == EM_TSV_OBJECT) {
        const char *s = em_ts_printf(L, "an object of class %s", v->u.obj.cls);
        return s != NULL ? s : "an object";
    }
    const char *s = em_ts_printf(L, "%s %s", strchr("aeiou", k[0]) != NULL ? "an" : "a", k);
    return s != NULL ? s : k;
}

static bool container(const em_tsv *v)
{
    return v->kind == EM_TSV_TUPLE || v->kind == EM_TSV_LIST || v->kind == EM_TSV_DICT ||
           v->kind == EM_TSV_OBJECT;
}

/* Whether pickled `v` fits declared type `t`; *bad gets the value that does not (v or one
 * inside it), NULL when it fits. */
static ember_status *value_fits(obj_ctx *oc, const em_tsv *v, const em_ts_type *t,
                                const em_tsv **bad)
{
    *bad = NULL;
    if (container(v)) {
        if (em_ts_map_get(&oc->seen, v, t) != NULL) {
            return NULL;
        }
        TS_TRY(em_ts_map_put(&oc->seen, v, t, v, NULL));
    }
    bool ok = true;
    em_tsv_kind k = v->kind;
    switch (t->kind) {
    case EM_TS_TY_OPTIONAL:
        return k == EM_TSV_NONE ? NULL : value_fits(oc, v, em_ts_type_elem(t), bad);
    case EM_TS_TY_UNION:
        for (size_t i = 0; i < t->n_items; i++) {
            TS_TRY(value_fits(oc, v, t->items[i], bad));
            if (*bad == NULL) {
                return NULL;
            }
        }
        *bad = v;
        return NULL;
    case EM_TS_TY_NONE: ok = k == EM_TSV_NONE; break;
    case EM_TS_TY_TENSOR:
        /* torch's quantized Linear declares its packed parameters Tensor (a TorchBind object) */
        ok = k == EM_TSV_TENSOR || (k == EM_TSV_OBJECT && torchbind(v->u.obj.cls));
        break;
    case EM_TS_TY_INT:
    case EM_TS_TY_SYMINT: ok = k == EM_TSV_INT; break;
    case EM_TS_TY_FLOAT:
    case EM_TS_TY_SYMFLOAT: ok = k == EM_TSV_FLOAT; break;
    case EM_TS_TY_BOOL:
    case EM_TS_TY_SYMBOOL: ok = k == EM_TSV_BOOL; break;
    case EM_TS_TY_NUMBER: ok = k == EM_TSV_INT || k == EM_TSV_FLOAT || k == EM_TSV_BOOL; break;
    case EM_TS_TY_STR: ok = k == EM_TSV_STR; break;
    case EM_TS_TY_DEVICE: ok = k == EM_TSV_DEVICE || k == EM_TSV_STR; break;
    case EM_TS_TY_LIST:
        if (!(ok = k == EM_TSV_LIST)) {
            break;
        }
        for (size_t i = 0; i < v->u.seq.n && *bad == NULL; i++) {
            TS_TRY(value_fits(oc, v->u.seq.items[i], em_ts_type_elem(t), bad));
        }
        return NULL;
    case EM_TS_TY_TUPLE:
        if (!(ok = k == EM_TSV_TUPLE && v->u.seq.n == t->n_items)) {
            break;
        }
        for (size_t i = 0; i < v->u.seq.n && *bad == NULL; i++) {
            TS_TRY(value_fits(oc, v->u.seq.items[i], t->items[i], bad));
        }
        return NULL;
    case EM_TS_TY_DICT:
        if (!(ok = k == EM_TSV_DICT)) {
            break;
        }
        for (size_t i = 0; i < v->u.dict.n && *bad == NULL; i++) {
            TS_TRY(value_fits(oc, v->u.dict.keys[i], t->items[0], bad));
            if (*bad == NULL) {
                TS_TRY(value_fits(oc, v->u.dict.values[i], t->items[1], bad));
            }
        }
        return NULL;
    case EM_TS_TY_CLASS: {
        const em_ts_class *c = NULL;
        bool known = false;
        em_ts_pos nopos = {0};
        if (torchbind(t->name)) {
            break;
        }
        TS_TRY(find_class(oc->L, t->name, nopos, &c, &known));
        if (c == NULL || c->base == EM_TS_BASE_ENUM) {
            break;
        }
        if (c->base == EM_TS_BASE_NAMEDTUPLE) {
            ok = k == EM_TSV_TUPLE || k == EM_TSV_OBJECT;
        } else if (!closed_class(c)) {
            ok = k == EM_TSV_OBJECT; /* an interface: any class that implements it */
        } else {
            ok = k == EM_TSV_OBJECT && strcmp(v->u.obj.cls, t->name) == 0;
        }
        break;
    }
    default:
        break; /* ScalarType, Layout, Any, Future...: not compared */
    }
    *bad = ok ? NULL : v;
    return NULL;
}

/* The declared attributes of `obj`'s class against its pickled attribute dict. */
static ember_status *check_object(obj_ctx *oc, const em_tsv *obj, const obj_path *path)
{
    ts_lower *L = oc->L;
    const em_ts_class *c = NULL;
    bool known = false;
    em_ts_pos nopos = {0};
    if (torchbind(obj->u.obj.cls)) {
        return NULL;
    }
    TS_TRY(find_class(L, obj->u.obj.cls, nopos, &c, &known));
    const em_ts_func *setstate = NULL;
    TS_TRY(method_of(L, c, "__setstate__", &setstate));
    if (!closed_class(c) || setstate != NULL) {
        return NULL; /* no code (refused where it is used), or a state of its own making */
    }
    const em_tsv *st = obj->u.obj.state;
    if (st != NULL && st->kind == EM_TSV_DICT) { /* objects may share their attribute dict */
        const void *prev = NULL;
        TS_TRY(em_ts_map_put(&oc->seen, c, st, st, &prev));
        if (prev != NULL) {
            return NULL;
        }
    }
    em_ts_map attrs = {.a = L->ast, .strings = true};
    for (size_t i = st != NULL && st->kind == EM_TSV_DICT ? st->u.dict.n : 0; i-- > 0;) {
        const em_tsv *key = st->u.dict.keys[i]; /* the last of repeated keys counts */
        if (key->kind == EM_TSV_STR && strlen(key->u.str.s) == key->u.str.n) {
            TS_TRY(em_ts_map_put(&attrs, key->u.str.s, NULL, st->u.dict.values[i], NULL));
        }
    }
    for (size_t i = 0; i < c->n_members; i++) {
        const em_ts_member *m = &c->members[i];
        em_ts_type *t = NULL;
        if (m->kind != EM_TS_M_ATTR) {
            continue;
        }
        if (st == NULL || st->kind != EM_TSV_DICT) {
            return tc_err(L, c->pos, "class %s declares attributes, "
                             "but data.pkl gives %s %s, not an attribute dict", obj->u.obj.cls,
                             path_text(L, path), st != NULL ? value_text(L, st) : "nothing");
        }
        const em_tsv *v = em_ts_map_get(&attrs, m->name, NULL), *bad = NULL;
        if (v == NULL) {
            return tc_err(L, m->pos, "attribute '%s' of class %s is "
                             "declared, but data.pkl gives %s no value for it", m->name,
                             obj->u.obj.cls, path_text(L, path));
        }
        if ((t = (em_ts_type *)(uintptr_t)em_ts_map_get(&oc->types, m, NULL)) == NULL) {
            TS_TRY(em_ts_check_type(L->ast, m->type, &t));
            TS_TRY(em_ts_map_put(&oc->types, m, NULL, t, NULL));
        }
        TS_TRY(value_fits(oc, v, t, &bad));
        if (bad != NULL) {
            return tc_err(L, m->type->pos, "attribute '%s' of class "
                             "%s is declared %s, but data.pkl gives %s %s%s%s", m->name,
                             obj->u.obj.cls, type_text(L, t), path_text(L, path),
                             value_text(L, v), bad != v ? " holding " : "",
                             bad != v ? value_text(L, bad) : "");
        }
    }
    return NULL;
}

/* Every object under `v` (each container once), depth-first. */
static ember_status *walk(obj_ctx *oc, const em_tsv *v, const obj_path *path)
{
    if (!container(v)) {
        return NULL;
    }
    if (em_ts_map_get(&oc->seen, v, NULL) != NULL) {
        return NULL;
    }
    TS_TRY(em_ts_map_put(&oc->seen, v, NULL, v, NULL));
    switch (v->kind) {
    case EM_TSV_OBJECT:
        TS_TRY(check_object(oc, v, path));
        return v->u.obj.state != NULL ? walk(oc, v->u.obj.state, path) : NULL;
    case EM_TSV_DICT:
        for (size_t i = 0; i < v->u.dict.n; i++) {
            const em_tsv *k = v->u.dict.keys[i];
            obj_path p = {path, k->kind == EM_TSV_STR ? k->u.str.s : NULL, i};
            TS_TRY(walk(oc, k, path));
            TS_TRY(walk(oc, v->u.dict.values[i], &p));
        }
        return NULL;
    default:
        for (size_t i = 0; i < v->u.seq.n; i++) {
            obj_path p = {path, NULL, i};
            TS_TRY(walk(oc, v->u.seq.items[i], &p));
        }
        return NULL;
    }
}

ember_status *em_ts_typecheck_objects(ts_lower *L, const em_tsv *root)
{
    obj_ctx oc = {.L = L, .seen = {.a = L->ast}, .types = {.a = L->ast}};
    return walk(&oc, root, NULL);
}
