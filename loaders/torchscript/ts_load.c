/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TorchScript loader's entry (ts.h): opens the archive, reads constants.pkl and data.pkl,
 * resolves classes and functions from code/ on first use, and lowers the root module's
 * forward() into the graph (ts_eval.c, ts_expr.c, ts_ops*.c).
 */
#include "ts.h"

#include "core/alloc.h"
#include "core/status.h"
#include "loaders/torchscript/lower/ts_lower.h"

#include <stdio.h>
#include <string.h>

struct ts_code_file {
    const char *record; /* "code/__torch__/a/b.py" */
    em_ts_module *mod;  /* NULL: the record does not exist */
    bool checked;       /* em_ts_typecheck_module ran on it */
    ts_code_file *next;
};

/* The checks of every parsed record not checked yet (a check may parse more records, which
 * the loop then takes; a check started inside one leaves it to the running loop). */
static ember_status *check_code(ts_lower *L)
{
    if (L->checking) {
        return NULL;
    }
    L->checking = true;
    ember_status *st = NULL;
    for (bool more = true; more && st == NULL;) {
        more = false;
        for (ts_code_file *f = L->files; f != NULL && st == NULL; f = f->next) {
            if (f->checked || f->mod == NULL) {
                continue;
            }
            f->checked = more = true;
            /* "code/__torch__/a/b.py" -> "__torch__.a.b" */
            char *qual = em_ts_printf(L, "%.*s", (int)(strlen(f->record) - 8), f->record + 5);
            for (char *c = qual; c != NULL && *c != '\0'; c++) {
                *c = *c == '/' ? '.' : *c;
            }
            st = qual != NULL ? em_ts_typecheck_module(L, f->mod, qual) : em_status_oom();
        }
    }
    L->checking = false;
    return st;
}

/* The parsed module of code record `record`, parsed on first use; NULL when absent. */
static ember_status *code_file(ts_lower *L, const char *record, em_ts_module **out)
{
    for (ts_code_file *f = L->files; f != NULL; f = f->next) {
        if (strcmp(f->record, record) == 0) {
            *out = f->mod;
            return NULL;
        }
    }
    *out = NULL;
    ts_code_file *f = em_ts_arena_alloc(&L->arena, sizeof *f);
    if (f == NULL || (f->record = em_ts_strdup(L, record)) == NULL) {
        return em_status_oom();
    }
    f->next = L->files;
    L->files = f;
    if (!em_ts_zip_has(L->zip, record)) {
        return NULL;
    }
    em_storage *s = NULL;
    TS_TRY(em_ts_zip_get(L->zip, record, &s));
    ember_status *st = em_ts_parse_file(L->ast, em_storage_data(s), em_storage_size(s), record,
                                        &f->mod);
    em_storage_release(s);
    if (st == NULL) {
        st = em_ts_check_module(L->ast, f->mod);
    }
    if (st != NULL) {
        f->mod = NULL;
        return em_status_wrap(st, "%s", L->what);
    }
    *out = f->mod;
    return check_code(L);
}

