/* SPDX-License-Identifier: Apache-2.0 */
/*
 * torch.export archives (torch.export.save) into the graph, read with the TorchScript
 * loader's zip reader (CRC-checked records), in each layout torch has written, told apart by
 * the records present:
 *  - torch 2.9+ (package_pt2): one root folder with archive_format ("pt2"), byteorder
 *    ("little"), models/<name>.json (the ExportedProgram of torch/_export/serde/schema.py),
 *    data/weights/<name>_weights_config.json and data/constants/<name>_constants_config.json
 *    (FQN -> {path_name, use_pickle, tensor_meta}), data/weights/<path_name> and
 *    data/constants/<path_name> (raw little-endian bytes; one record may back several
 *    tensors at different offsets and strides);
 *  - torch 2.8 (package_pt2): the same folder, the weights and constants as torch.save zips
 *    of FQN -> tensor dicts, data/weights/<name>.pt and data/constants/<name>.pt;
 *  - torch 2.1-2.7 (Python's zipfile, no root folder): serialized_exported_program.json,
 *    serialized_state_dict.pt and serialized_constants.pt (torch.save zips, nested).
 * A nested torch.save zip is opened in place (a view of the record) and its data.pkl run by
 * the TorchScript loader's unpickler. A package may hold several programs: the one named by
 * em_load_args.model_name ("model" by default); metadata "pt2.models" lists them.
 * The graph signature says what each placeholder is: parameters, buffers and lifted constants
 * become initializers named by their FQN ("layer1.0.conv1.weight"), user inputs graph inputs
 * with their names and declared shapes (a dim torch.export made symbolic keeps its symbol,
 * "s77", its range from range_constraints checked by the planner), and user outputs graph
 * outputs with theirs. Updated buffers (buffer_mutation outputs, in-place ops on a buffer):
 * check_mutations. Not read yet (refused by name): tensor subclasses pickled one by one
 * (use_pickle), non-tensor inputs, mutated user inputs.
 */
#include "pt2.h"
#include "pt2_internal.h"

#include "core/alloc.h"
#include "core/status.h"
#include "loaders/torchscript/archive/ts_pickle.h"
#include "loaders/torchscript/archive/ts_zip.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Newest ExportedProgram schema major version read (torch 2.15 writes 8.20). */
#define PT2_MAX_SCHEMA_MAJOR 8

ember_dtype em_pt2_dtype(int64_t st)
{
    switch (st) {
    case 1: return EMBER_DTYPE_U8;
    case 2: return EMBER_DTYPE_I8;
    case 3: return EMBER_DTYPE_I16;
    case 4: return EMBER_DTYPE_I32;
    case 5: return EMBER_DTYPE_I64;
    case 6: return EMBER_DTYPE_F16;
    case 7: return EMBER_DTYPE_F32;
    case 8: return EMBER_DTYPE_F64;
    case 12: return EMBER_DTYPE_BOOL;
    case 13: return EMBER_DTYPE_BF16;
    case 28: return EMBER_DTYPE_U16;
    default: return EMBER_DTYPE_UNDEFINED;
    }
}

ember_status *em_pt2_bind(em_pt2 *p, const char *name, ts_av *v, const char *where)
{
    const void *prev = NULL;
    EM_RETURN_IF_ERROR(em_ts_map_put(&p->names, name, NULL, v, &prev));
    if (prev != NULL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s: name '%s' is defined twice",
                             p->L.what, where, name);
    }
    return NULL;
}

static ember_status *missing(const em_pt2 *p, const char *field, const char *in)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s: field '%s' is missing or of the "
                         "wrong kind", p->L.what, in, field);
}

/* Member `key` of o, of kind k; NULL when absent or of another kind. */
static const em_pt2_json *get_k(const em_pt2_json *o, const char *key, em_pt2_jkind k)
{
    const em_pt2_json *v = em_pt2_json_get(o, key);
    return v != NULL && v->k == k ? v : NULL;
}

/* Record `name` parsed as JSON. */
static ember_status *read_json(em_pt2 *p, const char *name, const em_pt2_json **out)
{
    em_storage *s = NULL;
    EM_RETURN_IF_ERROR(em_ts_zip_get(p->L.zip, name, &s));
    char what[512];
    snprintf(what, sizeof what, "%s: record %s", p->L.what, name);
    ember_status *st = em_pt2_json_parse(&p->L.arena, em_storage_data(s), em_storage_size(s),
                                         what, out); /* the tree copies what it keeps */
    em_storage_release(s);
    return st;
}

/* A record that must hold exactly `want` (archive_format "pt2", byteorder "little"). */
static ember_status *expect_record(em_pt2 *p, const char *name, const char *want)
{
    em_storage *s = NULL;
    EM_RETURN_IF_ERROR(em_ts_zip_get(p->L.zip, name, &s));
    size_t n = em_storage_size(s);
    bool ok = n == strlen(want) && memcmp(em_storage_data(s), want, n) == 0;
    em_storage_release(s);
    if (!ok) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: record %s does not hold '%s'",
                             p->L.what, name, want);
    }
    return NULL;
}

/* ---- tensors of the weights and constants configs ---- */

