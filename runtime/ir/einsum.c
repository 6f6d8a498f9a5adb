/* SPDX-License-Identifier: Apache-2.0 */
/* The Einsum equation parser (einsum.h). */
#include "ir/einsum.h"

#include <stddef.h>
#include <string.h>


/* A-Z -> 0..25, a-z -> 26..51 (ASCII order); -1 otherwise. */
static int ein_letter(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    return c >= 'a' && c <= 'z' ? 26 + (c - 'a') : -1;
}

/* Letters of term [s, e) and the letter count before its "..." (-1: none). */
static const char *ein_term(const char *s, const char *e, int *letters, int *n, int *ell_at)
{
    *n = 0;
    *ell_at = -1;
    while (s < e) {
        if (*s == ' ') {
            s++;
        } else if (*s == '.') {
            if (e - s < 3 || s[1] != '.' || s[2] != '.' || *ell_at >= 0) {
                return "malformed '...' in the equation";
            }
            *ell_at = *n;
            s += 3;
        } else {
            int l = ein_letter(*s++);
            if (l < 0) {
                return "invalid character in the equation";
            }
            if (*n >= EM_MAX_RANK) {
                return "too many labels in a term";
            }
            letters[(*n)++] = l;
        }
    }
    return NULL;
}

/* Output labels: explicit after "->" or implicit (numpy rules). */
static const char *ein_output(const char *arrow, const int *count, em_ein_labels *p)
{
    int letters[EM_MAX_RANK], n, ell_at;
    if (arrow == NULL) {
        for (int q = 0; q < p->n_ell; q++) {
            p->out[p->n_out++] = EM_EIN_LETTERS + q;
        }
        for (int l = 0; l < EM_EIN_LETTERS; l++) {
            if (count[l] == 1) {
                if (p->n_out >= EM_MAX_RANK) {
                    return "the output has too many axes";
                }
                p->out[p->n_out++] = l;
            }
        }
        return NULL;
    }
    const char *why = ein_term(arrow + 2, arrow + strlen(arrow), letters, &n, &ell_at);
    if (why != NULL) {
        return why;
    }
    if (n + (ell_at >= 0 ? p->n_ell : 0) > EM_MAX_RANK) {
        return "the output has too many axes";
    }
    uint64_t seen = 0;
    for (int j = 0; j <= n; j++) {
        for (int q = 0; j == ell_at && q < p->n_ell; q++) {
            p->out[p->n_out++] = EM_EIN_LETTERS + q;
        }
        if (j == n) {
            break;
        }
        if (count[letters[j]] == 0 || (seen & ((uint64_t)1 << letters[j]))) {
            return "an output label is repeated or absent from the inputs";
        }
        seen |= (uint64_t)1 << letters[j];
        p->out[p->n_out++] = letters[j];
    }
    return NULL;
}

const char *em_einsum_parse(const char *eq, int n_in, const int *ranks, em_ein_labels *p)
{
    const char *arrow = strstr(eq, "->"), *end = arrow != NULL ? arrow : eq + strlen(eq), *s = eq;
    int letters[EM_EIN_MAX_IN][EM_MAX_RANK], nl[EM_EIN_MAX_IN], ell[EM_EIN_MAX_IN];
    int count[EM_EIN_MAX_LABELS] = {0};
    memset(p, 0, sizeof *p);
    for (int i = 0; i < n_in; i++) {
        const char *comma = memchr(s, ',', (size_t)(end - s)), *te = comma ? comma : end;
        if ((comma != NULL) != (i < n_in - 1)) {
            return "the equation's term count differs from the input count";
        }
        const char *why = ein_term(s, te, letters[i], &nl[i], &ell[i]);
        if (why != NULL) {
            return why;
        }
        int e = ranks[i] - nl[i];
        if (e < 0 || (ell[i] < 0 && e != 0)) {
            return "a term's labels do not match its input's rank";
        }
        p->n_ell = e > p->n_ell ? e : p->n_ell;
        s = te + 1;
    }
    for (int i = 0; i < n_in; i++) {
        int e = ranks[i] - nl[i], k = 0;
        for (int j = 0; j <= nl[i]; j++) {
            for (int q = 0; j == ell[i] && q < e; q++) {
                p->lab[i][k++] = EM_EIN_LETTERS + p->n_ell - e + q;
            }
            if (j < nl[i]) {
                p->lab[i][k++] = letters[i][j];
            }
        }
        for (int a = 0; a < ranks[i]; a++) {
            count[p->lab[i][a]]++;
        }
    }
    return ein_output(arrow, count, p);
}
