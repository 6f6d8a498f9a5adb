/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-model libFuzzer target for TorchScript: bytes -> ember_model_load_memory -> session
 * -> one run on generated inputs (fuzz_model.h), with a structure-aware mutator.
 *
 * TorchScript declares no input ranks, so the harness reads them from the zip's archive
 * comment (ember ignores it): "ranks=f4:1x3x8x8,i2" declares input 0 float32 of rank 4, run
 * as 1x3x8x8, and input 1 int64 of rank 2 (letters: f f32, d f64, i i64, n i32, b bool,
 * h f16; dims are optional). Without a comment no rank is declared (traced models load
 * without).
 *
 * The mutator reads the zip directory into records, changes one thing, and writes a fresh
 * archive (stored records, payloads 64-byte aligned, CRC-32s recomputed for whatever it
 * changed, so ember's checksum check passes and the change reaches the parsers):
 *  - the pickle stream of a .pkl record (data.pkl, constants.pkl), opcode by opcode:
 *    delete, repeat, move, insert or replace an opcode (from templates PyTorch's pickles
 *    use), tweak an opcode's integer, string or GLOBAL operand;
 *  - the code of a .py record, token by token: swap identifiers (with others of the same
 *    file or with types and keywords), numbers, delete / repeat / swap tokens and lines,
 *    change a line's indentation;
 *  - the directory: delete, repeat or rename a record, add one, swap two, change the
 *    comment's ranks; the bytes of other records (version, tensor storages);
 *  - one time in eight, libFuzzer's own byte mutation of the whole file.
 * LLVMFuzzerCustomCrossOver puts a record of the second archive into the first (in place of
 * the record of the same name when there is one), e.g. one model's code with another's
 * pickles.
 * Seeds: tests/fuzz/corpus/fuzz_ts_model (small archives of tests/data/torchscript, with
 * their ranks; tests/fuzz/make_model_seeds.py).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_model.h"
#include "fuzz_mut.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
                                 uint8_t *out, size_t max_out, unsigned seed);

/* ---- the archive comment: declared ranks ---------------------------------------------- */

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The EOCD record: the last signature whose comment ends exactly at the end. */
static const uint8_t *find_eocd(const uint8_t *b, size_t n)
{
    if (n < 22) {
        return NULL;
    }
    size_t lo = n - 22 > 0xffff ? n - 22 - 0xffff : 0;
    for (size_t p = n - 22 + 1; p-- > lo;) {
        if (rd32(b + p) == 0x06054b50 && p + 22 + rd16(b + p + 20) == n) {
            return b + p;
        }
    }
    return NULL;
}

static int parse_ranks(const uint8_t *data, size_t size, fuzz_rank *ranks)
{
    const uint8_t *e = find_eocd(data, size);
    if (e == NULL) {
        return 0;
    }
    const char *c = (const char *)e + 22, *end = c + rd16(e + 20);
    if (end - c < 6 || memcmp(c, "ranks=", 6) != 0) {
        return 0;
    }
    c += 6;
    int n = 0;
    while (c + 1 < end && n < 8) {
        static const char letters[] = "fdinbh";
        static const ember_dtype dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I64,
                                          EMBER_DTYPE_I32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F16};
        const char *l = memchr(letters, *c, 6);
        if (l == NULL || c[1] < '0' || c[1] > '9') {
            break;
        }
        memset(&ranks[n], 0, sizeof ranks[n]);
        ranks[n].dtype = dts[l - letters];
        ranks[n].rank = c[1] - '0';
        c += 2;
        for (int d = 0; d < EMBER_MAX_RANK && c < end && (*c == ':' || *c == 'x'); d++) {
            int64_t v = 0;
            for (c++; c < end && *c >= '0' && *c <= '9' && v < 100000; c++) {
                v = v * 10 + (*c - '0');
            }
            ranks[n].dims[d] = v;
        }
        n++;
        if (c < end && *c == ',') {
            c++;
        }
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rank ranks[8];
    int n = parse_ranks(data, size, ranks);
    fuzz_model_run(data, size, ranks, n);
    return 0;
}

