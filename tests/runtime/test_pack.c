/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pack cache (core/pack.h): equal keys share one pack until its last release, different
 * kinds, sources, parameters or sizes do not; a key with padding compares through its eq
 * function; a failed fill leaves nothing behind; without a cache a pack is private; many
 * threads asking for one key at once end with one pack, every copy packed on the way freed;
 * a forgotten source's packs are never found again but stay valid until released.
 * Leaks are checked by the test allocator.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/pack.h"

#include "common/test_alloc.h"
#include "core/status.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"

typedef struct fill_ctx {
    int calls;
    float value;
    bool fail;
} fill_ctx;

/* Fills 16 floats with ctx->value (or fails). */
static ember_status *fill16(void *ctx, void *dst)
{
    fill_ctx *f = ctx;
    f->calls++;
    if (f->fail) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "fill refused");
    }
    for (int i = 0; i < 16; i++) {
        ((float *)dst)[i] = f->value;
    }
    return NULL;
}

static const float g_src[4] = {1, 2, 3, 4};

static void test_share_and_release(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(test_allocator(), &c));
    int64_t p1 = 7, p2 = 8;
    em_pack_key k1 = {"test layout", g_src, &p1, sizeof p1, NULL};
    em_pack_key k2 = {"test layout", g_src, &p2, sizeof p2, NULL};
    em_pack_key other_kind = {"other layout", g_src, &p1, sizeof p1, NULL};
    em_pack_key other_src = {"test layout", g_src + 1, &p1, sizeof p1, NULL};
    fill_ctx f = {0, 3.0f, false};
    em_pack *a = NULL, *b = NULL, *d = NULL, *e = NULL, *g = NULL, *h = NULL;
    OK(em_pack_get(c, test_allocator(), &k1, 64, fill16, &f, &a));
    int64_t p1_again = 7; /* an equal key in other memory */
    em_pack_key k1b = {"test layout", g_src, &p1_again, sizeof p1_again, NULL};
    f.value = 5.0f;
    OK(em_pack_get(c, test_allocator(), &k1b, 64, fill16, &f, &b));
    assert_ptr_equal(a, b);
    assert_int_equal(f.calls, 1);
    assert_true(((const float *)em_pack_data(b))[15] == 3.0f);
    size_t n = 0;
    assert_int_equal(em_pack_cache_bytes(c, &n), 64);
    assert_int_equal(n, 1);
    OK(em_pack_get(c, test_allocator(), &k2, 64, fill16, &f, &d));
    OK(em_pack_get(c, test_allocator(), &other_kind, 64, fill16, &f, &e));
    OK(em_pack_get(c, test_allocator(), &other_src, 64, fill16, &f, &g));
    OK(em_pack_get(c, test_allocator(), &k1, 128, fill16, &f, &h)); /* another size */
    assert_int_equal(f.calls, 5);
    assert_true(d != a && e != a && g != a && h != a && e != d && g != d);
    assert_int_equal(em_pack_cache_bytes(c, &n), 64 * 4 + 128);
    assert_int_equal(n, 5);
    em_pack_release(a);
    assert_int_equal(em_pack_cache_bytes(c, &n), 64 * 4 + 128); /* b still holds it */
    em_pack_release(b);
    assert_int_equal(em_pack_cache_bytes(c, &n), 64 * 3 + 128);
    assert_int_equal(n, 4);
    OK(em_pack_get(c, test_allocator(), &k1, 64, fill16, &f, &a)); /* packed again */
    assert_int_equal(f.calls, 6);
    em_pack_release(a);
    em_pack_release(d);
    em_pack_release(e);
    em_pack_release(g);
    em_pack_release(h);
    em_pack_release(NULL);
    assert_int_equal(em_pack_cache_bytes(c, &n), 0);
    assert_int_equal(n, 0);
    em_pack_cache_destroy(c);
    em_pack_cache_destroy(NULL);
    assert_int_equal(em_pack_cache_bytes(NULL, &n), 0);
}

/* em_pack_cache_forget: the packs of a source about to be freed stay valid for their holders
 * but are never found again (a new constant at the same address packs anew); other sources'
 * packs are untouched; the forgotten pack is still freed by its last release. */
