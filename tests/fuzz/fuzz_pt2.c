/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for loaders/pt2: the JSON reader, then a whole torch.export archive through
 * load, plan and one run (fuzz_model.h).
 *
 * The input is the program's text: models/model.json, then a NUL byte, then
 * data/weights/model_weights_config.json (absent: an empty config), then optionally a NUL and
 * data/constants/model_constants_config.json (lifted constants; its records
 * data/constants/tensor_<k> are FUZZ_N_CONSTANTS copies of the weight bytes). The harness writes them
 * into a fresh archive of the torch 2.9+ layout (stored records, CRC-32s computed, so every
 * mutation reaches the JSON reader, the signature and the lowering rather than dying at the
 * zip layer, which fuzz_ts_zip covers) beside the records torch writes (archive_format,
 * byteorder, .data/version) and FUZZ_N_WEIGHTS weight records data/weights/weight_<k> of
 * FUZZ_WEIGHT_BYTES small floats each, so a config may point at any of them, with any sizes,
 * strides and offset, in bounds or not.
 * Seeds: tests/fuzz/corpus/fuzz_pt2 (tools/gen_pt2_fixtures.py: the fixtures' programs,
 * node metadata left out).
 *
 * Built with FUZZ_PT2_FLAT (target fuzz_pt2_flat): the flat layout of torch 2.1-2.7 instead.
 * The input is serialized_exported_program.json, a NUL byte, the byte sizes of the storages
 * as decimal text ("864,32,32\n": the unpickler wants each record exactly as large as its
 * storage), then the data.pkl of the state dict; the harness writes that pickle into a nested
 * torch.save zip (archive/data.pkl, byteorder, version and the storages archive/data/<k> of
 * those sizes, at most FUZZ_N_WEIGHTS of at most FUZZ_FLAT_BYTES), stored as
 * serialized_state_dict.pt in a flat archive, so mutations reach the nested zip opened in
 * place, the unpickler (_rebuild_parameter, _rebuild_tensor_v2, storage keys), the tensors'
 * views of the storages and the program. Seeds: tests/fuzz/corpus/fuzz_pt2_flat (the flat
 * fixtures' programs and pickles).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_model.h"
#include "fuzz_mut.h"
#include "loaders/pt2/pt2_json.h"
#include "core/status.h"

#define FUZZ_N_WEIGHTS 48
#define FUZZ_WEIGHT_BYTES 4096
#define FUZZ_FLAT_BYTES 65536
#define FUZZ_N_CONSTANTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

typedef struct rec {
    char name[64];
    const uint8_t *p;
    size_t n;
    uint32_t crc;
    size_t at; /* local header offset */
} rec;

/* A stored zip of the records (no data descriptors, no ZIP64: everything is small). */
static void write_zip(fz_buf *b, rec *r, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = strlen(r[i].name);
        r[i].at = b->n;
        fz_put_le(b, 0x04034b50, 4);
        fz_put_le(b, 20, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 4); /* time, date */
        fz_put_le(b, r[i].crc, 4);
        fz_put_le(b, r[i].n, 4);
        fz_put_le(b, r[i].n, 4);
        fz_put_le(b, len, 2);
        fz_put_le(b, 0, 2);
        fz_put(b, r[i].name, len);
        fz_put(b, r[i].p, r[i].n);
    }
    size_t cd = b->n;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(r[i].name);
        fz_put_le(b, 0x02014b50, 4);
        fz_put_le(b, 20, 2);
        fz_put_le(b, 20, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 4);
        fz_put_le(b, r[i].crc, 4);
        fz_put_le(b, r[i].n, 4);
        fz_put_le(b, r[i].n, 4);
        fz_put_le(b, len, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 2);
        fz_put_le(b, 0, 4);
        fz_put_le(b, r[i].at, 4);
        fz_put(b, r[i].name, len);
    }
    size_t cd_n = b->n - cd;
    fz_put_le(b, 0x06054b50, 4);
    fz_put_le(b, 0, 4);
    fz_put_le(b, (uint64_t)n, 2);
    fz_put_le(b, (uint64_t)n, 2);
    fz_put_le(b, cd_n, 4);
    fz_put_le(b, cd, 4);
    fz_put_le(b, 0, 2);
}

