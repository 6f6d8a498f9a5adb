/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Builtins on values known at load time (ts_lower.h): Python's int/float/len/range/min/max,
 * and aten/prim operators whose arguments are all known numbers, strings or lists (the .int,
 * .float, .str and list overloads serialized code calls for its own bookkeeping). Anything
 * else returns *handled = false and goes to the tensor operators.
 */
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_num(const ts_av *a) { return a->k == TA_INT || a->k == TA_FLOAT || a->k == TA_BOOL; }

static double num(const ts_av *a)
{
    return a->k == TA_INT ? (double)a->u.i : a->k == TA_BOOL ? (double)a->u.b : a->u.f;
}

static int64_t ival(const ts_av *a) { return a->k == TA_BOOL ? (int64_t)a->u.b : a->u.i; }

/* Structural equality of known values (for ==, `in`, `is`). */
static bool same(const ts_av *a, const ts_av *b)
{
    if (is_num(a) && is_num(b)) {
        return num(a) == num(b);
    }
    if (a->k != b->k) {
        return false;
    }
    switch (a->k) {
    case TA_NONE:
        return true;
    case TA_STR:
    case TA_DEVICE:
        return a->u.str.n == b->u.str.n && memcmp(a->u.str.s, b->u.str.s, a->u.str.n) == 0;
    case TA_LIST:
    case TA_TUPLE:
        if (a->u.seq.n != b->u.seq.n) {
            return false;
        }
        for (size_t i = 0; i < a->u.seq.n; i++) {
            if (!same(a->u.seq.items[i], b->u.seq.items[i])) {
                return false;
            }
        }
        return true;
    case TA_OBJECT:
        return a->u.obj == b->u.obj;
    default:
        return a == b;
    }
}

static bool is_graph_value(const ts_av *a) { return a->k == TA_TENSOR || a->k == TA_SCALAR; }

static bool known(const ts_av *a)
{
    switch (a->k) {
    case TA_NONE:
    case TA_BOOL:
    case TA_INT:
    case TA_FLOAT:
    case TA_STR:
    case TA_DEVICE:
        return true;
    case TA_LIST:
    case TA_TUPLE:
        for (size_t i = 0; i < a->u.seq.n; i++) {
            if (!known(a->u.seq.items[i])) {
                return false;
            }
        }
        return true;
    default:
        return false;
    }
}

static ember_status *ret_num(ts_lower *L, double v, bool as_int, ts_av **out)
{
    *out = as_int ? em_ts_int(L, (int64_t)v) : em_ts_float(L, v);
    return *out != NULL ? NULL : em_status_oom();
}

static ember_status *ret_bool(ts_lower *L, bool v, ts_av **out)
{
    *out = em_ts_bool(L, v);
    return *out != NULL ? NULL : em_status_oom();
}

/* Python's floor division and modulo on ints. */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The builtins this file evaluates, by name: one table lookup per call instead of a chain of
 * string comparisons. Binary arithmetic and comparisons (arith) are named bare ("add", the
 * aten:: / prim:: prefix removed); the other builtins by the name the call uses. */
typedef enum arith_op {
    AR_NONE = 0, AR_ADD, AR_SUB, AR_MUL, AR_DIV, AR_FLOORDIV, AR_MOD, AR_POW, AR_EQ, AR_NE,
    AR_LT, AR_LE, AR_GT, AR_GE, AR_AND, AR_OR, AR_XOR, AR_MIN, AR_MAX
} arith_op;

typedef enum scalar_builtin {
    SB_NONE = 0, SB_RANGE, SB_LEN, SB_EQ, SB_NE, SB_IS, SB_ISNOT, SB_SLICE, SB_FORMAT,
    SB_LIST_ADD, SB_STR, SB_FIND, SB_ALL, SB_ANY, SB_INT, SB_FLOAT, SB_SCALAR, SB_BOOL, SB_NOT,
    SB_NEG, SB_CONTAINS, SB_ABS, SB_FLOOR, SB_CEIL, SB_SQRT, SB_MIN, SB_MAX
} scalar_builtin;

typedef struct named_id {
    const char *name;
    int id;
} named_id;

