/*
 * stress_support.c: the stress program's randomness (a seeded xorshift PRNG), its
 * checking of results, the inputs it makes and the size-query protocol it holds every
 * export with a caller buffer to. See stress.c.
 */
#include "stress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ randomness */

uint64_t rng_state;

uint64_t next_u64(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

size_t below(size_t n) { return n == 0 ? 0 : (size_t)(next_u64() % n); }
bool one_in(size_t n) { return below(n) == 0; }

/* ------------------------------------------------------------------ checking */

unsigned long iteration;
unsigned long calls;
unsigned long oks;

void fail(const char *what, const char *why) {
    fprintf(stderr, "stress: iteration %lu: %s: %s\n", iteration, what, why);
    exit(1);
}

/* The result must be one of `allowed` (a mask of result codes). */
agentloop_result expect(agentloop_result r, uint32_t allowed, const char *what) {
    calls++;
    if (r == AGENTLOOP_RESULT_PANIC) {
        fail(what, "AGENTLOOP_RESULT_PANIC");
    }
    if ((uint32_t)r >= 32 || !(allowed & BIT(r))) {
        char why[96];
        snprintf(why, sizeof why, "undocumented result %u (%s)", (unsigned)r,
                 agentloop_result_str((uint32_t)r));
        fail(what, why);
    }
    if (r == AGENTLOOP_RESULT_OK) {
        oks++;
    }
    return r;
}

void check_static_string(const char *s, const char *what) {
    if (s == NULL || strlen(s) == 0) {
        fail(what, "NULL or empty static string");
    }
}

/* ------------------------------------------------------------------ inputs */

static const char *const JSON_SAMPLES[] = {
    "{\"task\":\"add 2 and 40\"}",
    "{\"b\":[1,2.5,-3e2,true,false,null],\"a\":\"x\\u00e9\\ud83d\\ude00\\n\"}",
    "{\"\xe2\x82\xac\":1,\"\\r\":2,\"a\":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}",
    "[9007199254740993]",
    "1e400",
    "\"\\ud800\"",
    "{\"a\":1,\"\\u0061\":2}",
    "\xef\xbb\xbf{}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "{\"a\":[{\"b\":{}}],\"c\":\"\\\"\"}",
    "NaN",
    "",
};
#define N_JSON (sizeof JSON_SAMPLES / sizeof JSON_SAMPLES[0])

static const char *const SCHEMA_SAMPLES[] = {
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":"
    "\"integer\"}},\"required\":[\"a\",\"b\"]}",
    "{\"$defs\":{\"n\":{\"type\":[\"number\",\"null\"],\"minimum\":0}},\"items\":{\"$ref\":"
    "\"#/$defs/n\"},\"maxItems\":3}",
    "{\"anyOf\":[{\"type\":\"string\",\"maxLength\":3},{\"enum\":[1,\"a\",null]}]}",
    "{\"type\":\"object\",\"additionalProperties\":false}",
    "{\"required\":[\"a\",\"a\"]}",
    "{\"anyOf\":[]}",
    "{\"unknownKeyword\":1}",
    "{}",
};
#define N_SCHEMA (sizeof SCHEMA_SAMPLES / sizeof SCHEMA_SAMPLES[0])

uint8_t transcript[1 << 16];
size_t transcript_len;

const char *random_schema(void) { return SCHEMA_SAMPLES[below(N_SCHEMA)]; }

/* Fills `buf` with one kind of input and returns its length. */
size_t make_input(uint8_t *buf) {
    size_t len = 0;
    switch (below(6)) {
    case 0:
    case 1: {
        const char *s = JSON_SAMPLES[below(N_JSON)];
        len = strlen(s);
        memcpy(buf, s, len);
        break;
    }
    case 2: {
        const char *s = random_schema();
        len = strlen(s);
        memcpy(buf, s, len);
        break;
    }
    case 3: /* random bytes, often invalid UTF-8 */
        len = below(64);
        for (size_t i = 0; i < len; i++) {
            buf[i] = (uint8_t)next_u64();
        }
        break;
    case 4: /* a piece of the transcript written so far */
        if (transcript_len > 0) {
            size_t start = below(transcript_len);
            len = below(transcript_len - start + 1);
            if (len > MAX_INPUT) {
                len = MAX_INPUT;
            }
            memcpy(buf, transcript + start, len);
        }
        break;
    default: { /* a sample, truncated */
        const char *s = JSON_SAMPLES[below(N_JSON)];
        len = below(strlen(s) + 1);
        memcpy(buf, s, len);
        break;
    }
    }
    /* Mutate a few bytes now and then. */
    if (len > 0 && one_in(4)) {
        size_t n = 1 + below(3);
        for (size_t i = 0; i < n; i++) {
            buf[below(len)] = (uint8_t)next_u64();
        }
    }
    return len;
}

/* A pointer to the input, or NULL (with its length kept, to test the NULL check). */
const uint8_t *maybe_null(const uint8_t *p) { return one_in(16) ? NULL : p; }

/* ------------------------------------------------------------------ size queries */

/* Calls a size-query export with a buffer of a random size (0, NULL, 1, the exact
 * length or larger), allocated at exactly that size so ASan sees any overrun, and
 * checks the protocol. Returns the result. */
agentloop_result size_query(size_query_fn fn, void *ctx, uint32_t allowed, const char *what) {
    allowed |= BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE) | BIT(AGENTLOOP_RESULT_OK);
    size_t need = (size_t)-1;
    if (one_in(32)) {
        expect(fn(ctx, NULL, 0, NULL), BIT(AGENTLOOP_RESULT_NULL_PARAMETER) | allowed, what);
    }
    agentloop_result r = expect(fn(ctx, NULL, 0, &need), allowed, what);
    if (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE && r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    if (r == AGENTLOOP_RESULT_OK && need != 0) {
        fail(what, "OK with a NULL buffer for a non-empty answer");
    }
    if (r == AGENTLOOP_RESULT_OK) {
        return r;
    }
    size_t cap;
    switch (below(4)) {
    case 0: cap = 1; break;
    case 1: cap = need - 1; break;
    case 2: cap = need + below(8); break;
    default: cap = need; break;
    }
    uint8_t *buf = malloc(cap == 0 ? 1 : cap);
    if (buf == NULL) {
        fail(what, "out of memory");
    }
    size_t len = 0;
    r = expect(fn(ctx, buf, cap, &len), allowed, what);
    if (cap < need && (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE || len != need)) {
        fail(what, "a short buffer was not refused with the same needed length");
    }
    if (cap >= need && (r != AGENTLOOP_RESULT_OK || len != need)) {
        fail(what, "a buffer of the needed size was not filled with that many bytes");
    }
    free(buf);
    return r;
}