/* Sizes (or strides) of a tensor_meta as ints; a symbolic one is refused. */
static ember_status *meta_ints(const em_pt2 *p, const em_pt2_json *list, const char *fqn,
                               const char *field, int64_t *v, int *n)
{
    if (list == NULL || list->k != EM_PT2_JARR || list->n > EMBER_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': field '%s' is missing, "
                             "not an array or longer than %d", p->L.what, fqn, field,
                             EMBER_MAX_RANK);
    }
    for (size_t d = 0; d < list->n; d++) {
        const em_pt2_json *i = get_k(list->items[d], "as_int", EM_PT2_JNUM);
        if (i == NULL || !i->is_int || i->i < 0 || i->i > ((int64_t)1 << 48)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': %s[%zu] is not a "
                                 "known int in 0..2^48", p->L.what, fqn, field, d);
        }
        v[d] = i->i;
    }
    *n = (int)list->n;
    return NULL;
}

typedef struct tlayout {
    ember_dtype dt;
    int rank;
    int64_t sizes[EMBER_MAX_RANK], strides[EMBER_MAX_RANK];
    int64_t offset, numel;
    size_t esz;
} tlayout;

static ember_status *read_meta(const em_pt2 *p, const em_pt2_json *m, const char *fqn,
                               tlayout *t)
{
    const em_pt2_json *dt = get_k(m, "dtype", EM_PT2_JNUM);
    if (dt == NULL) {
        return missing(p, "tensor_meta.dtype", fqn);
    }
    t->dt = em_pt2_dtype(dt->i);
    if (t->dt == EMBER_DTYPE_UNDEFINED) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: tensor '%s': dtype %lld is not "
                             "supported", p->L.what, fqn, (long long)dt->i);
    }
    t->esz = em_dtype_size(t->dt);
    int n_strides = 0;
    EM_RETURN_IF_ERROR(meta_ints(p, em_pt2_json_get(m, "sizes"), fqn, "sizes", t->sizes,
                                 &t->rank));
    EM_RETURN_IF_ERROR(meta_ints(p, em_pt2_json_get(m, "strides"), fqn, "strides", t->strides,
                                 &n_strides));
    const em_pt2_json *off = get_k(em_pt2_json_get(m, "storage_offset"), "as_int", EM_PT2_JNUM);
    if (n_strides != t->rank || off == NULL || !off->is_int || off->i < 0 ||
        off->i > ((int64_t)1 << 48)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': strides do not match "
                             "the sizes, or storage_offset is not a known int in 0..2^48",
                             p->L.what, fqn);
    }
    t->offset = off->i;
    t->numel = 1;
    for (int d = 0; d < t->rank; d++) {
        size_t nn = 0;
        if (!em_size_mul((size_t)t->numel, (size_t)t->sizes[d], &nn) || nn > ((size_t)1 << 48)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': its size overflows",
                                 p->L.what, fqn);
        }
        t->numel = (int64_t)nn;
    }
    return NULL;
}

/* The last element's index + 1 (elements of the record the tensor spans); 0 when empty. */
static int64_t span(const tlayout *t)
{
    if (t->numel == 0) {
        return 0;
    }
    int64_t last = t->offset; /* each term < 2^48 * 2^48 would overflow: bounded below */
    for (int d = 0; d < t->rank; d++) {
        if (t->strides[d] > 0 && t->sizes[d] - 1 > (INT64_MAX / 4 - last) / t->strides[d]) {
            return -1;
        }
        last += (t->sizes[d] - 1) * t->strides[d];
    }
    return last + 1;
}

static bool contiguous(const tlayout *t)
{
    int64_t want = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
        if (t->sizes[d] != 1 && t->strides[d] != want) {
            return false;
        }
        want *= t->sizes[d];
    }
    return true;
}

/* Copies the strided elements of `src` into dst, in row-major order. */
static void gather(const tlayout *t, const unsigned char *src, unsigned char *dst)
{
    int64_t idx[EMBER_MAX_RANK] = {0};
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t at = t->offset;
        for (int d = 0; d < t->rank; d++) {
            at += idx[d] * t->strides[d];
        }
        memcpy(dst + (size_t)i * t->esz, src + (size_t)at * t->esz, t->esz);
        for (int d = t->rank - 1; d >= 0 && ++idx[d] == t->sizes[d]; d--) {
            idx[d] = 0;
        }
    }
}

/* The initializer `fqn` of layout t over the bytes of storage s (`rec` names it): mapped in
 * place when contiguous and aligned in memory, else gathered into a copy. */
static ember_status *place(em_pt2 *p, const tlayout *t, em_storage *s, const char *fqn,
                           const char *rec, int *v)
{
    int64_t sp = span(t);
    size_t need = 0, have = s != NULL ? em_storage_size(s) : 0;
    if (sp < 0 || !em_size_mul((size_t)sp, t->esz, &need) || need > have) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': its sizes, strides and "
                             "offset reach past the %zu bytes of record %s", p->L.what, fqn,
                             have, rec);
    }
    if (t->numel == 0) {
        return em_graph_add_initializer_copy(p->L.root, fqn, t->dt, t->rank, t->sizes, NULL, v);
    }
    if (contiguous(t) &&
        ((uintptr_t)em_storage_data(s) + (size_t)t->offset * t->esz) % 16 == 0) {
        /* Mapped in place only when aligned in memory: torch aligns stored records to 64
         * bytes, other zip writers (Python's zipfile: the flat layout) need not. */
        return em_graph_add_initializer(p->L.root, fqn, t->dt, t->rank, t->sizes, s,
                                        (size_t)t->offset * t->esz, v);
    }
    unsigned char *buf = em_malloc(p->L.al, (size_t)t->numel * t->esz + 1);
    if (buf == NULL) {
        return em_status_oom();
    }
    gather(t, em_storage_data(s), buf);
    ember_status *st = em_graph_add_initializer_copy(p->L.root, fqn, t->dt, t->rank, t->sizes,
                                                     buf, v);
    em_free(p->L.al, buf);
    return st;
}

