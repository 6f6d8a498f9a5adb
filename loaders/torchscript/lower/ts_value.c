/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Abstract values of the TorchScript lowering (ts_lower.h): constructors, scopes, objects,
 * and pickled values turned into abstract ones (tensors into initializers).
 */
#include "ts_flow.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ts_av *em_ts_new(ts_lower *L, ts_ak k)
{
    ts_av *a = em_ts_arena_alloc(&L->arena, sizeof *a);
    if (a != NULL) {
        a->k = k;
    }
    return a;
}

ts_av *em_ts_none(ts_lower *L) { return em_ts_new(L, TA_NONE); }

ts_av *em_ts_bool(ts_lower *L, bool b)
{
    ts_av *a = em_ts_new(L, TA_BOOL);
    if (a != NULL) {
        a->u.b = b;
    }
    return a;
}

ts_av *em_ts_int(ts_lower *L, int64_t i)
{
    ts_av *a = em_ts_new(L, TA_INT);
    if (a != NULL) {
        a->u.i = i;
    }
    return a;
}

ts_av *em_ts_float(ts_lower *L, double f)
{
    ts_av *a = em_ts_new(L, TA_FLOAT);
    if (a != NULL) {
        a->u.f = f;
    }
    return a;
}

ts_av *em_ts_str(ts_lower *L, const char *s, size_t n)
{
    ts_av *a = em_ts_new(L, TA_STR);
    char *c = em_ts_arena_strndup(&L->arena, s, n);
    if (a == NULL || c == NULL) {
        return NULL;
    }
    a->u.str.s = c;
    a->u.str.n = n;
    return a;
}

ts_av *em_ts_tensor(ts_lower *L, int v)
{
    ts_av *a = em_ts_new(L, TA_TENSOR);
    if (a != NULL) {
        a->u.t.v = v;
        a->u.t.g = L->g;
        a->u.t.q = NULL;
    }
    return a;
}

ts_av *em_ts_seq(ts_lower *L, ts_ak k, size_t n)
{
    ts_av *a = em_ts_new(L, k);
    if (a == NULL) {
        return NULL;
    }
    size_t cap = n > 4 ? n : 4;
    a->u.seq.items = em_ts_arena_alloc(&L->arena, cap * sizeof(ts_av *));
    if (a->u.seq.items == NULL) {
        return NULL;
    }
    a->u.seq.n = n;
    a->u.seq.cap = cap;
    return a;
}

/* Grows an arena array of pointers (old contents copied; the old block stays in the arena). */
static void **grow(ts_lower *L, void **old, size_t n, size_t *cap)
{
    size_t nc = *cap < 4 ? 8 : *cap * 2;
    void **p = em_ts_arena_alloc(&L->arena, nc * sizeof(void *));
    if (p == NULL) {
        return NULL;
    }
    if (n > 0) {
        memcpy(p, old, n * sizeof(void *));
    }
    *cap = nc;
    return p;
}

ember_status *em_ts_list_append(ts_lower *L, ts_av *list, ts_av *item)
{
    if (list->u.seq.n == list->u.seq.cap) {
        void **p = grow(L, (void **)list->u.seq.items, list->u.seq.n, &list->u.seq.cap);
        if (p == NULL) {
            return em_status_oom();
        }
        list->u.seq.items = (ts_av **)p;
    }
    list->u.seq.items[list->u.seq.n++] = item;
    return NULL;
}

