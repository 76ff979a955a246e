/*
 * append.c: writes the three-record chain of SPEC section 5 with the chain handle and
 * checks every byte of every line and every head against the SPEC. With a FILE
 * argument it also writes the transcript there. Exit 0 when everything matched.
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

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "append: %s: %s\n", what, agentloop_result_str(result));
    return 1;
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
        uint8_t head[32];
        char hex[65];
        uint64_t count = 0;
        if ((r = agentloop_chain_head(chain, head)) != AGENTLOOP_RESULT_OK ||
            (r = agentloop_hash_to_hex(head, hex)) != AGENTLOOP_RESULT_OK ||
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
    return status;
}