/* The initializer of tensor `fqn` from a config entry of folder `dir` ("data/weights"). */
static ember_status *add_tensor(em_pt2 *p, const em_pt2_json *e, const char *dir,
                                const char *fqn, unsigned flags, int *v)
{
    const em_pt2_json *path = get_k(e, "path_name", EM_PT2_JSTR);
    const em_pt2_json *pickle = em_pt2_json_get(e, "use_pickle");
    if (path == NULL) {
        return missing(p, "path_name", fqn);
    }
    if (pickle != NULL && pickle->k == EM_PT2_JBOOL && pickle->b) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: tensor '%s' is pickled (use_pickle: a "
                             "tensor subclass); ember reads plain tensors only", p->L.what, fqn);
    }
    tlayout t = {0};
    EM_RETURN_IF_ERROR(read_meta(p, em_pt2_json_get(e, "tensor_meta"), fqn, &t));
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/%s", dir, path->s);
    if (!em_ts_zip_has(p->L.zip, rec)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: tensor '%s': its record %s is "
                             "missing", p->L.what, fqn, rec);
    }
    em_storage *s = NULL;
    EM_RETURN_IF_ERROR(em_ts_zip_read(p->L.zip, rec, flags, &s));
    ember_status *st = place(p, &t, s, fqn, rec, v);
    em_storage_release(s);
    return st;
}

/* The initializer of `fqn` from a tensor of a torch.save'd dict (record `rec`). */
static ember_status *add_saved_tensor(em_pt2 *p, const em_tsv *x, const char *fqn,
                                      const char *rec, int *v)
{
    if (x->kind != EM_TSV_TENSOR) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: %s: '%s' is a %s, not a tensor",
                             p->L.what, rec, fqn, em_tsv_kind_name(x->kind));
    }
    const em_tsv_tensor *q = &x->u.t;
    if (q->qscheme != EM_TS_QSCHEME_NONE || q->neg) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: %s: tensor '%s' is %s", p->L.what, rec,
                             fqn, q->neg ? "a negative view" : "quantized");
    }
    tlayout t = {.dt = q->dtype, .rank = q->rank, .offset = q->offset, .numel = 1,
                 .esz = em_dtype_size(q->dtype)};
    for (int d = 0; d < q->rank; d++) { /* the pickle checked the view against its storage */
        size_t nn = 0;
        t.sizes[d] = q->sizes[d];
        t.strides[d] = q->strides[d];
        if (!em_size_mul((size_t)t.numel, (size_t)q->sizes[d], &nn) || nn > ((size_t)1 << 48)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s: tensor '%s': its size "
                                 "overflows", p->L.what, rec, fqn);
        }
        t.numel = (int64_t)nn;
    }
    char what[1024];
    snprintf(what, sizeof what, "%s: data/%s", rec, q->key != NULL ? q->key : "?");
    return place(p, &t, q->storage, fqn, what, v);
}

/* ---- the graph signature ---- */

/* Where the weights and constants are: the configs of torch 2.9+ (raw records), or two
 * dicts torch.save'd into records of their own (the flat layout, torch 2.8's package). */
typedef struct configs {
    const em_pt2_json *weights, *constants; /* the "config" objects */
    unsigned flags;
    const char *saved_rec[2];               /* state dict, constants; NULL: configs */
    em_ts_zip *saved_zip[2];
    em_ts_pickle *saved[2];
} configs;

/* A parameter, buffer or lifted constant: placeholder `arg` is the initializer `fqn`. */
static ember_status *add_state(em_pt2 *p, const configs *cf, const char *arg, const char *fqn)
{
    int v = -1;
    if (cf->saved_rec[0] != NULL) {
        const em_tsv *x = NULL;
        int k = 0;
        for (; k < 2 && x == NULL; k++) {
            x = cf->saved[k] != NULL ? em_tsv_dict_get(em_ts_pickle_root(cf->saved[k]), fqn)
                                     : NULL;
        }
        if (x == NULL) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s' (placeholder %s) is in "
                                 "neither %s nor %s", p->L.what, fqn, arg, cf->saved_rec[0],
                                 cf->saved_rec[1]);
        }
        EM_RETURN_IF_ERROR(add_saved_tensor(p, x, fqn, cf->saved_rec[k - 1], &v));
    } else {
        const em_pt2_json *e = em_pt2_json_get(cf->weights, fqn);
        const char *dir = "data/weights";
        if (e == NULL) {
            e = em_pt2_json_get(cf->constants, fqn);
            dir = "data/constants";
        }
        if (e == NULL) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: '%s' (placeholder %s) is in "
                                 "neither the weights nor the constants config", p->L.what, fqn,
                                 arg);
        }
        EM_RETURN_IF_ERROR(add_tensor(p, e, dir, fqn, cf->flags, &v));
    }
    ts_av *t = em_ts_tensor(&p->L, v);
    if (t == NULL) {
        return em_status_oom();
    }
    p->state[p->n_state++] = (em_pt2_state){fqn, t, v, false};
    return em_pt2_bind(p, arg, t, "signature");
}