/* ---- records ---------------------------------------------------------------------------- */

typedef struct rec {
    char *name;
    uint8_t *data; /* the payload as stored (deflated bytes for method 8) */
    size_t len;
    size_t size; /* uncompressed size */
    uint32_t crc;
    int method;
} rec;

typedef struct archive {
    rec *r;
    size_t n, cap;
    uint8_t *comment;
    size_t comment_len;
} archive;

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    if (table[1] == 0) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) {
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            table[i] = c;
        }
    }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    }
    return c ^ 0xffffffffu;
}

static uint8_t *memdup(const void *p, size_t n)
{
    uint8_t *q = malloc(n + 1);
    if (q != NULL) {
        if (n > 0) {
            memcpy(q, p, n);
        }
        q[n] = 0;
    }
    return q;
}

static void archive_free(archive *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->r[i].name);
        free(a->r[i].data);
    }
    free(a->r);
    free(a->comment);
    memset(a, 0, sizeof *a);
}

static bool add_rec(archive *a, size_t at, rec r)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        rec *p = realloc(a->r, cap * sizeof *p);
        if (p == NULL) {
            return false;
        }
        a->r = p;
        a->cap = cap;
    }
    memmove(a->r + at + 1, a->r + at, (a->n - at) * sizeof *a->r);
    a->r[at] = r;
    a->n++;
    return true;
}

/* Reads the central directory (no ZIP64: the seeds are small). */
static bool archive_read(const uint8_t *b, size_t n, archive *a)
{
    memset(a, 0, sizeof *a);
    const uint8_t *e = find_eocd(b, n);
    if (e == NULL) {
        return false;
    }
    size_t count = rd16(e + 10), cd = rd32(e + 16), cd_size = rd32(e + 12);
    a->comment_len = rd16(e + 20);
    a->comment = memdup(e + 22, a->comment_len);
    if (a->comment == NULL || cd > n || cd_size > n - cd) {
        goto bad;
    }
    const uint8_t *p = b + cd, *end = b + cd + cd_size;
    for (size_t i = 0; i < count; i++) {
        if (end - p < 46 || rd32(p) != 0x02014b50) {
            goto bad;
        }
        size_t nl = rd16(p + 28), el = rd16(p + 30), cl = rd16(p + 32);
        size_t comp = rd32(p + 20), local = rd32(p + 42);
        if ((size_t)(end - p) < 46 + nl + el + cl || local > n || n - local < 30 ||
            rd32(b + local) != 0x04034b50) {
            goto bad;
        }
        size_t payload = local + 30 + rd16(b + local + 26) + rd16(b + local + 28);
        if (payload > n || comp > n - payload) {
            goto bad;
        }
        rec r = {(char *)memdup(p + 46, nl), memdup(b + payload, comp), comp, rd32(p + 24),
                 rd32(p + 16), rd16(p + 10)};
        if (r.name == NULL || r.data == NULL || !add_rec(a, a->n, r)) {
            free(r.name);
            free(r.data);
            goto bad;
        }
        p += 46 + nl + el + cl;
    }
    if (a->n > 0) {
        return true;
    }
    /* no record (an empty directory): free the comment too, as for a bad one */
bad:
    archive_free(a);
    return false;
}

/* The fields local and central headers share: version needed, flags (UTF-8 names), method,
 * time and date (1980-01-01), CRC, sizes, name length. */
static void put_entry(fz_buf *b, const rec *r, size_t nl)
{
    fz_put_le(b, 20, 2);
    fz_put_le(b, 0x0800, 2);
    fz_put_le(b, (uint64_t)r->method, 2);
    fz_put_le(b, 0, 2);
    fz_put_le(b, 0x21, 2);
    fz_put_le(b, r->crc, 4);
    fz_put_le(b, r->len, 4);
    fz_put_le(b, r->size, 4);
    fz_put_le(b, nl, 2);
}

/* Writes the archive as PyTorch does (payloads 64-byte aligned by a local extra field), but
 * with the CRC and sizes in the local header instead of a data descriptor. */
