/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The nodes of a torch.export program (torch/_export/serde/schema.py: Node, Argument) lowered
 * through the TorchScript loader's aten lowering (em_ts_builtin_call): each node's arguments
 * become the lowering's abstract values (tensors by name, ints, floats, lists, dtypes...),
 * positional ones in order and keyword ones by name, and the call binds them against the same
 * aten schemas a TorchScript call would. Core-aten ops that TorchScript code never calls are
 * rewritten onto the ones it does (convolution -> _convolution,
 * _native_batch_norm_legit_no_training -> batch_norm, ...; the table `aliases`), their extra
 * results (saved statistics, pooling indices) bound to None, so a use of one is refused by
 * name. Python's arithmetic on symbolic ints (_operator.mul of two sym_size results) goes
 * through the same call as TorchScript's `a * b`. Errors name the node, its target and the
 * argument.
 */
#include "pt2_internal.h"

#include "core/status.h"
#include "loaders/torchscript/lower/ts_flow.h"
#include "loaders/torchscript/lower/ts_ops.h"
#include "loaders/torchscript/lower/ts_ops_elem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The node being lowered, for messages. */
typedef struct nctx {
    em_pt2 *p;
    const char *node;   /* its name */
    const char *target; /* "torch.ops.aten.relu.default" */
} nctx;

static ember_status *nerr(const nctx *c, ember_code code, const char *fmt, const char *a,
                          const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a != NULL ? a : "", b != NULL ? b : "");
    return em_status_new(code, "%s: node '%s' (%s): %s", c->p->L.what, c->node, c->target, msg);
}

/* A core-aten op rewritten onto one the lowering has. `args`: for each argument of the new
 * call, the digit of the original positional argument, or F / T for a constant false / true;
 * NULL: the arguments as they are (with a recipe, keyword arguments are dropped: the recipe
 * lists every argument of the new call). `n_results`: the original op's result count. */
typedef struct alias {
    const char *from, *to, *args;
    int n_results;
} alias;

static const alias aliases[] = {
    {"convolution", "_convolution", "012345678FFTT", 1},
    {"_native_batch_norm_legit_no_training", "batch_norm", "01234F56T", 3},
    {"_native_batch_norm_legit_functional", "batch_norm", "01234567T", 5},
    {"native_layer_norm", "layer_norm", "01234T", 3},
    {"max_pool2d_with_indices", "max_pool2d", NULL, 2},
    {"sym_size", "size", NULL, 1},
    {"alias", "detach", NULL, 1},
    {"detach_", "detach", NULL, 1}, /* on a lifted constant (torch.tensor(0) in a program) */
    {"lift_fresh_copy", "clone", NULL, 1},
    {"clone", "clone", "0", 1}, /* memory_format: a layout hint; ember's layouts are its own */
};

static const ts_av *lookup(em_pt2 *p, const char *name)
{
    return em_ts_map_get(&p->names, name, NULL);
}

static ember_status *named(const nctx *c, const em_pt2_json *ref, const char *arg, ts_av **out)
{
    const em_pt2_json *n = em_pt2_json_get(ref, "name");
    if (n == NULL || n->k != EM_PT2_JSTR) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': a tensor without a name%s", arg,
                    NULL);
    }
    const ts_av *v = lookup(c->p, n->s);
    if (v == NULL) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': '%s' is not defined before it",
                    arg, n->s);
    }
    *out = (ts_av *)(uintptr_t)v;
    return NULL;
}

static ember_status *number(const nctx *c, const em_pt2_json *j, const char *arg, bool integer,
                            ts_av **out)
{
    ts_lower *L = &c->p->L;
    if (j->k == EM_PT2_JNUM && (!integer || j->is_int)) {
        *out = integer ? em_ts_int(L, j->i) : em_ts_float(L, j->f);
    } else if (!integer && j->k == EM_PT2_JSTR &&
               (strcmp(j->s, "Infinity") == 0 || strcmp(j->s, "-Infinity") == 0 ||
                strcmp(j->s, "NaN") == 0)) { /* serialize.py writes non-finite floats so */
        *out = em_ts_float(L, j->s[0] == 'N' ? NAN : j->s[0] == '-' ? -INFINITY : INFINITY);
    } else {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': not %s", arg,
                    integer ? "an integer" : "a number");
    }
    return *out == NULL ? em_status_oom() : NULL;
}

/* A symbolic int: {"as_int": N} or {"as_name": "sym_size_int"}. */
static ember_status *sym_int(const nctx *c, const em_pt2_json *j, const char *arg, ts_av **out)
{
    const em_pt2_json *i = em_pt2_json_get(j, "as_int");
    if (i != NULL) {
        return number(c, i, arg, true, out);
    }
    const em_pt2_json *n = em_pt2_json_get(j, "as_name");
    if (n == NULL || n->k != EM_PT2_JSTR || lookup(c->p, n->s) == NULL) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': a symbolic int that is neither "
                    "as_int nor a defined as_name%s", arg, NULL);
    }
    *out = (ts_av *)(uintptr_t)lookup(c->p, n->s);
    return NULL;
}

/* The torch (c10) number of a schema.py enum value of kind `key`, as TorchScript passes it. */
static ember_status *enum_arg(const nctx *c, const char *key, const em_pt2_json *j,
                              const char *arg, ts_av **out)
{
    if (j->k != EM_PT2_JNUM || !j->is_int) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': %s is not an integer", arg, key);
    }
    int64_t v = -1;
    if (strcmp(key, "as_scalar_type") == 0) {
        ember_dtype dt = em_pt2_dtype(j->i);
        v = dt != EMBER_DTYPE_UNDEFINED ? em_ts_scalar_type(dt) : -1;
    } else if (strcmp(key, "as_memory_format") == 0) { /* schema: contiguous 1, preserve 4 */
        static const int64_t c10[] = {-1, 0, 2, 3, 1};
        v = j->i >= 1 && j->i <= 4 ? c10[j->i] : -1;
    } else if (strcmp(key, "as_layout") == 0) { /* schema: Strided 7; c10: kStrided 0 */
        v = j->i == 7 ? 0 : -1;
    }
    if (v < 0) {
        return nerr(c, EMBER_ERR_UNSUPPORTED, "argument '%s': %s value not supported", arg, key);
    }
    *out = em_ts_int(&c->p->L, v);
    return *out == NULL ? em_status_oom() : NULL;
}