/* The symbol of a size expression: "s77", or sympy's srepr of it that torch 2.15 writes,
 * "Symbol('s77', positive=True, integer=True)"; NULL for a compound expression ("2*s77"),
 * which leaves the dim unknown. */
static const char *symbol_name(ts_lower *L, const char *e)
{
    static const char srepr[] = "Symbol('";
    const char *s = strncmp(e, srepr, sizeof srepr - 1) == 0 ? e + sizeof srepr - 1 : e;
    size_t n = 0;
    while (s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
           (n > 0 && s[n] >= '0' && s[n] <= '9')) {
        n++;
    }
    bool whole = s == e ? s[n] == '\0' : s[n] == '\'';
    return n > 0 && whole ? em_ts_arena_strndup(&L->arena, s, n) : NULL;
}

/* range_constraints ({"s77": {"min_val": 1, "max_val": 64}}): each symbol's range on the graph
 * (the planner refuses inputs outside it), and metadata "pt2.dims" ("s77=[1, 64]", as the
 * file says) for ember inspect. A bound that is null or not an int is open (torch writes null
 * for infinity); compound keys ("2*s77", derived dims) are kept as metadata only. A low bound
 * of 2 or less is not enforced, as torch's own guards do not (its 0/1 specialization writes 2
 * for Dim.AUTO and Dim(min=2), and ep.module() still runs sizes 0 and 1; it refuses sizes
 * below a low bound of 3 or more, and above any high bound). */
static ember_status *set_ranges(em_pt2 *p, const em_pt2_json *rc)
{
    char buf[1024];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; rc != NULL && rc->k == EM_PT2_JOBJ && i < rc->n; i++) {
        const em_pt2_json *lo = get_k(rc->items[i], "min_val", EM_PT2_JNUM);
        const em_pt2_json *hi = get_k(rc->items[i], "max_val", EM_PT2_JNUM);
        em_sym_range r = {lo != NULL && lo->is_int && lo->i > 0 ? lo->i : 0,
                          hi != NULL && hi->is_int && hi->i >= 0 ? hi->i : INT64_MAX};
        const char *sym = symbol_name(&p->L, rc->keys[i]);
        if (sym != NULL && strcmp(sym, rc->keys[i]) == 0) {
            ember_status *st = em_graph_set_symbol_range(p->L.root, sym, r.lo > 2 ? r.lo : 0,
                                                         r.hi);
            if (st != NULL) {
                return em_status_wrap(st, "%s: range_constraints", p->L.what);
            }
        }
        char rt[48];
        if (len < sizeof buf) {
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%s", i > 0 ? " " : "",
                                    rc->keys[i], em_sym_range_text(r, rt, sizeof rt));
        }
    }
    return rc != NULL && rc->n > 0 ? em_graph_set_meta(p->L.root, "pt2.dims", buf) : NULL;
}

/* A user input: a graph input with the dtype and shape of tensor_values[name]. */
static ember_status *add_user_input(em_pt2 *p, const em_pt2_json *tvals, const char *name)
{
    const em_pt2_json *m = em_pt2_json_get(tvals, name);
    const em_pt2_json *dt = get_k(m, "dtype", EM_PT2_JNUM);
    const em_pt2_json *sizes = get_k(m, "sizes", EM_PT2_JARR);
    if (dt == NULL || sizes == NULL || sizes->n > EMBER_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: input '%s': no tensor_values entry "
                             "with a dtype and at most %d sizes", p->L.what, name,
                             EMBER_MAX_RANK);
    }
    ember_dtype et = em_pt2_dtype(dt->i);
    if (et == EMBER_DTYPE_UNDEFINED) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: input '%s': dtype %lld is not "
                             "supported", p->L.what, name, (long long)dt->i);
    }
    int rank = (int)sizes->n;
    int64_t dims[EMBER_MAX_RANK];
    const char *names[EMBER_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        const em_pt2_json *i = get_k(sizes->items[d], "as_int", EM_PT2_JNUM);
        const em_pt2_json *x = em_pt2_json_get(sizes->items[d], "as_expr");
        const em_pt2_json *s = get_k(x, "expr_str", EM_PT2_JSTR);
        dims[d] = i != NULL && i->is_int && i->i >= 0 ? i->i : -1;
        names[d] = dims[d] < 0 && s != NULL ? symbol_name(&p->L, s->s) : NULL;
        if (i == NULL && x == NULL) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: input '%s': size %d is neither "
                                 "as_int nor as_expr", p->L.what, name, d);
        }
    }
    /* The caller's fixed shapes are applied by em_load_fix_graph once every input is there,
     * checked against the symbols' ranges. */
    int v = -1;
    EM_RETURN_IF_ERROR(em_graph_add_input(p->L.root, name, et, rank, dims, names, &v));
    ts_av *t = em_ts_tensor(&p->L, v);
    return t == NULL ? em_status_oom() : em_pt2_bind(p, name, t, "signature");
}