static void archive_write(const archive *a, fz_buf *b)
{
    size_t *offs = calloc(a->n + 1, sizeof *offs);
    if (offs == NULL) {
        b->failed = true;
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        const rec *r = &a->r[i];
        size_t nl = strlen(r->name);
        size_t at = b->n + 30 + nl + 4, pad = (64 - at % 64) % 64;
        offs[i] = b->n;
        fz_put_le(b, 0x04034b50, 4);
        put_entry(b, r, nl);
        fz_put_le(b, 4 + pad, 2);
        fz_put(b, r->name, nl);
        fz_put_le(b, 0x4246, 2); /* "FB": PyTorch's padding field */
        fz_put_le(b, pad, 2);
        for (size_t k = 0; k < pad; k++) {
            fz_put_byte(b, 'Z');
        }
        fz_put(b, r->data, r->len);
    }
    size_t cd = b->n;
    for (size_t i = 0; i < a->n; i++) {
        const rec *r = &a->r[i];
        size_t nl = strlen(r->name);
        fz_put_le(b, 0x02014b50, 4);
        fz_put_le(b, 20, 2); /* version made by */
        put_entry(b, r, nl);
        fz_put_le(b, 0, 8); /* extra, comment, disk, internal attributes */
        fz_put_le(b, 0, 4); /* external attributes */
        fz_put_le(b, offs[i], 4);
        fz_put(b, r->name, nl);
    }
    size_t cd_size = b->n - cd;
    fz_put_le(b, 0x06054b50, 4);
    fz_put_le(b, 0, 4);
    fz_put_le(b, a->n, 2);
    fz_put_le(b, a->n, 2);
    fz_put_le(b, cd_size, 4);
    fz_put_le(b, cd, 4);
    fz_put_le(b, a->comment_len, 2);
    fz_put(b, a->comment, a->comment_len);
    free(offs);
}

