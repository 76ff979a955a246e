/*
 * stress.c: random sequences of libagentloop calls, the way a careless or hostile
 * host might make them: NULL pointers, zero and one-byte buffers, lengths that do not
 * fit, invalid UTF-8, random bytes, truncated and mutated JSON, handles freed in any
 * order (and never used again). Every result must be a documented code for the call
 * that returned it and never AGENTLOOP_RESULT_PANIC; every size query must keep its
 * protocol. Run under AddressSanitizer/UndefinedBehaviorSanitizer and valgrind by
 * ffi/tests/ffi/c_examples.rs, where any out-of-bounds access, use of uninitialised memory
 * or leak is a failure.
 *
 * Deterministic: a seeded xorshift PRNG, no clock.
 *
 *   stress [ITERATIONS [SEED]]     (defaults: 20000, 1)
 *
 * Exit 0 and one summary line on success; exit 1 naming the iteration, the call and
 * the result on the first broken promise.
 */
#include <agentloop.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ randomness */

static uint64_t rng_state;

static uint64_t next_u64(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static size_t below(size_t n) { return n == 0 ? 0 : (size_t)(next_u64() % n); }
static bool one_in(size_t n) { return below(n) == 0; }

/* ------------------------------------------------------------------ checking */

static unsigned long iteration;
static unsigned long calls;
static unsigned long oks;

#define BIT(r) (1u << (r))
#define ANY_INPUT                                                                 \
    (BIT(AGENTLOOP_RESULT_INVALID_UTF8) | BIT(AGENTLOOP_RESULT_INVALID_JSON) |   \
     BIT(AGENTLOOP_RESULT_NO_CANONICAL_FORM) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER))

static void fail(const char *what, const char *why) {
    fprintf(stderr, "stress: iteration %lu: %s: %s\n", iteration, what, why);
    exit(1);
}

/* The result must be one of `allowed` (a mask of result codes). */
static agentloop_result expect(agentloop_result r, uint32_t allowed, const char *what) {
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

static void check_static_string(const char *s, const char *what) {
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

#define MAX_INPUT 4096

/* Appended lines, reused as transcripts to verify (and to mutate). */
static uint8_t transcript[1 << 16];
static size_t transcript_len;

/* Fills `buf` with one kind of input and returns its length. */
static size_t make_input(uint8_t *buf) {
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
        const char *s = SCHEMA_SAMPLES[below(N_SCHEMA)];
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
static const uint8_t *maybe_null(const uint8_t *p) { return one_in(16) ? NULL : p; }

/* ------------------------------------------------------------------ size queries */

/* Calls a size-query export with a buffer of a random size (0, NULL, 1, the exact
 * length or larger), allocated at exactly that size so ASan sees any overrun, and
 * checks the protocol. Returns the result. */
typedef agentloop_result (*size_query_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *len);

static agentloop_result size_query(size_query_fn fn, void *ctx, uint32_t allowed,
                                   const char *what) {
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

struct bytes_ctx {
    const uint8_t *ptr;
    size_t len;
};

static agentloop_result canonicalize_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct bytes_ctx *c = ctx;
    return agentloop_json_canonicalize(c->ptr, c->len, buf, cap, len);
}

static agentloop_result explain_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct bytes_ctx *c = ctx;
    return agentloop_schema_explain(c->ptr, c->len, buf, cap, len);
}

struct violations_ctx {
    const agentloop_schema *schema;
    const uint8_t *ptr;
    size_t len;
};

static agentloop_result violations_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct violations_ctx *c = ctx;
    return agentloop_schema_violations(c->schema, c->ptr, c->len, buf, cap, len);
}

struct append_ctx {
    agentloop_chain *chain;
    const uint8_t *kind;
    size_t kind_len;
    const uint8_t *payload;
    size_t payload_len;
};

static agentloop_result append_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct append_ctx *c = ctx;
    agentloop_result r =
        agentloop_chain_append(c->chain, c->kind, c->kind_len, c->payload, c->payload_len, buf,
                               cap, len);
    if (r == AGENTLOOP_RESULT_OK && buf != NULL && transcript_len + *len <= sizeof transcript) {
        memcpy(transcript + transcript_len, buf, *len);
        transcript_len += *len;
    }
    return r;
}