ember_status *em_ts_resolve(ts_lower *L, const char *qual, em_ts_pos pos, ts_av **out)
{
    *out = NULL;
    const char *dot = strrchr(qual, '.');
    if (dot == NULL) {
        return NULL;
    }
    size_t plen = (size_t)(dot - qual);
    char *record = em_ts_printf(L, "code/%.*s.py", (int)plen, qual);
    if (record == NULL) {
        return em_status_oom();
    }
    for (char *c = record + 5; *c != '\0' && c < record + 5 + plen; c++) {
        if (*c == '.') {
            *c = '/';
        }
    }
    em_ts_module *m = NULL;
    TS_TRY(code_file(L, record, &m));
    const char *name = dot + 1;
    const em_ts_class *cls = m != NULL ? em_ts_module_class(m, name) : NULL;
    const em_ts_func *fn = m != NULL && cls == NULL ? em_ts_module_func(m, name) : NULL;
    if (cls != NULL || strncmp(qual, "__torch__.torch.classes.", 24) == 0) { /* torchbind */
        *out = em_ts_new(L, TA_CLASS);
        if (*out == NULL) {
            return em_status_oom();
        }
        (*out)->u.cls.qual = em_ts_strdup(L, qual);
        (*out)->u.cls.cls = cls;
        return NULL;
    }
    if (fn != NULL) {
        *out = em_ts_new(L, TA_FUNC);
        if (*out == NULL) {
            return em_status_oom();
        }
        (*out)->u.fn.fn = fn;
        (*out)->u.fn.qual = em_ts_strdup(L, qual);
        return NULL;
    }
    if (m != NULL && strncmp(name, "___torch_mangle_", 16) != 0) {
        /* functional.py and functional/<name>.py may both exist (scripted F.interpolate): a
         * name the file does not define is a package beside it then. */
        const char *sub = em_ts_printf(L, "%.*s/%s.py", (int)(strlen(record) - 3), record, name);
        if (sub == NULL) {
            return em_status_oom();
        }
        if (em_ts_zip_has(L->zip, sub)) {
            return NULL;
        }
        return em_status_wrap(em_ts_err(L, EMBER_ERR_INVALID_MODEL, pos, "%s: %s defines no "
                                        "class or function '%s'", qual, record, name),
                              "%s", L->what);
    }
    /* not a file, or a mangled namespace beside one (torch/functional.py and
     * torch/functional/___torch_mangle_10.py): a package on the way to one */
    return NULL;
}

/* Runs pickle `record`, whose storages are the records of folder `dir`, read with
 * em_ts_zip_read's `flags`. */
static ember_status *read_pickle(ts_lower *L, const char *record, const char *dir,
                                 unsigned flags, em_ts_pickle **out)
{
    em_storage *s = NULL;
    char what[512];
    snprintf(what, sizeof what, "%s: %s", L->what, record);
    em_ts_zip_records rc = {L->zip, what, dir, flags};
    TS_TRY(em_ts_zip_get(L->zip, record, &s));
    ember_status *st = em_ts_pickle_load(em_storage_data(s), em_storage_size(s), what,
                                         em_ts_zip_record, &rc, L->al, out);
    em_storage_release(s);
    int proto = st == NULL ? em_ts_pickle_protocol(*out) : 2;
    if (proto != 2) { /* torch.jit.save's pickler writes protocol 2, always */
        st = proto < 0 ? em_status_new(EMBER_ERR_INVALID_MODEL, "%s: a pickle without a PROTO "
                                       "opcode (protocol 0 or 1); torch.jit.save writes "
                                       "protocol 2", what)
                       : em_status_new(EMBER_ERR_INVALID_MODEL, "%s: pickle protocol %d; "
                                       "torch.jit.save writes protocol 2", what, proto);
        em_ts_pickle_free(*out);
        *out = NULL;
    }
    return st;
}

