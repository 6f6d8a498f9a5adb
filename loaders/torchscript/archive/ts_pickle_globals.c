/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the pickle machine's GLOBALs do (torch/csrc/jit/serialization/unpickler.cpp,
 * readGlobal and rebuildTensor; torch/_utils.py for the Python twins):
 *   BINPERSID ("storage", torch.<T>Storage, key, location, numel) -> the whole storage as a
 *     1-D tensor (as torch's unpickler makes it), its record loaded once per key;
 *   REDUCE of _rebuild_tensor_v2 / _rebuild_qtensor -> a strided view of such a storage;
 *   REDUCE of torch.jit._pickle.* (typed lists, restore_type_tag), torch.device,
 *   collections.OrderedDict, torch._utils._rebuild_parameter (the tensor itself);
 *   NEWOBJ + BUILD of a __torch__ class -> an object.
 * A view's extent is checked against its storage: offset + sum((size_i - 1) * stride_i) <
 * numel, in int64 with every step overflow-checked; a view with no elements needs only
 * offset <= numel.
 */
#include "ts_pickle_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

/* torch.<Name>Storage: ScalarType names (c10/core/ScalarType.h) that ember has a dtype for. */
static const struct {
    const char *name;
    ember_dtype dt;
    bool quantized;
} storage_types[] = {
    {"Float", EMBER_DTYPE_F32, false},       {"Double", EMBER_DTYPE_F64, false},
    {"Half", EMBER_DTYPE_F16, false},        {"BFloat16", EMBER_DTYPE_BF16, false},
    {"Long", EMBER_DTYPE_I64, false},        {"Int", EMBER_DTYPE_I32, false},
    {"Short", EMBER_DTYPE_I16, false},       {"Char", EMBER_DTYPE_I8, false},
    {"Byte", EMBER_DTYPE_U8, false},         {"Bool", EMBER_DTYPE_BOOL, false},
    {"UInt16", EMBER_DTYPE_U16, false},      {"UInt32", EMBER_DTYPE_U32, false},
    {"UInt64", EMBER_DTYPE_U64, false},      {"Float8_e5m2", EMBER_DTYPE_F8E5M2, false},
    {"Float8_e4m3fn", EMBER_DTYPE_F8E4M3FN, false},
    {"Float8_e5m2fnuz", EMBER_DTYPE_F8E5M2FNUZ, false},
    {"Float8_e4m3fnuz", EMBER_DTYPE_F8E4M3FNUZ, false},
    {"Float8_e8m0fnu", EMBER_DTYPE_F8E8M0, false},
    {"QInt8", EMBER_DTYPE_I8, true},         {"QUInt8", EMBER_DTYPE_U8, true},
    {"QInt32", EMBER_DTYPE_I32, true},
};

static bool is_global(const em_tsv *v, const char *name)
{
    return v->kind == EM_TSV_GLOBAL && strcmp(v->u.str.s, name) == 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The tuple `args` with exactly n or n2 items; else INVALID_MODEL. */
static ember_status *want_args(tsp *p, const em_tsv *args, const char *fn, size_t n, size_t n2)
{
    if (args->kind != EM_TSV_TUPLE || (args->u.seq.n != n && args->u.seq.n != n2)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s takes %zu arguments, given %s %zu",
                            fn, n, em_tsv_kind_name(args->kind),
                            args->kind == EM_TSV_TUPLE ? args->u.seq.n : 0);
    }
    return NULL;
}

static ember_status *want_kind(tsp *p, const em_tsv *v, em_tsv_kind kind, const char *what)
{
    if (v->kind != kind) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s is a %s, not a %s", what,
                            em_tsv_kind_name(v->kind), em_tsv_kind_name(kind));
    }
    return NULL;
}

