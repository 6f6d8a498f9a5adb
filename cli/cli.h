/* SPDX-License-Identifier: Apache-2.0 */
/* The ember program: shared helpers of its subcommands. Built on ember.h alone. */
#ifndef EMBER_CLI_CLI_H
#define EMBER_CLI_CLI_H

#include "ember.h"

#include <stdbool.h>
#include <stdio.h>

#define CLI_MAX_INPUTS 64
#define CLI_MAX_SHAPES 64

typedef struct cli_shape_opt {
    const char *name;
    int64_t dims[EMBER_MAX_RANK];
    int rank;
} cli_shape_opt;

/* Prints "ember: error: <msg>" to stderr, destroys st, returns exit code 1. */
int cli_fail(ember_status *st);
/* printf-style error line; returns 1. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Parses "NAME=2x3x4" into opt; false when malformed. */
bool cli_parse_shape(const char *arg, cli_shape_opt *opt);
/* Parses a non-negative int option value; false when malformed. */
bool cli_parse_int(const char *s, int lo, int hi, int *out);
/* Parses an --optimize value (none, basic, all) into *level; false when unknown. */
bool cli_parse_optimize(const char *s, ember_graph_opt *level);
/* Parses an --int8 value (auto, on, off) into *mode; false when unknown. */
bool cli_parse_int8(const char *s, ember_int8_mode *mode);
/* What cli_load_model loads and how. */
typedef struct cli_load {
    const char *path;            /* NULL: the built-in default model */
    const char *const *inputs;   /* the --input files */
    int n_inputs;
    const cli_shape_opt *shapes; /* the --shape options */
    int n_shapes;
    ember_graph_opt level;       /* --optimize */
    bool verify;                 /* false: --no-verify-checksums */
    bool dynamic;                /* --dynamic-shapes: keep the model's symbolic dims */
    ember_int8_mode int8;        /* --int8 (AUTO when not given) */
    ember_precision precision;   /* --precision fp16 / bf16: weights held in half (FP32: as is) */
    const char *model_name;      /* --model-name: which model of an archive (NULL: "model") */
} cli_load;
/* Loads l->path with graph optimization l->level. The --input files tell a TorchScript model its
 * input dtypes and ranks, and (unless l->dynamic) fix every input's shape to the file's, as
 * --shape NAME=D1xD2... fixes input NAME's and --shape NAME=D a symbolic dim NAME, so that the
 * graph passes see concrete dims; `verify` false skips the CRC-32 check of a TorchScript
 * archive's weights. */
ember_status *cli_load_model(const cli_load *l, ember_model **out);
/* The model options cli_load_model loads with (free with ember_model_options_destroy). */
ember_status *cli_model_options(const cli_load *l, ember_model_options **out);
/* Concrete shape of input i from its declared shape and --shape options (symbolic dims that
 * no option fixes become 1). Returns the rank, or -1 with a message on stderr. */
int cli_input_shape(const ember_model *m, size_t i, const cli_shape_opt *opts, int n_opts,
                    int64_t *dims);
/* "f32[1,3,224,224]" */
void cli_format_shape(ember_dtype dt, const int64_t *dims, int rank, char *buf, size_t cap);
/* Declared shape with symbol names: "f32[N,1,28,28]" */
void cli_format_declared(const ember_model *m, size_t i, bool input, char *buf, size_t cap);

int cli_run(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_quantize(int argc, char **argv);
int cli_grad(int argc, char **argv);     /* cli/train.c */
int cli_finetune(int argc, char **argv);
/* Most calibration files `ember run --precision int8 --calibrate` takes. */
#define CLI_MAX_CALIB 4096
/* `ember run --precision int8`: quantizes ld->path (static with the calibration files, one per
 * input per batch, or a calibration cache; dynamic with neither) and loads the QDQ model with
 * the int8 rewrite on and ld's options. */
ember_status *cli_quantize_load(const cli_load *ld, const char *const *calib, int n_calib,
                                const char *cache, ember_model **out);

#endif