static ember_status *convert(const nctx *c, const em_pt2_json *a, const char *arg, ts_av **out);

/* A list argument: every item converted by `item_key`'s rule. */
static ember_status *list_of(const nctx *c, const em_pt2_json *j, const char *item_key,
                             const char *arg, ts_av **out)
{
    if (j->k != EM_PT2_JARR) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': %s is not an array", arg,
                    item_key);
    }
    ts_av *l = em_ts_seq(&c->p->L, TA_LIST, j->n);
    if (l == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < j->n; i++) {
        const em_pt2_json *it = j->items[i];
        if (strcmp(item_key, "as_tensor") == 0) {
            EM_RETURN_IF_ERROR(named(c, it, arg, &l->u.seq.items[i]));
        } else if (strcmp(item_key, "as_sym_int") == 0) {
            EM_RETURN_IF_ERROR(sym_int(c, it, arg, &l->u.seq.items[i]));
        } else if (strcmp(item_key, "argument") == 0) {
            EM_RETURN_IF_ERROR(convert(c, it, arg, &l->u.seq.items[i]));
        } else if (strcmp(item_key, "as_bool") == 0 && it->k == EM_PT2_JBOOL) {
            l->u.seq.items[i] = em_ts_bool(&c->p->L, it->b);
        } else if (strcmp(item_key, "as_string") == 0 && it->k == EM_PT2_JSTR) {
            l->u.seq.items[i] = em_ts_str(&c->p->L, it->s, it->n);
        } else if (strcmp(item_key, "as_int") == 0 || strcmp(item_key, "as_float") == 0) {
            EM_RETURN_IF_ERROR(number(c, it, arg, item_key[3] == 'i', &l->u.seq.items[i]));
        } else {
            return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': a bad item of a %s list",
                        arg, item_key);
        }
        if (l->u.seq.items[i] == NULL) {
            return em_status_oom();
        }
    }
    *out = l;
    return NULL;
}

static ember_status *device(const nctx *c, const em_pt2_json *j, const char *arg, ts_av **out)
{
    const em_pt2_json *t = em_pt2_json_get(j, "type");
    if (t == NULL || t->k != EM_PT2_JSTR) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': a device without a type%s", arg,
                    NULL);
    }
    *out = em_ts_new(&c->p->L, TA_DEVICE);
    if (*out == NULL) {
        return em_status_oom();
    }
    (*out)->u.str.s = t->s;
    (*out)->u.str.n = t->n;
    return NULL;
}

/* One Argument (a one-member object naming its kind) as an abstract value. */
static ember_status *convert(const nctx *c, const em_pt2_json *a, const char *arg, ts_av **out)
{
    ts_lower *L = &c->p->L;
    if (a == NULL || a->k != EM_PT2_JOBJ || a->n != 1) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "argument '%s': not an Argument (an object of "
                    "one member)%s", arg, NULL);
    }
    const char *k = a->keys[0];
    const em_pt2_json *v = a->items[0];
    static const char *const lists[][2] = {
        {"as_tensors", "as_tensor"}, {"as_ints", "as_int"},         {"as_floats", "as_float"},
        {"as_bools", "as_bool"},     {"as_strings", "as_string"},   {"as_sym_ints", "as_sym_int"},
        {"as_optional_tensors", "argument"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        if (strcmp(k, lists[i][0]) == 0) {
            return list_of(c, v, lists[i][1], arg, out);
        }
    }
    if (strcmp(k, "as_none") == 0) {
        *out = em_ts_none(L);
    } else if (strcmp(k, "as_tensor") == 0) {
        return named(c, v, arg, out);
    } else if (strcmp(k, "as_int") == 0 || strcmp(k, "as_float") == 0) {
        return number(c, v, arg, k[3] == 'i', out);
    } else if (strcmp(k, "as_sym_int") == 0) {
        return sym_int(c, v, arg, out);
    } else if (strcmp(k, "as_bool") == 0 && v->k == EM_PT2_JBOOL) {
        *out = em_ts_bool(L, v->b);
    } else if (strcmp(k, "as_string") == 0 && v->k == EM_PT2_JSTR) {
        *out = em_ts_str(L, v->s, v->n);
    } else if (strcmp(k, "as_scalar_type") == 0 || strcmp(k, "as_memory_format") == 0 ||
               strcmp(k, "as_layout") == 0) {
        return enum_arg(c, k, v, arg, out);
    } else if (strcmp(k, "as_device") == 0) {
        return device(c, v, arg, out);
    } else if (strcmp(k, "as_optional_tensor") == 0) {
        return convert(c, v, arg, out);
    } else {
        return nerr(c, EMBER_ERR_UNSUPPORTED, "argument '%s': arguments of kind '%s' are not "
                    "supported", arg, k);
    }
    return *out == NULL ? em_status_oom() : NULL;
}

static ember_status *collect_args(const nctx *c, const em_pt2_json *inputs, em_pt2_call *ca)
{
    if (inputs == NULL || inputs->k != EM_PT2_JARR) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "field 'inputs' is %s%s",
                    inputs == NULL ? "missing" : "not an array", NULL);
    }
    size_t n = inputs->n + 16; /* room for an alias's constants */
    ca->pos = em_ts_arena_alloc(&c->p->L.arena, n * sizeof *ca->pos);
    ca->kw_vals = em_ts_arena_alloc(&c->p->L.arena, n * sizeof *ca->kw_vals);
    ca->kw_names = em_ts_arena_alloc(&c->p->L.arena, n * sizeof *ca->kw_names);
    if (ca->pos == NULL || ca->kw_vals == NULL || ca->kw_names == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < inputs->n; i++) {
        const em_pt2_json *in = inputs->items[i];
        const em_pt2_json *name = em_pt2_json_get(in, "name");
        const em_pt2_json *kind = em_pt2_json_get(in, "kind");
        if (name == NULL || name->k != EM_PT2_JSTR) {
            return nerr(c, EMBER_ERR_INVALID_MODEL, "input %s has no name%s", "", NULL);
        }
        ts_av *v = NULL;
        EM_RETURN_IF_ERROR(convert(c, em_pt2_json_get(in, "arg"), name->s, &v));
        /* kind 1: POSITIONAL, 2: KEYWORD (schema.py ArgumentKind); absent before it existed:
         * by name. */
        if (kind != NULL && kind->k == EM_PT2_JNUM && kind->i == 1 && ca->n_kw == 0) {
            ca->pos[ca->n_pos++] = v;
        } else {
            ca->kw_names[ca->n_kw] = name->s;
            ca->kw_vals[ca->n_kw++] = v;
        }
    }
    return NULL;
}