/* The placeholder name of an input spec's "arg" ({name} or an Argument {as_tensor: {name}}). */
static const char *spec_arg(const em_pt2_json *spec)
{
    const em_pt2_json *arg = em_pt2_json_get(spec, "arg");
    const em_pt2_json *t = em_pt2_json_get(arg, "as_tensor");
    const em_pt2_json *n = get_k(t != NULL ? t : arg, "name", EM_PT2_JSTR);
    return n != NULL ? n->s : NULL;
}

/* The placeholders of input_specs; metadata "pt2.signature" counts them by kind. */
static ember_status *add_inputs(em_pt2 *p, const configs *cf,
                                const em_pt2_json *specs, const em_pt2_json *tvals,
                                size_t n_outputs)
{
    static const char *const state[][2] = {{"parameter", "parameter_name"},
                                           {"buffer", "buffer_name"},
                                           {"tensor_constant", "tensor_constant_name"}};
    size_t count[4] = {0}; /* of each kind of state, then user inputs */
    p->state = em_ts_arena_alloc(&p->L.arena, (specs->n + 1) * sizeof *p->state);
    if (p->state == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < specs->n; i++) {
        const em_pt2_json *sp = specs->items[i];
        const char *kind = sp->k == EM_PT2_JOBJ && sp->n == 1 ? sp->keys[0] : "?";
        const em_pt2_json *body = sp->k == EM_PT2_JOBJ && sp->n == 1 ? sp->items[0] : NULL;
        const char *arg = spec_arg(body);
        if (arg == NULL) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: input_specs[%zu] (%s): no "
                                 "tensor placeholder name", p->L.what, i, kind);
        }
        if (strcmp(kind, "user_input") == 0) {
            EM_RETURN_IF_ERROR(add_user_input(p, tvals, arg));
            count[3]++;
            continue;
        }
        size_t k = 0;
        while (k < 3 && strcmp(kind, state[k][0]) != 0) {
            k++;
        }
        const em_pt2_json *fqn = k < 3 ? get_k(body, state[k][1], EM_PT2_JSTR) : NULL;
        if (k == 3) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: input_specs[%zu]: inputs of kind "
                                 "'%s' are not supported", p->L.what, i, kind);
        }
        if (fqn == NULL) {
            return missing(p, state[k][1], kind);
        }
        EM_RETURN_IF_ERROR(add_state(p, cf, arg, fqn->s));
        count[k]++;
    }
    char buf[160]; /* for ember inspect */
    snprintf(buf, sizeof buf, "parameters=%zu buffers=%zu constants=%zu user_inputs=%zu "
             "user_outputs=%zu", count[0], count[1], count[2], count[3], n_outputs);
    return em_graph_set_meta(p->L.root, "pt2.signature", buf);
}

/* A buffer_mutation / parameter_mutation output: the state it names is marked mutated. */
static ember_status *mark_mutated(em_pt2 *p, const em_pt2_json *spec, size_t i, const char *key)
{
    const em_pt2_json *fqn = get_k(spec, key, EM_PT2_JSTR);
    for (size_t k = 0; fqn != NULL && k < p->n_state; k++) {
        if (strcmp(p->state[k].fqn, fqn->s) == 0) {
            p->state[k].mutated = true;
            return NULL;
        }
    }
    return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: output_specs[%zu]: field '%s' does not "
                         "name a parameter or buffer of input_specs", p->L.what, i, key);
}

/* Marks in `seen` the values the graph outputs of g depend on (through node inputs, and the
 * values of g a subgraph captures by name). `stack` holds n_values ints. */
static void mark_reached(const em_graph *g, bool *seen, int *stack)
{
    int top = 0;
    for (int i = 0; i < g->n_outputs; i++) {
        if (!seen[g->outputs[i]]) {
            seen[g->outputs[i]] = true;
            stack[top++] = g->outputs[i];
        }
    }
    while (top > 0) {
        int p = g->values[stack[--top]].producer;
        const em_node *n = p >= 0 ? &g->nodes[p] : NULL;
        /* a BatchNormalization in training mode reads its running statistics only to update
         * them */
        int n_read = n == NULL ? 0 : n->op == EM_OP_BATCHNORM &&
                                          em_node_attr_int(n, "training_mode", 0) != 0
                                      ? 3 : n->n_in;
        for (int i = 0; i < n_read; i++) {
            if (n->in[i] >= 0 && !seen[n->in[i]]) {
                seen[n->in[i]] = true;
                stack[top++] = n->in[i];
            }
        }
        for (int a = 0; n != NULL && a < n->n_attrs; a++) {
            const em_graph *sub = n->attrs[a].type == EM_ATTR_GRAPH ? n->attrs[a].g : NULL;
            for (int i = 0; sub != NULL && i < sub->n_inputs; i++) {
                int v = em_graph_find_value(g, sub->values[sub->inputs[i]].name);
                if (v >= 0 && !seen[v]) {
                    seen[v] = true;
                    stack[top++] = v;
                }
            }
        }
    }
}