/* clang-format off */
static const named_id arith_ops[] = {
    {"add", AR_ADD}, {"sub", AR_SUB}, {"mul", AR_MUL}, {"div", AR_DIV},
    {"floordiv", AR_FLOORDIV}, {"floor_divide", AR_FLOORDIV}, {"remainder", AR_MOD},
    {"fmod", AR_MOD}, {"pow", AR_POW}, {"eq", AR_EQ}, {"ne", AR_NE}, {"lt", AR_LT},
    {"le", AR_LE}, {"gt", AR_GT}, {"ge", AR_GE}, {"__and__", AR_AND}, {"__or__", AR_OR},
    {"__xor__", AR_XOR}, {"min", AR_MIN}, {"max", AR_MAX},
};

static const named_id scalar_builtins[] = {
    {"range", SB_RANGE}, {"len", SB_LEN}, {"aten::len", SB_LEN}, {"aten::eq", SB_EQ},
    {"aten::ne", SB_NE}, {"aten::__is__", SB_IS}, {"aten::__isnot__", SB_ISNOT},
    {"aten::slice", SB_SLICE}, {"aten::format", SB_FORMAT}, {"aten::add", SB_LIST_ADD},
    {"str", SB_STR}, {"aten::find", SB_FIND}, {"aten::all", SB_ALL}, {"aten::any", SB_ANY},
    {"int", SB_INT}, {"aten::Int", SB_INT}, {"aten::IntImplicit", SB_INT},
    {"float", SB_FLOAT}, {"aten::Float", SB_FLOAT}, {"aten::FloatImplicit", SB_FLOAT},
    {"aten::ScalarImplicit", SB_SCALAR}, {"bool", SB_BOOL}, {"aten::Bool", SB_BOOL},
    {"aten::__not__", SB_NOT}, {"aten::neg", SB_NEG}, {"aten::__contains__", SB_CONTAINS},
    {"aten::abs", SB_ABS}, {"abs", SB_ABS}, {"aten::floor", SB_FLOOR}, {"aten::ceil", SB_CEIL},
    {"aten::sqrt", SB_SQRT}, {"min", SB_MIN}, {"max", SB_MAX},
};
/* clang-format on */

static int id_of(const named_id *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) == 0) {
            return t[i].id;
        }
    }
    return 0;
}

static ember_status *arith(ts_lower *L, const char *op, ts_av *a, ts_av *b, em_ts_pos pos,
                           ts_av **out)
{
    bool ints = (a->k == TA_INT || a->k == TA_BOOL) && (b->k == TA_INT || b->k == TA_BOOL);
    double x = num(a), y = num(b);
    arith_op k = (arith_op)id_of(arith_ops, sizeof arith_ops / sizeof arith_ops[0], op);
    if (k == AR_ADD) {
        if (ints) {
            *out = em_ts_int(L, ival(a) + ival(b));
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, x + y, false, out);
    }
    if (k == AR_SUB) {
        if (ints) {
            *out = em_ts_int(L, ival(a) - ival(b));
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, x - y, false, out);
    }
    if (k == AR_MUL) {
        if (ints) {
            *out = em_ts_int(L, ival(a) * ival(b));
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, x * y, false, out);
    }
    if (k == AR_DIV) {
        return ret_num(L, x / y, false, out);
    }
    if (k == AR_FLOORDIV) {
        if (ints) {
            if (ival(b) == 0) {
                return em_ts_err(L, EMBER_ERR_INVALID_ARG, pos, "integer division by zero");
            }
            *out = em_ts_int(L, floordiv(ival(a), ival(b)));
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, floor(x / y), false, out);
    }
    if (k == AR_MOD) {
        if (ints) {
            if (ival(b) == 0) {
                return em_ts_err(L, EMBER_ERR_INVALID_ARG, pos, "integer modulo by zero");
            }
            *out = em_ts_int(L, ival(a) - floordiv(ival(a), ival(b)) * ival(b));
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, x - floor(x / y) * y, false, out);
    }
    if (k == AR_POW) {
        return ret_num(L, pow(x, y), ints && y >= 0, out);
    }
    if (k == AR_EQ) {
        return ret_bool(L, x == y, out);
    }
    if (k == AR_NE) {
        return ret_bool(L, x != y, out);
    }
    if (k == AR_LT) {
        return ret_bool(L, x < y, out);
    }
    if (k == AR_LE) {
        return ret_bool(L, x <= y, out);
    }
    if (k == AR_GT) {
        return ret_bool(L, x > y, out);
    }
    if (k == AR_GE) {
        return ret_bool(L, x >= y, out);
    }
    if (k == AR_AND || k == AR_OR || k == AR_XOR) {
        int64_t r = k == AR_AND ? (ival(a) & ival(b)) : k == AR_OR ? (ival(a) | ival(b))
                                                                   : (ival(a) ^ ival(b));
        if (a->k == TA_BOOL && b->k == TA_BOOL) {
            return ret_bool(L, r != 0, out);
        }
        *out = em_ts_int(L, r);
        return *out != NULL ? NULL : em_status_oom();
    }
    if (k == AR_MIN || k == AR_MAX) {
        bool lo = k == AR_MIN;
        return ret_num(L, lo ? fmin(x, y) : fmax(x, y), ints, out);
    }
    *out = NULL;
    return NULL;
}