/* ---- storages ---------------------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s != '\0'; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    }
    return h;
}

static tsp_slot *slot_find(tsp *p, const char *key)
{
    if (p->slots_cap == 0) {
        return NULL;
    }
    for (size_t i = hash_str(key) & (p->slots_cap - 1);; i = (i + 1) & (p->slots_cap - 1)) {
        if (p->slots[i].key == NULL || strcmp(p->slots[i].key, key) == 0) {
            return &p->slots[i];
        }
    }
}

static ember_status *slot_add(tsp *p, const char *key, em_tsv *storage)
{
    if (2 * (p->n_slots + 1) > p->slots_cap) {
        size_t cap = p->slots_cap > 0 ? 2 * p->slots_cap : 16;
        tsp_slot *old = p->slots;
        size_t old_cap = p->slots_cap;
        p->slots = em_calloc(p->al, cap, sizeof *p->slots);
        if (p->slots == NULL) {
            p->slots = old;
            return em_status_oom();
        }
        p->slots_cap = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].key != NULL) {
                *slot_find(p, old[i].key) = old[i];
            }
        }
        em_free(p->al, old);
    }
    tsp_slot *s = slot_find(p, key);
    s->key = key;
    s->storage = storage;
    p->n_slots++;
    return NULL;
}

void em_tsp_slots_free(tsp *p)
{
    em_free(p->al, p->slots);
    p->slots = NULL;
    p->slots_cap = p->n_slots = 0;
}

static bool key_ok(const em_tsv *k)
{
    if (k->u.str.n == 0 || strlen(k->u.str.s) != k->u.str.n || strcmp(k->u.str.s, ".") == 0 ||
        strcmp(k->u.str.s, "..") == 0) {
        return false;
    }
    for (const char *s = k->u.str.s; *s != '\0'; s++) {
        if (*s == '/' || *s == '\\' || (unsigned char)*s < 0x20) {
            return false;
        }
    }
    return true;
}

/* The storage type of a persistent id: its dtype and whether it is quantized. */
static ember_status *storage_type(tsp *p, const em_tsv *g, ember_dtype *dt, bool *quantized)
{
    const char *name = g->kind == EM_TSV_GLOBAL ? g->u.str.s : "";
    size_t n = strlen(name);
    if (!has_prefix(name, "torch.") || n < 13 || strcmp(name + n - 7, "Storage") != 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "persistent id without a torch.<T>Storage type");
    }
    for (size_t i = 0; i < sizeof storage_types / sizeof storage_types[0]; i++) {
        size_t k = strlen(storage_types[i].name);
        if (k == n - 13 && memcmp(name + 6, storage_types[i].name, k) == 0) {
            *dt = storage_types[i].dt;
            *quantized = storage_types[i].quantized;
            return NULL;
        }
    }
    return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "storage type %s is not read by ember", name);
}

/* Loads record <key> through the callback and checks its size. */
static ember_status *load_record(tsp *p, const char *key, size_t nbytes, em_storage **out)
{
    ember_status *st = NULL;
    em_storage *s = NULL;
    if (p->records == NULL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "a tensor (storage %s) where none is expected", key);
    }
    EMBER_TRY(p->records(p->ctx, key, &s));
    if (s == NULL || em_storage_size(s) != nbytes) {
        st = em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                          "storage %s: the record holds %zu bytes, the storage needs %zu", key,
                          s != NULL ? em_storage_size(s) : 0, nbytes);
        goto fail;
    }
    EMBER_TRY(em_ts_arena_hold(p->ar, s));
fail:
    em_storage_release(s);
    *out = st == NULL ? s : NULL;
    return st;
}

ember_status *em_tsp_persid(tsp *p, const em_tsv *pid, em_tsv **out)
{
    ember_status *st = NULL;
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    bool quantized = false;
    size_t nbytes;
    EMBER_TRY(want_args(p, pid, "a persistent id", 5, 5));
    em_tsv *const *f = pid->u.seq.items;
    if (f[0]->kind != EM_TSV_STR || strcmp(f[0]->u.str.s, "storage") != 0 ||
        f[2]->kind != EM_TSV_STR || f[3]->kind != EM_TSV_STR || f[4]->kind != EM_TSV_INT ||
        !key_ok(f[2])) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "persistent id is not (\"storage\", type, key, location, numel)");
    }
    EMBER_TRY(storage_type(p, f[1], &dt, &quantized));
    const char *key = f[2]->u.str.s;
    int64_t numel = f[4]->u.i;
    if (numel < 0 || !em_size_mul((size_t)numel, em_dtype_size(dt), &nbytes)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "storage %s: %lld elements", key,
                            (long long)numel);
    }
    tsp_slot *slot = slot_find(p, key);
    if (slot != NULL && slot->key != NULL) {
        const em_tsv *s = slot->storage;
        bool q = (tsv_node_of(s)->flags & TSV_QSTORAGE) != 0;
        if (s->u.t.dtype != dt || q != quantized || s->u.t.storage_numel != numel) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                                "storage %s read twice with different types or sizes", key);
        }
        *out = slot->storage;
        return NULL;
    }
    em_tsv *v = em_tsp_new(p, EM_TSV_TENSOR);
    if (v == NULL) {
        return em_status_oom();
    }
    em_tsv_tensor *t = &v->u.t;
    *t = (em_tsv_tensor){.dtype = dt, .key = key, .location = f[3]->u.str.s,
                         .storage_numel = numel, .rank = 1, .sizes = {numel}, .strides = {1}};
    if (numel > 0) {
        EMBER_TRY(load_record(p, key, nbytes, &t->storage));
    }
    tsv_node_of(v)->flags = TSV_STORAGE | (quantized ? TSV_QSTORAGE : 0);
    EMBER_TRY(slot_add(p, key, v));
    *out = v;
    return NULL;
