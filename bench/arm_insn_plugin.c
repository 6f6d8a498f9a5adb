/* SPDX-License-Identifier: Apache-2.0
 * Issue #23: a qemu TCG plugin that counts retired guest instructions, for bench/arm_insns.sh.
 * Debian's qemu-user is built with plugin support (qemu-aarch64 -plugin FILE.so loads one),
 * but ships neither the contrib plugins (libinsn.so) nor qemu-plugin.h. This file declares the
 * handful of entry points of qemu's plugin API (version 1, qemu 7.x) it calls; the running
 * qemu resolves them at load. How it counts: at translation each block gets an inline
 * "add n" (n = its instruction count) on a 64-bit counter, run each time the block executes,
 * which is the counting of qemu's contrib/plugins/insn.c in its inline mode. Exact as long as
 * a block runs to its end (a block left by a fault or an exit counts whole; neither happens
 * per inference) and one guest thread runs at a time (the inline add is not atomic: run ember
 * with --threads 1). At exit it writes "insns N" (the whole process) and "marks C1 C2 ...":
 * the count at each clock_gettime(CLOCK_MONOTONIC) system call, which is how `ember run`
 * brackets each inference (qemu 7.2's linux-user has no vDSO on aarch64, so glibc's
 * clock_gettime is a real system call there). The output goes to the file named by the
 * plugin argument out=PATH, else to qemu's log (shown with -d plugin).
 * Build (host compiler): cc -O2 -shared -fPIC -o insn.so bench/arm_insn_plugin.c
 * Use: qemu-aarch64 -plugin ./insn.so,out=/tmp/n.txt -L / build-arm/ember run ... */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index,
                                              int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                                              uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                                              uint64_t a8);

/* qemu's own symbols (qemu-plugin.h, API version 1) */
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                                     void *ptr, uint64_t imm);
extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
extern void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
extern void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

enum { MAX_MARKS = 1 << 16, SYS_CLOCK_GETTIME = 113 /* aarch64 */, CLOCK_MONO = 1 };

static uint64_t insn_count;
static uint64_t marks[MAX_MARKS];
static size_t n_marks;
static char out_path[4096];

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8) {
    (void)id, (void)vcpu, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (num == SYS_CLOCK_GETTIME && a1 == CLOCK_MONO && n_marks < MAX_MARKS) {
        marks[n_marks++] = insn_count;
    }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insn_count,
                                             (uint64_t)qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *userdata) {
    (void)id;
    (void)userdata;
    FILE *f = out_path[0] ? fopen(out_path, "w") : NULL;
    char line[64];
    snprintf(line, sizeof line, "insns %" PRIu64 "\nmarks", insn_count);
    f != NULL ? (void)fputs(line, f) : qemu_plugin_outs(line);
    for (size_t i = 0; i < n_marks; i++) {
        snprintf(line, sizeof line, " %" PRIu64, marks[i]);
        f != NULL ? (void)fputs(line, f) : qemu_plugin_outs(line);
    }
    f != NULL ? (void)fputs("\n", f) : qemu_plugin_outs("\n");
    if (f != NULL) {
        fclose(f);
    }
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            snprintf(out_path, sizeof out_path, "%s", argv[i] + 4);
        } else {
            fprintf(stderr, "arm_insn_plugin: unknown argument '%s' (only out=PATH)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