const char *em_ts_kind_name(ts_ak k)
{
    static const char *const names[] = {"None", "bool", "int", "float", "str", "Device",
                                        "tuple", "list", "dict", "Tensor", "scalar",
                                        "object", "function", "class", "builtin",
                                        "uninitialized", "list of run-time length",
                                        "list being appended to"};
    return (size_t)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

char *em_ts_strdup(ts_lower *L, const char *s)
{
    return em_ts_arena_strndup(&L->arena, s, strlen(s));
}

char *em_ts_printf(ts_lower *L, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return NULL;
    }
    if ((size_t)n < sizeof buf) {
        return em_ts_arena_strndup(&L->arena, buf, (size_t)n);
    }
    char *p = em_ts_arena_alloc(&L->arena, (size_t)n + 1);
    if (p != NULL) {
        va_start(ap, fmt);
        vsnprintf(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return p;
}

/* ---- scopes and objects ---- */

static ember_status *names_set(ts_lower *L, const char ***names, ts_av ***vals, size_t *n,
                               size_t *cap, const char *name, ts_av *v)
{
    for (size_t i = *n; i-- > 0;) {
        if (strcmp((*names)[i], name) == 0) {
            (*vals)[i] = v;
            return NULL;
        }
    }
    if (*n == *cap) {
        size_t c1 = *cap, c2 = *cap;
        void **nn = grow(L, (void **)*names, *n, &c1);
        void **nv = grow(L, (void **)*vals, *n, &c2);
        if (nn == NULL || nv == NULL) {
            return em_status_oom();
        }
        *names = (const char **)nn;
        *vals = (ts_av **)nv;
        *cap = c1;
    }
    (*names)[*n] = name;
    (*vals)[*n] = v;
    (*n)++;
    return NULL;
}

ember_status *em_ts_env_set(ts_lower *L, ts_env *e, const char *name, ts_av *v)
{
    return names_set(L, &e->names, &e->vals, &e->n, &e->cap, name, v);
}

ts_av *em_ts_env_get(const ts_env *e, const char *name)
{
    for (size_t i = e->n; i-- > 0;) {
        if (strcmp(e->names[i], name) == 0) {
            return e->vals[i];
        }
    }
    return NULL;
}

ember_status *em_ts_obj_set(ts_lower *L, ts_obj *o, const char *name, ts_av *v)
{
    return names_set(L, &o->names, &o->vals, &o->n, &o->cap, name, v);
}

ember_status *em_ts_env_copy(ts_lower *L, const ts_env *src, ts_env *dst)
{
    size_t cap = src->n > 4 ? src->n : 4;
    dst->names = em_ts_arena_alloc(&L->arena, cap * sizeof(char *));
    dst->vals = em_ts_arena_alloc(&L->arena, cap * sizeof(ts_av *));
    if (dst->names == NULL || dst->vals == NULL) {
        return em_status_oom();
    }
    if (src->n > 0) {
        memcpy(dst->names, src->names, src->n * sizeof(char *));
        memcpy(dst->vals, src->vals, src->n * sizeof(ts_av *));
    }
    dst->n = src->n;
    dst->cap = cap;
    return NULL;
}

bool em_ts_same_value(const ts_av *a, const ts_av *b)
{
    if (a == b) {
        return true;
    }
    if (a->k != b->k) {
        return false;
    }
    switch (a->k) {
    case TA_NONE:
        return true;
    case TA_BOOL:
        return a->u.b == b->u.b;
    case TA_INT:
        return a->u.i == b->u.i;
    case TA_FLOAT: /* NaN is NaN here: a loop keeping one must not look changed */
        return a->u.f == b->u.f || (isnan(a->u.f) && isnan(b->u.f));
    case TA_STR:
    case TA_DEVICE:
    case TA_NS:
        return a->u.str.n == b->u.str.n && memcmp(a->u.str.s, b->u.str.s, a->u.str.n) == 0;
    case TA_TUPLE:
    case TA_LIST:
        if (a->u.seq.n != b->u.seq.n) {
            return false;
        }
        for (size_t i = 0; i < a->u.seq.n; i++) {
            if (!em_ts_same_value(a->u.seq.items[i], b->u.seq.items[i])) {
                return false;
            }
        }
        return true;
    case TA_TENSOR:
    case TA_SCALAR:
    case TA_STACK:
        return a->u.t.g == b->u.t.g && a->u.t.v == b->u.t.v;
    case TA_OBJECT:
        return a->u.obj == b->u.obj;
    case TA_FUNC:
        return a->u.fn.fn == b->u.fn.fn && a->u.fn.self == b->u.fn.self;
    case TA_CLASS:
        return strcmp(a->u.cls.qual, b->u.cls.qual) == 0;
    default:
        return false;
    }
}

/* ---- snapshots of mutable containers ---- */

/* Bounds of the walk: containers are few in forward() code; a hostile archive's huge constant
 * lists are not walked past these. */
#define SNAP_MAX_DEPTH 12
#define SNAP_MAX_RECS 4096

static bool snap_has(const ts_snap *s, const ts_av *c)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->r[i].c == c) {
            return true;
        }
    }
    return false;
}

static ts_av **dup_ptrs(ts_lower *L, ts_av *const *p, size_t n)
{
    ts_av **d = em_ts_arena_alloc(&L->arena, (n > 0 ? n : 1) * sizeof(ts_av *));
    if (d != NULL && n > 0) {
        memcpy(d, p, n * sizeof(ts_av *));
    }
    return d;
}

