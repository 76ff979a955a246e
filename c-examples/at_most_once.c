/*
 * at_most_once.c: the callback driver hands every record over before it calls out
 * again, so a tool with an effect runs at most once across a crash and a resume.
 *
 *   ./at_most_once order
 *       runs agentloop_driver_run with a model that asks for an unknown tool and then `t`,
 *       then `t` and a call `t` refuses, then answers; prints one line per callback
 *       (model, cancel, tool t, record KIND) in the order they came.
 *   ./at_most_once crash FILE COUNTER
 *       runs agentloop_driver_run_to_writer on FILE (synced every record) with a model that
 *       asks for an unknown tool and then `t`; `t` adds a byte to COUNTER (its effect)
 *       and the process dies there, as if killed while the tool ran.
 *   ./at_most_once resume FILE COUNTER
 *       continues FILE with the agent handle (agentloop_agent_resume), `t` not
 *       idempotent, running any call the resumed run asks for; appends the new records
 *       to FILE — each line lent by agentloop_agent_take_record_borrowed — and checks
 *       that FILE verifies.
 *
 * Exit 0 when the mode did what it says (crash exits 3, from inside the tool); the
 * test (ffi/tests/ffi/c_examples.rs) counts COUNTER's bytes: `t` ran exactly once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

#define TASK "run t once"
#define T_SCHEMA "{\"type\":\"object\"}"

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "at_most_once: %s: %s\n", what, agentloop_result_str(result));
    return 1;
}

/* ---- order: one line per callback ---- */

typedef struct {
    int turn;
} script;

static void add_call(agentloop_reply *reply, const char *name, const char *args) {
    agentloop_reply_add_call(reply, u8(name), strlen(name), u8(args), strlen(args));
}

static void order_model(void *userdata, const uint8_t *messages, size_t messages_len,
                        const uint8_t *manifest, size_t manifest_len,
                        agentloop_reply *reply) {
    script *s = userdata;
    (void)messages;
    (void)messages_len;
    (void)manifest;
    (void)manifest_len;
    printf("model\n");
    switch (s->turn++) {
    case 0: /* a refused call, then one that runs */
        add_call(reply, "nosuch", "{}");
        add_call(reply, "t", "{}");
        break;
    case 1: /* one that runs, then a refused last call (not an object) */
        add_call(reply, "t", "{}");
        add_call(reply, "t", "[]");
        break;
    default:
        agentloop_reply_set_text(reply, u8("done"), 4);
    }
}

static void order_tool(void *userdata, const uint8_t *arguments, size_t len,
                       agentloop_tool_result *result) {
    (void)userdata;
    (void)arguments;
    (void)len;
    printf("tool t\n");
    agentloop_tool_result_set_value(result, u8("null"), 4);
}

static bool order_cancel(void *userdata) {
    (void)userdata;
    printf("cancel\n");
    return false;
}

/* Prints "record KIND": the line's "kind" member (records are canonical). */
static uint32_t order_record(void *userdata, const uint8_t *line, size_t len) {
    (void)userdata;
    const char *key = "\"kind\":\"";
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen < len; i++) {
        if (memcmp(line + i, key, klen) == 0) {
            size_t end = i + klen;
            while (end < len && line[end] != '"') end++;
            printf("record %.*s\n", (int)(end - i - klen), (const char *)line + i + klen);
            return 0;
        }
    }
    return 1;
}

static agentloop_tool t_tool(agentloop_tool_callback callback, void *userdata) {
    agentloop_tool t;
    t.name = u8("t");
    t.name_len = 1;
    t.description = u8("has an effect");
    t.description_len = strlen("has an effect");
    t.schema = u8(T_SCHEMA);
    t.schema_len = strlen(T_SCHEMA);
    t.limit = 0;
    t.callback = callback;
    t.userdata = userdata;
    return t;
}

static int order(void) {
    script s = {0};
    agentloop_tool t = t_tool(order_tool, NULL);
    agentloop_outcome outcome;
    agentloop_result r = agentloop_driver_run(u8(TASK), strlen(TASK), NULL, order_model, &s, &t, 1,
                                       order_cancel, NULL, order_record, NULL, &outcome);
    if (r != AGENTLOOP_RESULT_OK) return fail("agentloop_driver_run", r);
    return outcome.reason == AGENTLOOP_STOP_NO_TOOL_CALLS ? 0 : 1;
}

/* ---- crash and resume ---- */

static void crash_model(void *userdata, const uint8_t *messages, size_t messages_len,
                        const uint8_t *manifest, size_t manifest_len,
                        agentloop_reply *reply) {
    script *s = userdata;
    (void)messages;
    (void)messages_len;
    (void)manifest;
    (void)manifest_len;
    if (s->turn++ == 0) {
        add_call(reply, "nosuch", "{}");
        add_call(reply, "t", "{}");
    } else {
        agentloop_reply_set_text(reply, u8("done"), 4);
    }
}

/* The tool's effect: one byte more in the counter file. */
static int effect(const char *counter) {
    FILE *f = fopen(counter, "ab");
    if (f == NULL) return 1;
    int bad = fputc('x', f) == EOF;
    return fclose(f) != 0 || bad;
}