fail:
    return st;
}

/* ---- tensors ----------------------------------------------------------------------------- */

/* ints of a tuple (or list) into out[0..*n); false when not all ints or more than cap. */
static bool int_seq(const em_tsv *v, int64_t *out, int *n, int cap)
{
    if ((v->kind != EM_TSV_TUPLE && v->kind != EM_TSV_LIST) || v->u.seq.n > (size_t)cap) {
        return false;
    }
    for (size_t i = 0; i < v->u.seq.n; i++) {
        if (v->u.seq.items[i]->kind != EM_TSV_INT) {
            return false;
        }
        out[i] = v->u.seq.items[i]->u.i;
    }
    *n = (int)v->u.seq.n;
    return true;
}

/* offset + sum((size_i - 1) * stride_i) < numel (or offset <= numel when a size is 0);
 * sizes, strides and offset are already known to be >= 0. */
static bool view_fits(const em_tsv_tensor *t)
{
    for (int i = 0; i < t->rank; i++) {
        if (t->sizes[i] == 0) {
            return t->offset <= t->storage_numel;
        }
    }
    int64_t last = t->offset;
    for (int i = 0; i < t->rank; i++) {
        int64_t span = t->sizes[i] - 1;
        if (span > 0 && t->strides[i] > (INT64_MAX - last) / span) {
            return false;
        }
        last += span * t->strides[i];
    }
    return last < t->storage_numel;
}

/* Fills *t from (storage, offset, size, stride) = a[0..3], checking the view. */
static ember_status *make_view(tsp *p, em_tsv *const *a, bool quantized, em_tsv_tensor *t)
{
    const em_tsv *s = a[0];
    if (s->kind != EM_TSV_TENSOR || (tsv_node_of(s)->flags & TSV_STORAGE) == 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "tensor without a storage");
    }
    if (((tsv_node_of(s)->flags & TSV_QSTORAGE) != 0) != quantized) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s storage for a %s tensor",
                            quantized ? "plain" : "quantized", quantized ? "quantized" : "plain");
    }
    *t = s->u.t;
    t->rank = 0;
    int ns = 0, nt = 0;
    if (a[1]->kind != EM_TSV_INT || !int_seq(a[2], t->sizes, &ns, EMBER_MAX_RANK) ||
        !int_seq(a[3], t->strides, &nt, EMBER_MAX_RANK) || ns != nt) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "tensor view of storage %s: offset, sizes or strides malformed, "
                            "of unequal ranks or above rank 8", s->u.t.key);
    }
    t->rank = ns;
    t->offset = a[1]->u.i;
    bool neg = t->offset < 0;
    for (int i = 0; i < t->rank; i++) {
        neg = neg || t->sizes[i] < 0 || t->strides[i] < 0;
    }
    if (neg || !view_fits(t)) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "tensor view of storage %s (%lld elements) is negative or reaches "
                            "past it", s->u.t.key, (long long)t->storage_numel);
    }
    return NULL;
}

/* The 7th field of _rebuild_tensor_v2: torch's math bits {"neg": True, "conj": True}. */
static ember_status *math_bits(tsp *p, const em_tsv *d, em_tsv_tensor *t)
{
    if (d->kind == EM_TSV_NONE) {
        return NULL;
    }
    if (d->kind != EM_TSV_DICT) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "tensor metadata is a %s",
                            em_tsv_kind_name(d->kind));
    }
    for (size_t i = 0; i < d->u.dict.n; i++) {
        const em_tsv *k = d->u.dict.keys[i], *v = d->u.dict.values[i];
        if (k->kind != EM_TSV_STR || v->kind != EM_TSV_BOOL) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "tensor metadata is not str: bool");
        }
        if (strcmp(k->u.str.s, "neg") == 0) {
            t->neg = v->u.b;
        } else if (v->u.b) {
            return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "tensor flag '%s'", k->u.str.s);
        }
    }
    return NULL;
}

