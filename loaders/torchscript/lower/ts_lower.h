/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript archives, layer 4: lowering forward() into the graph by partial evaluation
 * (internal to loaders/torchscript; the design is docs/torchscript.md).
 *
 * The evaluator runs the serialized code the way Python would, over abstract values (ts_av):
 * everything that does not depend on the input tensors' data is computed at load time
 * (module attributes, scalars, lists, `training == False` branches, shape checks on known
 * ranks), and every operation on tensors becomes a node of the graph. A scalar computed from
 * tensor data or from a symbolic dim (torch.size(x, 0) of a batch dim) is a "dynamic scalar":
 * a 0-d graph value, with its arithmetic emitted as nodes too. Control flow whose condition
 * is known is taken at load time; a condition that depends on data becomes an If node, and
 * a loop whose trip count or condition depends on data a Loop node, with subgraphs.
 * Threads: one ts_lower per load; no state outside it.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_LOWER_H
#define EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_LOWER_H

#include "ir/graph.h"
#include "core/status.h"
#include "loaders/torchscript/archive/ts_arena.h"
#include "loaders/torchscript/lang/ts_ast.h"
#include "loaders/torchscript/lang/ts_check.h"
#include "loaders/torchscript/archive/ts_pickle.h"
#include "loaders/torchscript/archive/ts_zip.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest call nesting of serialized functions (recursion in a hostile archive). */
#define TS_MAX_CALL_DEPTH 64
/* Most loop iterations unrolled at load time (a loop with a known trip count above it, or a
 * while loop running longer, is refused as likely endless). */
#define TS_MAX_UNROLL 100000

/* Evaluates `expr`; returns its status from the calling function when it fails. */
#define TS_TRY(expr) EM_RETURN_IF_ERROR(expr)

typedef enum ts_ak {
    TA_NONE = 0,
    TA_BOOL,
    TA_INT,
    TA_FLOAT,
    TA_STR,
    TA_DEVICE,  /* u.str: "cpu", "cuda:0" */
    TA_TUPLE,   /* u.seq */
    TA_LIST,    /* u.seq (mutable: append and item assignment change it in place) */
    TA_DICT,    /* u.dict */
    TA_TENSOR,  /* u.t: a graph value */
    TA_SCALAR,  /* u.t: a dynamic scalar, a 0-d graph value of dtype I64, F64 or BOOL */
    TA_OBJECT,  /* u.obj: a module or class instance */
    TA_FUNC,    /* u.fn: a serialized function or method (bound to self when a method) */
    TA_CLASS,   /* u.cls: a serialized class, by qualified name */
    TA_NS,      /* u.str: a dotted name of the builtin namespaces ("torch.add", "ops.prim") */
    TA_UNINIT,  /* uninitialized(T): a value on a path that raises */
    TA_STACK,   /* u.t: a list of tensors whose length is known only at run time (appended in a
                   loop on tensor data), held as their stack: axis 0 indexes the list */
    TA_APPENDING /* u.seq: a list the body of a loop on tensor data appends to, while that body
                    is lowered (u.seq: this iteration's items); other uses are refused */
} ts_ak;

typedef struct ts_av ts_av;
typedef struct ts_obj ts_obj;

/* A quantized tensor's parameters (torch's affine schemes): scale (F32) and zero point (the
 * tensor's integer dtype) as values of graph g, 0-d or, per channel, 1-D along `axis`. */
typedef struct ts_qinfo {
    int scale, zero_point;
    int axis; /* -1: per tensor */
    em_graph *g;
} ts_qinfo;

struct ts_av {
    ts_ak k;
    union {
        bool b;
        int64_t i;
        double f;
        struct { const char *s; size_t n; } str;
        struct { ts_av **items; size_t n, cap; } seq;
        struct { ts_av **keys, **vals; size_t n, cap; } dict;
        struct {
            int v;                /* value index in graph g (the root or a subgraph) */
            em_graph *g;
            const ts_qinfo *q;    /* quantized tensors (integer values): their parameters */
            const struct ts_view *view; /* a slice of another tensor, or NULL */
        } t;
        ts_obj *obj;
        struct { const em_ts_func *fn; ts_av *self; const char *qual; } fn;
        struct { const char *qual; const em_ts_class *cls; } cls;
    } u;
};