/* Rewrites the positional arguments by an alias's `args` recipe. */
static ember_status *apply_alias(const nctx *c, const alias *al, em_pt2_call *ca)
{
    size_t n = strlen(al->args);
    ts_av **pos = em_ts_arena_alloc(&c->p->L.arena, n * sizeof *pos);
    if (pos == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < n; i++) {
        char r = al->args[i];
        if (r == 'F' || r == 'T') {
            pos[i] = em_ts_bool(&c->p->L, r == 'T');
        } else if ((size_t)(r - '0') < ca->n_pos) {
            pos[i] = ca->pos[r - '0'];
        } else {
            return nerr(c, EMBER_ERR_INVALID_MODEL, "expected its arguments positionally (as "
                        "torch.export writes them)%s%s", NULL, NULL);
        }
        if (pos[i] == NULL) {
            return em_status_oom();
        }
    }
    ca->pos = pos;
    ca->n_pos = n;
    ca->n_kw = 0;
    return NULL;
}

/* Binds one output Argument to result r. */
static ember_status *bind_output(const nctx *c, const em_pt2_json *o, ts_av *r)
{
    const em_pt2_json *t = em_pt2_json_get(o, "as_tensor");
    const em_pt2_json *s = em_pt2_json_get(o, "as_sym_int");
    const em_pt2_json *name = t != NULL ? em_pt2_json_get(t, "name")
                              : s != NULL ? em_pt2_json_get(s, "as_name")
                                          : NULL;
    if (em_pt2_json_get(o, "as_none") != NULL) {
        return NULL;
    }
    if (name == NULL || name->k != EM_PT2_JSTR) {
        return nerr(c, EMBER_ERR_UNSUPPORTED, "an output that is neither a named tensor nor a "
                    "named symbolic int%s%s", NULL, NULL);
    }
    return em_pt2_bind(c->p, name->s, r, c->node);
}

static ember_status *bind_outputs(const nctx *c, const em_pt2_json *outs, ts_av *r)
{
    if (outs == NULL || outs->k != EM_PT2_JARR) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "field 'outputs' is missing or not an array%s%s",
                    NULL, NULL);
    }
    bool seq = r->k == TA_TUPLE || r->k == TA_LIST;
    if (outs->n == 1 && em_pt2_json_get(outs->items[0], "as_tensors") != NULL) {
        const em_pt2_json *ts = em_pt2_json_get(outs->items[0], "as_tensors");
        if (!seq || ts->k != EM_PT2_JARR || ts->n != r->u.seq.n) {
            return nerr(c, EMBER_ERR_INVALID_MODEL, "as_tensors outputs do not match the op's "
                        "results%s%s", NULL, NULL);
        }
        for (size_t i = 0; i < ts->n; i++) {
            const em_pt2_json *name = em_pt2_json_get(ts->items[i], "name");
            if (name == NULL || name->k != EM_PT2_JSTR) {
                return nerr(c, EMBER_ERR_INVALID_MODEL, "an unnamed output%s%s", NULL, NULL);
            }
            EM_RETURN_IF_ERROR(em_pt2_bind(c->p, name->s, r->u.seq.items[i], c->node));
        }
        return NULL;
    }
    if (outs->n == 1) {
        return bind_output(c, outs->items[0], r);
    }
    if (!seq || r->u.seq.n != outs->n) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "the node lists more outputs than the op "
                    "returns%s%s", NULL, NULL);
    }
    for (size_t i = 0; i < outs->n; i++) {
        EM_RETURN_IF_ERROR(bind_output(c, outs->items[i], r->u.seq.items[i]));
    }
    return NULL;
}

/* Python's operators on symbolic ints (sizes torch.export keeps symbolic: "_operator.mul")
 * and the aten op the lowering evaluates them with, on known ints or dynamic scalars, as it
 * does TorchScript's `a * b`. */
static const char *const py_operators[][2] = {
    {"add", "add"}, {"sub", "sub"}, {"mul", "mul"}, {"floordiv", "floordiv"},
    {"truediv", "div"}, {"neg", "neg"}, {"eq", "eq"}, {"ne", "ne"}, {"lt", "lt"},
    {"le", "le"}, {"gt", "gt"}, {"ge", "ge"},
};

static const char *py_operator(const char *target)
{
    static const char prefix[] = "_operator.";
    for (size_t i = 0; strncmp(target, prefix, sizeof prefix - 1) == 0 &&
                       i < sizeof py_operators / sizeof py_operators[0]; i++) {
        if (strcmp(target + sizeof prefix - 1, py_operators[i][0]) == 0) {
            return py_operators[i][1];
        }
    }
    return NULL;
}

/* The aten op name of a target: "torch.ops.aten.relu.default" -> "relu"; NULL otherwise. */
static const char *aten_name(ts_lower *L, const char *target)
{
    static const char prefix[] = "torch.ops.aten.";
    if (strncmp(target, prefix, sizeof prefix - 1) != 0) {
        return NULL;
    }
    const char *name = target + sizeof prefix - 1;
    const char *dot = strchr(name, '.');
    size_t len = dot != NULL ? (size_t)(dot - name) : strlen(name);
    return len > 0 ? em_ts_arena_strndup(&L->arena, name, len) : NULL;
}