static ember_status *snap_walk(ts_lower *L, ts_snap *s, ts_av *v, int depth)
{
    if (v == NULL || depth > SNAP_MAX_DEPTH || s->n >= SNAP_MAX_RECS) {
        return NULL;
    }
    switch (v->k) {
    case TA_LIST:
    case TA_APPENDING:
    case TA_DICT: {
        if (snap_has(s, v)) {
            return NULL;
        }
        if (s->n == s->cap) {
            size_t cap = s->cap < 8 ? 16 : s->cap * 2;
            ts_snap_rec *r = em_ts_arena_alloc(&L->arena, cap * sizeof *r);
            if (r == NULL) {
                return em_status_oom();
            }
            if (s->n > 0) {
                memcpy(r, s->r, s->n * sizeof *r);
            }
            s->r = r;
            s->cap = cap;
        }
        ts_snap_rec *r = &s->r[s->n++];
        memset(r, 0, sizeof *r);
        r->c = v;
        r->k = v->k;
        if (v->k == TA_DICT) {
            r->n = v->u.dict.n;
            r->cap = v->u.dict.cap;
            r->items = v->u.dict.vals;
            r->keys = v->u.dict.keys;
            r->copy = dup_ptrs(L, v->u.dict.vals, r->n);
            r->key_copy = dup_ptrs(L, v->u.dict.keys, r->n);
            if (r->copy == NULL || r->key_copy == NULL) {
                return em_status_oom();
            }
            for (size_t i = 0; i < r->n; i++) {
                TS_TRY(snap_walk(L, s, v->u.dict.vals[i], depth + 1));
            }
            return NULL;
        }
        r->n = v->u.seq.n;
        r->cap = v->u.seq.cap;
        r->items = v->u.seq.items;
        r->copy = dup_ptrs(L, v->u.seq.items, r->n);
        if (r->copy == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < r->n; i++) {
            TS_TRY(snap_walk(L, s, v->u.seq.items[i], depth + 1));
        }
        return NULL;
    }
    case TA_TUPLE:
        for (size_t i = 0; i < v->u.seq.n; i++) {
            TS_TRY(snap_walk(L, s, v->u.seq.items[i], depth + 1));
        }
        return NULL;
    case TA_OBJECT: /* lists held by modules (their attributes read so far) */
        for (size_t i = 0; i < v->u.obj->n; i++) {
            TS_TRY(snap_walk(L, s, v->u.obj->vals[i], depth + 1));
        }
        return NULL;
    default:
        return NULL;
    }
}

ember_status *em_ts_snap_take(ts_lower *L, const ts_env *env, ts_snap *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < env->n; i++) {
        TS_TRY(snap_walk(L, s, env->vals[i], 0));
    }
    return NULL;
}

bool em_ts_snap_changed(const ts_snap *s, size_t i, bool *grown)
{
    const ts_snap_rec *r = &s->r[i];
    const ts_av *c = r->c;
    *grown = false;
    if (c->k != r->k) {
        return true;
    }
    if (c->k == TA_DICT) {
        return c->u.dict.n != r->n ||
               (r->n > 0 && (memcmp(c->u.dict.vals, r->copy, r->n * sizeof(ts_av *)) != 0 ||
                             memcmp(c->u.dict.keys, r->key_copy, r->n * sizeof(ts_av *)) != 0));
    }
    bool prefix = c->u.seq.n >= r->n &&
                  (r->n == 0 || memcmp(c->u.seq.items, r->copy, r->n * sizeof(ts_av *)) == 0);
    *grown = prefix && c->u.seq.n > r->n;
    return !prefix || c->u.seq.n != r->n;
}

void em_ts_snap_restore(const ts_snap *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const ts_snap_rec *r = &s->r[i];
        ts_av *c = r->c;
        c->k = r->k;
        if (r->k == TA_DICT) {
            c->u.dict.vals = r->items;
            c->u.dict.keys = r->keys;
            c->u.dict.n = r->n;
            c->u.dict.cap = r->cap;
            if (r->n > 0) {
                memcpy(r->items, r->copy, r->n * sizeof(ts_av *));
                memcpy(r->keys, r->key_copy, r->n * sizeof(ts_av *));
            }
            continue;
        }
        c->u.seq.items = r->items;
        c->u.seq.n = r->n;
        c->u.seq.cap = r->cap;
        if (r->n > 0) {
            memcpy(r->items, r->copy, r->n * sizeof(ts_av *));
        }
    }
}

static ts_av *memo_get(ts_lower *L, const void *key)
{
    for (size_t i = 0; i < L->n_memo; i++) {
        if (L->memo_keys[i] == key) {
            return L->memo_vals[i];
        }
    }
    return NULL;
}

static ember_status *memo_put(ts_lower *L, const void *key, ts_av *v)
{
    if (L->n_memo == L->cap_memo) {
        size_t c1 = L->cap_memo, c2 = L->cap_memo;
        void **nk = grow(L, (void **)L->memo_keys, L->n_memo, &c1);
        void **nv = grow(L, (void **)L->memo_vals, L->n_memo, &c2);
        if (nk == NULL || nv == NULL) {
            return em_status_oom();
        }
        L->memo_keys = (const void **)nk;
        L->memo_vals = (ts_av **)nv;
        L->cap_memo = c1;
    }
    L->memo_keys[L->n_memo] = key;
    L->memo_vals[L->n_memo++] = v;
    return NULL;
}

/* Class constant `name : Final[T] = literal` of the object's class. */
static ember_status *class_const(ts_lower *L, const ts_obj *o, const char *name, ts_av **out)
{
    *out = NULL;
    if (o->cls == NULL) {
        return NULL;
    }
    const em_ts_member *m = em_ts_class_attr(o->cls, name);
    if (m == NULL || m->kind != EM_TS_M_CONST || m->value == NULL) {
        return NULL;
    }
    ts_env empty = {0};
    return em_ts_eval(L, &empty, m->value, out);
}

