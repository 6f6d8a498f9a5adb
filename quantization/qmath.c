/* SPDX-License-Identifier: Apache-2.0 */
/* Quantization arithmetic (qmath.h): the table of quantized storage types. */
#include "quantization/qmath.h"

#include <stddef.h>

/* clang-format off */
static const em_qtype qtypes[] = {
    {EMBER_DTYPE_U8,  true,  0.0,           255.0,        false},
    {EMBER_DTYPE_I8,  true,  -128.0,        127.0,        false},
    {EMBER_DTYPE_U16, true,  0.0,           65535.0,      false},
    {EMBER_DTYPE_I16, true,  -32768.0,      32767.0,      false},
    {EMBER_DTYPE_I32, false, -2147483648.0, 2147483647.0, false},
    {EMBER_DTYPE_U4,  true,  0.0,           15.0,         false},
    {EMBER_DTYPE_I4,  true,  -8.0,          7.0,          false},
    {EMBER_DTYPE_U2,  true,  0.0,           3.0,          false},
    {EMBER_DTYPE_I2,  true,  -2.0,          1.0,          false},
    {EMBER_DTYPE_F8E4M3FN,   true, 0.0, 0.0, true},
    {EMBER_DTYPE_F8E4M3FNUZ, true, 0.0, 0.0, true},
    {EMBER_DTYPE_F8E5M2,     true, 0.0, 0.0, true},
    {EMBER_DTYPE_F8E5M2FNUZ, true, 0.0, 0.0, true},
    {EMBER_DTYPE_F4E2M1,     true, 0.0, 0.0, true},
    {EMBER_DTYPE_F6E2M3,     true, 0.0, 0.0, true},
    {EMBER_DTYPE_F6E3M2,     true, 0.0, 0.0, true},
};
/* clang-format on */

const em_qtype *em_q_type(ember_dtype dt)
{
    for (size_t k = 0; k < sizeof qtypes / sizeof qtypes[0]; k++) {
        if (qtypes[k].dt == dt) {
            return &qtypes[k];
        }
    }
    return NULL;
}
