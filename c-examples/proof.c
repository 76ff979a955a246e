/*
 * proof.c: writes a five-record transcript to FILE with the chain API, then proves and
 * checks, through the C ABI, that each record is in the transcript's checkpoint
 * (inclusion), and that the checkpoint of its first two records is a prefix of it
 * (consistency); a proof with one byte changed must be refused, and the library says
 * why. The proof of record 2 is written to FILE.proof, byte for byte what
 * `agentloop prove --index 2 FILE` prints. Exit 0 when everything held.
 *
 *   ./proof FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

#define RECORDS 5

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "proof: %s: %s\n", what, agentloop_result_str(result));
    return 1;
}

/* Writes RECORDS records to `buf` (capacity `cap`); their total length to *len and the
 * length of the first two to *two. */
static agentloop_result write_chain(uint8_t *buf, size_t cap, size_t *len, size_t *two) {
    agentloop_chain *chain = NULL;
    agentloop_result r = agentloop_chain_new(&chain);
    if (r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    *len = 0;
    for (int i = 0; i < RECORDS && r == AGENTLOOP_RESULT_OK; i++) {
        char payload[64];
        int n = snprintf(payload, sizeof payload, "{\"step\":%d}", i);
        size_t line = 0;
        r = agentloop_chain_append(chain, (const uint8_t *)"note", 4, (const uint8_t *)payload,
                                   (size_t)n, buf + *len, cap - *len, &line);
        *len += line;
        if (i == 1) {
            *two = *len;
        }
    }
    agentloop_chain_free(chain);
    return r;
}

/* Calls a prover twice: a size query, then into a buffer of that size (the caller
 * frees *out). */
static agentloop_result prove(int inclusion, const uint8_t *t, size_t t_len, const uint8_t *cp,
                              size_t cp_len, uint64_t at, uint8_t **out, size_t *out_len) {
    agentloop_result r =
        inclusion
            ? agentloop_transcript_prove_inclusion(t, t_len, cp, cp_len, at, NULL, 0, out_len)
            : agentloop_transcript_prove_consistency(t, t_len, cp, cp_len, at, NULL, 0, out_len);
    if (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
        return r;
    }
    *out = malloc(*out_len);
    if (*out == NULL) {
        return AGENTLOOP_RESULT_IO;
    }
    r = inclusion ? agentloop_transcript_prove_inclusion(t, t_len, cp, cp_len, at, *out, *out_len,
                                                         out_len)
                  : agentloop_transcript_prove_consistency(t, t_len, cp, cp_len, at, *out,
                                                           *out_len, out_len);
    if (r != AGENTLOOP_RESULT_OK) {
        free(*out);
        *out = NULL;
    }
    return r;
}

/* Verifies the transcript against the old checkpoint (2 records) and the new one (all
 * records) given together, as `agentloop verify --checkpoint old --checkpoint new`:
 * it holds. Its first two records alone do not: the newest checkpoint is `truncated`. */
static agentloop_result both_checkpoints(const uint8_t *t, size_t len, size_t two,
                                         const uint8_t *old, size_t old_len) {
    size_t new_len = 0;
    /* No origin (the default one) and no signer key: length 0 each. */
    agentloop_result r =
        agentloop_transcript_checkpoint(t, len, NULL, 0, NULL, 0, NULL, 0, &new_len);
    uint8_t *new_cp = r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE ? malloc(new_len) : NULL;
    if (new_cp == NULL) {
        return fail("agentloop_transcript_checkpoint (size)", r);
    }
    if ((r = agentloop_transcript_checkpoint(t, len, NULL, 0, NULL, 0, new_cp, new_len,
                                             &new_len)) != AGENTLOOP_RESULT_OK) {
        free(new_cp);
        return fail("agentloop_transcript_checkpoint", r);
    }
    const uint8_t *texts[2] = {old, new_cp};
    size_t lens[2] = {old_len, new_len};
    size_t sizes[2] = {len, two};
    for (int i = 0; i < 2; i++) {
        agentloop_report *report = NULL;
        r = agentloop_transcript_verify_checkpoints(t, sizes[i], NULL, texts, lens, 2, NULL, 0,
                                                    NULL, 0, &report);
        if (r != AGENTLOOP_RESULT_OK) {
            free(new_cp);
            return fail("agentloop_transcript_verify_checkpoints", r);
        }
        int ok = agentloop_report_ok(report);
        uint32_t kind = 0;
        if (!ok) {
            int64_t index = 0, line = 0;
            const char *detail = NULL;
            r = agentloop_report_fault(report, 0, &index, &line, &kind, &detail);
        }
        agentloop_report_free(report);
        if (r != AGENTLOOP_RESULT_OK || ok != (i == 0) ||
            (i == 1 && kind != AGENTLOOP_FAULT_KIND_TRUNCATED)) {
            free(new_cp);
            fprintf(stderr, "proof: with both checkpoints, %zu bytes gave ok=%d kind %s\n",
                    sizes[i], ok, agentloop_fault_kind_str(kind));
            return AGENTLOOP_RESULT_IO;
        }
    }
    free(new_cp);
    printf("proof: both checkpoints hold for the whole transcript; its first 2 records are "
           "truncated\n");
    return AGENTLOOP_RESULT_OK;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: proof FILE\n");
        return 2;
    }
    static uint8_t transcript[4096];
    size_t len = 0, two = 0;
    agentloop_result r = write_chain(transcript, sizeof transcript, &len, &two);
    if (r != AGENTLOOP_RESULT_OK) {
        return fail("agentloop_chain_append", r);
    }
    FILE *file = fopen(argv[1], "wb");
    if (file == NULL || fwrite(transcript, 1, len, file) != len || fclose(file) != 0) {
        fprintf(stderr, "proof: cannot write %s\n", argv[1]);
        return 1;
    }

    /* Inclusion of every record in the checkpoint of the whole transcript. */
    for (uint64_t i = 0; i < RECORDS; i++) {
        uint8_t *p = NULL;
        size_t p_len = 0;
        if ((r = prove(1, transcript, len, NULL, 0, i, &p, &p_len)) != AGENTLOOP_RESULT_OK) {
            return fail("agentloop_transcript_prove_inclusion", r);
        }
        r = agentloop_proof_verify_inclusion(p, p_len, NULL, 0, NULL, 0);
        if (r != AGENTLOOP_RESULT_OK) {
            free(p);
            return fail("agentloop_proof_verify_inclusion", r);
        }
        if (i == 2) {
            char path[4096];
            int n = snprintf(path, sizeof path, "%s.proof", argv[1]);
            FILE *out = (n > 0 && (size_t)n < sizeof path) ? fopen(path, "wb") : NULL;
            if (out == NULL || fwrite(p, 1, p_len, out) != p_len || fclose(out) != 0) {
                free(p);
                fprintf(stderr, "proof: cannot write the proof file\n");
                return 1;
            }
            /* Change one byte of the record it carries (in its base64 extra line). */
            uint8_t *extra = (uint8_t *)strstr((const char *)p, "extra ");
            if (extra == NULL) {
                free(p);
                fprintf(stderr, "proof: no extra line\n");
                return 1;
            }
            extra[10] = extra[10] == 'A' ? 'B' : 'A';
            r = agentloop_proof_verify_inclusion(p, p_len, NULL, 0, NULL, 0);
            if (r != AGENTLOOP_RESULT_PROOF_INVALID) {
                free(p);
                fprintf(stderr, "proof: a tampered proof gave %s\n", agentloop_result_str(r));
                return 1;
            }
            /* Why: the lines `agentloop verify-proof` would print ("kind: detail"). A
             * longer sentence than the buffer is INSUFFICIENT_SIZE with its length. */
            char why[1024];
            size_t why_len = 0;
            r = agentloop_proof_explain(p, p_len, NULL, 0, NULL, 0, NULL, 0, (uint8_t *)why,
                                        sizeof why - 1, &why_len);
            if (r != AGENTLOOP_RESULT_OK || why_len == 0) {
                free(p);
                return fail("agentloop_proof_explain", r);
            }
            why[why_len] = '\0';
            printf("proof: the tampered proof: %s\n", why);
        }
        free(p);
    }
    printf("proof: %d inclusion proofs hold; a tampered one was refused\n", RECORDS);

    /* Consistency: the checkpoint of the first two records, kept earlier, is a prefix
     * of the whole transcript's. */
    size_t old_len = 0;
    r = agentloop_transcript_checkpoint(transcript, two, NULL, 0, NULL, 0, NULL, 0, &old_len);
    if (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
        return fail("agentloop_transcript_checkpoint (size)", r);
    }
    uint8_t *old = malloc(old_len);
    if (old == NULL) {
        return 1;
    }
    if ((r = agentloop_transcript_checkpoint(transcript, two, NULL, 0, NULL, 0, old, old_len,
                                             &old_len)) != AGENTLOOP_RESULT_OK) {
        free(old);
        return fail("agentloop_transcript_checkpoint", r);
    }
    uint8_t *c = NULL;
    size_t c_len = 0;
    if ((r = prove(0, transcript, len, NULL, 0, 2, &c, &c_len)) != AGENTLOOP_RESULT_OK) {
        free(old);
        return fail("agentloop_transcript_prove_consistency", r);
    }
    r = agentloop_proof_verify_consistency(c, c_len, old, old_len, NULL, 0, NULL, 0);
    free(c);
    if (r != AGENTLOOP_RESULT_OK) {
        free(old);
        return fail("agentloop_proof_verify_consistency", r);
    }
    printf("proof: the checkpoint of 2 records is a prefix of the checkpoint of %d\n", RECORDS);
    r = both_checkpoints(transcript, len, two, old, old_len);
    free(old);
    return r == AGENTLOOP_RESULT_OK ? 0 : 1;
}