/* Pads an alias's extra results (statistics, indices) with None. */
static ts_av *pad_results(ts_lower *L, ts_av *r, int n)
{
    if (n <= 1 || r->k == TA_TUPLE) {
        return r;
    }
    ts_av *t = em_ts_seq(L, TA_TUPLE, (size_t)n);
    for (int i = 0; t != NULL && i < n; i++) {
        t->u.seq.items[i] = i == 0 ? r : em_ts_none(L);
        if (t->u.seq.items[i] == NULL) {
            return NULL;
        }
    }
    return t;
}

/* batch_norm(input, weight, bias, running_mean, running_var, training = True, momentum, eps,
 * cudnn_enabled), as torch.export writes a BatchNorm in train mode (or
 * _native_batch_norm_legit_functional, aliased to it): BatchNormalization with training_mode
 * 1, normalizing by the batch statistics as PyTorch does; the running statistics it would
 * update are not outputs (pt2_load.c check_mutations drops the update: no output reads it).
 * *out stays NULL (the aten lowering's refusal) for inference mode or absent tensors. */
static ember_status *lower_bn_train(ts_lower *L, const em_pt2_call *ca, ts_av **out)
{
    *out = NULL;
    if (ca->n_pos < 8 || ca->n_kw > 0 || ca->pos[5]->k != TA_BOOL || !ca->pos[5]->u.b) {
        return NULL;
    }
    int in[5] = {-1, -1, -1, -1, -1}, y = -1, node = -1;
    for (int i = 0; i < 5; i++) {
        if (ca->pos[i]->k != TA_TENSOR) {
            return NULL;
        }
        EM_RETURN_IF_ERROR(em_ts_use(L, ca->pos[i], &in[i]));
    }
    double momentum = 0.1, eps = 1e-5;
    const ts_av *m = ca->pos[6], *e = ca->pos[7];
    if ((m->k != TA_FLOAT && m->k != TA_NONE) || e->k != TA_FLOAT) {
        return NULL;
    }
    momentum = m->k == TA_FLOAT ? m->u.f : momentum;
    eps = e->u.f;
    ts_call call = {.op = "aten::batch_norm", .node = L->path};
    EM_RETURN_IF_ERROR(em_ts_emit(L, &call, EM_OP_BATCHNORM, in, 5, &y, 1, &node));
    EM_RETURN_IF_ERROR(em_node_set_float(L->g, node, "epsilon", (float)eps));
    EM_RETURN_IF_ERROR(em_node_set_float(L->g, node, "momentum", (float)(1.0 - momentum)));
    EM_RETURN_IF_ERROR(em_node_set_int(L->g, node, "training_mode", 1));
    EM_RETURN_IF_ERROR(em_ts_infer(L, &call, node));
    return em_ts_ret_tensor(L, y, out);
}

/* "<what>: msg" from the lowering becomes "<what>: node 'n' (target): msg". */
static ember_status *name_node(const nctx *c, ember_status *st)
{
    if (st == NULL || ember_status_code(st) == EMBER_ERR_OUT_OF_MEMORY) {
        return st;
    }
    const char *msg = ember_status_message(st);
    size_t wl = strlen(c->p->L.what);
    if (strncmp(msg, c->p->L.what, wl) == 0 && strncmp(msg + wl, ": ", 2) == 0) {
        msg += wl + 2;
    }
    ember_status *e = em_status_new(ember_status_code(st), "%s: node '%s' (%s): %s",
                                    c->p->L.what, c->node, c->target, msg);
    ember_status_destroy(st);
    return e;
}

/* Lowers graph `gj` (an as_graph's "graph": inputs, nodes, outputs) into the current graph,
 * its inputs bound to `ops` (n_ops values), its names in a scope of their own (a subgraph
 * reuses the program's names, "x"); *outs (arena) gets its n_out output values. */
static ember_status *lower_inline(const nctx *c, const em_pt2_json *gj, ts_av **ops, size_t n_ops,
                                  ts_av ***outs, size_t *n_out)
{
    em_pt2 *p = c->p;
    const em_pt2_json *ins = em_pt2_json_get(gj, "inputs");
    const em_pt2_json *os = em_pt2_json_get(gj, "outputs");
    if (ins == NULL || ins->k != EM_PT2_JARR || os == NULL || os->k != EM_PT2_JARR ||
        ins->n != n_ops || os->n > 4096) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "a subgraph whose inputs do not match the "
                    "operands, or without outputs%s%s", NULL, NULL);
    }
    *outs = em_ts_arena_alloc(&p->L.arena, (os->n + 1) * sizeof **outs);
    if (*outs == NULL) {
        return em_status_oom();
    }
    em_ts_map outer = p->names;
    p->names = (em_ts_map){.a = p->L.ast, .strings = true};
    ember_status *st = NULL;
    for (size_t i = 0; i < ins->n && st == NULL; i++) {
        const em_pt2_json *n = em_pt2_json_get(em_pt2_json_get(ins->items[i], "as_tensor"),
                                               "name");
        st = n != NULL && n->k == EM_PT2_JSTR
                 ? em_pt2_bind(p, n->s, ops[i], c->node)
                 : nerr(c, EMBER_ERR_UNSUPPORTED, "a subgraph input that is not a tensor%s%s",
                        NULL, NULL);
    }
    if (st == NULL) {
        st = em_pt2_lower_nodes(p, em_pt2_json_get(gj, "nodes"));
    }
    for (size_t i = 0; i < os->n && st == NULL; i++) {
        st = convert(c, os->items[i], "output", &(*outs)[i]);
    }
    p->names = outer;
    *n_out = os->n;
    return st;
}

/* Adds the values of outs as outputs of the current graph. */
static ember_status *add_outputs(const nctx *c, ts_av **outs, size_t n)
{
    ts_call call = {.op = c->target, .node = c->node};
    for (size_t i = 0; i < n; i++) {
        int v = -1;
        EM_RETURN_IF_ERROR(em_ts_as_tensor(&c->p->L, &call, outs[i], EMBER_DTYPE_UNDEFINED, &v));
        EM_RETURN_IF_ERROR(em_ts_add_output(&c->p->L, &call, v));
    }
    return NULL;
}