ember_status *em_ts_obj_get(ts_lower *L, ts_av *obj, const char *name, em_ts_pos pos, ts_av **out)
{
    ts_obj *o = obj->u.obj;
    *out = NULL;
    for (size_t i = o->n; i-- > 0;) {
        if (strcmp(o->names[i], name) == 0) {
            *out = o->vals[i];
            return NULL;
        }
    }
    const em_tsv *sv = o->state != NULL ? em_tsv_dict_get(o->state, name) : NULL;
    if (sv != NULL) {
        const char *path = o->path[0] != '\0' ? em_ts_printf(L, "%s.%s", o->path, name)
                                                : em_ts_strdup(L, name);
        if (path == NULL) {
            return em_status_oom();
        }
        ember_status *st = em_ts_from_tsv(L, sv, path, out);
        if (st == NULL) {
            /* Later reads see the same abstract value (and writes replace it). */
            st = em_ts_obj_set(L, o, em_ts_strdup(L, name), *out);
        }
        return st;
    }
    ember_status *st = class_const(L, o, name, out);
    if (st != NULL || *out != NULL) {
        return st;
    }
    const em_ts_func *m = o->cls != NULL ? em_ts_class_method(o->cls, name) : NULL;
    if (m != NULL) {
        ts_av *f = em_ts_new(L, TA_FUNC);
        if (f == NULL) {
            return em_status_oom();
        }
        f->u.fn.fn = m;
        f->u.fn.self = obj;
        f->u.fn.qual = em_ts_printf(L, "%s.%s", o->qual, name);
        *out = f;
        return NULL;
    }
    return em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "object of class %s has no attribute '%s'",
                  o->qual, name);
}

/* ---- pickled values ---- */

/* Negates n elements of dtype dt in place (torch's negative bit): floating types flip their sign
 * bit, integers wrap as torch's neg() does; bool and unsigned types have no negative view. */
static ember_status *negate(ts_lower *L, const char *path, ember_dtype dt, void *p, int64_t n)
{
    unsigned char *b = p;
    size_t es = em_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        unsigned char *e = b + (size_t)i * es;
        switch (dt) {
        case EMBER_DTYPE_F16: case EMBER_DTYPE_BF16: case EMBER_DTYPE_F32: case EMBER_DTYPE_F64:
            e[es - 1] ^= 0x80; /* little-endian: the sign bit is in the last byte */
            break;
        case EMBER_DTYPE_I8: case EMBER_DTYPE_I16: case EMBER_DTYPE_I32: case EMBER_DTYPE_I64: {
            /* two's complement: invert, then add one with carry (wraps like torch's neg) */
            unsigned carry = 1;
            for (size_t k = 0; k < es; k++) {
                unsigned x = (unsigned)(unsigned char)~e[k] + carry;
                e[k] = (unsigned char)x;
                carry = x >> 8;
            }
            break;
        }
        default:
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s' of dtype %s has the "
                                 "negative bit set", L->what, path, ember_dtype_name(dt));
        }
    }
    return NULL;
}

/* A pickled tensor as an initializer of the root graph: mapped in place when contiguous and
 * suitably aligned, else gathered into a copy (also when torch's negative bit is set: the copy
 * holds the negated values). */