/* Replaces r's payload with p[0..n) (taken over), stored, with its CRC. */
static void rec_set(rec *r, uint8_t *p, size_t n)
{
    free(r->data);
    r->data = p;
    r->len = r->size = n;
    r->method = 0;
    r->crc = crc32_of(p, n);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- pickles ---------------------------------------------------------------------------- */

/* The operand of pickle opcode c: 0-8 fixed bytes, or a length prefix of 1/4/8 bytes
 * (L1/L4/L8), or one or two newline-ended lines (N1/N2); -1 for an unknown opcode. */
enum { L1 = 100, L4, L8, N1, N2 };

static int operand(uint8_t c)
{
    /* clang-format off */
    switch (c) {
    case 'J': case 'j': case 'r': case 0x84: return 4;
    case 'K': case 'h': case 'q': case 0x80: case 0x82: return 1;
    case 'M': case 0x83: return 2;
    case 'G': case 0x95: return 8;
    case 'T': case 'X': case 'B': case 0x8b: return L4;
    case 'U': case 'C': case 0x8a: case 0x8c: return L1;
    case 0x8d: case 0x8e: case 0x96: return L8;
    case 'F': case 'I': case 'L': case 'P': case 'S': case 'V': case 'g': case 'p': return N1;
    case 'c': case 'i': return N2;
    case '(': case '.': case '0': case '1': case '2': case 'N': case 'Q': case 'R': case 'a':
    case 'b': case 'd': case '}': case 'e': case 'l': case ']': case 'o': case 's': case 't':
    case ')': case 'u': case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89:
    case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x97: case 0x98:
        return 0;
    default: return -1;
    }
    /* clang-format on */
}

typedef struct op {
    size_t off, len;
} op;

/* Splits a pickle into opcodes; returns how many (up to cap), stopping at the first that
 * does not parse (the rest becomes one opaque op). */
static size_t scan_pickle(const uint8_t *p, size_t n, op *ops, size_t cap)
{
    size_t k = 0, at = 0;
    while (at < n && k < cap) {
        int a = operand(p[at]);
        size_t len = 0;
        if (a >= 0 && a <= 8) {
            len = 1 + (size_t)a;
        } else if (a == L1 || a == L4 || a == L8) {
            size_t w = a == L1 ? 1 : a == L4 ? 4 : 8, v = 0;
            if (n - at < 1 + w) {
                break;
            }
            for (size_t i = 0; i < w && i < 8; i++) {
                v |= (size_t)p[at + 1 + i] << (8 * i);
            }
            len = v > n - at - 1 - w ? 0 : 1 + w + v;
        } else if (a == N1 || a == N2) {
            const uint8_t *nl = memchr(p + at + 1, '\n', n - at - 1);
            if (nl != NULL && a == N2) {
                nl = memchr(nl + 1, '\n', (size_t)(p + n - nl - 1));
            }
            len = nl == NULL ? 0 : (size_t)(nl - (p + at)) + 1;
        }
        if (len == 0 || len > n - at) {
            break;
        }
        ops[k++] = (op){at, len};
        at += len;
    }
    if (at < n && k < cap) {
        ops[k++] = (op){at, n - at};
    }
    return k;
}

static const char *const pickle_templates[] = {
    "(", ")", "]", "}", "N", "\x88", "\x89", "t", "\x85", "\x86", "\x87", "R", "b", "s",
    "u", "a", "e", "0", "1", "2", "Q", "\x81", "\x93", "\x94", ".", "\x80\x02", "\x80\x04",
    "K\x01", "K\x02", "K\xff", "M\xff\xff", "J\xff\xff\xff\xff", "J\x00\x00\x00\x80",
    "h\x00", "h\x01", "h\x07", "q\x00", "q\x01", "q\x07", "\x8a\x01\x05", "\x8a\x00",
    "\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x7f",
    "ctorch._utils\n_rebuild_tensor_v2\n", "ctorch._utils\n_rebuild_qtensor\n",
    "ctorch\nFloatStorage\n", "ctorch\nLongStorage\n", "ctorch\nHalfStorage\n",
    "ctorch\nQInt8Storage\n", "ccollections\nOrderedDict\n", "c__torch__\nModule\n",
    "c__torch__.torch.nn.modules.linear\nLinear\n", "ctorch.jit._pickle\nbuild_intlist\n",
    "ctorch.jit._pickle\nbuild_tensorlist\n", "ctorch\ndevice\n", "cbuiltins\nset\n",
    "X\x01\x00\x00\x00" "0", "X\x07\x00\x00\x00" "storage", "X\x03\x00\x00\x00" "cpu",
    "X\x08\x00\x00\x00training", "X\x00\x00\x00\x00", "G?\xf0\x00\x00\x00\x00\x00\x00",
    "G\x7f\xf8\x00\x00\x00\x00\x00\x00", "U\x01" "a", "C\x02\x00\x01",
};

static const char *const strings[] = {
    "0", "1", "2", "cpu", "cuda", "storage", "training", "forward", "weight", "bias",
    "_rebuild_tensor_v2", "__torch__", "torch", "__getstate__", "__setstate__", "", "x",
    "__torch__.torch.nn.modules.conv.Conv2d", "running_mean", "num_batches_tracked",
};

/* Writes opcode `o` of p with its operand changed: an integer, a string, a GLOBAL's names. */
static void tweak_operand(fz_rng *r, const uint8_t *p, op o, fz_buf *b)
{
    uint8_t c = p[o.off];
    int a = operand(c);
    if (a >= 1 && a <= 8 && c != 0x80) {
        fz_put_byte(b, c);
        fz_put_le(b, (uint64_t)fz_interesting(r, 0), a);
        return;
    }
    if (c == 0x80) {
        fz_put_byte(b, c);
        fz_put_byte(b, (uint8_t)fz_below(r, 7));
        return;
    }
    if (a == L1 || a == L4 || a == L8) {
        size_t w = a == L1 ? 1 : a == L4 ? 4 : 8, hdr = 1 + w;
        uint8_t *s = NULL;
        size_t n = 0;
        if (fz_one_in(r, 2)) {
            const char *t = fz_pick(r, strings, sizeof strings / sizeof strings[0]);
            n = strlen(t);
            s = memdup(t, n);
        } else if (!fz_mutate_bytes(p + o.off + hdr, o.len - hdr, 8, &s, &n)) {
            s = NULL;
        }
        if (s == NULL || (a == L1 && n > 255)) {
            free(s);
            fz_put(b, p + o.off, o.len);
            return;
        }
        fz_put_byte(b, c);
        fz_put_le(b, n, (int)w);
        fz_put(b, s, n);
        free(s);
        return;
    }
    if (a == N2) {
        static const char *const globals[] = {
            "torch._utils\n_rebuild_tensor_v2\n", "torch._utils\n_rebuild_tensor\n",
            "torch\nFloatStorage\n", "torch\nLongStorage\n", "torch\nIntStorage\n",
            "torch\nBoolStorage\n", "torch\nDoubleStorage\n", "torch\nByteStorage\n",
            "collections\nOrderedDict\n", "__torch__\nModel\n", "torch\ndevice\n",
            "torch._utils\n_rebuild_parameter\n", "torch.jit._pickle\nbuild_intlist\n",
            "torch.jit._pickle\nrestore_type_tag\n", "builtins\nprint\n", "os\nsystem\n",
        };
        fz_put_byte(b, c);
        const char *g = fz_pick(r, globals, sizeof globals / sizeof globals[0]);
        fz_put(b, g, strlen(g));
        return;
    }
    fz_put(b, p + o.off, o.len);
}

/* The length of a template: its opcode and operand (templates may hold NUL bytes). */
static size_t template_len(const char *t)
{
    int a = operand((uint8_t)t[0]);
    if (a >= 0 && a <= 8) {
        return 1 + (size_t)a;
    }
    if (a == L1 || a == L4) {
        size_t w = a == L1 ? 1 : 4, v = 0;
        for (size_t k = 0; k < w; k++) {
            v |= (size_t)(uint8_t)t[1 + k] << (8 * k);
        }
        return 1 + w + v;
    }
    return strlen(t);
}

static bool mutate_pickle(fz_rng *r, rec *rc)
{
    op ops[4096];
    size_t n = scan_pickle(rc->data, rc->len, ops, 4096);
    if (n == 0) {
        return false;
    }
    size_t i = fz_below(r, n), j = fz_below(r, n), kind = fz_below(r, 6);
    const char *t = fz_pick(r, pickle_templates, sizeof pickle_templates / sizeof pickle_templates[0]);
    size_t tl = template_len(t);
    fz_buf b = {0};
    for (size_t k = 0; k < n; k++) {
        const uint8_t *src = rc->data + ops[k].off;
        switch (kind) {
        case 0: /* delete op i */
            if (k != i) {
                fz_put(&b, src, ops[k].len);
            }
            break;
        case 1: /* repeat op i */
            fz_put(&b, src, ops[k].len);
            if (k == i) {
                fz_put(&b, src, ops[k].len);
            }
            break;
        case 2: /* op i swaps with op j */
            fz_put(&b, rc->data + ops[k == i ? j : k == j ? i : k].off,
                   ops[k == i ? j : k == j ? i : k].len);
            break;
        case 3: /* a template before op i */
            if (k == i) {
                fz_put(&b, t, tl);
            }
            fz_put(&b, src, ops[k].len);
            break;
        case 4: /* op i replaced by a template */
            if (k == i) {
                fz_put(&b, t, tl);
            } else {
                fz_put(&b, src, ops[k].len);
            }
            break;
        default:
            if (k == i) {
                tweak_operand(r, rc->data, ops[k], &b);
            } else {
                fz_put(&b, src, ops[k].len);
            }
        }
    }
    if (b.failed) {
        fz_buf_free(&b);
        return false;
    }
    rec_set(rc, b.p != NULL ? b.p : memdup("", 0), b.n);
    return true;
}

/* ---- code ------------------------------------------------------------------------------- */

typedef struct tok {
    size_t off, len;
    char kind; /* 'a' identifier, '0' number, 's' string, '\n' newline, ' ' spaces, else punct */
} tok;

static size_t lex(const uint8_t *p, size_t n, tok *t, size_t cap)
{
    size_t k = 0, i = 0;
#define IS_ID(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || (c) == '_')
#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')
    while (i < n && k < cap) {
        size_t s = i;
        char kind;
        uint8_t c = p[i];
        if (IS_ID(c)) {
            while (i < n && (IS_ID(p[i]) || IS_DIGIT(p[i]))) {
                i++;
            }
            kind = 'a';
        } else if (IS_DIGIT(c)) {
            while (i < n && (IS_ID(p[i]) || IS_DIGIT(p[i]) || p[i] == '.')) {
                i++;
            }
            kind = '0';
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < n && p[i] != c && p[i] != '\n') {
                i += p[i] == '\\' && i + 1 < n ? 2 : 1;
            }
            i = i < n ? i + 1 : n;
            kind = 's';
        } else if (c == ' ') {
            while (i < n && p[i] == ' ') {
                i++;
            }
            kind = ' ';
        } else {
            i++;
            kind = c == '\n' ? '\n' : '.';
        }
        t[k++] = (tok){s, i - s, kind};
    }
#undef IS_ID
#undef IS_DIGIT
    return k;
}