/* A tensor that is a step-1 slice of `base` along `dim` (aten::slice, bounds lo and hi as
 * its call gave them): an in-place op on it writes its result into base too (em_ts_set_inplace,
 * ts_ops_nn.c), as it would through torch's view. */
typedef struct ts_view {
    ts_av *base;
    int64_t dim;
    const ts_av *lo, *hi; /* ints or dynamic scalars */
} ts_view;

/* An object: a module or class instance from the pickle (state: its attribute dict) or made
 * by code (T.__new__(T)); attribute writes go to the overlay. */
struct ts_obj {
    const char *qual;         /* "__torch__.torchvision.models.resnet.BasicBlock" */
    const em_ts_class *cls;   /* NULL when the class has no code (custom C++ classes) */
    const em_tsv *state;      /* attribute dict, or NULL */
    const char *path;         /* module path for names: "layer1.0.conv1" ("" for the root) */
    const char **names;       /* overlay */
    ts_av **vals;
    size_t n, cap;
};

/* A variable scope: one per function call. */
typedef struct ts_env {
    const char **names;
    ts_av **vals;
    size_t n, cap;
} ts_env;

/* An operator call bound to a schema: arguments in schema order, defaults filled. */
typedef struct ts_call {
    const char *op;       /* "aten::conv2d" */
    const char *overload; /* "" or "Tensor", "int", ... */
    ts_av **a;
    size_t n;
    em_ts_pos pos;
    const char *node;     /* node name for emitted nodes */
} ts_call;

typedef struct ts_code_file ts_code_file;

typedef struct ts_lower {
    const ember_allocator *al;
    em_ts_arena arena;          /* abstract values, environments, strings */
    em_ts_ast_arena *ast;       /* parsed code */
    const em_ts_zip *zip;
    const char *what;           /* the file, for messages */
    em_graph *root;             /* the graph being built */
    em_graph *g;                /* the graph nodes go to now (root or a subgraph) */
    em_graph **frames;          /* enclosing graphs of g, outermost (root) first */
    int n_frames;
    const em_tsv *constants;    /* constants.pkl: a tuple */
    ts_code_file *files;        /* parsed code files, by record name */
    const struct em_ts_schema **schemas; /* ts_bind.c: the built-in schemas parsed on first use
                                            (NULL until then; one entry per schema) */
    int depth;                  /* call depth */
    int64_t counter;            /* for unique value names */
    const char *path;           /* current module path, for node names */
    bool checking;              /* ts_load.c: the code checks of parsed records are running */
    em_ts_map tc_classes;       /* ts_typecheck.c: classes by qualified name, */
    em_ts_map tc_index;         /* and their members by name */
    /* Objects made from pickled ones, by state pointer, and converted pickled values. */
    const void **memo_keys;
    ts_av **memo_vals;
    size_t n_memo, cap_memo;
} ts_lower;