/* The state the program updates (a buffer_mutation output, or an in-place op that rebound
 * the placeholder's value while lowering: BatchNorm statistics, a running average, a step
 * counter). ember runs inference on the saved weights and keeps no state between runs: an
 * update no output reads is dropped (listed in metadata "pt2.dropped_mutations"), so every
 * run gives what PyTorch's module gives on that input however often it was called; a program
 * whose outputs read state it updates (PyTorch's outputs would change from call to call) is
 * refused, naming the buffer. */
static ember_status *check_mutations(em_pt2 *p)
{
    const em_graph *g = p->L.root;
    bool *seen = em_ts_arena_alloc(&p->L.arena, (size_t)g->n_values * sizeof *seen + 1);
    int *stack = em_ts_arena_alloc(&p->L.arena, (size_t)g->n_values * sizeof *stack + 1);
    if (seen == NULL || stack == NULL) {
        return em_status_oom();
    }
    memset(seen, 0, (size_t)g->n_values * sizeof *seen);
    mark_reached(g, seen, stack);
    char list[1024];
    size_t len = 0;
    list[0] = '\0';
    for (size_t k = 0; k < p->n_state; k++) {
        const em_pt2_state *s = &p->state[k];
        if (!s->mutated && s->av->u.t.v == s->init && s->av->u.t.g == g) {
            continue;
        }
        if (seen[s->init]) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: the program updates '%s' and its "
                                 "outputs read it: ember runs inference on the saved weights "
                                 "and keeps no state between runs, so its outputs would not "
                                 "follow PyTorch's after the first call", p->L.what, s->fqn);
        }
        if (len < sizeof list) {
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    s->fqn);
        }
    }
    return len > 0 ? em_graph_set_meta(p->L.root, "pt2.dropped_mutations", list) : NULL;
}

/* User outputs become graph outputs with their names (an Identity node when the name is
 * taken, as by an input returned as it is). */
static ember_status *add_outputs(em_pt2 *p, const em_pt2_json *specs)
{
    for (size_t i = 0; specs != NULL && i < specs->n; i++) {
        const em_pt2_json *sp = specs->items[i];
        const char *kind = sp->k == EM_PT2_JOBJ && sp->n == 1 ? sp->keys[0] : "?";
        bool buffer = strcmp(kind, "buffer_mutation") == 0;
        if (buffer || strcmp(kind, "parameter_mutation") == 0) {
            EM_RETURN_IF_ERROR(mark_mutated(p, sp->items[0], i, buffer ? "buffer_name"
                                                                        : "parameter_name"));
            continue;
        }
        if (strcmp(kind, "user_output") != 0) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: output_specs[%zu]: outputs of kind "
                                 "'%s' (mutated state) are not supported", p->L.what, i, kind);
        }
        const char *name = spec_arg(sp->items[0]);
        const ts_av *r = name != NULL ? em_ts_map_get(&p->names, name, NULL) : NULL;
        if (r == NULL || r->k != TA_TENSOR) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: output_specs[%zu]: '%s' is not "
                                 "a tensor of the graph", p->L.what, i, name != NULL ? name : "?");
        }
        int v = -1, node = -1;
        EM_RETURN_IF_ERROR(em_ts_use(&p->L, r, &v));
        char oname[256];
        snprintf(oname, sizeof oname, "%s", name);
        if (em_graph_find_value(p->L.root, oname) >= 0) {
            snprintf(oname, sizeof oname, "output_%zu", i);
        }
        const char *names[1] = {oname};
        EM_RETURN_IF_ERROR(em_graph_add_node(p->L.root, EM_OP_IDENTITY, oname, &v, 1, names, 1,
                                             &node));
        EM_RETURN_IF_ERROR(em_graph_infer_node(p->L.root, node));
        EM_RETURN_IF_ERROR(em_graph_mark_output(p->L.root, p->L.root->nodes[node].out[0]));
    }
    return NULL;
}

/* ---- the archive ---- */

/* The config object of record `name`, or an empty one when the record is absent. */
static ember_status *read_config(em_pt2 *p, const char *name, const em_pt2_json **out)
{
    static const em_pt2_json empty = {.k = EM_PT2_JOBJ};
    *out = &empty;
    if (!em_ts_zip_has(p->L.zip, name)) {
        return NULL;
    }
    const em_pt2_json *j = NULL;
    EM_RETURN_IF_ERROR(read_json(p, name, &j));
    *out = get_k(j, "config", EM_PT2_JOBJ);
    return *out == NULL ? missing(p, "config", name) : NULL;
}

/* Dict `k` of cf (0: state dict, 1: constants) from record rec, a torch.save zip nested in the
 * archive: its data.pkl, whose storages are its records data/<key>. A missing constants
 * record is an empty dict (the flat layout of torch 2.1 had none). */