/* Declares forward()'s parameters after self as graph inputs. */
static ember_status *add_inputs(ts_lower *L, const em_ts_func *fwd, const em_load_args *a,
                                ts_av ***args, size_t *n_args)
{
    const em_input_spec *spec = a->inputs;
    size_t n_spec = a->n_inputs;
    size_t n = fwd->n_params > 0 ? fwd->n_params - 1 : 0;
    *args = em_ts_arena_alloc(&L->arena, (n + 1) * sizeof(ts_av *));
    if (*args == NULL) {
        return em_status_oom();
    }
    *n_args = n;
    for (size_t i = 0; i < n; i++) {
        const em_ts_param *p = &fwd->params[i + 1];
        bool tensor = p->type != NULL && (em_ts_expr_is_dotted(p->type, "Tensor"));
        if (!tensor) {
            if (p->def != NULL) {
                ts_env empty = {0};
                TS_TRY(em_ts_eval(L, &empty, p->def, &(*args)[i]));
                continue;
            }
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, p->pos, "forward() argument '%s' is not a "
                          "Tensor and has no default: only Tensor inputs are supported",
                          p->name);
        }
        ember_dtype dt = EMBER_DTYPE_F32;
        int rank = -1;
        if (i < n_spec) {
            dt = spec[i].dtype != EMBER_DTYPE_UNDEFINED ? spec[i].dtype : dt;
            rank = spec[i].rank;
        }
        if (rank > EMBER_MAX_RANK) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "%s: input %zu: rank %d is above %d",
                                 L->what, i, rank, EMBER_MAX_RANK);
        }
        /* Every dim symbolic (the graph serves any shape of this rank) unless the caller fixed
         * it (ember_model_options_set_input_shape): then x.size(d) lowers to a constant. */
        int64_t dims[EMBER_MAX_RANK];
        const char *names[EMBER_MAX_RANK];
        size_t at = (size_t)L->root->n_inputs;
        if (rank < 0) { /* a fixed shape gives the rank */
            TS_TRY(em_load_fix_input(a, L->what, at, p->name, &rank, dims, names));
        }
        for (int d = 0; d < rank; d++) {
            dims[d] = -1;
            names[d] = em_ts_printf(L, "%s_%d", p->name, d);
            if (names[d] == NULL) {
                return em_status_oom();
            }
        }
        TS_TRY(em_load_fix_input(a, L->what, at, p->name, &rank, dims, names));
        int v = -1;
        TS_TRY(em_graph_add_input(L->root, p->name, dt, rank, dims, names, &v));
        (*args)[i] = em_ts_tensor(L, v);
        if ((*args)[i] == NULL) {
            return em_status_oom();
        }
    }
    return NULL;
}

/* Flattens forward()'s result into graph outputs named output_<i>. None items of a returned
 * tuple are skipped (scripted GoogLeNet returns (logits, None, None) without aux heads). */
static ember_status *add_outputs(ts_lower *L, ts_av *r, int *count)
{
    if (r->k == TA_NONE) {
        return NULL;
    }
    if (r->k == TA_TUPLE || r->k == TA_LIST) {
        for (size_t i = 0; i < r->u.seq.n; i++) {
            TS_TRY(add_outputs(L, r->u.seq.items[i], count));
        }
        return NULL;
    }
    if (r->k == TA_DICT) {
        for (size_t i = 0; i < r->u.dict.n; i++) {
            TS_TRY(add_outputs(L, r->u.dict.vals[i], count));
        }
        return NULL;
    }
    ts_call c = {.op = "output", .node = "output"};
    int v = -1, o = -1, node = -1;
    TS_TRY(em_ts_as_tensor(L, &c, r, EMBER_DTYPE_UNDEFINED, &v));
    char name[32];
    snprintf(name, sizeof name, "output_%d", (*count)++);
    const char *names[1] = {name};
    TS_TRY(em_graph_add_node(L->root, EM_OP_IDENTITY, name, &v, 1, names, 1, &node));
    o = L->root->nodes[node].out[0];
    TS_TRY(em_graph_infer_node(L->root, node));
    return em_graph_mark_output(L->root, o);
}

/* ---- the module tree (metadata "torchscript.modules") ---- */

#define TS_TREE_MAX_DEPTH 32

static int64_t tensor_numel(const em_tsv *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->u.t.rank; d++) {
        n *= t->u.t.sizes[d];
    }
    return n;
}

/* Appends one line per module under `obj` (depth-first, attributes in pickled order) and
 * returns the parameters of the subtree in *total. A module is an object whose class has code
 * and derives from Module; its parameters are the tensors named in __parameters__. */