static void test_forget(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(test_allocator(), &c));
    int64_t p1 = 7;
    em_pack_key k = {"test layout", g_src, &p1, sizeof p1, NULL};
    em_pack_key k_other = {"test layout", g_src + 1, &p1, sizeof p1, NULL};
    fill_ctx f = {0, 3.0f, false};
    em_pack *a = NULL, *b = NULL, *o = NULL, *o2 = NULL, *a2 = NULL;
    OK(em_pack_get(c, test_allocator(), &k, 64, fill16, &f, &a));
    OK(em_pack_get(c, test_allocator(), &k_other, 64, fill16, &f, &o));
    em_pack_cache_forget(c, g_src);
    em_pack_cache_forget(c, g_src + 2); /* no pack: nothing happens */
    em_pack_cache_forget(NULL, g_src);
    assert_true(((const float *)em_pack_data(a))[0] == 3.0f); /* still valid */
    f.value = 9.0f;
    OK(em_pack_get(c, test_allocator(), &k, 64, fill16, &f, &b)); /* packed anew */
    assert_true(b != a);
    assert_true(((const float *)em_pack_data(b))[0] == 9.0f);
    OK(em_pack_get(c, test_allocator(), &k, 64, fill16, &f, &a2)); /* the new one is found */
    assert_ptr_equal(a2, b);
    OK(em_pack_get(c, test_allocator(), &k_other, 64, fill16, &f, &o2));
    assert_ptr_equal(o2, o);
    assert_int_equal(f.calls, 3);
    size_t n = 0;
    assert_int_equal(em_pack_cache_bytes(c, &n), 3 * 64);
    assert_int_equal(n, 3);
    em_pack_release(a); /* the forgotten one, unlinked from its new bucket */
    assert_int_equal(em_pack_cache_bytes(c, &n), 2 * 64);
    em_pack_release(b);
    em_pack_release(a2);
    em_pack_release(o);
    em_pack_release(o2);
    assert_int_equal(em_pack_cache_bytes(c, &n), 0);
    assert_int_equal(n, 0);
    em_pack_cache_destroy(c);
}

/* A key with padding after `tag`: only the named fields count. */
typedef struct padded_key {
    char tag;
    int64_t value;
} padded_key;

static bool padded_eq(const void *a, const void *b)
{
    const padded_key *x = a, *y = b;
    return x->tag == y->tag && x->value == y->value;
}

static void test_eq_function(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(test_allocator(), &c));
    padded_key x, y;
    memset(&x, 0x00, sizeof x);
    memset(&y, 0xff, sizeof y); /* different padding bytes */
    x.tag = y.tag = 'w';
    x.value = y.value = 42;
    em_pack_key kx = {"padded", g_src, &x, sizeof x, padded_eq};
    em_pack_key ky = {"padded", g_src, &y, sizeof y, padded_eq};
    fill_ctx f = {0, 1.0f, false};
    em_pack *a = NULL, *b = NULL;
    OK(em_pack_get(c, test_allocator(), &kx, 64, fill16, &f, &a));
    OK(em_pack_get(c, test_allocator(), &ky, 64, fill16, &f, &b));
    assert_ptr_equal(a, b);
    assert_int_equal(f.calls, 1);
    em_pack_release(a);
    em_pack_release(b);
    em_pack_cache_destroy(c);
}

static void test_fail_and_private(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(test_allocator(), &c));
    int64_t p = 1;
    em_pack_key k = {"test layout", g_src, &p, sizeof p, NULL};
    fill_ctx f = {0, 2.0f, true};
    em_pack *a = (em_pack *)&f;
    ember_status *st = em_pack_get(c, test_allocator(), &k, 64, fill16, &f, &a);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    assert_string_equal(ember_status_message(st), "fill refused");
    ember_status_destroy(st);
    assert_null(a);
    size_t n = 1;
    assert_int_equal(em_pack_cache_bytes(c, &n), 0);
    assert_int_equal(n, 0);
    em_pack_cache_destroy(c);
    /* No cache: private packs, never shared. */
    f.fail = false;
    em_pack *b = NULL;
    OK(em_pack_get(NULL, test_allocator(), &k, 64, fill16, &f, &a));
    OK(em_pack_get(NULL, test_allocator(), &k, 64, fill16, &f, &b));
    assert_true(a != b);
    assert_int_equal(f.calls, 3);
    assert_true(((const float *)em_pack_data(b))[0] == 2.0f);
    assert_null(em_pack_data(NULL));
    em_pack_release(a);
    em_pack_release(b);
}

/* Big packs are mapped, not malloc'd (core/alloc.h): the bytes are usable and freed. */
static void test_big_pack(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(NULL, &c));
    int64_t p = 3;
    em_pack_key k = {"test layout", g_src, &p, sizeof p, NULL};
    fill_ctx f = {0, 9.0f, false};
    em_pack *a = NULL;
    OK(em_pack_get(c, NULL, &k, (size_t)1 << 20, fill16, &f, &a));
    assert_int_equal((uintptr_t)em_pack_data(a) % 64, 0);
    assert_true(((const float *)em_pack_data(a))[7] == 9.0f);
    assert_int_equal(em_pack_cache_bytes(c, NULL), (size_t)1 << 20);
    em_pack_release(a);
    em_pack_cache_destroy(c);
}

#define N_THREADS 8

typedef struct race {
    em_pack_cache *c;
    pthread_barrier_t *go;
    fill_ctx f;
    em_pack *got;
    ember_status *st;
} race;

static void *race_thread(void *p)
{
    race *r = p;
    int64_t param = 99;
    em_pack_key k = {"test layout", g_src, &param, sizeof param, NULL};
    pthread_barrier_wait(r->go);
    r->st = em_pack_get(r->c, NULL, &k, 64, fill16, &r->f, &r->got);
    return NULL;
}