static ember_status *tensor_init(ts_lower *L, const em_tsv_tensor *t, const char *path, int *out)
{
    int64_t numel = 1;
    for (int d = 0; d < t->rank; d++) {
        numel *= t->sizes[d];
    }
    size_t es = em_dtype_size(t->dtype);
    const char *name = path;
    if (em_graph_find_value(L->root, name) >= 0) {
        name = em_ts_value_name(L, path);
    }
    if (name == NULL) {
        return em_status_oom();
    }
    if (t->qscheme != EM_TS_QSCHEME_NONE && t->qscheme != EM_TS_PER_TENSOR_AFFINE &&
        t->qscheme != EM_TS_PER_CHANNEL_AFFINE) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: quantized tensor '%s': only torch's "
                             "per-tensor and per-channel affine schemes are supported", L->what,
                             path);
    }
    size_t off = (size_t)t->offset * es;
    if (numel == 0 || t->storage == NULL) {
        return em_graph_add_initializer_copy(L->root, name, t->dtype, t->rank, t->sizes, NULL,
                                             out);
    }
    /* Mapped in place only when the bytes are aligned in memory, not just within the record:
     * archives from other zip writers need not align stored records as torch does. */
    uintptr_t addr = (uintptr_t)em_storage_data(t->storage) + off;
    if (!t->neg && em_tsv_tensor_contiguous(t) && addr % 16 == 0) {
        return em_graph_add_initializer(L->root, name, t->dtype, t->rank, t->sizes, t->storage,
                                        off, out);
    }
    /* Strided: gather element by element into a dense copy. */
    unsigned char *dense = em_malloc(L->al, (size_t)numel * es);
    if (dense == NULL) {
        return em_status_oom();
    }
    const unsigned char *src = em_storage_data(t->storage);
    int64_t idx[EMBER_MAX_RANK] = {0};
    for (int64_t e = 0; e < numel; e++) {
        int64_t so = t->offset;
        for (int d = 0; d < t->rank; d++) {
            so += idx[d] * t->strides[d];
        }
        memcpy(dense + (size_t)e * es, src + (size_t)so * es, es);
        for (int d = t->rank - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
    ember_status *st = t->neg ? negate(L, path, t->dtype, dense, numel) : NULL;
    if (st == NULL) {
        st = em_graph_add_initializer_copy(L->root, name, t->dtype, t->rank, t->sizes, dense, out);
    }
    em_free(L->al, dense);
    return st;
}

bool em_ts_number_at(ember_dtype dt, const void *p, double *v)
{
    switch (dt) {
    case EMBER_DTYPE_F64: { double x; memcpy(&x, p, 8); *v = x; return true; }
    case EMBER_DTYPE_F32: { float x; memcpy(&x, p, 4); *v = x; return true; }
    case EMBER_DTYPE_I64: { int64_t x; memcpy(&x, p, 8); *v = (double)x; return true; }
    case EMBER_DTYPE_I32: { int32_t x; memcpy(&x, p, 4); *v = x; return true; }
    case EMBER_DTYPE_I8: *v = *(const int8_t *)p; return true;
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL: *v = *(const uint8_t *)p; return true;
    default: return false;
    }
}

/* Element i of a 1-D tensor record as a double (NaN for other dtypes or out of its storage). */
static double tsv_elem(const em_tsv_tensor *t, int64_t i)
{
    int64_t at = t->offset + i * t->strides[0];
    size_t es = em_dtype_size(t->dtype);
    double v = NAN;
    if (t->storage == NULL || at < 0 || (uint64_t)(at + 1) * es > em_storage_size(t->storage)) {
        return NAN;
    }
    const unsigned char *p = (const unsigned char *)em_storage_data(t->storage) + (size_t)at * es;
    return em_ts_number_at(t->dtype, p, &v) ? v : NAN;
}

/* The scale and zero point of a pickled quantized tensor as root-graph constants: F32 scales,
 * zero points in the tensor's integer dtype. */
static ember_status *qparams_init(ts_lower *L, const em_tsv_tensor *t, const char *path,
                                  const ts_qinfo **out)
{
    ts_qinfo *q = em_ts_arena_alloc(&L->arena, sizeof *q);
    if (q == NULL) {
        return em_status_oom();
    }
    q->g = L->root;
    q->axis = t->qscheme == EM_TS_PER_CHANNEL_AFFINE ? (int)t->axis : -1;
    int64_t n = 1;
    if (q->axis >= 0) {
        n = t->sizes[q->axis];
        if (t->scales == NULL || t->zero_points == NULL ||
            t->scales->kind != EM_TSV_TENSOR || t->zero_points->kind != EM_TSV_TENSOR ||
            t->scales->u.t.rank != 1 || t->zero_points->u.t.rank != 1 ||
            t->scales->u.t.sizes[0] != n || t->zero_points->u.t.sizes[0] != n ||
            t->scales->u.t.storage == NULL || t->zero_points->u.t.storage == NULL) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: quantized tensor '%s': "
                                 "per-channel scales or zero points do not match axis %lld",
                                 L->what, path, (long long)t->axis);
        }
    }
    float *sc = em_ts_arena_alloc(&L->arena, sizeof *sc * (size_t)n);
    unsigned char *zp = em_ts_arena_alloc(&L->arena, (size_t)n);
    if (sc == NULL || zp == NULL) {
        return em_status_oom();
    }
    for (int64_t i = 0; i < n; i++) {
        double s = t->scale, z = (double)t->zero_point;
        if (q->axis >= 0) {
            s = tsv_elem(&t->scales->u.t, i);
            z = tsv_elem(&t->zero_points->u.t, i);
        }
        double lo = t->dtype == EMBER_DTYPE_I8 ? -128 : 0, hi = t->dtype == EMBER_DTYPE_I8 ? 127 : 255;
        if (!(s > 0) || !isfinite(s) || z < lo || z > hi || z != floor(z)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: quantized tensor '%s': scale "
                                 "%g / zero point %g out of range", L->what, path, s, z);
        }
        sc[i] = (float)s;
        if (t->dtype == EMBER_DTYPE_I8) {
            ((int8_t *)zp)[i] = (int8_t)z;
        } else {
            zp[i] = (unsigned char)z;
        }
    }
    if (t->dtype != EMBER_DTYPE_I8 && t->dtype != EMBER_DTYPE_U8) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: quantized tensor '%s' of %s (qint8 and "
                             "quint8 are supported)", L->what, path, ember_dtype_name(t->dtype));
    }
    em_graph *g = L->g;
    L->g = L->root;
    int64_t dims[1] = {n};
    ember_status *st = em_ts_const(L, EMBER_DTYPE_F32, q->axis >= 0 ? 1 : 0, dims, sc, &q->scale);
    if (st == NULL) {
        st = em_ts_const(L, t->dtype, q->axis >= 0 ? 1 : 0, dims, zp, &q->zero_point);
    }
    L->g = g;
    *out = q;
    return st;
}

