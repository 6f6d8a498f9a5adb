/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The random family's generator (random_ref.h): Philox4x32-10 with the constants of Random123
 * (multipliers 0xD2511F53, 0xCD9E8D57; Weyl key increments 0x9E3779B9, 0xBB67AE85), its
 * seeding (a splitmix64 finalizer turns the seed attribute, or the clock and the state's
 * address, into the 64-bit key) and the conversions of its bits to uniform doubles.
 */
#include "ref.h"

#include <math.h>
#include <string.h>

static void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

void em_rnd_philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k[2] = {key[0], key[1]};
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k[0] += 0x9E3779B9u;
            k[1] += 0xBB67AE85u;
        }
        philox_round(c, k);
    }
    memcpy(out, c, sizeof c);
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

ember_status *em_rnd_seed_init(const em_kinfo *ki, em_rnd_seed *s, const void *salt)
{
    const em_attr *a = ki->node != NULL ? em_node_attr(ki->node, "seed") : NULL;
    atomic_init(&s->runs, 0);
    if (a == NULL) {
        s->key = mix64((uint64_t)em_now_ns() ^ mix64((uint64_t)(uintptr_t)salt));
        return NULL;
    }
    if (a->type == EM_ATTR_FLOAT) {
        double d = a->f; /* equal seeds give equal keys, 0.0 and -0.0 included */
        uint64_t bits;
        d = d == 0.0 ? 0.0 : d;
        memcpy(&bits, &d, sizeof bits);
        s->key = mix64(bits);
    } else if (a->type == EM_ATTR_INT) {
        double d = (double)a->i; /* an int seed keys like the same float one */
        uint64_t bits;
        d = d == 0.0 ? 0.0 : d;
        memcpy(&bits, &d, sizeof bits);
        s->key = mix64(bits);
    } else {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'seed' is not a number");
    }
    return NULL;
}

uint64_t em_rnd_next_run(const em_rnd_seed *s)
{
    /* The state is kernel-owned heap memory (random_ref.h): the const is the run contract's. */
    em_rnd_seed *m = (em_rnd_seed *)s;
    return atomic_fetch_add_explicit(&m->runs, 1, memory_order_relaxed);
}

void em_rnd_uniform2(uint64_t key, uint64_t run, uint64_t block, double u[2])
{
    const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    const uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)run,
                           (uint32_t)(run >> 32)};
    uint32_t o[4];
    em_rnd_philox(c, k, o);
    u[0] = (double)((((uint64_t)o[1] << 32) | o[0]) >> 11) * 0x1p-53;
    u[1] = (double)((((uint64_t)o[3] << 32) | o[2]) >> 11) * 0x1p-53;
}

double em_rnd_uniform_at(uint64_t key, uint64_t run, int64_t i)
{
    double u[2];
    em_rnd_uniform2(key, run, (uint64_t)i >> 1, u);
    return u[i & 1];
}

bool em_rnd_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 ||
           dt == EMBER_DTYPE_BF16;
}

/* The 16-bit float one unit toward -infinity. */
static uint16_t half_down(uint16_t h)
{
    if ((h & 0x7fffu) == 0) {
        return 0x8001u; /* from +-0: the negative value of least magnitude */
    }
    return (h & 0x8000u) ? (uint16_t)(h + 1u) : (uint16_t)(h - 1u);
}

void em_rnd_store_below(ember_dtype dt, void *p, int64_t i, double v, double lo, double hi)
{
    em_tref_set(dt, p, i, v);
    if (!(lo < hi) || em_tref_get(dt, p, i) < hi) {
        return;
    }
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = nextafterf((float)hi, -INFINITY);
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = nextafter(hi, -INFINITY);
        break;
    default: /* f16, bf16: hi is representable when it came from the float attribute */
        em_tref_set(dt, p, i, hi);
        ((uint16_t *)p)[i] = half_down(((uint16_t *)p)[i]);
        break;
    }
}
