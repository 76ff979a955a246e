/*
 * stress_handles.c: the handles the stress program keeps between operations (a few
 * slots of each kind, freed in any order and never used again), the random verify
 * options and the reading of a report. See stress.c.
 */
#include "stress.h"

#include <string.h>

agentloop_chain *chains[SLOTS];
agentloop_report *reports[SLOTS];
agentloop_verifier *verifiers[SLOTS];
agentloop_schema *schemas[SLOTS];
agentloop_agent *agents[SLOTS];

void random_options(agentloop_verify_options *o) {
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

void read_report(const agentloop_report *report) {
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

void free_slot_report(size_t i) {
    agentloop_report_free(reports[i]);
    reports[i] = NULL;
}

void put_report(agentloop_report *report) {
    size_t i = below(SLOTS);
    free_slot_report(i);
    reports[i] = report;
}

void free_all_handles(void) {
    for (size_t i = 0; i < SLOTS; i++) {
        agentloop_chain_free(chains[i]);
        agentloop_report_free(reports[i]);
        agentloop_verifier_free(verifiers[i]);
        agentloop_schema_free(schemas[i]);
        agentloop_agent_free(agents[i]);
    }
}