/* Lowers branch graph `gj` into subgraph g: its inputs are the cond's operands (captured from
 * the enclosing graph when used), its outputs the subgraph's. *n_out gets their count. */
static ember_status *lower_branch(const nctx *c, const em_pt2_json *gj, ts_av *operands,
                                  em_graph *g, size_t *n_out)
{
    em_pt2 *p = c->p;
    EM_RETURN_IF_ERROR(em_ts_sub_enter(&p->L, g));
    ts_av **outs = NULL;
    ember_status *st = lower_inline(c, gj, operands->u.seq.items, operands->u.seq.n, &outs,
                                    n_out);
    if (st == NULL) {
        st = add_outputs(c, outs, *n_out);
    }
    em_ts_sub_leave(&p->L);
    return st;
}

/* The n_out values outs of a higher-order op's node bound to node n's outputs (one as_tensor,
 * or a tuple). */
static ember_status *bind_hop_outputs(const nctx *c, const em_pt2_json *n, const int *outs,
                                      size_t n_out)
{
    ts_lower *L = &c->p->L;
    ts_av *r = em_ts_seq(L, TA_TUPLE, n_out);
    for (size_t i = 0; r != NULL && i < n_out; i++) {
        r->u.seq.items[i] = em_ts_tensor(L, outs[i]);
        if (r->u.seq.items[i] == NULL) {
            return em_status_oom();
        }
    }
    if (r == NULL) {
        return em_status_oom();
    }
    const em_pt2_json *o = em_pt2_json_get(n, "outputs");
    return bind_outputs(c, o, o != NULL && o->k == EM_PT2_JARR && o->n == 1 && n_out == 1 &&
                                      em_pt2_json_get(o->items[0], "as_tensors") == NULL
                                  ? r->u.seq.items[0] : r);
}

/* torch.ops.higher_order.cond(pred, true_graph, false_graph, operands) -> an If node whose
 * branches are the two graphs (each closed over its operands: torch.export lifts what a
 * branch reads). */
static ember_status *lower_cond(const nctx *c, const em_pt2_json *n)
{
    ts_lower *L = &c->p->L;
    const em_pt2_json *in = em_pt2_json_get(n, "inputs");
    if (in == NULL || in->k != EM_PT2_JARR || in->n != 4) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "cond takes 4 inputs (pred, true_fn, false_fn, "
                    "operands)%s%s", NULL, NULL);
    }
    ts_av *pred = NULL, *operands = NULL;
    const em_pt2_json *gj[2];
    EM_RETURN_IF_ERROR(convert(c, em_pt2_json_get(in->items[0], "arg"), "pred", &pred));
    EM_RETURN_IF_ERROR(convert(c, em_pt2_json_get(in->items[3], "arg"), "operands", &operands));
    for (int b = 0; b < 2; b++) {
        gj[b] = em_pt2_json_get(em_pt2_json_get(em_pt2_json_get(in->items[1 + b], "arg"),
                                                "as_graph"), "graph");
        if (gj[b] == NULL || gj[b]->k != EM_PT2_JOBJ) {
            return nerr(c, EMBER_ERR_INVALID_MODEL, "the %s branch is not an as_graph%s",
                        b == 0 ? "true" : "false", NULL);
        }
    }
    if (operands->k != TA_LIST) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "operands are not a list of tensors%s%s", NULL,
                    NULL);
    }
    em_graph *g[2] = {NULL, NULL};
    size_t n_out[2] = {0, 0};
    ts_call call = {.op = "cond", .node = c->node};
    int cv = -1, node = -1;
    int *outs = NULL;
    ember_status *st = NULL;
    for (int b = 0; b < 2 && st == NULL; b++) {
        st = em_graph_new(L->al, &g[b]);
        if (st == NULL) {
            st = lower_branch(c, gj[b], operands, g[b], &n_out[b]);
        }
    }
    if (st == NULL && (n_out[0] != n_out[1] || n_out[0] == 0 || n_out[0] > 4096)) {
        st = nerr(c, EMBER_ERR_INVALID_MODEL, "the branches return different numbers of "
                  "values, or none%s%s", NULL, NULL);
    }
    if (st == NULL) {
        outs = em_ts_arena_alloc(&L->arena, n_out[0] * sizeof(int));
        st = outs == NULL ? em_status_oom() : em_ts_as_tensor(L, &call, pred, EMBER_DTYPE_BOOL,
                                                               &cv);
    }
    if (st == NULL) {
        st = em_ts_cast(L, &call, cv, EMBER_DTYPE_BOOL, &cv);
    }
    if (st == NULL) {
        st = em_ts_emit(L, &call, EM_OP_IF, &cv, 1, outs, (int)n_out[0], &node);
    }
    if (st == NULL) {
        st = em_ts_sub_attach(L, node, "then_branch", &g[0]);
    }
    if (st == NULL) {
        st = em_ts_sub_attach(L, node, "else_branch", &g[1]);
    }
    if (st == NULL) {
        st = em_ts_infer(L, &call, node);
    }
    em_graph_destroy(g[0]);
    em_graph_destroy(g[1]);
    EM_RETURN_IF_ERROR(name_node(c, st));
    return bind_hop_outputs(c, n, outs, n_out[0]);
}

/* The "graph" of input i of node n when it is an as_graph, else NULL. */
static const em_pt2_json *graph_arg(const em_pt2_json *in, size_t i)
{
    return i < in->n ? em_pt2_json_get(em_pt2_json_get(em_pt2_json_get(in->items[i], "arg"),
                                                       "as_graph"), "graph")
                     : NULL;
}

/* Input i of a higher-order op as a list of tensors (as_tensors; an empty list may be written
 * as as_none). */