/* The item of a CellParamsBase state that is a list of n things of kind k (n < 0: any count). */
static bool seq_of(const ts_av *a, int n, ts_ak k)
{
    if (a->k != TA_LIST && a->k != TA_TUPLE) {
        return false;
    }
    if (n >= 0 && a->u.seq.n != (size_t)n) {
        return false;
    }
    for (size_t i = 0; i < a->u.seq.n; i++) {
        if (a->u.seq.items[i]->k != k) {
            return false;
        }
    }
    return true;
}

/* CellParamsBase's pickled state (torch's CellParamsSerializationType: type, tensors, doubles,
 * longs, packed params) as ((w_ih, b_ih), (w_hh, b_hh), reduce_range). */
static ember_status *cell_params(ts_lower *L, const ts_av *st, const char *path, ts_av **out)
{
    ts_av *const *it = st->k == TA_TUPLE && st->u.seq.n == 5 ? st->u.seq.items : NULL;
    if (it == NULL || it[0]->k != TA_STR) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s': CellParamsBase state is not "
                             "(type, tensors, doubles, longs, packed params)", L->what, path);
    }
    if (strcmp(it[0]->u.str.s, "quantized_dynamic") != 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: '%s': CellParamsBase of type '%s' "
                             "(quantized_dynamic, torch's dynamic int8 RNN cell, is supported)",
                             L->what, path, it[0]->u.str.s);
    }
    if (!seq_of(it[3], 1, TA_INT) || !seq_of(it[4], 2, TA_TUPLE) ||
        it[4]->u.seq.items[0]->u.seq.n != 2 || it[4]->u.seq.items[1]->u.seq.n != 2) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s': quantized_dynamic cell params "
                             "without [reduce_range] and two packed linear weights", L->what,
                             path);
    }
    *out = em_ts_seq(L, TA_TUPLE, 3);
    if (*out == NULL) {
        return em_status_oom();
    }
    (*out)->u.seq.items[0] = it[4]->u.seq.items[0];
    (*out)->u.seq.items[1] = it[4]->u.seq.items[1];
    (*out)->u.seq.items[2] = it[3]->u.seq.items[0];
    return NULL;
}

/* The 1-D int16 / int64 constant tensor a, n values into cfg; false when it is not one. */
static bool int_tensor(const ts_av *a, int64_t *cfg, int64_t n)
{
    const em_value *v = a->k == TA_TENSOR && a->u.t.q == NULL ? &a->u.t.g->values[a->u.t.v] : NULL;
    if (v == NULL || v->kind != EM_VAL_INITIALIZER || v->init.data == NULL || v->rank != 1 ||
        v->dims[0].v != n || (v->dtype != EMBER_DTYPE_I16 && v->dtype != EMBER_DTYPE_I64)) {
        return false;
    }
    for (int64_t i = 0; i < n; i++) {
        if (v->dtype == EMBER_DTYPE_I16) {
            int16_t x;
            memcpy(&x, (const unsigned char *)v->init.data + 2 * i, 2);
            cfg[i] = x;
        } else {
            memcpy(&cfg[i], (const unsigned char *)v->init.data + 8 * i, 8);
        }
    }
    return true;
}

/* Conv2dPackedParamsBase's pickled state (torch's conv_serialization.h), version 2: ("2",
 * [params, weight], [bias]) with params an int16 tensor, or version 3: (3, config, [weight,
 * bias]) with config an int list; params / config are [spatial dims, stride x2, padding x2,
 * dilation x2, output_padding x2, groups, transpose (v3: flags, bit 0)]. Becomes the tuple
 * quantized::conv2d_prepack gives (ts_ops_quant.c): (weight, bias, stride, padding, dilation,
 * groups). */
