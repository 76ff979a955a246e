/*
 * batch.c: a turn's calls all at once, from C. A scripted model asks for six calls in
 * one turn — two of them refused by the loop (an unknown tool, arguments that break the
 * schema), one to a tool that fails — then answers. The run is made twice through the
 * sans-I/O agent handle:
 *
 * - one call at a time: agentloop_agent_poll, each result fed as it is asked for;
 * - as a batch: with agentloop_agent_set_parallel(agent, UINT64_MAX), agentloop_agent_poll
 *   hands out every call that passed its checks at once (AGENTLOOP_NEED_TOOL_RESULTS,
 *   agentloop_agent_take_calls), each runs on a thread of its own, and the results are
 *   fed by call id in reverse order (agentloop_agent_feed_tool_result_for,
 *   agentloop_agent_feed_tool_error_for), the records taken after every feed.
 *
 * The two transcripts must be the same bytes: records are written in call order,
 * whatever order the results come in. The batch run's transcript is written to FILE.
 * Exit 0 when they are, 1 when anything differs or fails, 2 for bad usage.
 *
 *   ./batch FILE
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

#define TASK "add, shout and fail, all at once"

/* The tools: name, description, argument schema. */
static const char *const TOOLS[3][3] = {
    {"add", "Adds two integers a and b; returns {\"sum\": a + b}.",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
     "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}"},
    {"fail", "Always fails.", "{\"type\":\"object\"}"},
    {"shout", "Returns {\"text\": text in capitals}.",
     "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
     "\"required\":[\"text\"]}"},
};

/* The scripted model: text and calls (a JSON array of {"name","arguments"}). */
static const char *const SCRIPT[2][2] = {
    {"Six at once.",
     "[{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}},"
     "{\"name\":\"shout\",\"arguments\":{\"text\":\"hello\"}},"
     "{\"name\":\"nosuch\",\"arguments\":{}},"
     "{\"name\":\"fail\",\"arguments\":{}},"
     "{\"name\":\"add\",\"arguments\":{\"a\":\"2\",\"b\":40}},"
     "{\"name\":\"shout\",\"arguments\":{\"text\":\"bye\"}}]"},
    {"Done.", ""},
};

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "batch: %s: %s\n", what, agentloop_result_str(result));
    return 1;
}

/* A growable byte buffer, NUL-terminated for the C string functions. */
typedef struct {
    uint8_t *data;
    size_t cap;
    size_t len;
} buffer;

static int reserve(buffer *b, size_t needed) {
    if (needed + 1 <= b->cap) {
        return 0;
    }
    uint8_t *grown = realloc(b->data, needed + 1);
    if (grown == NULL) {
        return -1;
    }
    b->data = grown;
    b->cap = needed + 1;
    return 0;
}

typedef agentloop_result (*getter)(const agentloop_agent *, uint8_t *, size_t, size_t *);

/* The size-query protocol: ask, grow, ask again. */
static agentloop_result get(getter g, const agentloop_agent *agent, buffer *b) {
    size_t len = 0;
    if (reserve(b, 0) != 0) {
        return AGENTLOOP_RESULT_INSUFFICIENT_SIZE;
    }
    agentloop_result r = g(agent, b->data, b->cap - 1, &len);
    if (r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
        if (reserve(b, len) != 0) {
            return AGENTLOOP_RESULT_INSUFFICIENT_SIZE;
        }
        r = g(agent, b->data, b->cap - 1, &len);
    }
    if (r == AGENTLOOP_RESULT_OK) {
        b->len = len;
        b->data[len] = 0;
    }
    return r;
}

/* Appends every pending record to the chain and to `transcript`; counts them. */
static agentloop_result drain(agentloop_agent *agent, agentloop_chain *chain,
                              buffer *transcript, size_t *taken) {
    for (;;) {
        size_t len = 0;
        bool has = false;
        size_t room = transcript->cap > transcript->len ? transcript->cap - transcript->len : 0;
        agentloop_result r = agentloop_agent_take_record(
            agent, chain, room > 0 ? transcript->data + transcript->len : NULL, room, &len, &has);
        if (r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
            if (reserve(transcript, transcript->len + len) != 0) {
                return r;
            }
            continue; /* the record is still pending and the chain unchanged */
        }
        if (r != AGENTLOOP_RESULT_OK || !has) {
            return r;
        }
        transcript->len += len;
        if (taken != NULL) {
            (*taken)++;
        }
    }
}