static ember_status *tensor_list(const nctx *c, const em_pt2_json *in, size_t i, const char *what,
                                 ts_av **out)
{
    EM_RETURN_IF_ERROR(convert(c, em_pt2_json_get(in->items[i], "arg"), what, out));
    if ((*out)->k == TA_NONE) {
        *out = em_ts_seq(&c->p->L, TA_LIST, 0);
        return *out == NULL ? em_status_oom() : NULL;
    }
    for (size_t k = 0; (*out)->k == TA_LIST && k < (*out)->u.seq.n; k++) {
        if ((*out)->u.seq.items[k]->k != TA_TENSOR) {
            return nerr(c, EMBER_ERR_UNSUPPORTED, "%s: only tensors are supported%s", what,
                        NULL);
        }
    }
    return (*out)->k == TA_LIST ? NULL
                                : nerr(c, EMBER_ERR_INVALID_MODEL, "%s is not a list of "
                                       "tensors%s", what, NULL);
}

/* a ++ b (arena). */
static ts_av **concat_avs(ts_lower *L, ts_av **a, size_t na, ts_av **b, size_t nb)
{
    ts_av **r = em_ts_arena_alloc(&L->arena, (na + nb + 1) * sizeof *r);
    if (r != NULL) {
        memcpy(r, a, na * sizeof *r);
        memcpy(r + na, b, nb * sizeof *r);
    }
    return r;
}

/* A fresh input of the current (body) graph shaped like tensor a of an enclosing graph. */
static ember_status *body_input_like(ts_lower *L, const ts_av *a, ts_av **out)
{
    const em_value *v = &a->u.t.g->values[a->u.t.v];
    int64_t dims[EM_MAX_RANK];
    const char *syms[EM_MAX_RANK];
    for (int d = 0; d < v->rank; d++) { /* symbolic dims by name: each graph numbers its own */
        dims[d] = v->dims[d].v;
        syms[d] = v->dims[d].sym > 0 ? a->u.t.g->sym_names[v->dims[d].sym - 1] : NULL;
    }
    int w = -1;
    EM_RETURN_IF_ERROR(em_ts_add_input(L, "carried", v->dtype, v->rank < 0 ? 0 : v->rank, dims,
                                       syms, &w));
    *out = em_ts_tensor(L, w);
    return *out == NULL ? em_status_oom() : NULL;
}

/* The one output of a cond_fn as a bool tensor of the current graph. */
static ember_status *cond_value(const nctx *c, ts_av **outs, size_t n, int *v)
{
    ts_call call = {.op = c->target, .node = c->node};
    if (n != 1) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "cond_fn returns %s values, not one%s",
                    n == 0 ? "no" : "several", NULL);
    }
    EM_RETURN_IF_ERROR(em_ts_as_tensor(&c->p->L, &call, outs[0], EMBER_DTYPE_BOOL, v));
    return em_ts_cast(&c->p->L, &call, *v, EMBER_DTYPE_BOOL, v);
}

/* A new Loop body, entered (L->g), with its inputs iteration number and condition. On failure
 * nothing is entered and *body is NULL. */
static ember_status *enter_body(ts_lower *L, em_graph **body, int *iter, int *cond_in)
{
    EM_RETURN_IF_ERROR(em_graph_new(L->al, body));
    ember_status *st = em_ts_sub_enter(L, *body);
    if (st == NULL) {
        st = em_ts_add_input(L, "iter", EMBER_DTYPE_I64, 0, NULL, NULL, iter);
        if (st == NULL) {
            st = em_ts_add_input(L, "cond", EMBER_DTYPE_BOOL, 0, NULL, NULL, cond_in);
        }
        if (st != NULL) {
            em_ts_sub_leave(L);
        }
    }
    if (st != NULL) {
        em_graph_destroy(*body);
        *body = NULL;
    }
    return st;
}

/* The Loop node of `in` (trip count / first condition, carried values), its body `body` and
 * n_out outputs, bound to the node's outputs. */
static ember_status *emit_loop(const nctx *c, const em_pt2_json *n, int *in, int n_in,
                               em_graph **body, size_t n_out)
{
    ts_lower *L = &c->p->L;
    ts_call call = {.op = c->target, .node = c->node};
    int *outs = em_ts_arena_alloc(&L->arena, (n_out + 1) * sizeof(int)), node = -1;
    if (outs == NULL) {
        return em_status_oom();
    }
    EM_RETURN_IF_ERROR(em_ts_emit(L, &call, EM_OP_LOOP, in, n_in, outs, (int)n_out, &node));
    EM_RETURN_IF_ERROR(em_ts_sub_attach(L, node, "body", body));
    EM_RETURN_IF_ERROR(name_node(c, em_ts_infer(L, &call, node)));
    return bind_hop_outputs(c, n, outs, n_out);
}

/* torch.ops.higher_order.while_loop(cond_fn, body_fn, carried_inputs, additional_inputs) -> a
 * Loop node without a trip count: its first condition is cond_fn on the carried inputs (lowered
 * before the node), its body body_fn on the carried values (the body graph's inputs) and the
 * additional inputs (captured from the enclosing graph), then cond_fn on the new values as the
 * body's condition output. The node's outputs are the last carried values. */