static ember_status *tree(ts_lower *L, const em_tsv *obj, const char *attr, int depth,
                          em_strbuf *sb, int64_t *total)
{
    ts_av *cls = NULL;
    em_ts_pos nopos = {0};
    *total = 0;
    TS_TRY(em_ts_resolve(L, obj->u.obj.cls, nopos, &cls));
    const em_ts_class *c = cls != NULL && cls->k == TA_CLASS ? cls->u.cls.cls : NULL;
    if (c == NULL || c->base != EM_TS_BASE_MODULE || depth > TS_TREE_MAX_DEPTH) {
        return NULL;
    }
    int64_t own = 0;
    for (size_t i = 0; i < c->n_parameters; i++) {
        const em_tsv *t = em_tsv_dict_get(obj->u.obj.state, c->parameters[i]);
        own += t != NULL && t->kind == EM_TSV_TENSOR ? tensor_numel(t) : 0;
    }
    /* The subtree's count is known only after the children: write them aside first. */
    em_strbuf kids;
    em_strbuf_init(&kids, L->al);
    const em_tsv *st = obj->u.obj.state;
    ember_status *err = NULL;
    int64_t sub = 0;
    for (size_t i = 0; st != NULL && st->kind == EM_TSV_DICT && i < st->u.dict.n && err == NULL;
         i++) {
        const em_tsv *k = st->u.dict.keys[i], *v = st->u.dict.values[i];
        if (k->kind == EM_TSV_STR && v->kind == EM_TSV_OBJECT) {
            int64_t n = 0;
            err = tree(L, v, k->u.str.s, depth + 1, &kids, &n);
            sub += n;
        }
    }
    *total = own + sub;
    const char *short_cls = strrchr(obj->u.obj.cls, '.');
    if (err == NULL && kids.failed) {
        err = em_status_oom();
    }
    if (err == NULL) {
        em_strbuf_printf(sb, "%*s%s %s params=%lld\n", 2 * depth, "", attr,
                         short_cls != NULL ? short_cls + 1 : obj->u.obj.cls,
                         (long long)*total);
        em_strbuf_printf(sb, "%s", kids.len > 0 ? kids.data : "");
    }
    em_strbuf_free(&kids);
    return err;
}

static ember_status *set_metadata(ts_lower *L, const em_tsv *root)
{
    char version[24];
    snprintf(version, sizeof version, "%lld", (long long)em_ts_zip_version(L->zip));
    TS_TRY(em_graph_set_meta(L->root, "torchscript.version", version));
    TS_TRY(em_graph_set_meta(L->root, "torchscript.root", root->u.obj.cls));
    em_strbuf sb;
    em_strbuf_init(&sb, L->al);
    int64_t total = 0;
    ember_status *st = tree(L, root, "<root>", 0, &sb, &total);
    if (st == NULL && sb.failed) {
        st = em_status_oom();
    }
    if (st == NULL) {
        st = em_graph_set_meta(L->root, "torchscript.modules", sb.len > 0 ? sb.data : "");
    }
    em_strbuf_free(&sb);
    return st;
}

/* The records torch.jit.load needs besides the version (checked by em_ts_zip_open):
 * constants.pkl and data.pkl (the code of each class is looked for when the class is used),
 * and, when torch 2.x wrote one, a byteorder record that says "little". */
static ember_status *check_records(ts_lower *L)
{
    static const char *const required[] = {"constants.pkl", "data.pkl"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!em_ts_zip_has(L->zip, required[i])) { /* torch.jit.save always writes both */
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: the archive has no %s record",
                                 L->what, required[i]);
        }
    }
    if (!em_ts_zip_has(L->zip, "byteorder")) { /* before torch 2.1: little-endian */
        return NULL;
    }
    em_storage *s = NULL;
    TS_TRY(em_ts_zip_get(L->zip, "byteorder", &s));
    const char *p = em_storage_data(s);
    size_t n = em_storage_size(s);
    ember_status *st = NULL;
    if (n == 3 && memcmp(p, "big", 3) == 0) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED, "%s: record byteorder: the storages are "
                           "big-endian; ember reads little-endian archives", L->what);
    } else if (n != 6 || memcmp(p, "little", 6) != 0) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: record byteorder holds neither "
                           "'little' nor 'big'", L->what);
    }
    em_storage_release(s);
    return st;
}

/* data.pkl's root: an object of a class under __torch__ (torch.jit.save pickles the module
 * itself) that derives from Module when its code is found (a class without code is refused
 * when the object is converted, em_ts_from_tsv). */
