/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry points of the text family's reference kernels (kernels_text.def): string tensors
 * (runtime/core/strtensor.h) and text ops. Included by ref.h.
 *
 * Strings run only in the interpreter, where prepare sees every input's data: kernels whose
 * output is not a string (Cast from string, RegexFullMatch's bool, TfIdfVectorizer's floats)
 * check the data there when it is present (an unparsable number fails the node, naming the
 * element); kernels with string outputs make their strings through em_str_alloc and report bad
 * data (invalid UTF-8 where the op must decode it) through em_str_fail. Elements are copied as
 * pointers wherever an output string equals an input one: the interpreter keeps the inputs'
 * bytes alive for the output (em_interp_str_finish).
 *
 * Rows for ops that have generic kernels too (Cast, CastLike, Equal, Where) decline with
 * UNSUPPORTED when no string is involved, and the registry tries them first (an exact dtype
 * before an any-dtype entry), so the generic kernels never see strings.
 */
#ifndef EMBER_KERNELS_REF_TEXT_REF_H
#define EMBER_KERNELS_REF_TEXT_REF_H

#include "plan/kernel.h"

#define EM_TEXT_REF_DECL(fn)                                                                       \
    ember_status *em_##fn##_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes); \
    void em_##fn##__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx);

/* text_str_ref.c: StringConcat-20 (numpy broadcasting), StringSplit-20 (delimiter, maxsplit:
 * Python's str.split; scratch: one piece per output column), Equal-19 on strings (bytewise),
 * Where-16 with string X and Y. */
EM_TEXT_REF_DECL(stringconcat)
EM_TEXT_REF_DECL(stringsplit)
EM_TEXT_REF_DECL(equal_string)
EM_TEXT_REF_DECL(where_string)

/* text_norm_ref.c: StringNormalizer-10 ([C] or [1, C]; stopwords dropped whole, exactly or
 * case-insensitively; then case_change_action NONE / LOWER / UPPER with text.h's Unicode
 * mapping; everything dropped gives one ""; `locale` is accepted and not used: the mapping is
 * the same for every locale). */
EM_TEXT_REF_DECL(stringnormalizer)

/* text_regex_ref.c: RegexFullMatch-20. The RE2 pattern is translated to a POSIX extended
 * regex (\d \w \s and their negations, classes in brackets, (?:...), (?i) at the start,
 * non-greedy quantifiers, '.' not matching a newline) and compiled once in prepare with the
 * C.UTF-8 locale (C when missing); a pattern using what POSIX cannot express (backreferences
 * do not exist in RE2; \p classes, lookaround-free RE2 flags mid-pattern) is UNSUPPORTED. */
EM_TEXT_REF_DECL(regexfullmatch)
void em_regexfullmatch_release__ref(const ember_allocator *al, void *state);

/* text_cast_ref.c: Cast-19 / CastLike-19 from strings (to every numeric dtype and bool:
 * decimal and scientific notation, "NaN", "INF", "-INF", "Infinity" in any case; integers
 * from integer text exactly, from decimal text truncated; bool from "true"/"false" or a number)
 * and to strings (numpy's str(): shortest round-trip digits, positional between 1e-4 and 1e16
 * (f64), 1e6 (f32, bf16) or 1e3 (f16), else scientific; integers in decimal; bool as
 * "True"/"False"). String to string copies. Numbers are read and written in the C locale
 * whatever the process's locale is. */
EM_TEXT_REF_DECL(cast_from_string)
EM_TEXT_REF_DECL(cast_to_string)
void em_cast_string_release__ref(const ember_allocator *al, void *state);

/* text_tfidf_ref.c: TfIdfVectorizer-9 (int32, int64 or string input, [C] or [N, C]; TF, IDF,
 * TFIDF; n-grams of min_gram_length..max_gram_length with every skip up to max_skip_count, as
 * onnx's reference implementation counts them; weights indexed by output column like it). */
EM_TEXT_REF_DECL(tfidfvectorizer)

#undef EM_TEXT_REF_DECL

#endif