/* libc's allocator: cmocka's test_malloc is not thread-safe. */
static void test_threads_share(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(NULL, &c));
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, N_THREADS);
    pthread_t t[N_THREADS];
    race r[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        r[i] = (race){c, &go, {0, (float)i, false}, NULL, NULL};
        assert_int_equal(pthread_create(&t[i], NULL, race_thread, &r[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&go);
    size_t n = 0;
    assert_int_equal(em_pack_cache_bytes(c, &n), 64);
    assert_int_equal(n, 1);
    for (int i = 0; i < N_THREADS; i++) {
        OK(r[i].st);
        assert_ptr_equal(r[i].got, r[0].got);
    }
    float v = ((const float *)em_pack_data(r[0].got))[0];
    assert_true(v >= 0.0f && v < (float)N_THREADS); /* one thread's fill won */
    for (int i = 0; i < N_THREADS; i++) {
        em_pack_release(r[i].got);
    }
    assert_int_equal(em_pack_cache_bytes(c, &n), 0);
    em_pack_cache_destroy(c);
}

/* em_pack_unpack_fn of the tests: the pack's 16 floats, reversed, at dst + *ctx floats. */
static void unpack16(const void *ctx, const void *data, void *dst)
{
    size_t off = *(const size_t *)ctx;
    for (int i = 0; i < 16; i++) {
        ((float *)dst)[off + (size_t)i] = ((const float *)data)[15 - i];
    }
}

/* Giving a source back: packs that cover it are kept (they outlive their holders' releases,
 * freed with the cache) and write it back; a gap, a pack with no unpack, another source or
 * more bytes than covered: nothing kept, false. set_unpack on a found pack keeps the first. */
static void test_unpack_keep(void **state)
{
    (void)state;
    em_pack_cache *c = NULL;
    OK(em_pack_cache_new(test_allocator(), &c));
    int64_t p1 = 1, p2 = 2, p3 = 3;
    em_pack_key k1 = {"rows", g_src, &p1, sizeof p1, NULL}, k2 = {"rows", g_src, &p2, sizeof p2, NULL};
    em_pack_key k3 = {"rows", g_src, &p3, sizeof p3, NULL};
    fill_ctx f1 = {0, 1.0f, false}, f2 = {0, 2.0f, false}, f3 = {0, 3.0f, false};
    em_pack *a = NULL, *b = NULL, *x = NULL, *again = NULL;
    OK(em_pack_get(c, test_allocator(), &k1, 64, fill16, &f1, &a));
    OK(em_pack_get(c, test_allocator(), &k2, 64, fill16, &f2, &b));
    OK(em_pack_get(c, test_allocator(), &k3, 64, fill16, &f3, &x)); /* no unpack */
    ((float *)em_pack_data(a))[15] = 10.0f; /* so the order shows: dst[0] = data[15] */
    size_t off0 = 0, off16 = 16, off99 = 99;
    OK(em_pack_set_unpack(a, unpack16, &off0, sizeof off0, 0, 64));
    assert_false(em_pack_cache_keep(c, g_src, 128)); /* [64, 128) not covered yet */
    assert_false(em_pack_cache_unpack(c, g_src, 64, (float[16]){0}));
    OK(em_pack_get(c, test_allocator(), &k2, 64, fill16, &f2, &again));
    assert_ptr_equal(again, b);
    OK(em_pack_set_unpack(b, unpack16, &off16, sizeof off16, 64, 64));
    OK(em_pack_set_unpack(again, unpack16, &off99, sizeof off99, 64, 64)); /* ignored */
    em_pack_release(again);
    assert_false(em_pack_cache_keep(c, g_src + 1, 64)); /* another source */
    assert_false(em_pack_cache_keep(c, g_src, 129));   /* past the cover */
    assert_false(em_pack_cache_keep(NULL, g_src, 64));
    assert_true(em_pack_cache_keep(c, g_src, 128));
    assert_true(em_pack_cache_keep(c, g_src, 128)); /* kept once: no second reference */
    em_pack_release(a);
    em_pack_release(b);
    em_pack_release(x);
    size_t n = 0;
    assert_int_equal(em_pack_cache_bytes(c, &n), 2 * 64); /* the kept two live on */
    assert_int_equal(n, 2);
    float dst[32];
    memset(dst, 0, sizeof dst);
    assert_true(em_pack_cache_unpack(c, g_src, 128, dst));
    assert_true(dst[0] == 10.0f && dst[1] == 1.0f && dst[15] == 1.0f);
    assert_true(dst[16] == 2.0f && dst[31] == 2.0f);
    assert_false(em_pack_cache_unpack(c, g_src, 129, dst));
    assert_false(em_pack_cache_unpack(NULL, g_src, 128, dst));
    em_pack_cache_destroy(c); /* frees the kept packs (test_alloc checks for leaks) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share_and_release), cmocka_unit_test(test_eq_function),
        cmocka_unit_test(test_fail_and_private),  cmocka_unit_test(test_big_pack),
        cmocka_unit_test(test_threads_share),     cmocka_unit_test(test_forget),
        cmocka_unit_test(test_unpack_keep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