/* A new agent with the tools registered, and a new chain. */
static agentloop_result start(agentloop_agent **agent, agentloop_chain **chain) {
    agentloop_result r = agentloop_agent_new(u8(TASK), strlen(TASK), NULL, 0, agent);
    for (size_t i = 0; r == AGENTLOOP_RESULT_OK && i < 3; i++) {
        r = agentloop_agent_add_tool(*agent, u8(TOOLS[i][0]), strlen(TOOLS[i][0]),
                                     u8(TOOLS[i][1]), strlen(TOOLS[i][1]), u8(TOOLS[i][2]),
                                     strlen(TOOLS[i][2]), 0);
    }
    if (r == AGENTLOOP_RESULT_OK) {
        r = agentloop_chain_new(chain);
    }
    return r;
}

/* The model: the next scripted reply, whatever it is shown. */
static agentloop_result model(agentloop_agent *agent, size_t *turn) {
    if (*turn >= 2) {
        const char *why = "the scripted model has no reply left";
        return agentloop_agent_feed_model_error(agent, u8(why), strlen(why));
    }
    const char *text = SCRIPT[*turn][0], *calls = SCRIPT[*turn][1];
    (*turn)++;
    return agentloop_agent_feed_reply(agent, u8(text), strlen(text), u8(calls), strlen(calls),
                                      false, 0);
}

/* What running a tool came to: a JSON value, or (ok false) a failure sentence. */
typedef struct {
    bool ok;
    char text[128];
} outcome;

/* Runs tool `name` on its canonical `arguments` (which passed the tool's schema). */
static void run_tool(const char *name, const char *arguments, outcome *out) {
    out->ok = true;
    if (strcmp(name, "add") == 0) {
        long long a = 0, b = 0;
        if (sscanf(arguments, "{\"a\":%lld,\"b\":%lld}", &a, &b) == 2) {
            snprintf(out->text, sizeof out->text, "{\"sum\":%lld}", a + b);
            return;
        }
    } else if (strcmp(name, "shout") == 0) {
        /* Canonical arguments are exactly {"text":"…"}; short ASCII text here. */
        const char *prefix = "{\"text\":\"";
        size_t plen = strlen(prefix), alen = strlen(arguments);
        if (alen >= plen + 2 && alen - plen - 2 < 64 && strncmp(arguments, prefix, plen) == 0) {
            int n = snprintf(out->text, sizeof out->text, "{\"text\":\"%.*s\"}",
                             (int)(alen - plen - 2), arguments + plen);
            for (int i = 9; i < n - 2; i++) {
                if (out->text[i] >= 'a' && out->text[i] <= 'z') {
                    out->text[i] = (char)(out->text[i] - 'a' + 'A');
                }
            }
            return;
        }
    }
    out->ok = false;
    snprintf(out->text, sizeof out->text, "%s",
             strcmp(name, "fail") == 0 ? "the tool is broken on purpose" : "bad arguments");
}

/* ---- One call at a time. ---- */

static int one_at_a_time(buffer *transcript) {
    agentloop_agent *agent = NULL;
    agentloop_chain *chain = NULL;
    buffer name = {0}, args = {0};
    size_t turn = 0;
    agentloop_result r = start(&agent, &chain);
    while (r == AGENTLOOP_RESULT_OK) {
        uint32_t need = 0;
        r = agentloop_agent_poll(agent, &need);
        if (r == AGENTLOOP_RESULT_OK) {
            r = drain(agent, chain, transcript, NULL);
        }
        if (r != AGENTLOOP_RESULT_OK || need == AGENTLOOP_NEED_DONE) {
            break;
        }
        if (need == AGENTLOOP_NEED_MODEL_REPLY) {
            r = model(agent, &turn);
            continue;
        }
        r = get(agentloop_agent_call_name, agent, &name);
        if (r == AGENTLOOP_RESULT_OK) {
            r = get(agentloop_agent_call_arguments, agent, &args);
        }
        if (r != AGENTLOOP_RESULT_OK) {
            break;
        }
        outcome out;
        run_tool((const char *)name.data, (const char *)args.data, &out);
        r = out.ok ? agentloop_agent_feed_tool_result(agent, u8(out.text), strlen(out.text))
                   : agentloop_agent_feed_tool_error(agent, u8(out.text), strlen(out.text));
    }
    free(name.data);
    free(args.data);
    agentloop_chain_free(chain);
    agentloop_agent_free(agent);
    return r == AGENTLOOP_RESULT_OK ? 0 : fail("one at a time", r);
}

