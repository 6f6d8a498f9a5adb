/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text rules shared by the text family's shape functions (shape_text.c, which must know
 * data-dependent output sizes) and its reference kernels (kernels/ref/text_*_ref.c), as dyn.h
 * is for the dyn family: Unicode case mapping, case-insensitive equality, whitespace and the
 * splitting of StringSplit. Everything works on UTF-8 bytes without the C library's locale
 * (the case tables are generated from Python's, text_case.inc), so results never depend on the
 * machine or on the host program's setlocale().
 */
#ifndef EMBER_IR_TEXT_H
#define EMBER_IR_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* em_text_case_map's result for input that is not valid UTF-8. */
#define EM_TEXT_BAD SIZE_MAX

/*
 * Upper- or lowercases s[0..n) as Python's str.upper() / str.lower() do (full mappings: "ß"
 * uppercases to "SS"; Greek capital sigma lowercases to final sigma at the end of a word).
 * Writes the result to `out` (not NUL-terminated) when it is not NULL and returns its byte
 * length; call with out NULL first to size the buffer. EM_TEXT_BAD when s is not valid UTF-8
 * (then *bad, if not NULL, is the offset of the first bad byte).
 */
size_t em_text_case_map(const char *s, size_t n, bool upper, char *out, size_t *bad);

/* True when a and b are equal after lowercasing (em_text_case_map); bytes that are not valid
 * UTF-8 compare as themselves. */
bool em_text_equal_fold(const char *a, const char *b);

/* True when s equals one of list[0..n), exactly or (case_sensitive false) by
 * em_text_equal_fold. */
bool em_text_in_list(const char *s, char *const *list, int64_t n, bool case_sensitive);

/* Python's str.isspace() for one code point. */
bool em_text_is_space(uint32_t cp);

/* One substring of em_text_split: s[0..len). */
typedef struct em_text_piece {
    const char *s;
    size_t len;
} em_text_piece;

/*
 * Splits s as Python's str.split(sep, maxsplit) does, which is StringSplit's rule: with sep
 * NULL or "", on runs of whitespace with leading and trailing whitespace dropped (an empty or
 * blank string gives no pieces); otherwise on every occurrence of sep (consecutive separators
 * give empty pieces; "" gives one empty piece). maxsplit < 0 means no limit; after maxsplit
 * splits the rest is one piece. Returns the number of pieces and writes the first min(count,
 * cap) of them to pieces (which may be NULL to count).
 */
int64_t em_text_split(const char *s, const char *sep, int64_t maxsplit, em_text_piece *pieces,
                      int64_t cap);

#endif /* EMBER_IR_TEXT_H */
