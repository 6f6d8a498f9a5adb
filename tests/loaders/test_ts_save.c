/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaders/torchscript/ts_save.c on tests/data/train/cnn/model.pt (torch 1.13's torch.jit.trace
 * of Conv-BatchNorm-ReLU-MaxPool-Flatten-Linear): rewritten tensors read back through the
 * archive reader with their CRC-32 checked (every record's), exactly the new values; the
 * other records and the file size unchanged; num_batches_tracked advanced by add_i64; and the
 * refusals: a name that is no module attribute, a size that does not match, a dtype that does
 * not match, an unwritable path (IO, nothing left), an optional name that is absent (skipped).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "common/test_data.h"
#include "common/test_ok.h"
#include "core/tensor.h"
#include "loaders/torchscript/archive/ts_zip.h"
#include "loaders/torchscript/ts.h"

static em_storage *map_model(void)
{
    em_storage *s = NULL;
    OK(em_storage_new_mmap(test_allocator(), test_data_path("train/", "cnn/model.pt"), &s));
    return s;
}

static em_ts_zip *open_zip(em_storage *img)
{
    em_ts_zip *z = NULL;
    OK(em_ts_zip_open(img, "test", test_allocator(), &z));
    return z;
}

static void out_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/ember_test_ts_save_%ld.pt", (long)getpid());
}

/* fc.bias (5 floats) and bn.num_batches_tracked (+7) rewritten; data/<k> of fc.bias is found
 * as the record whose bytes changed. */
static void test_rewrite(void **state)
{
    (void)state;
    char path[128];
    out_path(path, sizeof path);
    const float bias[5] = {1.5f, -2.25f, 3.0f, 1e-3f, -0.0f};
    const em_weight_patch w[3] = {{"fc.bias", bias, 5, 0, false},
                                  {"bn.num_batches_tracked", NULL, 1, 7, false},
                                  {"no.such.tensor", bias, 5, 0, true}};
    em_storage *src = map_model(), *dst = NULL;
    OK(em_ts_save_weights(src, "model.pt", w, 3, path, test_allocator()));
    OK(em_storage_new_mmap(test_allocator(), path, &dst));
    assert_int_equal(em_storage_size(dst), em_storage_size(src));
    em_ts_zip *zs = open_zip(src), *zd = open_zip(dst);
    assert_int_equal(em_ts_zip_count(zs), em_ts_zip_count(zd));
    int changed = 0, saw_bias = 0, saw_count = 0;
    for (size_t i = 0; i < em_ts_zip_count(zs); i++) {
        const char *name = em_ts_zip_name(zs, i);
        assert_string_equal(name, em_ts_zip_name(zd, i));
        em_storage *a = NULL, *b = NULL;
        OK(em_ts_zip_get(zs, name, &a));
        OK(em_ts_zip_get(zd, name, &b)); /* its CRC-32 checked */
        assert_int_equal(em_storage_size(a), em_storage_size(b));
        if (memcmp(em_storage_data(a), em_storage_data(b), em_storage_size(a)) != 0) {
            changed++;
            assert_true(strncmp(name, "data/", 5) == 0);
            if (em_storage_size(b) == sizeof bias) {
                assert_memory_equal(em_storage_data(b), bias, sizeof bias);
                saw_bias++;
            } else {
                int64_t was, now;
                assert_int_equal(em_storage_size(b), sizeof now);
                memcpy(&was, em_storage_data(a), sizeof was);
                memcpy(&now, em_storage_data(b), sizeof now);
                assert_int_equal(now, was + 7);
                saw_count++;
            }
        }
        em_storage_release(a);
        em_storage_release(b);
    }
    assert_int_equal(changed, 2);
    assert_int_equal(saw_bias, 1);
    assert_int_equal(saw_count, 1);
    em_ts_zip_close(zs);
    em_ts_zip_close(zd);
    em_storage_release(dst);
    em_storage_release(src);
    unlink(path);
}

static void test_refusals(void **state)
{
    (void)state;
    char path[128];
    out_path(path, sizeof path);
    const float v[64] = {0};
    em_storage *src = map_model();
    const em_weight_patch missing = {"fc.nope", v, 5, 0, false};
    EXPECT_ERR(em_ts_save_weights(src, "model.pt", &missing, 1, path, test_allocator()),
               EMBER_ERR_INVALID_ARG, "no tensor 'fc.nope'");
    const em_weight_patch size = {"fc.bias", v, 6, 0, false};
    EXPECT_ERR(em_ts_save_weights(src, "model.pt", &size, 1, path, test_allocator()),
               EMBER_ERR_INVALID_ARG, "fc.bias", "5 elements", "6");
    const em_weight_patch dtype = {"bn.num_batches_tracked", v, 1, 0, false};
    EXPECT_ERR(em_ts_save_weights(src, "model.pt", &dtype, 1, path, test_allocator()),
               EMBER_ERR_INVALID_ARG, "bn.num_batches_tracked", "i64");
    assert_int_equal(access(path, F_OK), -1);
    const em_weight_patch ok = {"fc.bias", v, 5, 0, false};
    EXPECT_ERR(em_ts_save_weights(src, "model.pt", &ok, 1, "/nonexistent-dir-ember/x.pt",
                                  test_allocator()),
               EMBER_ERR_IO, "/nonexistent-dir-ember/x.pt");
    em_storage_release(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rewrite),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