static agentloop_result messages_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_messages_json(ctx, buf, cap, len);
}

static agentloop_result call_json_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_call_json(ctx, buf, cap, len);
}

static agentloop_result stop_error_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_stop_error(ctx, buf, cap, len);
}

struct request_ctx {
    agentloop_agent *agent;
    uint32_t provider;
    const uint8_t *options;
    size_t options_len;
};

static agentloop_result request_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct request_ctx *c = ctx;
    return agentloop_agent_request(c->agent, c->provider, c->options, c->options_len, buf, cap,
                                   len);
}

static agentloop_result request_error_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_request_error(ctx, buf, cap, len);
}

/* ------------------------------------------------------------------ handles */

#define SLOTS 4
static agentloop_chain *chains[SLOTS];
static agentloop_report *reports[SLOTS];
static agentloop_verifier *verifiers[SLOTS];
static agentloop_schema *schemas[SLOTS];
static agentloop_agent *agents[SLOTS];

/* A live handle from `slots`, or NULL now and then (or when the slot is empty). */
#define PICK(slots) (one_in(20) ? NULL : (slots)[below(SLOTS)])

static void random_options(agentloop_verify_options *o) {
    expect(agentloop_verify_options_init(o), BIT(AGENTLOOP_RESULT_OK), "verify_options_init");
    o->lenient = one_in(3);
    o->max_faults = one_in(2) ? 0 : below(4);
    o->max_line_bytes = one_in(2) ? 0 : below(300);
    if (one_in(8)) {
        o->seq0 = one_in(2) ? (UINT64_C(1) << 53) : below(5); /* 2^53 is out of range */
    }
    if (one_in(6)) {
        o->has_checkpoint = true;
        o->checkpoint_count = one_in(8) ? UINT64_MAX : below(6);
        o->has_checkpoint_head = one_in(2);
        memset(o->checkpoint_head.bytes, (int)below(256), sizeof o->checkpoint_head.bytes);
    }
}

static void read_report(const agentloop_report *report) {
    bool ok = agentloop_report_ok(report);
    uint64_t count = agentloop_report_count(report);
    uint64_t faults = agentloop_report_fault_count(report);
    uint64_t omitted = agentloop_report_faults_omitted(report);
    calls += 4;
    if (report == NULL && (ok || count || faults || omitted)) {
        fail("report accessors", "NULL report gave something other than false/0");
    }
    if (ok && (faults || omitted)) {
        fail("report_ok", "ok with faults");
    }
    agentloop_hash head;
    bool has = false;
    expect(agentloop_report_head(report, one_in(16) ? NULL : &head, one_in(16) ? NULL : &has),
           BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER), "report_head");
    uint64_t beyond = 0;
    expect(agentloop_report_beyond_checkpoint(report, &beyond, one_in(16) ? NULL : &has),
           BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
           "report_beyond_checkpoint");
    uint64_t n = faults + 2;
    for (uint64_t i = 0; i < n; i++) {
        int64_t index = 0, line = 0;
        uint32_t kind = 0;
        const char *detail = NULL;
        agentloop_result r = expect(
            agentloop_report_fault(report, i, one_in(4) ? NULL : &index,
                                   one_in(4) ? NULL : &line, &kind, one_in(4) ? NULL : &detail),
            BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INDEX_OUT_OF_RANGE) |
                BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
            "report_fault");
        if ((r == AGENTLOOP_RESULT_OK) != (report != NULL && i < faults)) {
            fail("report_fault", "an index in range refused, or one past the end accepted");
        }
        if (r == AGENTLOOP_RESULT_OK) {
            check_static_string(agentloop_fault_kind_str(kind), "fault_kind_str");
            if (detail != NULL && strlen(detail) == 0) {
                fail("report_fault", "an empty detail sentence");
            }
        }
    }
}

static void free_slot_report(size_t i) {
    agentloop_report_free(reports[i]);
    reports[i] = NULL;
}