/* ---- The batch. ---- */

/* One call handed out, and its thread's outcome. */
typedef struct {
    char id[32];
    char name[32];
    char arguments[128];
    outcome out;
    pthread_t thread;
} call;

static void *call_thread(void *arg) {
    call *c = arg;
    run_tool(c->name, c->arguments, &c->out);
    return NULL;
}

/* The end of the JSON value starting at s[i] (canonical JSON: no white space). */
static size_t value_end(const char *s, size_t i) {
    int depth = 0;
    bool in_string = false;
    for (; s[i] != 0; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\' && s[i + 1] != 0) {
                i++;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) {
                    return i + 1;
                }
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                return i;
            }
            if (--depth == 0) {
                return i + 1;
            }
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return i;
}

/* Copies s[from..to) into out (NUL-terminated); false if it does not fit. */
static bool copy(char *out, size_t cap, const char *s, size_t from, size_t to) {
    if (to < from || to - from >= cap) {
        return false;
    }
    memcpy(out, s + from, to - from);
    out[to - from] = 0;
    return true;
}

/* Reads agentloop_agent_take_calls's array — [{"arguments":…,"id":"…","name":"…"},…],
 * members in canonical order — into `calls`; the number read, or -1. */
static int read_calls(const char *s, call *calls, int most) {
    size_t i = 0;
    int n = 0;
    if (s[i++] != '[') {
        return -1;
    }
    while (s[i] == '{' && n < most) {
        call *c = &calls[n];
        const char *a = "{\"arguments\":", *id = ",\"id\":\"", *name = "\",\"name\":\"";
        if (strncmp(s + i, a, strlen(a)) != 0) {
            return -1;
        }
        size_t from = i + strlen(a), to = value_end(s, from);
        if (!copy(c->arguments, sizeof c->arguments, s, from, to) ||
            strncmp(s + to, id, strlen(id)) != 0) {
            return -1;
        }
        from = to + strlen(id);
        to = from;
        while (s[to] != 0 && s[to] != '"') to++;
        if (!copy(c->id, sizeof c->id, s, from, to) || strncmp(s + to, name, strlen(name)) != 0) {
            return -1;
        }
        from = to + strlen(name);
        to = from;
        while (s[to] != 0 && s[to] != '"') to++;
        if (!copy(c->name, sizeof c->name, s, from, to) || strncmp(s + to, "\"}", 2) != 0) {
            return -1;
        }
        i = to + 2;
        n++;
        if (s[i] == ',') {
            i++;
        }
    }
    return s[i] == ']' && s[i + 1] == 0 ? n : -1;
}