static ember_status *check_root(ts_lower *L, const em_tsv *root)
{
    if (root->kind != EM_TSV_OBJECT) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: data.pkl holds a %s, not a module",
                             L->what, em_tsv_kind_name(root->kind));
    }
    if (strncmp(root->u.obj.cls, "__torch__.", 10) != 0) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: data.pkl holds an object of class "
                             "'%s', not of a scripted module's class (__torch__.*)", L->what,
                             root->u.obj.cls);
    }
    ts_av *cls = NULL;
    em_ts_pos nopos = {0};
    TS_TRY(em_ts_resolve(L, root->u.obj.cls, nopos, &cls));
    const em_ts_class *c = cls != NULL && cls->k == TA_CLASS ? cls->u.cls.cls : NULL;
    if (c != NULL && c->base != EM_TS_BASE_MODULE) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: data.pkl holds an object of class "
                             "'%s', which is not a Module", L->what, root->u.obj.cls);
    }
    return NULL;
}

ember_status *em_ts_load(const em_load_args *a, em_graph *g)
{
    ember_status *st = NULL;
    const char *path = a->path;
    const unsigned storage_flags = a->trust_checksums ? EM_TS_ZIP_TRUST_CRC : 0;
    ts_lower L = {0};
    em_ts_zip *zip = NULL;
    em_ts_pickle *consts = NULL, *data = NULL;
    L.al = g->al;
    L.what = path != NULL ? path : "<memory>";
    L.root = L.g = g;
    L.path = "";
    em_ts_arena_init(&L.arena, g->al);
    L.ast = em_ts_ast_arena_new(g->al);
    if (L.ast == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(em_ts_zip_open(a->image, L.what, g->al, &zip));
    L.zip = zip;
    if (em_ts_zip_has(zip, "model.json")) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED, "%s: a PyTorch 1.0-1.2 archive (model.json); "
                           "save it again with a newer torch.jit.save", L.what);
        goto fail;
    }
    EMBER_TRY(check_records(&L));
    EMBER_TRY(read_pickle(&L, "constants.pkl", "constants", storage_flags, &consts));
    L.constants = em_ts_pickle_root(consts);
    if (L.constants->kind != EM_TSV_TUPLE) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: constants.pkl holds a %s, not a tuple",
                           L.what, em_tsv_kind_name(L.constants->kind));
        goto fail;
    }
    EMBER_TRY(read_pickle(&L, "data.pkl", "data", storage_flags, &data));
    const em_tsv *root = em_ts_pickle_root(data);
    EMBER_TRY(check_root(&L, root));
    EMBER_TRY(em_ts_typecheck_objects(&L, root));
    EMBER_TRY(set_metadata(&L, root));
    ts_av *self = NULL, *fwd = NULL, **args = NULL, *result = NULL;
    em_ts_pos nopos = {0};
    EMBER_TRY(em_ts_from_tsv(&L, root, "", &self));
    EMBER_TRY(em_ts_obj_get(&L, self, "forward", nopos, &fwd));
    if (fwd->k != TA_FUNC) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "%s: the root module's forward is not a "
                           "method", L.what);
        goto fail;
    }
    size_t n_args = 0;
    EMBER_TRY(add_inputs(&L, fwd->u.fn.fn, a, &args, &n_args));
    /* A fixed shape that names no argument of forward() fails here, before lowering. */
    EMBER_TRY(em_load_fix_graph(a, L.what, L.root));
    EMBER_TRY(em_ts_call_func(&L, fwd, args, n_args, NULL, NULL, 0, fwd->u.fn.fn->pos, &result));
    int count = 0;
    EMBER_TRY(add_outputs(&L, result, &count));
    if (count == 0) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED, "%s: forward() returns no tensor", L.what);
        goto fail;
    }
fail:
    em_ts_pickle_free(data);
    em_ts_pickle_free(consts);
    em_ts_zip_close(zip);
    em_ts_ast_arena_free(L.ast);
    em_ts_arena_free(&L.arena);
    return st;
}