static void put_report(agentloop_report *report) {
    size_t i = below(SLOTS);
    free_slot_report(i);
    reports[i] = report;
}

/* ------------------------------------------------------------------ operations */

static void op_canonicalize(const uint8_t *in, size_t len) {
    struct bytes_ctx c = {maybe_null(in), len};
    uint32_t allowed = ANY_INPUT & ~BIT(AGENTLOOP_RESULT_INVALID_UTF8);
    agentloop_result r = size_query(canonicalize_fn, &c, allowed, "canonicalize");
    if (c.ptr == NULL && len > 0 && r != AGENTLOOP_RESULT_NULL_PARAMETER) {
        fail("canonicalize", "NULL input with a length was not NULL_PARAMETER");
    }
}

static agentloop_result hex_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_hash_to_hex(ctx, buf, cap, len);
}

static void op_hash(const uint8_t *in, size_t len) {
    agentloop_hash hash;
    for (size_t i = 0; i < sizeof hash.bytes; i++) {
        hash.bytes[i] = (uint8_t)next_u64();
    }
    uint8_t hex[AGENTLOOP_HASH_HEX_LEN + 1];
    memset(hex, 'x', sizeof hex);
    size_t hex_len = one_in(2) ? 64 : len;
    const uint8_t *text = in;
    char good[65];
    if (hex_len == 64 && (len < 64 || one_in(2))) {
        for (size_t i = 0; i < 64; i++) {
            good[i] = "0123456789abcdefABC"[below(one_in(8) ? 19 : 16)];
        }
        text = (const uint8_t *)good;
    }
    agentloop_result r = expect(agentloop_hash_from_hex(maybe_null(text), hex_len,
                                                        one_in(16) ? NULL : &hash),
                                BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                                    BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
                                "hash_from_hex");
    if (r == AGENTLOOP_RESULT_OK) {
        size_t written = 0;
        expect(agentloop_hash_to_hex(&hash, hex, sizeof hex, &written), BIT(AGENTLOOP_RESULT_OK),
               "hash_to_hex");
        /* 64 digits and no NUL: the byte after them is as it was. */
        if (written != AGENTLOOP_HASH_HEX_LEN || hex[64] != 'x' || memcmp(hex, text, 64) != 0) {
            fail("hash_to_hex", "did not give back the hex it read");
        }
    }
    size_query(hex_fn, one_in(8) ? NULL : &hash, BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
               "hash_to_hex");
}

static void op_chain(const uint8_t *in, size_t len) {
    size_t i = below(SLOTS);
    switch (below(6)) {
    case 0: {
        agentloop_chain_free(chains[i]);
        chains[i] = NULL;
        agentloop_chain *c = NULL;
        expect(agentloop_chain_new(&c), BIT(AGENTLOOP_RESULT_OK), "chain_new");
        chains[i] = c;
        break;
    }
    case 1: {
        agentloop_chain_free(chains[i]);
        chains[i] = NULL;
        agentloop_hash prev0;
        memset(prev0.bytes, (int)below(256), sizeof prev0.bytes);
        uint64_t seq0 = one_in(4) ? (UINT64_C(1) << 53) - 1 - below(2) : below(10);
        if (one_in(8)) {
            seq0 = UINT64_C(1) << 53;
        }
        agentloop_chain *c = NULL;
        agentloop_result r = expect(
            agentloop_chain_resume(seq0, one_in(16) ? NULL : &prev0, one_in(16) ? NULL : &c),
            BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
            "chain_resume");
        if (r == AGENTLOOP_RESULT_OK) {
            chains[i] = c;
        } else if (c != NULL) {
            fail("chain_resume", "*out written on failure");
        }
        break;
    }
    case 2:
    case 3: {
        static const char *const KINDS[] = {"task", "tool", "", "\xff\xfe", "note"};
        const char *kind = KINDS[below(5)];
        struct append_ctx c = {PICK(chains), maybe_null((const uint8_t *)kind), strlen(kind),
                               maybe_null(in), len};
        size_query(append_fn, &c,
                   ANY_INPUT | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                       BIT(AGENTLOOP_RESULT_CHAIN_EXHAUSTED),
                   "chain_append");
        break;
    }
    case 4: {
        agentloop_hash head;
        uint64_t count = 0;
        agentloop_chain *c = PICK(chains);
        expect(agentloop_chain_head(c, one_in(8) ? NULL : &head),
               BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER), "chain_head");
        expect(agentloop_chain_count(c, one_in(8) ? NULL : &count),
               BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER), "chain_count");
        break;
    }
    default:
        agentloop_chain_free(chains[i]);
        chains[i] = NULL;
        agentloop_chain_free(NULL);
        break;
    }
}

