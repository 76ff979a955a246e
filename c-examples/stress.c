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
 * This file holds main and the operations on everything but agents; stress_agent.c
 * the agent handle's operation; stress_support.c the randomness, the checking, the
 * inputs and the size-query protocol; stress_handles.c the handles kept between
 * operations; stress.h what they share.
 *
 *   stress [ITERATIONS [SEED]]     (defaults: 20000, 1)
 *
 * Exit 0 and one summary line on success; exit 1 naming the iteration, the call and
 * the result on the first broken promise.
 */
#include "stress.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ size queries */

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
        FREE_SLOT(chains, i, agentloop_chain_free);
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
        FREE_SLOT(verifiers, i, agentloop_verifier_free);
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
        FREE_SLOT(schemas, i, agentloop_schema_free);
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
    free_all_handles();
    printf("stress: %lu iterations, %lu calls (%lu OK), seed %" PRIu64
           ": every result documented\n",
           iterations, calls, oks, seed);
    return 0;
}