static ember_status *read_saved(em_pt2 *p, configs *cf, int k, const char *rec)
{
    cf->saved_rec[k] = rec;
    if (k == 1 && !em_ts_zip_has(p->L.zip, rec)) {
        return NULL;
    }
    char what[1024];
    snprintf(what, sizeof what, "%s: %s", p->L.what, rec);
    em_storage *s = NULL;
    EM_RETURN_IF_ERROR(em_ts_zip_read(p->L.zip, rec, cf->flags, &s));
    ember_status *st = em_ts_zip_open(s, what, p->L.al, &cf->saved_zip[k]);
    em_storage_release(s); /* the nested zip holds it */
    EM_RETURN_IF_ERROR(st);
    em_storage *pkl = NULL;
    EM_RETURN_IF_ERROR(em_ts_zip_get(cf->saved_zip[k], "data.pkl", &pkl));
    /* The nested records' CRCs are not checked again: the outer record's covered their bytes
     * (unless the caller trusts the file); deflated ones are checked as they inflate. */
    em_ts_zip_records rc = {cf->saved_zip[k], what, "data", EM_TS_ZIP_TRUST_CRC};
    st = em_ts_pickle_load(em_storage_data(pkl), em_storage_size(pkl), what, em_ts_zip_record,
                           &rc, p->L.al, &cf->saved[k]);
    em_storage_release(pkl);
    EM_RETURN_IF_ERROR(st);
    const em_tsv *root = em_ts_pickle_root(cf->saved[k]);
    if (root->kind != EM_TSV_DICT) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: data.pkl holds a %s, not a dict of "
                             "tensors", what, em_tsv_kind_name(root->kind));
    }
    return NULL;
}

/* The package layout (torch 2.8+): archive_format, byteorder, models/<model>.json, and the
 * weights as configs (2.9+) or torch.save'd dicts (2.8). Sets *prog_rec. */
static ember_status *open_package(em_pt2 *p, const char *model, configs *cf, char *prog_rec,
                                  size_t cap)
{
    EM_RETURN_IF_ERROR(expect_record(p, "archive_format", "pt2"));
    if (em_ts_zip_has(p->L.zip, "byteorder")) {
        EM_RETURN_IF_ERROR(expect_record(p, "byteorder", "little"));
    }
    /* the models it holds, "model, other": metadata pt2.models, for ember inspect */
    char names[1024] = "";
    size_t len = 0;
    for (size_t i = 0; i < em_ts_zip_count(p->L.zip) && len < sizeof names; i++) {
        const char *r = em_ts_zip_name(p->L.zip, i);
        size_t n = strlen(r);
        if (strncmp(r, "models/", 7) == 0 && n > 12 && strcmp(r + n - 5, ".json") == 0 &&
            memchr(r + 7, '/', n - 12) == NULL) {
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%.*s", len ? ", " : "",
                                    (int)(n - 12), r + 7);
        }
    }
    EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.models", names));
    snprintf(prog_rec, cap, "models/%s.json", model);
    if (strlen(model) > 100 || !em_ts_zip_has(p->L.zip, prog_rec)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: the archive has no model named "
                             "'%.100s' (no record models/%.100s.json; it holds: %s)", p->L.what,
                             model, model, len > 0 ? names : "none");
    }
    char rec[3][160];
    snprintf(rec[0], sizeof rec[0], "data/weights/%s_weights_config.json", model);
    snprintf(rec[1], sizeof rec[1], "data/weights/%s.pt", model);
    snprintf(rec[2], sizeof rec[2], "data/constants/%s.pt", model);
    if (!em_ts_zip_has(p->L.zip, rec[0]) && em_ts_zip_has(p->L.zip, rec[1])) {
        EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.layout", "package, weights "
                                             "torch.save'd (torch 2.8)"));
        char *w = em_ts_arena_strndup(&p->L.arena, rec[1], strlen(rec[1]));
        char *c = em_ts_arena_strndup(&p->L.arena, rec[2], strlen(rec[2]));
        if (w == NULL || c == NULL) {
            return em_status_oom();
        }
        EM_RETURN_IF_ERROR(read_saved(p, cf, 0, w));
        return read_saved(p, cf, 1, c);
    }
    EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.layout", "package, raw weights "
                                         "(torch 2.9+)"));
    EM_RETURN_IF_ERROR(read_config(p, rec[0], &cf->weights));
    snprintf(rec[0], sizeof rec[0], "data/constants/%s_constants_config.json", model);
    return read_config(p, rec[0], &cf->constants);
}

/* The flat layout (torch 2.1-2.7, Python's zipfile, no root folder): one program in
 * serialized_exported_program.json, its state dict and constants torch.save'd beside it. */
static ember_status *open_flat(em_pt2 *p, const char *model, configs *cf, char *prog_rec,
                               size_t cap)
{
    if (strcmp(model, "model") != 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: the archive has no model named '%s' "
                             "(an archive of the flat layout of torch 2.1-2.7 holds one "
                             "program, 'model')", p->L.what, model);
    }
    snprintf(prog_rec, cap, "serialized_exported_program.json");
    EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.layout", "flat (torch 2.1-2.7)"));
    EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.models", "model"));
    EM_RETURN_IF_ERROR(read_saved(p, cf, 0, "serialized_state_dict.pt"));
    return read_saved(p, cf, 1, "serialized_constants.pt");
}