static void op_verify(const uint8_t *in, size_t len) {
    agentloop_verify_options options;
    random_options(&options);
    const agentloop_verify_options *opts = one_in(4) ? NULL : &options;
    const uint8_t *bytes = in;
    if (one_in(2)) {
        bytes = transcript;
        len = transcript_len;
    }
    agentloop_report *report = NULL;
    agentloop_result r =
        expect(agentloop_transcript_verify_buffer(maybe_null(bytes), len, opts,
                                                  one_in(16) ? NULL : &report),
               BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER) |
                   BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
               "verify_buffer");
    if (r == AGENTLOOP_RESULT_OK) {
        read_report(report);
        put_report(report);
    } else if (report != NULL) {
        fail("verify_buffer", "*out_report written on failure");
    }
}

static void op_verifier(const uint8_t *in, size_t len) {
    size_t i = below(SLOTS);
    switch (below(5)) {
    case 0: {
        agentloop_verifier_free(verifiers[i]);
        verifiers[i] = NULL;
        agentloop_verify_options options;
        random_options(&options);
        agentloop_verifier *v = NULL;
        agentloop_result r = expect(agentloop_verifier_new(one_in(4) ? NULL : &options, &v),
                                    BIT(AGENTLOOP_RESULT_OK) |
                                        BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
                                    "verifier_new");
        if (r == AGENTLOOP_RESULT_OK) {
            verifiers[i] = v;
        }
        break;
    }
    case 1:
    case 2: {
        agentloop_verifier *v = PICK(verifiers);
        const uint8_t *bytes = one_in(2) ? transcript : in;
        size_t n = bytes == transcript ? transcript_len : len;
        for (size_t at = 0; at < n;) {
            size_t chunk = 1 + below(64);
            if (chunk > n - at) {
                chunk = n - at;
            }
            agentloop_result r =
                expect(agentloop_verifier_push(v, maybe_null(bytes + at), chunk),
                       BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER) |
                           BIT(AGENTLOOP_RESULT_INVALID_STATE),
                       "verifier_push");
            if (r != AGENTLOOP_RESULT_OK) {
                break;
            }
            at += chunk;
        }
        break;
    }
    case 3: {
        agentloop_report *report = NULL;
        agentloop_result r =
            expect(agentloop_verifier_finish(PICK(verifiers), one_in(16) ? NULL : &report),
                   BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
                   "verifier_finish");
        if (r == AGENTLOOP_RESULT_OK) {
            read_report(report);
            put_report(report);
        }
        break;
    }
    default:
        agentloop_verifier_free(verifiers[i]);
        verifiers[i] = NULL;
        agentloop_verifier_free(NULL);
        break;
    }
}

static void op_report(void) {
    size_t i = below(SLOTS);
    if (one_in(3)) {
        free_slot_report(i);
        agentloop_report_free(NULL);
    } else {
        read_report(one_in(10) ? NULL : reports[i]);
    }
}