static const char *const words[] = {
    "Tensor", "int", "float", "bool", "str", "List[int]", "List[Tensor]", "Optional[Tensor]",
    "Tuple[Tensor, Tensor]", "Dict[str, Tensor]", "None", "True", "False", "self", "torch",
    "ops.prim", "return", "if", "else", "elif", "for", "while", "in", "def", "class", "pass",
    "raise", "assert", "not", "and", "or", "is", "Final", "Device", "annotate", "uninitialized",
    "torch.add", "torch.relu", "torch.cat", "torch.conv2d", "torch.linear", "torch.view",
    "torch.reshape", "torch.select", "torch.slice", "torch.size", "torch.dim", "len",
    "import", "__torch__", "forward", "training", "_0", "_1", "x", "input",
};

static const char *const numbers[] = {
    "0", "1", "-1", "2", "3", "4", "1000000", "2147483648", "9223372036854775807",
    "9223372036854775808", "1.5", "1e308", "0.", "-0.5", "1e-45", "00", "0x10", "1_0",
};

static const char *const puncts[] = {"(", ")", "[", "]", ",", ":", ".", "=", "+", "*", "->",
                                     "\n", "    ", "#", "\"", "\\", "@", "**", "//", "!="};

static bool mutate_code(fz_rng *r, rec *rc)
{
    static tok t[8192];
    size_t n = lex(rc->data, rc->len, t, 8192);
    if (n == 0) {
        return false;
    }
    size_t i = fz_below(r, n), j = fz_below(r, n), kind = fz_below(r, 8);
    /* for the line operations: the lines holding tokens i and j */
    size_t li0 = i, li1 = i, lj0 = j, lj1 = j;
    while (li0 > 0 && t[li0 - 1].kind != '\n') {
        li0--;
    }
    while (li1 < n - 1 && t[li1].kind != '\n') {
        li1++;
    }
    while (lj0 > 0 && t[lj0 - 1].kind != '\n') {
        lj0--;
    }
    while (lj1 < n - 1 && t[lj1].kind != '\n') {
        lj1++;
    }
    if (kind == 0) { /* an identifier, number or token of the same kind from the file */
        for (int tries = 0; tries < 32 && t[j].kind != t[i].kind; tries++) {
            j = fz_below(r, n);
        }
    }
    const char *word = NULL;
    if (kind == 1) {
        word = t[i].kind == '0' ? fz_pick(r, numbers, sizeof numbers / sizeof numbers[0])
               : t[i].kind == 'a' ? fz_pick(r, words, sizeof words / sizeof words[0])
                                  : fz_pick(r, puncts, sizeof puncts / sizeof puncts[0]);
    }
    fz_buf b = {0};
    for (size_t k = 0; k < n; k++) {
        const uint8_t *src = rc->data + t[k].off;
        size_t len = t[k].len;
        switch (kind) {
        case 0: /* token i becomes a copy of token j */
            if (k == i) {
                fz_put(&b, rc->data + t[j].off, t[j].len);
                continue;
            }
            break;
        case 1: /* token i becomes a word, number or punctuation */
            if (k == i) {
                fz_put(&b, word, strlen(word));
                continue;
            }
            break;
        case 2: /* delete token i */
            if (k == i) {
                continue;
            }
            break;
        case 3: /* repeat token i */
            if (k == i) {
                fz_put(&b, src, len);
            }
            break;
        case 4: /* delete line i */
            if (k >= li0 && k <= li1) {
                continue;
            }
            break;
        case 5: /* repeat line i after line j */
            if (k == lj1) {
                fz_put(&b, src, len);
                fz_put(&b, rc->data + t[li0].off, t[li1].off + t[li1].len - t[li0].off);
                continue;
            }
            break;
        case 6: /* indent or dedent line i */
            if (k == li0) {
                if (t[k].kind == ' ' && fz_one_in(r, 2)) {
                    fz_put(&b, src, len >= 4 ? len - 4 : 0);
                    continue;
                }
                fz_put(&b, "    ", 4);
            }
            break;
        default: /* a punctuation or newline inserted before token i */
            if (k == i) {
                const char *pc = fz_pick(r, puncts, sizeof puncts / sizeof puncts[0]);
                fz_put(&b, pc, strlen(pc));
            }
            break;
        }
        fz_put(&b, src, len);
    }
    if (b.failed) {
        fz_buf_free(&b);
        return false;
    }
    rec_set(rc, b.p != NULL ? b.p : memdup("", 0), b.n);
    return true;
}