/* ---- quantized tensors ------------------------------------------------------------------- */

static const struct {
    const char *name;
    em_ts_qscheme qs;
} qschemes[] = {
    {"torch.per_tensor_affine", EM_TS_PER_TENSOR_AFFINE},
    {"torch.per_channel_affine", EM_TS_PER_CHANNEL_AFFINE},
    {"torch.per_tensor_symmetric", EM_TS_PER_TENSOR_SYMMETRIC},
    {"torch.per_channel_symmetric", EM_TS_PER_CHANNEL_SYMMETRIC},
    {"torch.per_channel_affine_float_qparams", EM_TS_PER_CHANNEL_AFFINE_FLOAT_QPARAMS},
};

/* A per-channel scales or zero-points tensor: plain, 1-D, `n` long, of an allowed dtype. */
static ember_status *channel_params(tsp *p, const em_tsv *v, int64_t n, bool scales)
{
    const char *what = scales ? "scales" : "zero_points";
    if (v->kind != EM_TSV_TENSOR || v->u.t.qscheme != EM_TS_QSCHEME_NONE ||
        (tsv_node_of(v)->flags & TSV_STORAGE) != 0 || v->u.t.rank != 1 || v->u.t.sizes[0] != n) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                            "per-channel %s are not a 1-D tensor of %lld elements", what,
                            (long long)n);
    }
    ember_dtype dt = v->u.t.dtype;
    bool ok = dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F32 ||
              (!scales && (dt == EMBER_DTYPE_I64 || dt == EMBER_DTYPE_I32));
    if (!ok) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "per-channel %s of dtype %s", what,
                            em_dtype_name(dt));
    }
    return NULL;
}

/* (qscheme, scale, zero_point) or (qscheme, scales, zero_points, axis) into *t. */
static ember_status *qparams(tsp *p, const em_tsv *q, em_tsv_tensor *t)
{
    ember_status *st = NULL;
    if (q->kind != EM_TSV_TUPLE || q->u.seq.n < 3 || q->u.seq.items[0]->kind != EM_TSV_GLOBAL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "quantizer parameters malformed");
    }
    em_tsv *const *a = q->u.seq.items;
    for (size_t i = 0; i < sizeof qschemes / sizeof qschemes[0]; i++) {
        if (strcmp(a[0]->u.str.s, qschemes[i].name) == 0) {
            t->qscheme = qschemes[i].qs;
        }
    }
    if (t->qscheme == EM_TS_PER_TENSOR_AFFINE) {
        EMBER_TRY(want_args(p, q, "per-tensor quantizer", 3, 3));
        /* the values' ranges are checked where the tensor is used (ts_value.c's qparams_init,
         * whose message names the module attribute), as the per-channel ones are */
        if (a[1]->kind != EM_TSV_FLOAT || a[2]->kind != EM_TSV_INT) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL,
                                "per-tensor scale not a float or zero point not int");
        }
        t->scale = a[1]->u.f;
        t->zero_point = a[2]->u.i;
        return NULL;
    }
    if (t->qscheme != EM_TS_PER_CHANNEL_AFFINE &&
        t->qscheme != EM_TS_PER_CHANNEL_AFFINE_FLOAT_QPARAMS) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "quantization scheme %s", a[0]->u.str.s);
    }
    EMBER_TRY(want_args(p, q, "per-channel quantizer", 4, 4));
    if (a[3]->kind != EM_TSV_INT || a[3]->u.i < 0 || a[3]->u.i >= t->rank) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "per-channel axis outside rank %d",
                            t->rank);
    }
    t->axis = a[3]->u.i;
    EMBER_TRY(channel_params(p, a[1], t->sizes[t->axis], true));
    EMBER_TRY(channel_params(p, a[2], t->sizes[t->axis], false));
    t->scales = a[1];
    t->zero_points = a[2];
    return NULL;