static ember_status *lower_while_loop(const nctx *c, const em_pt2_json *n)
{
    ts_lower *L = &c->p->L;
    const em_pt2_json *in = em_pt2_json_get(n, "inputs");
    if (in == NULL || in->k != EM_PT2_JARR || in->n != 4 || graph_arg(in, 0) == NULL ||
        graph_arg(in, 1) == NULL) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "while_loop takes 4 inputs (cond_fn and body_fn "
                    "as graphs, carried_inputs, additional_inputs)%s%s", NULL, NULL);
    }
    ts_av *carried = NULL, *extra = NULL, **outs = NULL;
    EM_RETURN_IF_ERROR(tensor_list(c, in, 2, "carried_inputs", &carried));
    EM_RETURN_IF_ERROR(tensor_list(c, in, 3, "additional_inputs", &extra));
    size_t nc = carried->u.seq.n, ne = extra->u.seq.n, n_out = 0;
    if (nc == 0 || nc > 4096) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "while_loop carries no value%s%s", NULL, NULL);
    }
    ts_av **ops = concat_avs(L, carried->u.seq.items, nc, extra->u.seq.items, ne);
    int *vals = em_ts_arena_alloc(&L->arena, (nc + 2) * sizeof(int));
    if (ops == NULL || vals == NULL) {
        return em_status_oom();
    }
    vals[0] = -1; /* no trip count */
    EM_RETURN_IF_ERROR(lower_inline(c, graph_arg(in, 0), ops, nc + ne, &outs, &n_out));
    EM_RETURN_IF_ERROR(cond_value(c, outs, n_out, &vals[1]));
    for (size_t i = 0; i < nc; i++) {
        EM_RETURN_IF_ERROR(em_ts_use(L, carried->u.seq.items[i], &vals[2 + i]));
    }
    em_graph *body = NULL;
    int iter = -1, cond_in = -1, cond_out = -1;
    EM_RETURN_IF_ERROR(enter_body(L, &body, &iter, &cond_in));
    ember_status *st = NULL;
    ts_av **body_ops = concat_avs(L, carried->u.seq.items, nc, extra->u.seq.items, ne);
    st = st == NULL && body_ops == NULL ? em_status_oom() : st;
    for (size_t i = 0; i < nc && st == NULL; i++) {
        st = body_input_like(L, carried->u.seq.items[i], &body_ops[i]);
    }
    if (st == NULL) {
        st = lower_inline(c, graph_arg(in, 1), body_ops, nc + ne, &outs, &n_out);
    }
    if (st == NULL && n_out != nc) {
        st = nerr(c, EMBER_ERR_INVALID_MODEL, "body_fn returns another number of values than "
                  "the loop carries%s%s", NULL, NULL);
    }
    ts_av **next = st == NULL ? concat_avs(L, outs, nc, extra->u.seq.items, ne) : NULL;
    ts_av **conds = NULL;
    size_t n_cond = 0;
    st = st == NULL && next == NULL ? em_status_oom() : st;
    if (st == NULL) {
        st = lower_inline(c, graph_arg(in, 0), next, nc + ne, &conds, &n_cond);
    }
    if (st == NULL) {
        st = cond_value(c, conds, n_cond, &cond_out);
    }
    if (st == NULL) {
        ts_call call = {.op = c->target, .node = c->node};
        st = em_ts_add_output(L, &call, cond_out);
    }
    if (st == NULL) {
        st = add_outputs(c, outs, nc);
    }
    em_ts_sub_leave(L);
    if (st == NULL) {
        st = emit_loop(c, n, vals, (int)(2 + nc), &body, nc);
    }
    em_graph_destroy(body);
    return st;
}

/* torch.ops.higher_order.map_impl(body_fn, xs, additional_inputs) -> a Loop node over the
 * first dim of xs: its body gathers slice `iter` of each xs (captured), runs body_fn on those
 * and the additional inputs, and returns its results as scan outputs, which the Loop stacks
 * along a new first dim (torch.stack of map's results). */
static ember_status *lower_map(const nctx *c, const em_pt2_json *n)
{
    ts_lower *L = &c->p->L;
    const em_pt2_json *in = em_pt2_json_get(n, "inputs");
    if (in == NULL || in->k != EM_PT2_JARR || in->n != 3 || graph_arg(in, 0) == NULL) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "map_impl takes 3 inputs (body_fn as a graph, "
                    "xs, additional_inputs)%s%s", NULL, NULL);
    }
    ts_av *xs = NULL, *extra = NULL, **outs = NULL;
    EM_RETURN_IF_ERROR(tensor_list(c, in, 1, "xs", &xs));
    EM_RETURN_IF_ERROR(tensor_list(c, in, 2, "additional_inputs", &extra));
    size_t nx = xs->u.seq.n, ne = extra->u.seq.n, n_out = 0;
    if (nx == 0 || nx > 4096) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "map over no tensor%s%s", NULL, NULL);
    }
    ts_call call = {.op = c->target, .node = c->node};
    int vals[2] = {-1, -1}, x0 = -1, rank = 0;
    EM_RETURN_IF_ERROR(em_ts_use(L, xs->u.seq.items[0], &x0));
    EM_RETURN_IF_ERROR(name_node(c, em_ts_rank(L, &call, x0, &rank)));
    if (rank < 1) {
        return nerr(c, EMBER_ERR_INVALID_MODEL, "map over a 0-d tensor%s%s", NULL, NULL);
    }
    EM_RETURN_IF_ERROR(em_ts_dim_value(L, &call, x0, 0, &vals[0])); /* the trip count */
    ts_av **body_ops = concat_avs(L, xs->u.seq.items, nx, extra->u.seq.items, ne);
    if (body_ops == NULL) {
        return em_status_oom();
    }
    em_graph *body = NULL;
    int iter = -1, cond_in = -1;
    EM_RETURN_IF_ERROR(enter_body(L, &body, &iter, &cond_in));
    ember_status *st = NULL;
    for (size_t i = 0; i < nx && st == NULL; i++) { /* xs[i][iter] */
        int g[2] = {-1, iter}, slice = -1, node = -1;
        st = em_ts_use(L, xs->u.seq.items[i], &g[0]);
        if (st == NULL) {
            st = em_ts_emit(L, &call, EM_OP_GATHER, g, 2, &slice, 1, &node);
        }
        if (st == NULL) {
            st = em_node_set_int(L->g, node, "axis", 0);
        }
        if (st == NULL) {
            st = name_node(c, em_ts_infer(L, &call, node));
        }
        if (st == NULL) {
            body_ops[i] = em_ts_tensor(L, slice);
            st = body_ops[i] == NULL ? em_status_oom() : NULL;
        }
    }
    if (st == NULL) {
        st = lower_inline(c, graph_arg(in, 0), body_ops, nx + ne, &outs, &n_out);
    }
    if (st == NULL && (n_out == 0 || n_out > 4096)) {
        st = nerr(c, EMBER_ERR_INVALID_MODEL, "body_fn returns no value%s%s", NULL, NULL);
    }
    if (st == NULL) {
        st = em_ts_add_output(L, &call, cond_in);
    }
    if (st == NULL) {
        st = add_outputs(c, outs, n_out);
    }
    em_ts_sub_leave(L);
    if (st == NULL) {
        st = emit_loop(c, n, vals, 2, &body, n_out);
    }
    em_graph_destroy(body);
    return st;
}