static ember_status *check_version(em_pt2 *p, const em_pt2_json *prog, const char *prog_rec)
{
    const em_pt2_json *v = em_pt2_json_get(prog, "schema_version");
    const em_pt2_json *major = get_k(v, "major", EM_PT2_JNUM);
    const em_pt2_json *minor = get_k(v, "minor", EM_PT2_JNUM);
    if (major == NULL || minor == NULL || !major->is_int || !minor->is_int) {
        return missing(p, "schema_version", prog_rec);
    }
    if (major->i > PT2_MAX_SCHEMA_MAJOR || major->i < 1) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: ExportedProgram schema version "
                             "%lld.%lld; ember reads majors 1 to %d", p->L.what,
                             (long long)major->i, (long long)minor->i, PT2_MAX_SCHEMA_MAJOR);
    }
    char buf[48];
    snprintf(buf, sizeof buf, "%lld.%lld", (long long)major->i, (long long)minor->i);
    EM_RETURN_IF_ERROR(em_graph_set_meta(p->L.root, "pt2.schema_version", buf));
    const em_pt2_json *tv = get_k(prog, "torch_version", EM_PT2_JSTR);
    return tv != NULL ? em_graph_set_meta(p->L.root, "pt2.torch_version", tv->s) : NULL;
}

static ember_status *load_program(em_pt2 *p, const em_load_args *a, const configs *cf,
                                  const em_pt2_json *prog, const char *prog_rec)
{
    EM_RETURN_IF_ERROR(check_version(p, prog, prog_rec));
    const em_pt2_json *gm = get_k(prog, "graph_module", EM_PT2_JOBJ);
    const em_pt2_json *graph = get_k(gm, "graph", EM_PT2_JOBJ);
    const em_pt2_json *sig = get_k(gm, "signature", EM_PT2_JOBJ);
    const em_pt2_json *ins = get_k(sig, "input_specs", EM_PT2_JARR);
    const em_pt2_json *outs = get_k(sig, "output_specs", EM_PT2_JARR);
    const em_pt2_json *tvals = get_k(graph, "tensor_values", EM_PT2_JOBJ);
    if (graph == NULL || ins == NULL || outs == NULL || tvals == NULL) {
        return missing(p, graph == NULL ? "graph_module.graph" : tvals == NULL
                       ? "graph.tensor_values" : "graph_module.signature", prog_rec);
    }
    EM_RETURN_IF_ERROR(set_ranges(p, em_pt2_json_get(prog, "range_constraints")));
    size_t n_user = 0;
    for (size_t i = 0; i < outs->n; i++) {
        const em_pt2_json *o = outs->items[i];
        n_user += o->k == EM_PT2_JOBJ && o->n == 1 && strcmp(o->keys[0], "user_output") == 0;
    }
    EM_RETURN_IF_ERROR(add_inputs(p, cf, ins, tvals, n_user));
    EM_RETURN_IF_ERROR(em_load_fix_graph(a, p->L.what, p->L.root));
    EM_RETURN_IF_ERROR(em_pt2_lower_nodes(p, em_pt2_json_get(graph, "nodes")));
    if (outs->n == 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: the program returns no tensor",
                             p->L.what);
    }
    EM_RETURN_IF_ERROR(add_outputs(p, outs));
    return check_mutations(p);
}

ember_status *em_pt2_load(const em_load_args *a, em_graph *g)
{
    ember_status *st = NULL;
    em_pt2 p = {0};
    em_ts_zip *zip = NULL;
    configs cf = {.flags = a->trust_checksums ? EM_TS_ZIP_TRUST_CRC : 0};
    const char *model = a->model_name != NULL ? a->model_name : "model";
    p.L.al = g->al;
    p.L.what = a->path != NULL ? a->path : "<memory>";
    p.L.root = p.L.g = g;
    p.L.path = "";
    em_ts_arena_init(&p.L.arena, g->al);
    p.L.ast = em_ts_ast_arena_new(g->al);
    if (p.L.ast == NULL) {
        st = em_status_oom();
        goto fail;
    }
    p.names.a = p.L.ast;
    p.names.strings = true;
    em_pt2_layout layout = em_pt2_layout_of(em_storage_data(a->image),
                                            em_storage_size(a->image));
    EMBER_TRY(em_ts_zip_open_flags(a->image, p.L.what, g->al,
                                   layout == EM_PT2_FLAT ? EM_TS_ZIP_FLAT : 0, &zip));
    p.L.zip = zip;
    char prog_rec[160];
    if (layout == EM_PT2_FLAT) {
        EMBER_TRY(open_flat(&p, model, &cf, prog_rec, sizeof prog_rec));
    } else {
        EMBER_TRY(open_package(&p, model, &cf, prog_rec, sizeof prog_rec));
    }
    const em_pt2_json *prog = NULL;
    EMBER_TRY(read_json(&p, prog_rec, &prog));
    if (prog->k != EM_PT2_JOBJ) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: %s holds a %s, not an object",
                           p.L.what, prog_rec, em_pt2_json_kind_name(prog->k));
        goto fail;
    }
    EMBER_TRY(load_program(&p, a, &cf, prog, prog_rec));
fail:
    for (int k = 0; k < 2; k++) {
        em_ts_pickle_free(cf.saved[k]);
        em_ts_zip_close(cf.saved_zip[k]);
    }
    em_ts_zip_close(zip);
    em_ts_ast_arena_free(p.L.ast);
    em_ts_arena_free(&p.L.arena);
    return st;
}