/* "{} and {}".format(...) as torch.format does: each {} takes the next argument's str(). */
static ember_status *format_str(ts_lower *L, ts_av **args, size_t n, ts_av **out)
{
    em_strbuf sb;
    em_strbuf_init(&sb, L->al);
    const char *f = args[0]->u.str.s;
    size_t next = 1;
    for (const char *p = f; *p != '\0'; p++) {
        if (p[0] == '{' && p[1] == '}') {
            if (next < n) {
                const ts_av *a = args[next++];
                if (a->k == TA_INT) {
                    em_strbuf_printf(&sb, "%lld", (long long)a->u.i);
                } else if (a->k == TA_FLOAT) {
                    em_strbuf_printf(&sb, "%g", a->u.f);
                } else if (a->k == TA_STR) {
                    em_strbuf_printf(&sb, "%s", a->u.str.s);
                } else if (a->k == TA_BOOL) {
                    em_strbuf_printf(&sb, "%s", a->u.b ? "True" : "False");
                } else {
                    em_strbuf_printf(&sb, "<%s>", em_ts_kind_name(a->k));
                }
            }
            p++;
        } else {
            em_strbuf_printf(&sb, "%c", *p);
        }
    }
    char *s = em_strbuf_take(&sb);
    if (s == NULL) {
        return em_status_oom();
    }
    *out = em_ts_str(L, s, strlen(s));
    free(s);
    return *out != NULL ? NULL : em_status_oom();
}

static ember_status *make_range(ts_lower *L, ts_av **args, size_t n, em_ts_pos pos, ts_av **out)
{
    int64_t lo = 0, hi = 0, step = 1;
    for (size_t i = 0; i < n; i++) {
        if (args[i]->k != TA_INT) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "range() over a %s (a trip count that "
                          "depends on tensor data) is not supported yet",
                          em_ts_kind_name(args[i]->k));
        }
    }
    if (n == 1) {
        hi = args[0]->u.i;
    } else if (n >= 2) {
        lo = args[0]->u.i;
        hi = args[1]->u.i;
        step = n >= 3 ? args[2]->u.i : 1;
    }
    if (step == 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_ARG, pos, "range() step is 0");
    }
    int64_t count = step > 0 ? (hi > lo ? (hi - lo + step - 1) / step : 0)
                             : (lo > hi ? (lo - hi - step - 1) / -step : 0);
    if (count > TS_MAX_UNROLL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "range() of %lld items is above the %d "
                      "unrolled at load time", (long long)count, TS_MAX_UNROLL);
    }
    *out = em_ts_seq(L, TA_LIST, (size_t)count);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (int64_t i = 0; i < count; i++) {
        if (((*out)->u.seq.items[i] = em_ts_int(L, lo + i * step)) == NULL) {
            return em_status_oom();
        }
    }
    return NULL;
}

/* What a list item tells about its number: a known int, or the dim a dynamic size stands for. */
static bool item_dim(ts_lower *L, const ts_av *a, em_dim *d)
{
    if (a->k == TA_INT || a->k == TA_BOOL) {
        *d = (em_dim){ival(a), 0};
        return true;
    }
    return em_ts_dim_of_scalar(L, a, d);
}

/* Whether lists a and b are equal, when the lowering can tell: items known alike, the same
 * graph value, or sizes standing for one symbolic dim are equal; known numbers that differ (or
 * lengths that differ) are not. 1 equal, 0 not, -1 undecided. Shape checks compare
 * torch.size(x) with sizes computed from another input's dims this way. */