/* ---- the directory ---------------------------------------------------------------------- */

static void set_name(rec *r, const char *name)
{
    char *s = (char *)memdup(name, strlen(name));
    if (s != NULL) {
        free(r->name);
        r->name = s;
    }
}

static bool mutate_dir(fz_rng *r, archive *a)
{
    size_t i = fz_below(r, a->n), j = fz_below(r, a->n);
    rec c;
    switch (fz_below(r, 6)) {
    case 0: /* delete a record */
        free(a->r[i].name);
        free(a->r[i].data);
        memmove(a->r + i, a->r + i + 1, (a->n - i - 1) * sizeof *a->r);
        a->n--;
        return true;
    case 1: /* a copy of a record, under its name or under a changed one */
        c = a->r[i];
        c.name = (char *)memdup(c.name, strlen(c.name));
        c.data = memdup(c.data, c.len);
        if (c.name == NULL || c.data == NULL || !add_rec(a, j, c)) {
            free(c.name);
            free(c.data);
            return false;
        }
        if (!fz_one_in(r, 4)) { /* usually renamed: a duplicate name stops at the zip */
            char *slash = strrchr(c.name, '/');
            if (slash != NULL && slash[1] != 0) {
                slash[1] = (char)('a' + fz_below(r, 26)); /* a.py, b.pkl, data/x ... */
            }
        }
        return true;
    case 2: { /* swap two records' places */
        rec t = a->r[i];
        a->r[i] = a->r[j];
        a->r[j] = t;
        return true;
    }
    case 3: { /* rename: a name of the archive's layout */
        static const char *const subs[] = {
            "data.pkl", "constants.pkl", "version", ".data/version", "code/__torch__.py",
            "code/__torch__/torch/nn/modules/linear.py", "data/0", "data/1", "extra/x",
            "byteorder", "code/__torch__.py.debug_pkl", "../escape", "/abs", "data/",
        };
        const char *root_end = strchr(a->r[i].name, '/');
        size_t rl = root_end ? (size_t)(root_end - a->r[i].name) + 1 : 0;
        const char *sub = fz_pick(r, subs, sizeof subs / sizeof subs[0]);
        char name[512];
        if (rl + strlen(sub) >= sizeof name) {
            return false;
        }
        memcpy(name, a->r[i].name, rl);
        strcpy(name + rl, sub);
        set_name(&a->r[i], name);
        return true;
    }
    case 4: { /* the declared ranks */
        static const char *const rs[] = {"ranks=f4:1x3x8x8", "ranks=f2", "ranks=f3:2x3x4",
                                         "ranks=f1", "ranks=i2:2x3", "ranks=f4,f4",
                                         "ranks=f3,f2,f2", "ranks=f0", "ranks=b1", "ranks=n2",
                                         "ranks=d3", "ranks=f2:0x5", ""};
        const char *s = fz_pick(r, rs, sizeof rs / sizeof rs[0]);
        uint8_t *p = memdup(s, strlen(s));
        if (p == NULL) {
            return false;
        }
        free(a->comment);
        a->comment = p;
        a->comment_len = strlen(s);
        return true;
    }
    default: { /* the bytes of a record (version, storages, ...) */
        uint8_t *p = NULL;
        size_t n = 0;
        if (a->r[i].method != 0 || !fz_mutate_bytes(a->r[i].data, a->r[i].len, 16, &p, &n)) {
            return false;
        }
        rec_set(&a->r[i], p, n);
        return true;
    }
    }
}