static ember_status *lower_node(em_pt2 *p, const em_pt2_json *n, size_t index)
{
    ts_lower *L = &p->L;
    const em_pt2_json *target = em_pt2_json_get(n, "target");
    const em_pt2_json *name = em_pt2_json_get(n, "name");
    char fallback[32];
    snprintf(fallback, sizeof fallback, "#%zu", index);
    nctx c = {p, name != NULL && name->k == EM_PT2_JSTR ? name->s : fallback,
              target != NULL && target->k == EM_PT2_JSTR ? target->s : "?"};
    if (target == NULL || target->k != EM_PT2_JSTR) {
        return nerr(&c, EMBER_ERR_INVALID_MODEL, "field 'target' is missing or not a string%s%s",
                    NULL, NULL);
    }
    if (strcmp(target->s, "torch.ops.higher_order.cond") == 0) {
        L->path = c.node;
        return lower_cond(&c, n);
    }
    if (strcmp(target->s, "torch.ops.higher_order.while_loop") == 0) {
        L->path = c.node;
        return lower_while_loop(&c, n);
    }
    if (strcmp(target->s, "torch.ops.higher_order.map_impl") == 0) {
        L->path = c.node;
        return lower_map(&c, n);
    }
    static const char qd[] = "torch.ops.quantized_decomposed.";
    if (strncmp(target->s, qd, sizeof qd - 1) == 0) {
        em_pt2_call ca = {0};
        ts_av *r = NULL;
        EM_RETURN_IF_ERROR(collect_args(&c, em_pt2_json_get(n, "inputs"), &ca));
        L->path = c.node;
        EM_RETURN_IF_ERROR(name_node(&c, em_pt2_lower_quant(L, target->s + sizeof qd - 1, &ca,
                                                            &r)));
        return bind_outputs(&c, em_pt2_json_get(n, "outputs"), r);
    }
    const char *pyop = py_operator(target->s);
    const char *op = pyop != NULL ? pyop : aten_name(L, target->s);
    if (op == NULL) {
        return nerr(&c, EMBER_ERR_UNSUPPORTED, "not an aten op: ember lowers torch.ops.aten.* "
                    "targets, torch.ops.higher_order.cond / while_loop / map_impl, "
                    "torch.ops.quantized_decomposed.* and Python's arithmetic on symbolic ints "
                    "only%s%s", NULL, NULL);
    }
    em_pt2_call ca = {0};
    EM_RETURN_IF_ERROR(collect_args(&c, em_pt2_json_get(n, "inputs"), &ca));
    const alias *al = NULL;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        al = strcmp(aliases[i].from, op) == 0 ? &aliases[i] : al;
    }
    if (al != NULL && al->args != NULL) {
        EM_RETURN_IF_ERROR(apply_alias(&c, al, &ca));
    }
    const char *to = al != NULL ? al->to : op;
    char qual[160], aten[160];
    snprintf(qual, sizeof qual, "torch.%s", to);
    snprintf(aten, sizeof aten, "aten::%s", to);
    if (pyop == NULL && em_ts_op_find(aten) == NULL) {
        return nerr(&c, EMBER_ERR_UNSUPPORTED, "aten op '%s' is not supported%s", op, NULL);
    }
    L->path = c.node;
    ts_av *r = NULL;
    /* PT2E: a float bias beside quantized operands as an int32 one, a quantized linear as
     * one Gemm (pt2_quant.c) */
    bool linear = strcmp(to, "linear") == 0;
    if (linear || strcmp(to, "conv1d") == 0 || strcmp(to, "conv2d") == 0 ||
        (strcmp(to, "_convolution") == 0 && ca.n_pos > 6 && ca.pos[6]->k == TA_BOOL &&
         !ca.pos[6]->u.b)) {
        EM_RETURN_IF_ERROR(name_node(&c, em_pt2_quant_bias(L, &ca)));
    }
    if (strcmp(to, "batch_norm") == 0) {
        EM_RETURN_IF_ERROR(name_node(&c, lower_bn_train(L, &ca, &r)));
        for (size_t i = 0; r != NULL && i < c.p->n_state; i++) { /* it updates these */
            c.p->state[i].mutated |= c.p->state[i].av == ca.pos[3] ||
                                     c.p->state[i].av == ca.pos[4];
        }
        if (r != NULL) {
            r = pad_results(L, r, al != NULL ? al->n_results : 1);
            return r == NULL ? em_status_oom()
                             : bind_outputs(&c, em_pt2_json_get(n, "outputs"), r);
        }
    }
    if (linear) {
        EM_RETURN_IF_ERROR(name_node(&c, em_pt2_quant_linear(L, &ca, &r)));
        if (r != NULL) {
            return bind_outputs(&c, em_pt2_json_get(n, "outputs"), r);
        }
    }
    em_ts_pos nopos = {0};
    EM_RETURN_IF_ERROR(name_node(&c, em_ts_builtin_call(L, qual, ca.pos, ca.n_pos, ca.kw_names,
                                                        ca.kw_vals, ca.n_kw, nopos, &r)));
    r = pad_results(L, r, al != NULL ? al->n_results : 1);
    if (r == NULL) {
        return em_status_oom();
    }
    return bind_outputs(&c, em_pt2_json_get(n, "outputs"), r);
}

ember_status *em_pt2_lower_nodes(em_pt2 *p, const em_pt2_json *nodes)
{
    if (nodes == NULL || nodes->k != EM_PT2_JARR) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: graph field 'nodes' is %s",
                             p->L.what, nodes == NULL ? "missing" : "not an array");
    }
    for (size_t i = 0; i < nodes->n; i++) {
        EM_RETURN_IF_ERROR(lower_node(p, nodes->items[i], i));
    }
    return NULL;
}