static void op_schema(const uint8_t *in, size_t len) {
    size_t i = below(SLOTS);
    switch (below(5)) {
    case 0: {
        agentloop_schema_free(schemas[i]);
        schemas[i] = NULL;
        agentloop_schema *s = NULL;
        agentloop_result r = expect(agentloop_schema_new(maybe_null(in), len, &s),
                                    ANY_INPUT | BIT(AGENTLOOP_RESULT_OK) |
                                        BIT(AGENTLOOP_RESULT_SCHEMA_REFUSED),
                                    "schema_new");
        if (r == AGENTLOOP_RESULT_OK) {
            schemas[i] = s;
        } else if (s != NULL) {
            fail("schema_new", "*out written on failure");
        }
        /* The explanation agrees: empty for a compiled schema, a sentence for a
         * refused one, the same code for a document that is not JSON. */
        size_t need = (size_t)-1;
        agentloop_result e = expect(agentloop_schema_explain(in, len, NULL, 0, &need),
                                    ANY_INPUT | BIT(AGENTLOOP_RESULT_OK) |
                                        BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE),
                                    "schema_explain");
        bool agrees = r == AGENTLOOP_RESULT_OK                ? e == AGENTLOOP_RESULT_OK && need == 0
                      : r == AGENTLOOP_RESULT_SCHEMA_REFUSED ? e == AGENTLOOP_RESULT_INSUFFICIENT_SIZE && need > 0
                      : r == AGENTLOOP_RESULT_NULL_PARAMETER ? true
                                                             : e == r;
        if (!agrees) {
            fail("schema_explain", "disagrees with schema_new");
        }
        struct bytes_ctx c = {maybe_null(in), len};
        size_query(explain_fn, &c, ANY_INPUT, "schema_explain");
        break;
    }
    case 1: {
        bool valid = false;
        expect(agentloop_schema_validate(PICK(schemas), maybe_null(in), len,
                                         one_in(16) ? NULL : &valid),
               ANY_INPUT | BIT(AGENTLOOP_RESULT_OK), "schema_validate");
        break;
    }
    case 2:
    case 3: {
        struct violations_ctx c = {PICK(schemas), maybe_null(in), len};
        size_query(violations_fn, &c, ANY_INPUT, "schema_violations");
        break;
    }
    default:
        agentloop_schema_free(schemas[i]);
        schemas[i] = NULL;
        agentloop_schema_free(NULL);
        break;
    }
}

