/* SPDX-License-Identifier: Apache-2.0 */
/* The compiled-in kernel tables (backends.c is the only file that names them). */
#ifndef EMBER_PLAN_BACKENDS_H
#define EMBER_PLAN_BACKENDS_H

#include "plan/kernel.h"

/* The tables this build contains, NULL-terminated. */
const em_kernel_table *const *em_backend_tables(void);
/* Number of CUDA devices usable now (0 without CUDA support or a device). */
int em_backend_cuda_devices(void);
/* How CUDA was built in: "on+cudnn", "on" or "off" (build info). */
const char *em_backend_cuda_info(void);

#endif
