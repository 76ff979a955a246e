/*
 * append.c: writes the three-record chain of SPEC section 5 with the chain handle and
 * checks every byte of every line and every head against the SPEC. With a FILE
 * argument it also writes the transcript there, and then exercises the durable writer
 * on FILE.writer: the same chain through agentloop_writer, a torn tail it refuses,
 * and agentloop_transcript_repair. Exit 0 when everything matched.
 *
 *   ./append [FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

static const char *const KINDS[3] = {"task", "assistant", "tool"};

/* Member order and spacing do not matter: the lines come out canonical. */
static const char *const PAYLOADS[3] = {
    "{\"task\": \"add 2 and 40\"}",
    "{\"tool_calls\":[{\"name\":\"add\",\"arguments\":{\"b\":40,\"a\":2}}],\"text\":\"\"}",
    "{\"value\":{\"sum\":42},\"ok\":true,\"name\":\"add\"}",
};

static const char *const LINES[3] = {
    "{\"hash\":\"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949\","
    "\"kind\":\"task\",\"payload\":{\"task\":\"add 2 and 40\"},"
    "\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"seq\":0}\n",
    "{\"hash\":\"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01\","
    "\"kind\":\"assistant\",\"payload\":{\"text\":\"\",\"tool_calls\":[{\"arguments\":{\"a\":2,\"b\":40},\"name\":\"add\"}]},"
    "\"prev\":\"dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949\",\"seq\":1}\n",
    "{\"hash\":\"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6\","
    "\"kind\":\"tool\",\"payload\":{\"name\":\"add\",\"ok\":true,\"value\":{\"sum\":42}},"
    "\"prev\":\"ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01\",\"seq\":2}\n",
};

static const char *const HEADS[3] = {
    "dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949",
    "ec9a81c7ed823aff86fdcd11fda6635530447bdae2b72eb15ede9ed000662c01",
    "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6",
};

/* A C string as the (pointer, length) every input of the library is. */
#define P(s) (const uint8_t *)(s), strlen(s)

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "append: %s: %s\n", what, agentloop_result_str(result));
    return 1;
}