static void op_agent(const uint8_t *in, size_t len) {
    size_t i = below(SLOTS);
    agentloop_agent *a = PICK(agents);
    const uint32_t needs_agent = BIT(AGENTLOOP_RESULT_NULL_PARAMETER) |
                                 BIT(AGENTLOOP_RESULT_INVALID_STATE) | BIT(AGENTLOOP_RESULT_OK);
    switch (below(14)) {
    case 0: {
        agentloop_agent_free(agents[i]);
        agents[i] = NULL;
        agentloop_budgets budgets;
        expect(agentloop_budgets_init(&budgets), BIT(AGENTLOOP_RESULT_OK), "budgets_init");
        budgets.has_max_steps = one_in(2);
        budgets.max_steps = one_in(16) ? UINT64_MAX : below(4);
        budgets.has_max_tokens = one_in(3);
        budgets.max_tokens = below(50);
        budgets.has_max_tool_calls = one_in(3);
        budgets.max_tool_calls = below(4);
        budgets.has_max_total_tokens = one_in(3);
        budgets.max_total_tokens = one_in(16) ? UINT64_MAX : below(80);
        if (one_in(4)) {
            budgets.stop_sentinel = in;
            budgets.stop_sentinel_len = len < 8 ? len : 8;
        }
        agentloop_agent *fresh = NULL;
        agentloop_result r = expect(
            agentloop_agent_new(maybe_null(in), len, one_in(4) ? NULL : &budgets,
                                one_in(8) ? (UINT64_C(1) << 53) : below(3), &fresh),
            BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INVALID_UTF8) |
                BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
            "agent_new");
        if (r == AGENTLOOP_RESULT_OK) {
            agents[i] = fresh;
        }
        break;
    }
    case 1: {
        static const char *const NAMES[] = {"add", "echo", "", "\xc3\x28", "add", "a.b"};
        const char *name = NAMES[below(6)];
        const char *schema = SCHEMA_SAMPLES[below(N_SCHEMA)];
        const uint8_t *schema_in = one_in(4) ? in : (const uint8_t *)schema;
        size_t schema_len = schema_in == in ? len : strlen(schema);
        agentloop_result r = expect(
            agentloop_agent_add_tool(a, (const uint8_t *)name, strlen(name),
                                     (const uint8_t *)"d", 1, schema_in, schema_len,
                                     one_in(16) ? UINT64_MAX : below(3)),
            ANY_INPUT | needs_agent | BIT(AGENTLOOP_RESULT_SCHEMA_REFUSED) |
                BIT(AGENTLOOP_RESULT_NOT_PROVIDER_SAFE) | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
            "agent_add_tool");
        /* The explanation agrees: a sentence for a name or schema refused, empty for
         * one registered. */
        size_t need = (size_t)-1;
        agentloop_result e = expect(
            agentloop_tool_explain((const uint8_t *)name, strlen(name), schema_in, schema_len,
                                   NULL, 0, &need),
            ANY_INPUT | BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE),
            "tool_explain");
        bool agrees = r == AGENTLOOP_RESULT_OK ? e == AGENTLOOP_RESULT_OK && need == 0
                      : r == AGENTLOOP_RESULT_NOT_PROVIDER_SAFE || r == AGENTLOOP_RESULT_SCHEMA_REFUSED
                          ? e == AGENTLOOP_RESULT_INSUFFICIENT_SIZE && need > 0
                          : true;
        if (!agrees) {
            fail("tool_explain", "disagrees with agent_add_tool");
        }
        break;
    }
    case 2: {
        uint32_t need = 0;
        expect(agentloop_agent_poll(a, one_in(16) ? NULL : &need),
               BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER), "agent_poll");
        break;
    }
    case 3: {
        static const char *const CALLS[] = {
            "[]", "[{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}]",
            "[{\"name\":\"echo\",\"arguments\":{}}]", "{}", "[{\"name\":1}]",
        };
        const char *c = CALLS[below(5)];
        expect(agentloop_agent_feed_reply(a, maybe_null(in), len,
                                          one_in(4) ? in : (const uint8_t *)c,
                                          one_in(4) ? len : strlen(c), one_in(2),
                                          one_in(8) ? UINT64_MAX : below(100)),
               ANY_INPUT | needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
               "agent_feed_reply");
        break;
    }
    case 4:
        expect(agentloop_agent_feed_model_error(a, maybe_null(in), len),
               ANY_INPUT | needs_agent, "agent_feed_model_error");
        break;
    case 5:
        expect(agentloop_agent_feed_tool_result(a, maybe_null(in), len), ANY_INPUT | needs_agent,
               "agent_feed_tool_result");
        break;
    case 6:
        expect(agentloop_agent_feed_tool_error(a, maybe_null(in), len), ANY_INPUT | needs_agent,
               "agent_feed_tool_error");
        break;
    case 7:
        size_query(messages_fn, a, needs_agent, "agent_messages_json");
        size_query(call_json_fn, a, needs_agent, "agent_call_json");
        break;
    case 8: {
        uint8_t out[512];
        size_t out_len = 0;
        bool has = false;
        expect(agentloop_agent_take_record(a, PICK(chains), one_in(4) ? NULL : out,
                                           below(sizeof out + 1), &out_len,
                                           one_in(16) ? NULL : &has),
               needs_agent | BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE) |
                   BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) | BIT(AGENTLOOP_RESULT_CHAIN_EXHAUSTED),
               "agent_take_record");
        break;
    }
    case 9: {
        uint32_t reason = 0;
        uint64_t steps = 0, tokens = 0, unrun = 0, tools = 0;
        agentloop_result r =
            expect(agentloop_agent_outcome(a, &reason, one_in(2) ? NULL : &steps, &tokens,
                                           one_in(2) ? NULL : &unrun, &tools),
                   needs_agent, "agent_outcome");
        if (r == AGENTLOOP_RESULT_OK) {
            check_static_string(agentloop_stop_str(reason), "stop_str");
        }
        size_query(stop_error_fn, a, needs_agent, "agent_stop_error");
        break;
    }
    case 10:
        expect(agentloop_agent_cancel(a), BIT(AGENTLOOP_RESULT_OK) |
                                              BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
               "agent_cancel");
        break;
    case 11: {
        /* A provider request: providers 0 and 3 are unknown; options good, refused by
         * the codec (no model, Anthropic without max_output_tokens, a reserved member),
         * not JSON, or the random input. */
        static const char *const OPTIONS[] = {
            "{\"model\":\"m\",\"max_output_tokens\":16}", "{\"model\":\"m\"}",
            "{\"model\":\"m\",\"tools\":[]}", "{}", "[", "{\"model\":\"m\",\"x\":1e400}",
        };
        const char *o = OPTIONS[below(6)];
        bool random_options = one_in(4);
        struct request_ctx c = {a, (uint32_t)below(4),
                                random_options ? maybe_null(in) : (const uint8_t *)o,
                                random_options ? len : strlen(o)};
        size_query(request_fn, &c,
                   needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                       BIT(AGENTLOOP_RESULT_INVALID_JSON) |
                       BIT(AGENTLOOP_RESULT_NO_CANONICAL_FORM) |
                       BIT(AGENTLOOP_RESULT_REQUEST_REFUSED),
                   "agent_request");
        size_query(request_error_fn, a, BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
                   "agent_request_error");
        break;
    }
    case 12: {
        /* A provider's answer: any bytes, any status, known or unknown providers. */
        static const uint32_t STATUSES[] = {200, 429, 500, 529, 0, 1000};
        static const char *const BODIES[] = {
            "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}",
            "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],"
            "\"stop_reason\":\"end_turn\"}",
        };
        const char *b = BODIES[below(2)];
        uint32_t status = one_in(8) ? (uint32_t)next_u64() : STATUSES[below(6)];
        bool random_body = one_in(2);
        /* The key to redact: none, a part of the input, or garbage. */
        size_t secret_len = one_in(2) ? 0 : (len < 12 ? len : 12);
        expect(agentloop_agent_feed_response(a, (uint32_t)below(4), status,
                                             random_body ? maybe_null(in) : (const uint8_t *)b,
                                             random_body ? len : strlen(b), maybe_null(in),
                                             secret_len),
               needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                   BIT(AGENTLOOP_RESULT_INVALID_UTF8),
               "agent_feed_response");
        break;
    }
    default:
        agentloop_agent_free(agents[i]);
        agents[i] = NULL;
        agentloop_agent_free(NULL);
        break;
    }
}