/* Runs the calls of a batch on threads, then feeds the results newest first. */
static agentloop_result run_batch(agentloop_agent *agent, agentloop_chain *chain,
                                  buffer *transcript, buffer *scratch) {
    call calls[8];
    agentloop_result r = get(agentloop_agent_take_calls, agent, scratch);
    if (r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    int n = read_calls((const char *)scratch->data, calls, 8);
    if (n <= 0) {
        fprintf(stderr, "batch: cannot read the calls %s\n", (const char *)scratch->data);
        return AGENTLOOP_RESULT_INVALID_STATE;
    }
    int started = 0;
    for (; started < n; started++) {
        if (pthread_create(&calls[started].thread, NULL, call_thread, &calls[started]) != 0) {
            break;
        }
    }
    for (int k = 0; k < started; k++) {
        pthread_join(calls[k].thread, NULL);
    }
    for (int k = started; k < n; k++) {
        run_tool(calls[k].name, calls[k].arguments, &calls[k].out); /* no thread: run here */
    }
    printf("batch: %d calls handed out, run on their own threads\n", n);

    /* A refused call was not handed out: it has no result to take. */
    const char *refused = "call_1_2";
    r = agentloop_agent_feed_tool_result_for(agent, u8(refused), strlen(refused), u8("null"), 4);
    if (r != AGENTLOOP_RESULT_INVALID_ARGUMENT) {
        fail("a result for a refused call was taken", r);
        return AGENTLOOP_RESULT_INVALID_STATE;
    }
    for (int k = n - 1; k >= 0; k--) {
        call *c = &calls[k];
        const uint8_t *id = u8(c->id), *text = u8(c->out.text);
        size_t id_len = strlen(c->id), len = strlen(c->out.text);
        r = c->out.ok ? agentloop_agent_feed_tool_result_for(agent, id, id_len, text, len)
                      : agentloop_agent_feed_tool_error_for(agent, id, id_len, text, len);
        if (r != AGENTLOOP_RESULT_OK) {
            return r;
        }
        size_t taken = 0;
        r = drain(agent, chain, transcript, &taken);
        if (r != AGENTLOOP_RESULT_OK) {
            return r;
        }
        printf("batch: fed %s (%s %s), %zu record%s written\n", c->id, c->name,
               c->out.ok ? "ok" : "failed", taken, taken == 1 ? "" : "s");
        /* Fed once: a second result for it is refused — its id is no longer waiting
         * (INVALID_ARGUMENT), or, after the last, no batch is (INVALID_STATE). */
        r = agentloop_agent_feed_tool_result_for(agent, id, id_len, u8("null"), 4);
        if (r != (k > 0 ? AGENTLOOP_RESULT_INVALID_ARGUMENT : AGENTLOOP_RESULT_INVALID_STATE)) {
            fail("a second result for a call was not refused as it should be", r);
            return AGENTLOOP_RESULT_INVALID_STATE;
        }
    }
    return AGENTLOOP_RESULT_OK;
}

static int batched(buffer *transcript) {
    agentloop_agent *agent = NULL;
    agentloop_chain *chain = NULL;
    buffer scratch = {0};
    size_t turn = 0;
    agentloop_result r = start(&agent, &chain);
    if (r == AGENTLOOP_RESULT_OK) {
        /* Every call of a turn at once; the one loop protocol otherwise. */
        r = agentloop_agent_set_parallel(agent, UINT64_MAX);
    }
    while (r == AGENTLOOP_RESULT_OK) {
        uint32_t need = 0;
        r = agentloop_agent_poll(agent, &need);
        if (r == AGENTLOOP_RESULT_OK) {
            /* A batch writes the refusals before its first runnable call first. */
            r = drain(agent, chain, transcript, NULL);
        }
        if (r != AGENTLOOP_RESULT_OK || need == AGENTLOOP_NEED_DONE) {
            break;
        }
        if (need == AGENTLOOP_NEED_MODEL_REPLY) {
            r = model(agent, &turn);
        } else if (need == AGENTLOOP_NEED_TOOL_RESULTS) {
            r = run_batch(agent, chain, transcript, &scratch);
        } else {
            r = AGENTLOOP_RESULT_INVALID_STATE;
        }
    }
    free(scratch.data);
    agentloop_chain_free(chain);
    agentloop_agent_free(agent);
    return r == AGENTLOOP_RESULT_OK ? 0 : fail("batch", r);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: batch FILE\n");
        return 2;
    }
    buffer in_order = {0}, at_once = {0};
    int status = one_at_a_time(&in_order) || batched(&at_once);
    if (status == 0 && (in_order.len != at_once.len ||
                        memcmp(in_order.data, at_once.data, in_order.len) != 0)) {
        fprintf(stderr, "batch: the batch's transcript differs from the one-at-a-time run's\n");
        status = 1;
    }
    FILE *out = status == 0 ? fopen(argv[1], "wb") : NULL;
    if (status == 0 &&
        (out == NULL || fwrite(at_once.data, 1, at_once.len, out) != at_once.len)) {
        fprintf(stderr, "batch: cannot write %s\n", argv[1]);
        status = 1;
    }
    if (out != NULL && fclose(out) != 0) {
        status = 1;
    }
    if (status == 0) {
        printf("batch: the transcript is the one-at-a-time run's, %zu bytes\n", at_once.len);
    }
    free(in_order.data);
    free(at_once.data);
    return status;
}