/* The durable writer on `<spec_path>.writer`: appends, a torn tail, repair. */
static int writer_part(const char *spec_path) {
    char path[4096];
    char side[4200];
    int n = snprintf(path, sizeof path, "%s.writer", spec_path);
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "append: path too long\n");
        return 1;
    }
    remove(path);
    agentloop_writer_options options;
    agentloop_result r = agentloop_writer_options_init(&options);
    if (r != AGENTLOOP_RESULT_OK) {
        return fail("agentloop_writer_options_init", r);
    }
    options.sync = AGENTLOOP_SYNC_EVERY_N;
    options.sync_every = 2;
    options.wait_for_lock = false;
    agentloop_writer *writer = NULL;
    if ((r = agentloop_writer_open_with(P(path), NULL, &options, &writer)) !=
        AGENTLOOP_RESULT_OK) {
        return fail("agentloop_writer_open_with", r);
    }
    size_t complete = 0;
    for (size_t i = 0; i < 3; i++) {
        r = agentloop_writer_append(writer, (const uint8_t *)KINDS[i], strlen(KINDS[i]),
                                    (const uint8_t *)PAYLOADS[i], strlen(PAYLOADS[i]));
        if (r != AGENTLOOP_RESULT_OK) {
            agentloop_writer_free(writer);
            return fail("agentloop_writer_append", r);
        }
        complete += strlen(LINES[i]);
    }
    agentloop_hash head;
    /* The 64 digits, and a NUL of our own after them to use them as a C string. */
    char hex[AGENTLOOP_HASH_HEX_LEN + 1] = {0};
    size_t hex_len = 0;
    if ((r = agentloop_writer_sync(writer)) != AGENTLOOP_RESULT_OK ||
        (r = agentloop_writer_head(writer, &head)) != AGENTLOOP_RESULT_OK ||
        (r = agentloop_hash_to_hex(&head, (uint8_t *)hex, AGENTLOOP_HASH_HEX_LEN, &hex_len)) !=
            AGENTLOOP_RESULT_OK) {
        agentloop_writer_free(writer);
        return fail("writer sync/head", r);
    }
    agentloop_writer_free(writer);
    if (strcmp(hex, HEADS[2]) != 0) {
        fprintf(stderr, "append: the writer's head is %s\n", hex);
        return 1;
    }

    /* What a crash in the middle of an append leaves: an incomplete last line. */
    const char *torn = "{\"hash\":\"12";
    FILE *f = fopen(path, "ab");
    if (f == NULL || fputs(torn, f) == EOF || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    writer = NULL;
    r = agentloop_writer_open(P(path), NULL, &writer);
    if (r != AGENTLOOP_RESULT_TORN_TAIL || writer != NULL) {
        agentloop_writer_free(writer);
        return fail("opening a torn file", r);
    }
    uint64_t offset = 0, removed = 0;
    r = agentloop_transcript_repair(P(path), NULL, &offset, &removed);
    if (r != AGENTLOOP_RESULT_OK || offset != complete || removed != strlen(torn)) {
        fprintf(stderr, "append: repair: %s, offset %llu, removed %llu\n",
                agentloop_result_str(r), (unsigned long long)offset,
                (unsigned long long)removed);
        return 1;
    }
    /* Nothing left to repair; the side file keeps the torn bytes and is never overwritten. */
    r = agentloop_transcript_repair(P(path), NULL, &offset, &removed);
    if (r != AGENTLOOP_RESULT_OK || removed != 0 || offset != complete) {
        return fail("repairing again", r);
    }
    f = fopen(path, "ab");
    if (f == NULL || fputs(torn, f) == EOF || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    r = agentloop_transcript_repair(P(path), NULL, &offset, &removed);
    if (r != AGENTLOOP_RESULT_SIDE_FILE_EXISTS) {
        return fail("repair over an existing side file", r);
    }
    n = snprintf(side, sizeof side, "%s.torn-%llu", path, (unsigned long long)complete);
    if (n < 0 || (size_t)n >= sizeof side || remove(side) != 0) {
        perror(side);
        return 1;
    }
    if ((r = agentloop_transcript_repair(P(path), NULL, &offset, &removed)) !=
            AGENTLOOP_RESULT_OK ||
        removed != strlen(torn)) {
        return fail("repair after removing the side file", r);
    }
    uint64_t count = 0;
    if ((r = agentloop_writer_open(P(path), NULL, &writer)) != AGENTLOOP_RESULT_OK) {
        return fail("reopening the repaired file", r);
    }
    r = agentloop_writer_count(writer, &count);
    agentloop_writer_free(writer);
    if (r != AGENTLOOP_RESULT_OK || count != 3) {
        return fail("the repaired file's count", r);
    }
    remove(side);
    remove(path);
    printf("append: the durable writer wrote the chain; a torn tail was refused and repaired\n");
    return 0;
}

int main(int argc, char **argv) {
    agentloop_chain *chain = NULL;
    agentloop_result r = agentloop_chain_new(&chain);
    if (r != AGENTLOOP_RESULT_OK) {
        return fail("agentloop_chain_new", r);
    }
    FILE *out = NULL;
    if (argc > 1 && (out = fopen(argv[1], "wb")) == NULL) {
        perror(argv[1]);
        agentloop_chain_free(chain);
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < 3 && status == 0; i++) {
        const uint8_t *kind = (const uint8_t *)KINDS[i];
        const uint8_t *payload = (const uint8_t *)PAYLOADS[i];
        /* Ask for the size first; the chain does not move on INSUFFICIENT_SIZE. */
        size_t needed = 0;
        r = agentloop_chain_append(chain, kind, strlen(KINDS[i]), payload, strlen(PAYLOADS[i]),
                                   NULL, 0, &needed);
        if (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE || needed != strlen(LINES[i])) {
            status = fail("size query", r);
            break;
        }
        uint8_t *line = malloc(needed);
        size_t len = 0;
        if (line == NULL) {
            status = 1;
            break;
        }
        r = agentloop_chain_append(chain, kind, strlen(KINDS[i]), payload, strlen(PAYLOADS[i]),
                                   line, needed, &len);
        if (r != AGENTLOOP_RESULT_OK) {
            status = fail("agentloop_chain_append", r);
        } else if (len != strlen(LINES[i]) || memcmp(line, LINES[i], len) != 0) {
            fprintf(stderr, "append: line %zu differs from SPEC section 5:\n%.*s", i + 1,
                    (int)len, (const char *)line);
            status = 1;
        } else if (out != NULL && fwrite(line, 1, len, out) != len) {
            perror(argv[1]);
            status = 1;
        }
        free(line);
        if (status != 0) {
            break;
        }
        agentloop_hash head;
        char hex[AGENTLOOP_HASH_HEX_LEN + 1] = {0};
        size_t hex_len = 0;
        uint64_t count = 0;
        if ((r = agentloop_chain_head(chain, &head)) != AGENTLOOP_RESULT_OK ||
            (r = agentloop_hash_to_hex(&head, (uint8_t *)hex, sizeof hex, &hex_len)) !=
                AGENTLOOP_RESULT_OK ||
            (r = agentloop_chain_count(chain, &count)) != AGENTLOOP_RESULT_OK) {
            status = fail("head/count", r);
        } else if (strcmp(hex, HEADS[i]) != 0 || count != i + 1) {
            fprintf(stderr, "append: after record %zu head %s count %llu\n", i, hex,
                    (unsigned long long)count);
            status = 1;
        } else {
            printf("seq=%zu %s head=%s\n", i, KINDS[i], hex);
        }
    }
    /* A payload with no canonical form is refused and changes nothing. */
    if (status == 0) {
        const char *big = "{\"id\":9007199254740993}";
        size_t len = 0;
        uint64_t count = 0;
        r = agentloop_chain_append(chain, (const uint8_t *)"note", 4, (const uint8_t *)big,
                                   strlen(big), NULL, 0, &len);
        if (r != AGENTLOOP_RESULT_NO_CANONICAL_FORM ||
            agentloop_chain_count(chain, &count) != AGENTLOOP_RESULT_OK || count != 3) {
            status = fail("refusing 9007199254740993", r);
        }
    }
    agentloop_chain_free(chain);
    agentloop_chain_free(NULL); /* accepted, does nothing */
    if (out != NULL && fclose(out) != 0) {
        perror(argv[1]);
        status = 1;
    }
    if (status == 0) {
        printf("append: the SPEC section 5 chain, byte for byte\n");
    }
    if (status == 0 && argc > 1) {
        status = writer_part(argv[1]);
    }
    return status;
}