static void op_strings(void) {
    uint32_t code = (uint32_t)next_u64();
    if (one_in(2)) {
        code %= 20;
    }
    check_static_string(agentloop_result_str(code), "result_str");
    check_static_string(agentloop_fault_kind_str(code), "fault_kind_str");
    check_static_string(agentloop_stop_str(code), "stop_str");
    check_static_string(agentloop_library_version(), "library_version");
    calls += 4;
}

int main(int argc, char **argv) {
    unsigned long iterations = 20000;
    uint64_t seed = 1;
    if (argc > 1) {
        iterations = strtoul(argv[1], NULL, 10);
    }
    if (argc > 2) {
        seed = strtoull(argv[2], NULL, 10);
    }
    rng_state = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    static uint8_t input[MAX_INPUT];
    for (iteration = 0; iteration < iterations; iteration++) {
        size_t len = make_input(input);
        switch (below(9)) {
        case 0: op_canonicalize(input, len); break;
        case 1: op_hash(input, len); break;
        case 2: op_chain(input, len); break;
        case 3: op_verify(input, len); break;
        case 4: op_verifier(input, len); break;
        case 5: op_report(); break;
        case 6: op_schema(input, len); break;
        case 7: op_agent(input, len); break;
        default: op_strings(); break;
        }
        if (transcript_len > sizeof transcript - 1024) {
            transcript_len = 0;
        }
    }
    for (size_t i = 0; i < SLOTS; i++) {
        agentloop_chain_free(chains[i]);
        agentloop_report_free(reports[i]);
        agentloop_verifier_free(verifiers[i]);
        agentloop_schema_free(schemas[i]);
        agentloop_agent_free(agents[i]);
    }
    printf("stress: %lu iterations, %lu calls (%lu OK), seed %" PRIu64
           ": every result documented\n",
           iterations, calls, oks, seed);
    return 0;
}
