/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TorchScript types: one structure for the three places types are written.
 *   - annotations in the code (`x: Optional[Tensor]`, `annotate(List[int], [])`): expressions
 *     of ts_ast.h, converted by em_ts_type_from_expr;
 *   - the type tags of pickled containers (restore_type_tag: "Dict[str, Tensor]",
 *     "List[Optional[Tensor]]", "Tuple[int, List[float]]", "__torch__.foo.Bar"), parsed by
 *     em_ts_type_parse (c10's annotation_str spellings);
 *   - operator schemas ("int[2]", "Tensor?[]", "Dict(str, t)", "(Tensor, Tensor)"), parsed by
 *     ts_schema.h into the same structure.
 * Names: Tensor int float complex bool str number NoneType (or None) Any Device DeviceIndex
 * Generator Stream Storage QScheme Layout ScalarType MemoryFormat Dimname Capsule AnyClassType
 * AnyEnumType SymInt SymFloat SymBool Quantizer ConstQuantizerPtr (schema: Scalar = number);
 * generics List Dict Tuple Optional Union Future RRef Await (Tuple[()] is the empty tuple); a
 * dotted name is a class (modules, TorchScript classes, NamedTuples, Enums, interfaces,
 * TorchBind classes); another lowercase name is a type variable ("t", "t1"). Final[T] is T (the
 * annotation of a class constant). Other names are refused.
 * Types live in an em_ts_ast_arena (ts_ast.h). Threads: reentrant.
 */
#ifndef EMBER_LOADERS_TORCHSCRIPT_LANG_TS_TYPE_H
#define EMBER_LOADERS_TORCHSCRIPT_LANG_TS_TYPE_H

#include "ts_ast.h"

/* Kind, spelling (annotation_str), and number of item types (-1: any number). */
/* clang-format off */
#define EM_TS_TYPE_KINDS(X)                                                                    \
    X(TENSOR, "Tensor", 0) X(INT, "int", 0) X(FLOAT, "float", 0) X(COMPLEX, "complex", 0)      \
    X(BOOL, "bool", 0) X(STR, "str", 0) X(NUMBER, "number", 0) X(NONE, "NoneType", 0)          \
    X(ANY, "Any", 0) X(DEVICE, "Device", 0) X(DEVICE_INDEX, "DeviceIndex", 0)                 \
    X(GENERATOR, "Generator", 0) X(STREAM, "Stream", 0) X(STORAGE, "Storage", 0)               \
    X(QSCHEME, "QScheme", 0)                                                                   \
    X(LAYOUT, "Layout", 0) X(SCALAR_TYPE, "ScalarType", 0)                                     \
    X(MEMORY_FORMAT, "MemoryFormat", 0) X(DIMNAME, "Dimname", 0) X(CAPSULE, "Capsule", 0)      \
    X(ANY_CLASS, "AnyClassType", 0) X(ANY_ENUM, "AnyEnumType", 0) X(SYMINT, "SymInt", 0)       \
    X(SYMFLOAT, "SymFloat", 0) X(SYMBOOL, "SymBool", 0) X(QUANTIZER, "Quantizer", 0)           \
    X(CONST_QUANTIZER, "ConstQuantizerPtr", 0) X(LIST, "List", 1) X(DICT, "Dict", 2)           \
    X(TUPLE, "Tuple", -1) X(OPTIONAL, "Optional", 1) X(UNION, "Union", -1)                     \
    X(FUTURE, "Future", 1) X(RREF, "RRef", 1) X(AWAIT, "Await", 1) X(CLASS, NULL, 0)           \
    X(VAR, NULL, 0)
/* clang-format on */

typedef enum em_ts_type_kind {
#define EM_TS_X_(id, text, n) EM_TS_TY_##id,
    EM_TS_TYPE_KINDS(EM_TS_X_)
#undef EM_TS_X_
        EM_TS_TY_COUNT_
} em_ts_type_kind;

typedef struct em_ts_type em_ts_type;
struct em_ts_type {
    em_ts_type_kind kind;
    const char *name;   /* CLASS: qualified name ("__torch__.a.B"); VAR: "t"; else NULL */
    em_ts_type **items; /* LIST, OPTIONAL, FUTURE, RREF, AWAIT: [elem]; DICT: [key, value]; */
    size_t n_items;     /* TUPLE, UNION: the members (TUPLE may have none) */
};

/* The first item (element of LIST/OPTIONAL/..., key of DICT); NULL when there is none. */
static inline const em_ts_type *em_ts_type_elem(const em_ts_type *t)
{
    return t->n_items > 0 ? t->items[0] : NULL;
}

/* A new type with room for n_items item pointers (zeroed); NULL when out of memory. */
em_ts_type *em_ts_type_new(em_ts_ast_arena *a, em_ts_type_kind kind, size_t n_items);
/* "Tensor", "List", ... (NULL for CLASS and VAR). */
const char *em_ts_type_kind_name(em_ts_type_kind kind);
/* The kind a simple or generic name spells ("None", "NoneType", "Scalar" too); false when
 * the name is none of them (then a dotted name is a CLASS, a lowercase one a VAR). */
bool em_ts_type_kind_from_name(const char *name, em_ts_type_kind *kind);
/* Number of item types a kind takes: 0, 1, 2, or -1 for any (TUPLE, UNION). */
int em_ts_type_kind_arity(em_ts_type_kind kind);

/*
 * Parses the annotation text s[0..n) (surrounding spaces allowed). `what` names it in messages
 * ("data.pkl: type tag"). Returns INVALID_MODEL with a caret message for malformed text or an
 * unknown name, OUT_OF_MEMORY; on success *out lives in `a`.
 */
ember_status *em_ts_type_parse(em_ts_ast_arena *a, const char *s, size_t n, const char *what,
                               em_ts_type **out);

/* Converts an annotation expression of parsed code; errors point at the expression. */
ember_status *em_ts_type_from_expr(em_ts_ast_arena *a, const em_ts_expr *e, em_ts_type **out);

/* Appends the type in annotation_str form ("Dict[str, List[int]]", "Tuple[()]"); a NULL type
 * or item (a type only partly known, ts_typecheck.c's) as "?". */
void em_ts_type_print(em_strbuf *sb, const em_ts_type *t);
/* Structural equality (class and variable names compared as strings). */
bool em_ts_type_equal(const em_ts_type *x, const em_ts_type *y);

#endif /* EMBER_LOADERS_TORCHSCRIPT_LANG_TS_TYPE_H */