static ember_status *conv_packed(ts_lower *L, const ts_av *st, const char *path, ts_av **out)
{
    enum { NCFG = 11 };
    int64_t cfg[NCFG];
    ts_av *const *it = st->k == TA_TUPLE && st->u.seq.n == 3 ? st->u.seq.items : NULL;
    const ts_av *w = NULL, *b = NULL;
    int version = 0;
    if (it != NULL && it[0]->k == TA_STR) {
        version = strcmp(it[0]->u.str.s, "2") == 0 ? 2 : -1;
    } else if (it != NULL && it[0]->k == TA_INT) {
        version = it[0]->u.i == 3 ? 3 : -1;
    }
    if (version < 0 && it[0]->k == TA_STR) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: '%s': Conv2dPackedParamsBase state of "
                             "version '%s' (2 and 3 are supported)", L->what, path,
                             it[0]->u.str.s);
    }
    if (version < 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: '%s': Conv2dPackedParamsBase state of "
                             "version %lld (2 and 3 are supported)", L->what, path,
                             (long long)it[0]->u.i);
    }
    if (version == 2 && seq_of(it[1], 2, TA_TENSOR) && (it[2]->k == TA_LIST) &&
        it[2]->u.seq.n == 1 && int_tensor(it[1]->u.seq.items[0], cfg, NCFG)) {
        w = it[1]->u.seq.items[1];
        b = it[2]->u.seq.items[0];
    } else if (version == 3 && seq_of(it[1], NCFG, TA_INT) && it[2]->k == TA_LIST &&
               it[2]->u.seq.n == 2) {
        for (int i = 0; i < NCFG; i++) {
            cfg[i] = it[1]->u.seq.items[i]->u.i;
        }
        w = it[2]->u.seq.items[0];
        b = it[2]->u.seq.items[1];
    } else {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s': Conv2dPackedParamsBase state "
                             "(version %d) is not %s", L->what, path, version,
                             version == 2   ? "(\"2\", [params int16[11], weight], [bias])"
                             : version == 3 ? "(3, config int[11], [weight, bias])"
                                            : "a (version, ..., ...) tuple");
    }
    if (cfg[0] != 2 || (cfg[NCFG - 1] & 1) != 0 || cfg[9] < 1) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: '%s': packed conv of %lld spatial dims%s "
                             "(2-d convolutions are supported)", L->what, path,
                             (long long)cfg[0], (cfg[NCFG - 1] & 1) != 0 ? ", transposed" : "");
    }
    if (w->k != TA_TENSOR || w->u.t.q == NULL || (b->k != TA_NONE && b->k != TA_TENSOR)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s': packed conv weights are not a "
                             "quantized weight and an optional bias", L->what, path);
    }
    ts_av *t = em_ts_seq(L, TA_TUPLE, 6);
    if (t == NULL) {
        return em_status_oom();
    }
    t->u.seq.items[0] = (ts_av *)w;
    t->u.seq.items[1] = (ts_av *)b;
    for (int k = 0; k < 3; k++) { /* stride, padding, dilation */
        ts_av *l = em_ts_seq(L, TA_LIST, 2);
        if (l == NULL || (l->u.seq.items[0] = em_ts_int(L, cfg[1 + 2 * k])) == NULL ||
            (l->u.seq.items[1] = em_ts_int(L, cfg[2 + 2 * k])) == NULL) {
            return em_status_oom();
        }
        t->u.seq.items[2 + k] = l;
    }
    if ((t->u.seq.items[5] = em_ts_int(L, cfg[9])) == NULL) {
        return em_status_oom();
    }
    *out = t;
    return NULL;
}

