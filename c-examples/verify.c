/*
 * verify.c: verifies transcript files like `agentloop verify`, printing one line per
 * fault to stderr, `FILE line L: KIND: DETAIL`, and a summary per file to stdout.
 *
 *   ./verify FILE...
 *
 * Exit status: 0 every file verified, 1 a fault was found, 2 a file could not be read
 * or bad usage (over several files, the worst).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "agentloop.h"

static int verify_one(const char *path) {
    agentloop_report *report = NULL;
    agentloop_result r = agentloop_transcript_verify_file((const uint8_t *)path, strlen(path), NULL, &report);
    if (r != AGENTLOOP_RESULT_OK) {
        fprintf(stderr, "verify: %s: %s\n", path, agentloop_result_str(r));
        return 2;
    }
    int status = 0;
    uint64_t faults = agentloop_report_fault_count(report);
    for (uint64_t i = 0; i < faults; i++) {
        int64_t line = -1;
        uint32_t kind = 0;
        const char *detail = NULL; /* borrowed from the report */
        r = agentloop_report_fault(report, i, NULL, &line, &kind, &detail);
        if (r != AGENTLOOP_RESULT_OK) {
            fprintf(stderr, "verify: %s: %s\n", path, agentloop_result_str(r));
            status = 2;
            break;
        }
        if (line >= 0) {
            fprintf(stderr, "%s line %" PRId64 ": %s: %s\n", path, line,
                    agentloop_fault_kind_str(kind), detail);
        } else {
            fprintf(stderr, "%s: %s: %s\n", path, agentloop_fault_kind_str(kind), detail);
        }
        if (kind == AGENTLOOP_FAULT_KIND_UNREADABLE) {
            status = 2;
        } else if (status == 0) {
            status = 1;
        }
    }
    uint64_t omitted = agentloop_report_faults_omitted(report);
    if (omitted > 0) {
        fprintf(stderr, "%s: %" PRIu64 " more faults not listed\n", path, omitted);
    }
    uint64_t count = agentloop_report_count(report);
    if (agentloop_report_ok(report)) {
        agentloop_hash head;
        uint8_t hex[AGENTLOOP_HASH_HEX_LEN];
        size_t hex_len = 0;
        bool has_head = false;
        r = agentloop_report_head(report, &head, &has_head);
        if (r == AGENTLOOP_RESULT_OK && has_head) {
            r = agentloop_hash_to_hex(&head, hex, sizeof hex, &hex_len);
        }
        if (r != AGENTLOOP_RESULT_OK || !has_head) {
            fprintf(stderr, "verify: %s: no head\n", path);
            status = 2;
        } else {
            /* The digits are not NUL-terminated: print exactly hex_len of them. */
            printf("%s: ok, %" PRIu64 " records, head %.*s\n", path, count, (int)hex_len,
                   (const char *)hex);
        }
    } else {
        printf("%s: %" PRIu64 " fault%s in %" PRIu64 " records\n", path, faults + omitted,
               faults + omitted == 1 ? "" : "s", count);
    }
    agentloop_report_free(report);
    return status;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: verify FILE...\n");
        return 2;
    }
    int worst = 0;
    for (int i = 1; i < argc; i++) {
        int status = verify_one(argv[i]);
        if (status > worst) {
            worst = status;
        }
    }
    return worst;
}