/* ---- values (ts_value.c) ---- */
ts_av *em_ts_new(ts_lower *L, ts_ak k);
ts_av *em_ts_none(ts_lower *L);
ts_av *em_ts_bool(ts_lower *L, bool b);
ts_av *em_ts_int(ts_lower *L, int64_t i);
ts_av *em_ts_float(ts_lower *L, double f);
ts_av *em_ts_str(ts_lower *L, const char *s, size_t n);
ts_av *em_ts_tensor(ts_lower *L, int v);
ts_av *em_ts_seq(ts_lower *L, ts_ak k, size_t n); /* TUPLE or LIST of n NULL items */
ember_status *em_ts_list_append(ts_lower *L, ts_av *list, ts_av *item);
const char *em_ts_kind_name(ts_ak k);
/* The pickled value as an abstract one (tensors become initializers; objects keep identity). */
ember_status *em_ts_from_tsv(ts_lower *L, const em_tsv *v, const char *path, ts_av **out);
char *em_ts_strdup(ts_lower *L, const char *s);
char *em_ts_printf(ts_lower *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
ember_status *em_ts_env_set(ts_lower *L, ts_env *e, const char *name, ts_av *v);
ts_av *em_ts_env_get(const ts_env *e, const char *name);
ember_status *em_ts_obj_set(ts_lower *L, ts_obj *o, const char *name, ts_av *v);
/* Attribute `name` of an object: overlay, then state, then class constants and methods. */
ember_status *em_ts_obj_get(ts_lower *L, ts_av *obj, const char *name, em_ts_pos pos, ts_av **out);

/* ---- code (ts_lower.c) ---- */
/* The class or function of a qualified name ("__torch__.a.b.C"): parses its file on first use. */
ember_status *em_ts_resolve(ts_lower *L, const char *qual, em_ts_pos pos, ts_av **out);

/* ---- checks like torch.jit.load's (ts_typecheck.c; the design is at the top of the file) ----
 * Errors are INVALID_MODEL at the source line, with a caret. */
/* The classes and functions of one parsed record; `qual` is its qualifier ("__torch__.a.b"
 * for code/__torch__/a/b.py). Other records are parsed as their classes are named. */
ember_status *em_ts_typecheck_module(ts_lower *L, const em_ts_module *m, const char *qual);
/* Every object of data.pkl (from `root`) against its class's attribute declarations. */
ember_status *em_ts_typecheck_objects(ts_lower *L, const em_tsv *root);

/* ---- evaluation (ts_eval.c) ---- */
ember_status *em_ts_call_func(ts_lower *L, const ts_av *fn, ts_av **args, size_t n_args,
                           const char **kw_names, ts_av **kw_vals, size_t n_kw, em_ts_pos pos,
                           ts_av **out);
ember_status *em_ts_eval(ts_lower *L, ts_env *env, const em_ts_expr *e, ts_av **out);

/* ---- graph building (ts_emit.c) ---- */
/* A fresh value name ("<base>.<n>"). */
const char *em_ts_value_name(ts_lower *L, const char *base);
/* Adds node `op` with inputs `in` (-1: absent) and `n_out` fresh outputs (written to out[]),
 * then infers its shapes. `*node` (may be NULL) gets the node index for attributes. */
ember_status *em_ts_emit(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                      int *out, int n_out, int *node);
/* Shape inference after attributes were set on node `node`. */
ember_status *em_ts_infer(ts_lower *L, const ts_call *c, int node);
/* A constant initializer. */
ember_status *em_ts_const(ts_lower *L, ember_dtype dt, int rank, const int64_t *dims,
                       const void *data, int *out);
ember_status *em_ts_const_i64s(ts_lower *L, const int64_t *v, int64_t n, int *out);
ember_status *em_ts_const_scalar(ts_lower *L, ember_dtype dt, double v, int *out);
/* The number of dtype dt at p (floats, integers, bools) as a double; false for other dtypes
 * (ts_value.c). */
bool em_ts_number_at(ember_dtype dt, const void *p, double *v);
/* The value of tensor or dynamic scalar `a` in the current graph: a value of an enclosing
 * graph is captured as an extra input of each subgraph in between, bound by name. */
ember_status *em_ts_use(ts_lower *L, const ts_av *a, int *out);
/* The tensor of an abstract value: tensors as they are, numbers and dynamic scalars as 0-d
 * tensors (of dtype `like` when given, else I64 / F32 / BOOL). */
ember_status *em_ts_as_tensor(ts_lower *L, const ts_call *c, const ts_av *a, ember_dtype like,
                           int *out);
/* An int list (known ints and dynamic scalars mixed) as a 1-D int64 tensor. */
ember_status *em_ts_int_list_tensor(ts_lower *L, const ts_call *c, const ts_av *list, int *out);
const em_value *em_ts_val(ts_lower *L, int v);

/* ---- errors ---- */
ember_status *em_ts_err(ts_lower *L, ember_code code, em_ts_pos pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- operators (ts_ops.c and ts_ops_*.c) ---- */
/* Lowers a call of builtin `qual` ("torch.add", "ops.prim.NumToTensor", "int", "len"...). */
ember_status *em_ts_builtin_call(ts_lower *L, const char *qual, ts_av **args, size_t n_args,
                              const char **kw_names, ts_av **kw_vals, size_t n_kw,
                              em_ts_pos pos, ts_av **out);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LOWER_TS_LOWER_H */
