/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the trainer's optimizer-state reader (ember_trainer_load_state,
 * runtime/api/train.c). The trainer is made once: the built-in model, Adam, training conv1.bias
 * [8] and fc2.bias [10] (a state of a few hundred bytes). Each input is written to a file and
 * loaded. A refused input must leave the trainer as it was (its step count); an accepted one
 * must survive a round trip: saving the state and loading that gives back the same step count,
 * and saving again writes the same bytes.
 * Seeds: tests/fuzz/corpus/fuzz_train_state (tests/fuzz/make_state_seeds.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ember.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static void ok(ember_status *st)
{
    if (st != NULL) {
        fprintf(stderr, "fuzz_train_state: %s\n", ember_status_message(st));
        abort();
    }
}

static ember_trainer *make_trainer(void)
{
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    ember_trainer_options *o = NULL;
    ember_trainer *t = NULL;
    ok(ember_model_options_create(&mo));
    ok(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_NONE));
    ok(ember_model_load_builtin("default", mo, &m));
    ok(ember_trainer_options_create(&o));
    ok(ember_trainer_options_set_loss(o, EMBER_LOSS_MSE, EMBER_REDUCTION_MEAN));
    ok(ember_trainer_options_set_optimizer(o, EMBER_OPTIMIZER_ADAM, 1e-3));
    ok(ember_trainer_options_add_train(o, "conv1.bias"));
    ok(ember_trainer_options_add_train(o, "fc2.bias"));
    ember_trainer_options_set_threads(o, 1);
    ok(ember_trainer_create(m, o, &t));
    ember_trainer_options_destroy(o);
    ember_model_options_destroy(mo);
    /* the trainer keeps using the model: it lives as long as the process */
    return t;
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    check(f != NULL);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void write_all(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    check(f != NULL);
    check(fwrite(data, 1, size, f) == size);
    check(fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ember_trainer *t; /* built once per process, reused by every input */
    static char in[64], out[64], out2[64];
    static uint8_t a[1 << 16], b[1 << 16];
    if (t == NULL) {
        t = make_trainer();
        long pid = (long)getpid();
        snprintf(in, sizeof in, "/tmp/ember_fuzz_state_%ld.in", pid);
        snprintf(out, sizeof out, "/tmp/ember_fuzz_state_%ld.out", pid);
        snprintf(out2, sizeof out2, "/tmp/ember_fuzz_state_%ld.out2", pid);
    }
    write_all(in, data, size);
    int64_t before = ember_trainer_step_count(t);
    ember_status *st = ember_trainer_load_state(t, in);
    if (st != NULL) {
        check(ember_status_message(st) != NULL);
        ember_code c = ember_status_code(st);
        check(c == EMBER_ERR_INVALID_MODEL || c == EMBER_ERR_INVALID_ARG);
        ember_status_destroy(st);
        check(ember_trainer_step_count(t) == before);
        return 0;
    }
    int64_t steps = ember_trainer_step_count(t);
    check(steps >= 0);
    ok(ember_trainer_save_state(t, out));
    ok(ember_trainer_load_state(t, out));
    check(ember_trainer_step_count(t) == steps);
    ok(ember_trainer_save_state(t, out2));
    size_t na = read_all(out, a, sizeof a), nb = read_all(out2, b, sizeof b);
    check(na == nb && na < sizeof a && memcmp(a, b, na) == 0);
    return 0;
}