ember_status *em_ts_from_tsv(ts_lower *L, const em_tsv *v, const char *path, ts_av **out)
{
    ember_status *st = NULL;
    *out = memo_get(L, v);
    if (*out != NULL) {
        return NULL;
    }
    ts_av *a = NULL;
    switch (v->kind) {
    case EM_TSV_NONE:
        a = em_ts_none(L);
        break;
    case EM_TSV_BOOL:
        a = em_ts_bool(L, v->u.b);
        break;
    case EM_TSV_INT:
        a = em_ts_int(L, v->u.i);
        break;
    case EM_TSV_FLOAT:
        a = em_ts_float(L, v->u.f);
        break;
    case EM_TSV_STR:
        a = em_ts_str(L, v->u.str.s, v->u.str.n);
        break;
    case EM_TSV_DEVICE:
        a = em_ts_str(L, v->u.str.s, v->u.str.n);
        if (a != NULL) {
            a->k = TA_DEVICE;
        }
        break;
    case EM_TSV_TUPLE:
    case EM_TSV_LIST:
        a = em_ts_seq(L, v->kind == EM_TSV_TUPLE ? TA_TUPLE : TA_LIST, v->u.seq.n);
        if (a == NULL) {
            break;
        }
        for (size_t i = 0; i < v->u.seq.n; i++) {
            const char *p = em_ts_printf(L, "%s.%zu", path, i);
            if (p == NULL) {
                return em_status_oom();
            }
            EMBER_TRY(em_ts_from_tsv(L, v->u.seq.items[i], p, &a->u.seq.items[i]));
        }
        break;
    case EM_TSV_DICT:
        a = em_ts_new(L, TA_DICT);
        if (a == NULL) {
            break;
        }
        for (size_t i = 0; i < v->u.dict.n; i++) {
            ts_av *k = NULL, *val = NULL;
            EMBER_TRY(em_ts_from_tsv(L, v->u.dict.keys[i], path, &k));
            const char *p = k->k == TA_STR ? em_ts_printf(L, "%s.%s", path, k->u.str.s)
                                           : em_ts_printf(L, "%s.%zu", path, i);
            if (p == NULL) {
                return em_status_oom();
            }
            EMBER_TRY(em_ts_from_tsv(L, v->u.dict.values[i], p, &val));
            if (a->u.dict.n == a->u.dict.cap) {
                size_t c1 = a->u.dict.cap, c2 = a->u.dict.cap;
                void **nk = grow(L, (void **)a->u.dict.keys, a->u.dict.n, &c1);
                void **nv = grow(L, (void **)a->u.dict.vals, a->u.dict.n, &c2);
                if (nk == NULL || nv == NULL) {
                    return em_status_oom();
                }
                a->u.dict.keys = (ts_av **)nk;
                a->u.dict.vals = (ts_av **)nv;
                a->u.dict.cap = c1;
            }
            a->u.dict.keys[a->u.dict.n] = k;
            a->u.dict.vals[a->u.dict.n++] = val;
        }
        break;
    case EM_TSV_TENSOR: {
        int vi = -1;
        EMBER_TRY(tensor_init(L, &v->u.t, path, &vi));
        a = em_ts_tensor(L, vi);
        if (a != NULL) {
            a->u.t.g = L->root;
        }
        if (a != NULL && v->u.t.qscheme != EM_TS_QSCHEME_NONE) {
            EMBER_TRY(qparams_init(L, &v->u.t, path, &a->u.t.q));
        }
        break;
    }
    case EM_TSV_OBJECT: {
        ts_av *cls = NULL;
        a = em_ts_new(L, TA_OBJECT);
        ts_obj *o = em_ts_arena_alloc(&L->arena, sizeof *o);
        if (a == NULL || o == NULL) {
            return em_status_oom();
        }
        em_ts_pos nopos = {0};
        EMBER_TRY(em_ts_resolve(L, v->u.obj.cls, nopos, &cls));
        if (cls == NULL) { /* no code/ record defines it */
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: pickled object of class '%s', "
                                 "which no code/ record of the archive defines", L->what,
                                 v->u.obj.cls);
        }
        if (cls->k != TA_CLASS) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: pickled object of '%s', which is "
                                 "not a class", L->what, v->u.obj.cls);
        }
        bool setstate = v->u.obj.state != NULL && v->u.obj.state->kind != EM_TSV_DICT;
        const em_ts_func *set = setstate && cls->u.cls.cls != NULL
                                    ? em_ts_class_method(cls->u.cls.cls, "__setstate__") : NULL;
        if (setstate && cls->u.cls.cls == NULL &&
            strcmp(v->u.obj.cls, "__torch__.torch.classes.quantized.LinearPackedParamsBase") ==
                0) {
            /* fbgemm/qnnpack linear weights: the state is (weight, bias), which is what the
             * quantized lowering takes as packed weights (ts_ops_quant.c) */
            EMBER_TRY(em_ts_from_tsv(L, v->u.obj.state, path, &a));
            if (a->k != TA_TUPLE || a->u.seq.n != 2) {
                return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s': packed linear weights "
                                     "are not a (weight, bias) pair", L->what, path);
            }
            break;
        }
        if (setstate && cls->u.cls.cls == NULL &&
            strcmp(v->u.obj.cls, "__torch__.torch.classes.quantized.Conv2dPackedParamsBase") ==
                0) {
            ts_av *cstate = NULL;
            EMBER_TRY(em_ts_from_tsv(L, v->u.obj.state, path, &cstate));
            EMBER_TRY(conv_packed(L, cstate, path, &a));
            break;
        }
        if (setstate && cls->u.cls.cls == NULL &&
            strcmp(v->u.obj.cls, "__torch__.torch.classes.rnn.CellParamsBase") == 0) {
            /* a dynamically quantized RNN's cell: ("quantized_dynamic", [b_ih, b_hh], [],
             * [reduce_range], [packed w_ih, packed w_hh]) becomes ((w_ih, b_ih), (w_hh, b_hh),
             * reduce_range), what aten::quantized_lstm / quantized_gru take (ts_ops_rnn.c) */
            ts_av *cstate = NULL;
            EMBER_TRY(em_ts_from_tsv(L, v->u.obj.state, path, &cstate));
            EMBER_TRY(cell_params(L, cstate, path, &a));
            break;
        }
        if (setstate && set == NULL) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: object '%s' of class %s is saved "
                                 "with __getstate__ and its class has no __setstate__ code",
                                 L->what, path, v->u.obj.cls);
        }
        o->qual = cls->u.cls.qual;
        o->cls = cls->u.cls.cls;
        o->state = setstate ? NULL : v->u.obj.state;
        o->path = path;
        a->u.obj = o;
        if (setstate) {
            /* Rebuilt as torch does: the class's own __setstate__ runs on the saved state (the
             * quantized modules pack their weights there). */
            ts_av *state = NULL, *f = NULL, *none = NULL;
            EMBER_TRY(memo_put(L, v, a));
            EMBER_TRY(em_ts_from_tsv(L, v->u.obj.state, path, &state));
            if ((f = em_ts_new(L, TA_FUNC)) == NULL) {
                return em_status_oom();
            }
            f->u.fn.fn = set;
            f->u.fn.self = a;
            f->u.fn.qual = em_ts_printf(L, "%s.__setstate__", o->qual);
            EMBER_TRY(em_ts_call_func(L, f, &state, 1, NULL, NULL, 0, nopos, &none));
            *out = a;
            return NULL;
        }
        break;
    }
    default:
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: attribute '%s' is a pickled %s, which "
                             "ember does not take", L->what, path, em_tsv_kind_name(v->kind));
    }
    if (a == NULL) {
        return em_status_oom();
    }
    EMBER_TRY(memo_put(L, v, a));
    *out = a;
    return NULL;
fail:
    return st;
}