fail:
    return st;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, math bits]) or
 * _rebuild_qtensor(storage, offset, size, stride, qparams, requires_grad, hooks). */
static ember_status *rebuild(tsp *p, const em_tsv *args, bool quantized, em_tsv **out)
{
    ember_status *st = NULL;
    EMBER_TRY(want_args(p, args, quantized ? "_rebuild_qtensor" : "_rebuild_tensor_v2",
                        quantized ? 7 : 6, 7));
    em_tsv *const *a = args->u.seq.items;
    em_tsv *v = em_tsp_new(p, EM_TSV_TENSOR);
    if (v == NULL) {
        return em_status_oom();
    }
    EMBER_TRY(make_view(p, a, quantized, &v->u.t));
    const em_tsv *grad = a[quantized ? 5 : 4];
    EMBER_TRY(want_kind(p, grad, EM_TSV_BOOL, "requires_grad"));
    v->u.t.requires_grad = grad->u.b;
    if (quantized) {
        EMBER_TRY(qparams(p, a[4], &v->u.t));
    } else if (args->u.seq.n == 7) {
        EMBER_TRY(math_bits(p, a[6], &v->u.t));
    }
    *out = v;
    return NULL;
fail:
    return st;
}

/* ---- typed lists, type tags, devices ----------------------------------------------------- */

static const struct {
    const char *fn;
    em_tsv_kind item;
    const char *tag;
} typed_lists[] = {
    {"torch.jit._pickle.build_intlist", EM_TSV_INT, "List[int]"},
    {"torch.jit._pickle.build_doublelist", EM_TSV_FLOAT, "List[float]"},
    {"torch.jit._pickle.build_boollist", EM_TSV_BOOL, "List[bool]"},
    {"torch.jit._pickle.build_tensorlist", EM_TSV_TENSOR, "List[Tensor]"},
};

static ember_status *typed_list(tsp *p, size_t which, const em_tsv *args, em_tsv **out)
{
    ember_status *st = want_args(p, args, typed_lists[which].fn, 1, 1);
    if (st != NULL) {
        return st;
    }
    em_tsv *list = args->u.seq.items[0];
    EMBER_TRY(want_kind(p, list, EM_TSV_LIST, "the typed list"));
    for (size_t i = 0; i < list->u.seq.n; i++) {
        if (list->u.seq.items[i]->kind != typed_lists[which].item) {
            return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "%s item %zu is a %s",
                                typed_lists[which].tag, i,
                                em_tsv_kind_name(list->u.seq.items[i]->kind));
        }
    }
    if (list->u.seq.type_tag == NULL) {
        list->u.seq.type_tag = typed_lists[which].tag;
    }
    *out = list;
    return NULL;
fail:
    return st;
}

static ember_status *restore_type_tag(tsp *p, const em_tsv *args, em_tsv **out)
{
    ember_status *st = NULL;
    EMBER_TRY(want_args(p, args, "restore_type_tag", 2, 2));
    em_tsv *v = args->u.seq.items[0];
    const em_tsv *tag = args->u.seq.items[1];
    EMBER_TRY(want_kind(p, tag, EM_TSV_STR, "the type tag"));
    if (v->kind == EM_TSV_LIST || v->kind == EM_TSV_TUPLE) {
        v->u.seq.type_tag = tag->u.str.s;
    } else if (v->kind == EM_TSV_DICT) {
        v->u.dict.type_tag = tag->u.str.s;
    }
    *out = v;
    return NULL;
fail:
    return st;
}

/* torch.device("cuda:0") from the C++ pickler, torch.device("cuda", 0) from Python's. */
static ember_status *device(tsp *p, const em_tsv *args, em_tsv **out)
{
    ember_status *st = NULL;
    EMBER_TRY(want_args(p, args, "torch.device", 1, 2));
    const em_tsv *type = args->u.seq.items[0];
    EMBER_TRY(want_kind(p, type, EM_TSV_STR, "the device type"));
    char buf[128];
    int n = snprintf(buf, sizeof buf, "%s", type->u.str.s);
    if (args->u.seq.n == 2) {
        const em_tsv *idx = args->u.seq.items[1];
        EMBER_TRY(want_kind(p, idx, EM_TSV_INT, "the device index"));
        n = snprintf(buf, sizeof buf, "%s:%lld", type->u.str.s, (long long)idx->u.i);
    }
    if (n < 0 || (size_t)n >= sizeof buf || (size_t)n != strlen(buf) || n == 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "malformed device name");
    }
    *out = em_tsp_new_str(p, EM_TSV_DEVICE, buf, (size_t)n);
    return *out != NULL ? NULL : em_status_oom();
