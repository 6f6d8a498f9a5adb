/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The math family's elementwise engine (math_ew_ref.c), shared by its math_*_ref.c files. Its
 * entry points, like every kernel's, are declared by ref.h from the kernel lists
 * (kernels_math.def). Included by ref.h.
 *
 * Every math op runs on the engine: one prepare (em_math_prepare__ref) and one run
 * (em_math__ref) for all of them, registered with dtype UNDEFINED (the prepare checks the
 * dtypes each op accepts) or, for Add/Sub/Mul/Div/Relu/Sigmoid/Tanh, once per dtype that
 * math_eltwise_ref.c does not cover.
 *
 * The engine computes in three value domains: double for f16/bf16/f32/f64, int64_t for signed
 * integers and uint64_t for unsigned integers and bool. Inputs are loaded block by block into
 * their domain, an op function maps the blocks, and the result is stored into the output dtype
 * with the conversion rules of ONNX Cast (em_math_store). The op table of each source file
 * (em_math_unary_def, em_math_binary_def) says per op which dtypes, output dtype and
 * broadcasting rule apply.
 */
#ifndef EMBER_KERNELS_REF_MATH_REF_H
#define EMBER_KERNELS_REF_MATH_REF_H

#include "plan/kernel.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- Engine internals shared by the math_*_ref.c files ----------------------------------- */

enum {
    EM_MATH_BLOCK = 64, /* elements per block handed to an op function */
    EM_MATH_MAX_IN = 16 /* inputs of a variadic op (Sum, Max, ...) */
};

typedef enum em_math_dom { EM_MATH_F = 0, EM_MATH_I, EM_MATH_U } em_math_dom;

typedef union em_math_blk {
    double f[EM_MATH_BLOCK];
    int64_t i[EM_MATH_BLOCK];
    uint64_t u[EM_MATH_BLOCK];
} em_math_blk;

/* Which inputs decide the output shape. */
typedef enum em_math_bc {
    EM_MATH_BC_MULTI = 0, /* numpy broadcasting of every input */
    EM_MATH_BC_UNI,       /* input 1 broadcasts to input 0, whose shape the output has (PRelu) */
    EM_MATH_BC_SCALARS,   /* inputs >= 1 hold one element each (Clip's min and max) */
    EM_MATH_BC_FIRST      /* inputs >= 1 are neither read nor shape the output (CastLike) */
} em_math_bc;

/* How the inputs' dtypes relate (checked in prepare). */
typedef enum em_math_in {
    EM_MATH_IN_SAME = 0, /* every input has input 0's dtype */
    EM_MATH_IN_FREE,     /* input 1 any dtype in `dtypes1` (Pow's exponent, CastLike's target) */
    EM_MATH_IN_WHERE     /* input 0 bool, inputs 1 and 2 one dtype in `dtypes` */
} em_math_in;

/* The output dtype. */
typedef enum em_math_out {
    EM_MATH_OUT_SAME = 0, /* input 0's dtype */
    EM_MATH_OUT_BOOL,
    EM_MATH_OUT_IN1, /* input 1's dtype (Where, CastLike) */
    EM_MATH_OUT_ATTR /* set by the op's attribute parser (Cast's 'to') */
} em_math_out;

/* Per-node attributes, parsed once in prepare. Each op documents the fields it uses. */
typedef struct em_math_attrs {
    double alpha, beta, gamma; /* activations, Shrink (lambd, bias) */
    int64_t mode;              /* Mod: fmod; BitShift: 1 = left; IsInf: bit 0 neg, bit 1 pos */
} em_math_attrs;

struct em_math_state;
/* Maps n elements of the input blocks x[i] (NULL for absent inputs) into y. */
typedef void (*em_math_fn)(const struct em_math_state *s, const em_math_blk *const *x,
                           em_math_blk *y, int n);

typedef struct em_math_opdef {
    em_op op;
    uint32_t dtypes;  /* accepted dtypes of input 0 (Where: of X and Y), bit 1u << dtype */
    uint32_t dtypes1; /* EM_MATH_IN_FREE: accepted dtypes of input 1 */
    em_math_in in;
    em_math_out out;
    em_math_bc bc;
    em_math_fn fn;
    /* Optional: reads attributes into s->at, may set s->y_dt / s->y_dom; checks input values
     * rules the table cannot express. */
    ember_status *(*parse)(const em_kinfo *ki, struct em_math_state *s);
} em_math_opdef;

/* The kernel state: the op, its dtypes and domains, and the broadcasting plan. */
typedef struct em_math_state {
    const em_math_opdef *def;
    int n_in;
    bool present[EM_MATH_MAX_IN];
    ember_dtype in_dt[EM_MATH_MAX_IN];
    em_math_dom in_dom[EM_MATH_MAX_IN];
    ember_dtype y_dt;
    em_math_dom y_dom; /* the domain the op function writes; em_math_store converts */
    em_math_attrs at;
    int rank; /* >= 1 after merging axes */
    int64_t dims[EM_MAX_RANK];
    int64_t strides[EM_MATH_MAX_IN][EM_MAX_RANK]; /* elements; 0 along broadcast axes */
    int64_t numel;
} em_math_state;

/* Dtype masks. */
#define EM_MATH_BIT(dt) (1u << EMBER_DTYPE_##dt)
#define EM_MATH_FLOATS (EM_MATH_BIT(F32) | EM_MATH_BIT(F64) | EM_MATH_BIT(F16) | EM_MATH_BIT(BF16))
#define EM_MATH_SINTS (EM_MATH_BIT(I8) | EM_MATH_BIT(I16) | EM_MATH_BIT(I32) | EM_MATH_BIT(I64))
#define EM_MATH_UINTS (EM_MATH_BIT(U8) | EM_MATH_BIT(U16) | EM_MATH_BIT(U32) | EM_MATH_BIT(U64))
#define EM_MATH_NUMERIC (EM_MATH_FLOATS | EM_MATH_SINTS | EM_MATH_UINTS)
#define EM_MATH_ALL (EM_MATH_NUMERIC | EM_MATH_BIT(BOOL))

/* The op tables of math_unary_ref.c and math_binary_ref.c: the entry of `op` or NULL. */
const em_math_opdef *em_math_unary_def(em_op op);
const em_math_opdef *em_math_binary_def(em_op op);
/* The tables of math_bits_ref.c (BitwiseAnd/Or/Xor/Not) and math_act_ref.c (Gelu, Swish,
 * SwiGLU): the entry of `op` or NULL. */
const em_math_opdef *em_math_bits_def(em_op op);
const em_math_opdef *em_math_act_def(em_op op);

/* v rounded to the nearest value of float dtype dt (f16 / bf16 to nearest even; f64 and other
 * dtypes: v itself), for kernels that follow a reference rounding intermediates (math_act_ref.c).
 */
double em_math_round(ember_dtype dt, double v);

/* The domain values of a dtype are computed in. */
em_math_dom em_math_dom_of(ember_dtype dt);

/* IEEE half and bfloat16 from and to double; the narrowing rounds to nearest even, overflows
 * to infinity and keeps NaN (quiet) and the sign. */
double em_math_f16_to_double(uint16_t h);
uint16_t em_math_f16_from_double(double x);
double em_math_bf16_to_double(uint16_t h);
uint16_t em_math_bf16_from_double(double x);

/* ONNX Cast of one double to an integer type: truncation toward zero; the spec leaves values
 * out of range undefined, ember saturates them and maps NaN to 0 (no UB in C). */
int64_t em_math_double_to_i(double v, int64_t lo, int64_t hi);
uint64_t em_math_double_to_u(double v, uint64_t hi);

#endif