static int lists_equal(ts_lower *L, const ts_av *a, const ts_av *b)
{
    if (a->u.seq.n != b->u.seq.n) {
        return 0;
    }
    int r = 1;
    for (size_t i = 0; i < a->u.seq.n; i++) {
        const ts_av *x = a->u.seq.items[i], *y = b->u.seq.items[i];
        em_dim dx, dy;
        if (known(x) && known(y)) {
            if (!same(x, y)) {
                return 0;
            }
        } else if (x->k == TA_SCALAR && y->k == TA_SCALAR && x->u.t.v == y->u.t.v &&
                   x->u.t.g == y->u.t.g) {
            continue;
        } else if (item_dim(L, x, &dx) && item_dim(L, y, &dy)) {
            if (dx.v >= 0 && dy.v >= 0 && dx.v != dy.v) {
                return 0;
            }
            if (!((dx.v >= 0 && dx.v == dy.v) || (dx.sym > 0 && dx.sym == dy.sym))) {
                r = -1;
            }
        } else {
            r = -1;
        }
    }
    return r;
}

ember_status *em_ts_scalar_call(ts_lower *L, const char *op, ts_av **args, size_t n, em_ts_pos pos,
                             bool *handled, ts_av **out)
{
    *handled = true;
    *out = NULL;
    size_t nsb = sizeof scalar_builtins / sizeof scalar_builtins[0];
    scalar_builtin k = (scalar_builtin)id_of(scalar_builtins, nsb, op);
    if (k == SB_RANGE) {
        return make_range(L, args, n, pos, out);
    }
    /* The length of a list is known even when its items are not. */
    if (n == 1 && k == SB_LEN &&
        (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE)) {
        *out = em_ts_int(L, (int64_t)args[0]->u.seq.n);
        return *out != NULL ? NULL : em_status_oom();
    }
    /* == and != of two lists whose items are sizes, known or not */
    if ((k == SB_EQ || k == SB_NE) && n == 2 &&
        (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE) &&
        (args[1]->k == TA_LIST || args[1]->k == TA_TUPLE)) {
        int eq = lists_equal(L, args[0], args[1]);
        if (eq >= 0) {
            return ret_bool(L, k == SB_EQ ? eq == 1 : eq == 0, out);
        }
    }
    /* `a is b` with a tensor on either side is known too: an Optional[Tensor] argument is a
     * tensor value or None when the model is lowered, and tensors are the same graph value. */
    if ((k == SB_IS || k == SB_ISNOT) && n == 2 &&
        (is_graph_value(args[0]) || is_graph_value(args[1]))) {
        const ts_av *a = args[0], *b = args[1];
        bool is = a->k == b->k && a->u.t.v == b->u.t.v && a->u.t.g == b->u.t.g;
        return ret_bool(L, k == SB_IS ? is : !is, out);
    }
    /* `v is None` is known whatever v holds (Optional checks of tensors and size lists). */
    if ((k == SB_IS || k == SB_ISNOT) && n == 2 &&
        (args[0]->k == TA_NONE || args[1]->k == TA_NONE)) {
        bool is = args[0]->k == args[1]->k;
        return ret_bool(L, k == SB_ISNOT ? !is : is, out);
    }
    /* So is a slice of it (aten::slice.t: `torch.slice(torch.size(x), -2)` for x.shape[-2:]). */
    if (k == SB_SLICE && n >= 1 && n <= 4 &&
        (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE)) {
        int64_t len = (int64_t)args[0]->u.seq.n, b[3] = {0, len, 1};
        bool ok = true;
        for (size_t i = 1; i < n; i++) {
            ok = ok && (args[i]->k == TA_INT || (args[i]->k == TA_NONE && i < 3));
            b[i - 1] = args[i]->k == TA_INT ? args[i]->u.i : b[i - 1];
        }
        if (ok && b[2] > 0) {
            for (int i = 0; i < 2; i++) { /* Python's clamping of slice bounds */
                b[i] = b[i] < 0 ? b[i] + len : b[i];
                b[i] = b[i] < 0 ? 0 : b[i] > len ? len : b[i];
            }
            int64_t cnt = b[1] > b[0] ? (b[1] - b[0] + b[2] - 1) / b[2] : 0;
            *out = em_ts_seq(L, args[0]->k, (size_t)cnt);
            if (*out == NULL) {
                return em_status_oom();
            }
            for (int64_t i = 0; i < cnt; i++) {
                (*out)->u.seq.items[i] = args[0]->u.seq.items[b[0] + i * b[2]];
            }
            return NULL;
        }
    }
    /* Messages format values unknown at load too (they go to raises, which become data
     * checks): those print as <kind>. */
    if (k == SB_FORMAT && n >= 1 && args[0]->k == TA_STR) {
        return format_str(L, args, n, out);
    }
    /* The length of a dict, and the concatenation of two lists, are known whatever the items
     * hold. */
    if (n == 1 && k == SB_LEN &&
        args[0]->k == TA_DICT) {
        *out = em_ts_int(L, (int64_t)args[0]->u.dict.n);
        return *out != NULL ? NULL : em_status_oom();
    }
    if (k == SB_LIST_ADD && n == 2 && args[0]->k == TA_LIST &&
        args[1]->k == TA_LIST) {
        size_t na = args[0]->u.seq.n, nb = args[1]->u.seq.n;
        if ((*out = em_ts_seq(L, TA_LIST, na + nb)) == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < na + nb; i++) {
            (*out)->u.seq.items[i] =
                i < na ? args[0]->u.seq.items[i] : args[1]->u.seq.items[i - na];
        }
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!known(args[i])) {
            *handled = false;
            return NULL;
        }
    }
    if (n == 1 && k == SB_STR &&
        (args[0]->k == TA_STR || args[0]->k == TA_DEVICE || args[0]->k == TA_INT ||
         args[0]->k == TA_BOOL)) {
        char num_s[32];
        const ts_av *a = args[0];
        if (a->k == TA_INT) {
            snprintf(num_s, sizeof num_s, "%lld", (long long)a->u.i);
        } else if (a->k == TA_BOOL) {
            snprintf(num_s, sizeof num_s, "%s", a->u.b ? "True" : "False");
        }
        *out = a->k == TA_INT || a->k == TA_BOOL ? em_ts_str(L, num_s, strlen(num_s))
                                                 : em_ts_str(L, a->u.str.s, a->u.str.n);
        return *out != NULL ? NULL : em_status_oom();
    }
    /* str.find(sub, start=0, end=len): the first index of sub in s[start:end], or -1 */
    if (k == SB_FIND && n >= 2 && n <= 4 && args[0]->k == TA_STR &&
        args[1]->k == TA_STR && (n < 3 || args[2]->k == TA_INT) &&
        (n < 4 || args[3]->k == TA_INT)) {
        int64_t len = (int64_t)args[0]->u.str.n, b[2] = {0, len};
        for (size_t i = 2; i < n; i++) {
            int64_t v = args[i]->u.i < 0 ? args[i]->u.i + len : args[i]->u.i;
            b[i - 2] = v < 0 ? 0 : v > len ? len : v;
        }
        int64_t at = -1, m = (int64_t)args[1]->u.str.n;
        for (int64_t i = b[0]; at < 0 && i + m <= b[1]; i++) {
            at = memcmp(args[0]->u.str.s + i, args[1]->u.str.s, (size_t)m) == 0 ? i : -1;
        }
        *out = em_ts_int(L, at);
        return *out != NULL ? NULL : em_status_oom();
    }
    /* all / any of a list of bools */
    if ((k == SB_ALL || k == SB_ANY) && n == 1 &&
        args[0]->k == TA_LIST) {
        bool all = k == SB_ALL, r = all;
        for (size_t i = 0; i < args[0]->u.seq.n; i++) {
            const ts_av *a = args[0]->u.seq.items[i];
            bool v = is_num(a) && num(a) != 0;
            r = all ? (r && v) : (r || v);
        }
        return ret_bool(L, r, out);
    }
    if (n == 1 && k == SB_INT && is_num(args[0])) {
        *out = em_ts_int(L, (int64_t)num(args[0]));
        return *out != NULL ? NULL : em_status_oom();
    }
    if (n == 1 && (k == SB_FLOAT || k == SB_SCALAR) && is_num(args[0])) {
        if (k == SB_SCALAR) {
            *out = args[0];
            return NULL;
        }
        return ret_num(L, num(args[0]), false, out);
    }
    if (n == 1 && k == SB_BOOL && is_num(args[0])) {
        return ret_bool(L, num(args[0]) != 0, out);
    }
    if (n == 1 && k == SB_LEN) {
        const ts_av *a = args[0];
        if (a->k == TA_LIST || a->k == TA_TUPLE || a->k == TA_STR) {
            *out = em_ts_int(L, (int64_t)(a->k == TA_STR ? a->u.str.n : a->u.seq.n));
            return *out != NULL ? NULL : em_status_oom();
        }
    }
    if ((k == SB_IS || k == SB_ISNOT) && n == 2) {
        bool is = same(args[0], args[1]) && (args[0]->k == args[1]->k);
        return ret_bool(L, k == SB_ISNOT ? !is : is, out);
    }
    if (k == SB_NOT && n == 1 && args[0]->k == TA_BOOL) {
        return ret_bool(L, !args[0]->u.b, out);
    }
    if (k == SB_NEG && n == 1 && is_num(args[0])) {
        if (args[0]->k == TA_INT) {
            *out = em_ts_int(L, -args[0]->u.i);
            return *out != NULL ? NULL : em_status_oom();
        }
        return ret_num(L, -num(args[0]), false, out);
    }
    if ((k == SB_EQ || k == SB_NE) && n == 2 &&
        !(is_num(args[0]) && is_num(args[1]))) {
        bool eq = same(args[0], args[1]);
        return ret_bool(L, k == SB_EQ ? eq : !eq, out);
    }
    if (k == SB_CONTAINS && n == 2 &&
        (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE)) {
        bool found = false;
        for (size_t i = 0; i < args[0]->u.seq.n && !found; i++) {
            found = same(args[0]->u.seq.items[i], args[1]);
        }
        return ret_bool(L, found, out);
    }
    if (k == SB_ABS && n == 1 && is_num(args[0])) {
        return ret_num(L, fabs(num(args[0])), args[0]->k == TA_INT, out);
    }
    if ((k == SB_FLOOR || k == SB_CEIL || k == SB_SQRT) && n == 1 && is_num(args[0])) {
        double x = num(args[0]);
        bool fl = k == SB_FLOOR, ce = k == SB_CEIL;
        return ret_num(L, fl ? floor(x) : ce ? ceil(x) : sqrt(x), fl || ce, out);
    }
    if ((k == SB_MIN || k == SB_MAX) && n == 1 &&
        (args[0]->k == TA_LIST || args[0]->k == TA_TUPLE) && args[0]->u.seq.n > 0) {
        ts_av *best = args[0]->u.seq.items[0];
        for (size_t i = 1; i < args[0]->u.seq.n; i++) {
            ts_av *r = NULL;
            TS_TRY(arith(L, op, best, args[0]->u.seq.items[i], pos, &r));
            best = r != NULL ? r : best;
        }
        *out = best;
        return NULL;
    }
    const char *bare = strncmp(op, "aten::", 6) == 0 ? op + 6 : strncmp(op, "prim::", 6) == 0
                                                                 ? op + 6 : op;
    if (n == 2 && is_num(args[0]) && is_num(args[1])) {
        TS_TRY(arith(L, bare, args[0], args[1], pos, out));
        if (*out != NULL) {
            return NULL;
        }
    }
    bool add = id_of(arith_ops, sizeof arith_ops / sizeof arith_ops[0], bare) == AR_ADD;
    if (add && n == 2 && (args[0]->k == TA_LIST || args[0]->k == TA_STR) &&
        args[0]->k == args[1]->k) {
        if (args[0]->k == TA_STR) {
            char *s = em_ts_printf(L, "%s%s", args[0]->u.str.s, args[1]->u.str.s);
            *out = s != NULL ? em_ts_str(L, s, strlen(s)) : NULL;
            return *out != NULL ? NULL : em_status_oom();
        }
        size_t na = args[0]->u.seq.n, nb = args[1]->u.seq.n;
        *out = em_ts_seq(L, TA_LIST, na + nb);
        if (*out == NULL) {
            return em_status_oom();
        }
        memcpy((*out)->u.seq.items, args[0]->u.seq.items, na * sizeof(ts_av *));
        memcpy((*out)->u.seq.items + na, args[1]->u.seq.items, nb * sizeof(ts_av *));
        return NULL;
    }
    *handled = false;
    return NULL;
}