fail:
    return st;
}

static ember_status *ordered_dict(tsp *p, const em_tsv *args, em_tsv **out)
{
    ember_status *st = want_args(p, args, "collections.OrderedDict", 0, 0);
    if (st == NULL) {
        *out = em_tsp_new(p, EM_TSV_DICT);
        st = *out != NULL ? NULL : em_status_oom();
    }
    return st;
}

/* ---- REDUCE, NEWOBJ, BUILD --------------------------------------------------------------- */

ember_status *em_tsp_reduce(tsp *p, const em_tsv *callable, const em_tsv *args, em_tsv **out)
{
    if (callable->kind != EM_TSV_GLOBAL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "call of a %s",
                            em_tsv_kind_name(callable->kind));
    }
    if (args->kind != EM_TSV_TUPLE) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "arguments are a %s, not a tuple",
                            em_tsv_kind_name(args->kind));
    }
    if (is_global(callable, "torch._utils._rebuild_tensor_v2") ||
        is_global(callable, "torch._utils._rebuild_qtensor")) {
        return rebuild(p, args, is_global(callable, "torch._utils._rebuild_qtensor"), out);
    }
    for (size_t i = 0; i < sizeof typed_lists / sizeof typed_lists[0]; i++) {
        if (is_global(callable, typed_lists[i].fn)) {
            return typed_list(p, i, args, out);
        }
    }
    if (is_global(callable, "torch.jit._pickle.restore_type_tag")) {
        return restore_type_tag(p, args, out);
    }
    if (is_global(callable, "torch.device")) {
        return device(p, args, out);
    }
    if (is_global(callable, "collections.OrderedDict")) {
        return ordered_dict(p, args, out);
    }
    if (is_global(callable, "torch._utils._rebuild_parameter")) {
        /* (data, requires_grad, backward_hooks): an nn.Parameter in a torch.save'd state
         * dict (torch.export's flat archives) is its tensor */
        ember_status *st = want_args(p, args, "_rebuild_parameter", 3, 3);
        if (st == NULL) {
            st = want_kind(p, args->u.seq.items[0], EM_TSV_TENSOR, "the parameter's data");
        }
        if (st == NULL) {
            *out = args->u.seq.items[0];
        }
        return st;
    }
    if (is_global(callable, "builtins.complex")) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "complex numbers are not read by ember");
    }
    return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "global %s is not read by ember",
                        callable->u.str.s);
}

ember_status *em_tsp_newobj(tsp *p, const em_tsv *cls, const em_tsv *args, em_tsv **out)
{
    if (cls->kind != EM_TSV_GLOBAL) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "class is a %s",
                            em_tsv_kind_name(cls->kind));
    }
    if (!has_prefix(cls->u.str.s, "__torch__.")) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED,
                            "class %s is not read by ember (only __torch__ classes)",
                            cls->u.str.s);
    }
    if (args->kind != EM_TSV_TUPLE || args->u.seq.n != 0) {
        return em_tsp_error(p, EMBER_ERR_UNSUPPORTED, "class %s constructed with arguments",
                            cls->u.str.s);
    }
    em_tsv *v = em_tsp_new(p, EM_TSV_OBJECT);
    em_tsv *none = em_tsp_new(p, EM_TSV_NONE);
    if (v == NULL || none == NULL) {
        return em_status_oom();
    }
    v->u.obj.cls = cls->u.str.s;
    v->u.obj.state = none;
    *out = v;
    return NULL;
}

ember_status *em_tsp_build(tsp *p, em_tsv *obj, em_tsv *state)
{
    if (obj->kind != EM_TSV_OBJECT) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "BUILD of a %s, not an object",
                            em_tsv_kind_name(obj->kind));
    }
    tsv_node *n = tsv_node_of(obj);
    if ((n->flags & TSV_BUILT) != 0) {
        return em_tsp_error(p, EMBER_ERR_INVALID_MODEL, "object %s built twice", obj->u.obj.cls);
    }
    n->flags |= TSV_BUILT;
    obj->u.obj.state = state;
    return NULL;
}