static void add_in(rec *r, int *n, const char *dir, const char *name, const void *p, size_t len)
{
    snprintf(r[*n].name, sizeof r[*n].name, "%s%s", dir, name);
    r[*n].p = p;
    r[*n].n = len;
    r[*n].crc = crc32_of(p, len);
    (*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static float weights[FUZZ_WEIGHT_BYTES / 4];
    static uint32_t weights_crc;
    if (weights_crc == 0) {
        for (size_t i = 0; i < FUZZ_WEIGHT_BYTES / 4; i++) {
            weights[i] = (float)((int)(i % 17) - 8) / 16.0f;
        }
        weights_crc = crc32_of((const uint8_t *)weights, sizeof weights);
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t json_n = nul != NULL ? (size_t)(nul - data) : size;
    static const char empty_cfg[] = "{\"config\": {}}";
    const uint8_t *cfg = nul != NULL ? nul + 1 : (const uint8_t *)empty_cfg;
    size_t cfg_n = nul != NULL ? size - json_n - 1 : sizeof empty_cfg - 1;

    /* The JSON layer alone. */
    em_ts_arena a;
    em_ts_arena_init(&a, NULL);
    const em_pt2_json *j = NULL;
    ember_status *st = em_pt2_json_parse(&a, (const char *)data, json_n, "fuzz", &j);
    fuzz_check((st == NULL) == (j != NULL));
    ember_status_destroy(st);
    em_ts_arena_free(&a);

    rec r[FUZZ_N_WEIGHTS + FUZZ_N_CONSTANTS + 8];
    int n = 0;
#ifdef FUZZ_PT2_FLAT
    static float flat[FUZZ_FLAT_BYTES / 4];
    size_t sizes[FUZZ_N_WEIGHTS], n_sizes = 0, at = 0;
    for (size_t i = 0; flat[1] == 0.0f && i < FUZZ_FLAT_BYTES / 4; i++) {
        flat[i] = weights[i % (FUZZ_WEIGHT_BYTES / 4)];
    }
    sizes[0] = 0;
    for (; at < cfg_n && cfg[at] != '\n' && n_sizes < FUZZ_N_WEIGHTS; at++) {
        if (cfg[at] >= '0' && cfg[at] <= '9') {
            sizes[n_sizes] = sizes[n_sizes] * 10 + (size_t)(cfg[at] - '0');
            sizes[n_sizes] = sizes[n_sizes] > FUZZ_FLAT_BYTES ? FUZZ_FLAT_BYTES : sizes[n_sizes];
        } else if (cfg[at] == ',' && n_sizes + 1 < FUZZ_N_WEIGHTS) {
            sizes[++n_sizes] = 0;
        }
    }
    n_sizes += at > 0;
    at += at < cfg_n; /* the newline */
    const char *dir = "archive/";
    add_in(r, &n, dir, "data.pkl", cfg + at, cfg_n - at);
    add_in(r, &n, dir, "byteorder", "little", 6);
    add_in(r, &n, dir, "version", "3\n", 2);
#else
    const char *dir = "m/", *wfmt = "data/weights/weight_%d";
    const uint8_t *nul2 = memchr(cfg, 0, cfg_n);
    add_in(r, &n, dir, "archive_format", "pt2", 3);
    add_in(r, &n, dir, "byteorder", "little", 6);
    add_in(r, &n, dir, ".data/version", "6\n", 2);
    add_in(r, &n, dir, "models/model.json", data, json_n);
    add_in(r, &n, dir, "data/weights/model_weights_config.json", cfg,
           nul2 != NULL ? (size_t)(nul2 - cfg) : cfg_n);
    if (nul2 != NULL) {
        add_in(r, &n, dir, "data/constants/model_constants_config.json", nul2 + 1,
               cfg_n - (size_t)(nul2 - cfg) - 1);
        for (int k = 0; k < FUZZ_N_CONSTANTS; k++) {
            char name[48];
            snprintf(name, sizeof name, "data/constants/tensor_%d", k);
            snprintf(r[n].name, sizeof r[n].name, "%s%s", dir, name);
            r[n].p = (const uint8_t *)weights;
            r[n].n = sizeof weights;
            r[n].crc = weights_crc;
            n++;
        }
    }
#endif
#ifdef FUZZ_PT2_FLAT
    for (size_t k = 0; k < n_sizes; k++) {
        char name[48];
        snprintf(name, sizeof name, "data/%zu", k);
        add_in(r, &n, dir, name, flat, sizes[k]);
    }
#else
    for (int k = 0; k < FUZZ_N_WEIGHTS; k++) {
        char name[48];
        snprintf(name, sizeof name, wfmt, k);
        snprintf(r[n].name, sizeof r[n].name, "%s%s", dir, name);
        r[n].p = (const uint8_t *)weights;
        r[n].n = sizeof weights;
        r[n].crc = weights_crc;
        n++;
    }
#endif
    fz_buf b = {0};
    write_zip(&b, r, n);
#ifdef FUZZ_PT2_FLAT
    fz_buf outer = {0}; /* the flat archive around the nested torch.save zip */
    if (!b.failed) {
        n = 0;
        add_in(r, &n, "", "serialized_exported_program.json", data, json_n);
        add_in(r, &n, "", "serialized_state_dict.pt", b.p, b.n);
        add_in(r, &n, "", "version", "8.20", 4);
        write_zip(&outer, r, n);
    }
    fz_buf_free(&b);
    b = outer;
#endif
    if (!b.failed && b.p != NULL) {
        fuzz_model_run(b.p, b.n, NULL, 0);
    }
    fz_buf_free(&b);
    return 0;
}