static bool mutate_archive(fz_rng *r, archive *a)
{
    size_t i = fz_below(r, a->n);
    rec *rc = &a->r[i];
    int pick = (int)fz_below(r, 8);
    /* Most mutations go to a record that has structure; pick one when the draw missed. */
    for (int tries = 0; tries < 8 && pick < 6 && !ends_with(rc->name, ".pkl") &&
                        !ends_with(rc->name, ".py");
         tries++) {
        rc = &a->r[fz_below(r, a->n)];
    }
    if (pick < 6 && rc->method == 0 && ends_with(rc->name, ".pkl")) {
        return mutate_pickle(r, rc);
    }
    if (pick < 6 && rc->method == 0 && ends_with(rc->name, ".py")) {
        return mutate_code(r, rc);
    }
    return mutate_dir(r, a);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    fz_rng r;
    fz_seed(&r, seed);
    archive a;
    if (fz_one_in(&r, 8) || !archive_read(data, size, &a)) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    bool changed = false;
    int rounds = 1 + (int)fz_below(&r, 2);
    for (int k = 0; k < rounds && a.n > 0; k++) {
        changed |= mutate_archive(&r, &a);
    }
    fz_buf b = {0};
    archive_write(&a, &b);
    archive_free(&a);
    size_t n = changed ? fz_emit(&b, data, max_size) : (fz_buf_free(&b), 0);
    return n > 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
                                 uint8_t *out, size_t max_out, unsigned seed)
{
    fz_rng r;
    fz_seed(&r, seed);
    archive a, b;
    if (!archive_read(d1, n1, &a)) {
        return 0;
    }
    if (!archive_read(d2, n2, &b)) {
        archive_free(&a);
        return 0;
    }
    /* A record of b, renamed under a's root, replaces a's record of that name (or joins). */
    rec src = b.r[fz_below(&r, b.n)];
    const char *sub_b = strchr(src.name, '/'), *root_a_end = strchr(a.r[0].name, '/');
    size_t rl = root_a_end ? (size_t)(root_a_end - a.r[0].name) : 0;
    char name[512];
    size_t out_n = 0;
    if (sub_b != NULL && rl + strlen(sub_b) < sizeof name) {
        memcpy(name, a.r[0].name, rl);
        strcpy(name + rl, sub_b);
        size_t at = a.n;
        for (size_t i = 0; i < a.n; i++) {
            if (strcmp(a.r[i].name, name) == 0) {
                at = i;
            }
        }
        rec c = src;
        c.name = (char *)memdup(name, strlen(name));
        c.data = memdup(src.data, src.len);
        bool ok = c.name != NULL && c.data != NULL;
        if (ok && at < a.n) {
            free(a.r[at].name);
            free(a.r[at].data);
            a.r[at] = c;
        } else if (!ok || !add_rec(&a, a.n, c)) {
            free(c.name);
            free(c.data);
        }
        fz_buf buf = {0};
        archive_write(&a, &buf);
        out_n = fz_emit(&buf, out, max_out);
    }
    archive_free(&a);
    archive_free(&b);
    return out_n;
}