static void crashing_tool(void *userdata, const uint8_t *arguments, size_t len,
                          agentloop_tool_result *result) {
    (void)arguments;
    (void)len;
    (void)result;
    if (effect(userdata) != 0) _Exit(2);
    /* Killed while the tool runs: no cleanup, nothing more written. */
    _Exit(3);
}

static int crash(const char *path, const char *counter) {
    agentloop_writer *writer = NULL;
    agentloop_result r = agentloop_writer_open(u8(path), strlen(path), NULL, &writer);
    if (r != AGENTLOOP_RESULT_OK) return fail("agentloop_writer_open", r);
    script s = {0};
    agentloop_tool t = t_tool(crashing_tool, (void *)counter);
    agentloop_outcome outcome;
    r = agentloop_driver_run_to_writer(writer, u8(TASK), strlen(TASK), NULL, crash_model, &s, &t, 1,
                                NULL, NULL, &outcome);
    agentloop_writer_free(writer);
    fprintf(stderr, "at_most_once: the run ended without running t (%s)\n",
            agentloop_result_str(r));
    return 1;
}

/* Reads the whole file into a malloc'd buffer. */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, used = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data != NULL && (n = fread(data + used, 1, cap - used, f)) > 0) {
        used += n;
        if (used == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (grown == NULL) free(data);
            data = grown;
            cap *= 2;
        }
    }
    fclose(f);
    *len = used;
    return data;
}

/* Takes every pending record into the chain and appends its line to `out`. The line is
 * lent by the library (no buffer, no size query): it lives in the chain until the
 * chain's next call, so it is written out before the next take. */
static agentloop_result drain(agentloop_agent *agent, agentloop_chain *chain, FILE *out) {
    const uint8_t *line = NULL;
    size_t len = 0;
    bool has = true;
    while (has) {
        agentloop_result r =
            agentloop_agent_take_record_borrowed(agent, chain, &line, &len, &has);
        if (r != AGENTLOOP_RESULT_OK) return r;
        if (has && (fwrite(line, 1, len, out) != len || fflush(out) != 0))
            return AGENTLOOP_RESULT_IO;
    }
    return AGENTLOOP_RESULT_OK;
}

static int resume(const char *path, const char *counter) {
    size_t len = 0;
    uint8_t *transcript = slurp(path, &len);
    if (transcript == NULL) {
        perror(path);
        return 1;
    }
    agentloop_agent *agent = NULL;
    agentloop_chain *chain = NULL;
    uint64_t next_seq = 0;
    agentloop_hash head;
    int status = 0;
    agentloop_result r = agentloop_agent_new(u8(TASK), strlen(TASK), NULL, 0, &agent);
    if (r == AGENTLOOP_RESULT_OK)
        r = agentloop_agent_add_tool(agent, u8("t"), 1, u8("has an effect"),
                                     strlen("has an effect"), u8(T_SCHEMA), strlen(T_SCHEMA),
                                     0);
    if (r == AGENTLOOP_RESULT_OK)
        r = agentloop_agent_resume(agent, NULL, transcript, len, &next_seq, &head);
    if (r == AGENTLOOP_RESULT_OK) r = agentloop_chain_resume(next_seq, &head, &chain);
    free(transcript);
    FILE *out = r == AGENTLOOP_RESULT_OK ? fopen(path, "ab") : NULL;
    if (r != AGENTLOOP_RESULT_OK || out == NULL) {
        status = fail("resuming", r);
    }
    int turn = 1;
    while (status == 0) {
        uint32_t need = 0;
        r = agentloop_agent_poll(agent, &need);
        if (r == AGENTLOOP_RESULT_OK) r = drain(agent, chain, out);
        if (r != AGENTLOOP_RESULT_OK) {
            status = fail("poll", r);
        } else if (need == AGENTLOOP_NEED_DONE) {
            break;
        } else if (need == AGENTLOOP_NEED_MODEL_REPLY) {
            const char *text = turn++ == 1 ? "done" : "still here";
            r = agentloop_agent_feed_reply(agent, u8(text), strlen(text), NULL, 0, false, 0);
        } else if (need == AGENTLOOP_NEED_TOOL_RESULT) {
            if (effect(counter) != 0) {
                status = 1;
                break;
            }
            r = agentloop_agent_feed_tool_result(agent, u8("null"), 4);
        }
        if (status == 0 && r == AGENTLOOP_RESULT_OK) r = drain(agent, chain, out);
        if (status == 0 && r != AGENTLOOP_RESULT_OK) status = fail("feed", r);
    }
    if (out != NULL && fclose(out) != 0) status = 1;
    agentloop_chain_free(chain);
    agentloop_agent_free(agent);

    agentloop_report *report = NULL;
    if (status == 0) {
        r = agentloop_transcript_verify_file(u8(path), strlen(path), NULL, &report);
        if (r != AGENTLOOP_RESULT_OK || !agentloop_report_ok(report)) {
            fprintf(stderr, "at_most_once: %s does not verify after the resume\n", path);
            status = 1;
        } else {
            printf("resumed: %llu records\n",
                   (unsigned long long)agentloop_report_count(report));
        }
    }
    agentloop_report_free(report);
    return status;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "order") == 0) return order();
    if (argc == 4 && strcmp(argv[1], "crash") == 0) return crash(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "resume") == 0) return resume(argv[2], argv[3]);
    fprintf(stderr, "usage: at_most_once order | crash FILE COUNTER | resume FILE COUNTER\n");
    return 2;
}
