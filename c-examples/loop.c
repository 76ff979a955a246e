/*
 * loop.c: a full agent loop from C, both ways. A scripted C model and the four demo
 * tools in C (add, echo, fail, greet) reproduce `agentloop demo`'s demo-recover.jsonl
 * byte for byte: an unknown tool, a schema violation, a failing tool, then success.
 *
 * - FILE: driven step by step through the sans-I/O agent handle (agentloop_agent_*),
 *   the records appended to a chain handle and written with stdio;
 * - DRIVER_FILE (optional): the same run through the callback driver agentloop_driver_run,
 *   the records handed to a record callback.
 *
 * Exit 0 when every run ended as the demo does.
 *
 *   ./loop FILE [DRIVER_FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

#define TASK "add 2 and 40, whatever goes wrong on the way"

/* The demo tools: name, description, argument schema. */
static const char *const TOOLS[4][3] = {
    {"add", "Adds two integers a and b; returns {\"sum\": a + b}.",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
     "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}"},
    {"echo", "Returns its arguments unchanged.", "{\"type\":\"object\"}"},
    {"fail", "Always fails: shows that a failing tool is recorded, not fatal.",
     "{\"type\":\"object\"}"},
    {"greet", "Greets someone by name; returns {\"greeting\": \"hello, <name>\"}.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
     "\"required\":[\"name\"]}"},
};

/* The scripted model: text and calls (a JSON array of {"name","arguments"}). */
static const char *const SCRIPT[5][2] = {
    {"Multiplying is a kind of adding, right?",
     "[{\"name\":\"multiply\",\"arguments\":{\"a\":2,\"b\":40}}]"},
    {"No multiply. Adding, with the numbers as I was given them.",
     "[{\"name\":\"add\",\"arguments\":{\"a\":\"2\",\"b\":40}}]"},
    {"The schema wants integers. Does the fail tool know more?",
     "[{\"name\":\"fail\",\"arguments\":{}}]"},
    {"That tool is broken. Adding two integers now.",
     "[{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}]"},
    {"2 + 40 = 42.", ""},
};

static int fail(const char *what, uint32_t result) {
    fprintf(stderr, "loop: %s: %s\n", what, agentloop_result_str(result));
    return 1;
}

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

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

/* The model: the next scripted reply, whatever it is shown. */
static agentloop_result model(agentloop_agent *agent, size_t turn, buffer *scratch) {
    /* A real model would send these to a provider; this one only checks them. */
    agentloop_result r = get(agentloop_agent_messages_json, agent, scratch);
    if (r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    const char *first = "[{\"role\":\"user\",\"text\":\"" TASK "\"}";
    if (strncmp((const char *)scratch->data, first, strlen(first)) != 0) {
        fprintf(stderr, "loop: unexpected messages %s\n", (const char *)scratch->data);
        return AGENTLOOP_RESULT_INVALID_STATE;
    }
    r = get(agentloop_agent_manifest_json, agent, scratch);
    if (r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    if (turn >= sizeof SCRIPT / sizeof SCRIPT[0]) {
        const char *why = "the scripted model has no reply left";
        return agentloop_agent_feed_model_error(agent, u8(why), strlen(why));
    }
    const char *text = SCRIPT[turn][0], *calls = SCRIPT[turn][1];
    return agentloop_agent_feed_reply(agent, u8(text), strlen(text), u8(calls), strlen(calls),
                                      false, 0);
}

/* The tools, on the canonical arguments the agent gives them. */
static agentloop_result tool(agentloop_agent *agent, buffer *name, buffer *args) {
    agentloop_result r = get(agentloop_agent_call_name, agent, name);
    if (r == AGENTLOOP_RESULT_OK) {
        r = get(agentloop_agent_call_arguments, agent, args);
    }
    if (r != AGENTLOOP_RESULT_OK) {
        return r;
    }
    const char *tool_name = (const char *)name->data, *arguments = (const char *)args->data;
    char out[256];
    if (strcmp(tool_name, "add") == 0) {
        double a = 0, b = 0;
        if (sscanf(arguments, "{\"a\":%lf,\"b\":%lf}", &a, &b) != 2) {
            const char *why = "a and b must be integers";
            return agentloop_agent_feed_tool_error(agent, u8(why), strlen(why));
        }
        snprintf(out, sizeof out, "{\"sum\":%.17g}", a + b);
        return agentloop_agent_feed_tool_result(agent, u8(out), strlen(out));
    }
    if (strcmp(tool_name, "echo") == 0) {
        return agentloop_agent_feed_tool_result(agent, args->data, args->len);
    }
    if (strcmp(tool_name, "fail") == 0) {
        const char *why = "the tool is broken on purpose";
        return agentloop_agent_feed_tool_error(agent, u8(why), strlen(why));
    }
    if (strcmp(tool_name, "greet") == 0) {
        /* Canonical arguments are exactly {"name":"…"}; the escaped string is copied. */
        const char *prefix = "{\"name\":\"";
        size_t plen = strlen(prefix), alen = strlen(arguments);
        if (alen < plen + 2 || strncmp(arguments, prefix, plen) != 0 ||
            alen - plen - 2 + 32 > sizeof out) {
            const char *why = "name must be a string";
            return agentloop_agent_feed_tool_error(agent, u8(why), strlen(why));
        }
        int n = snprintf(out, sizeof out, "{\"greeting\":\"hello, %.*s\"}",
                         (int)(alen - plen - 2), arguments + plen);
        return agentloop_agent_feed_tool_result(agent, u8(out), (size_t)n);
    }
    const char *why = "no such tool in loop.c";
    return agentloop_agent_feed_tool_error(agent, u8(why), strlen(why));
}

/* Appends every pending record to the chain and the file, growing the line buffer. */
static agentloop_result drain(agentloop_agent *agent, agentloop_chain *chain, buffer *line,
                              FILE *out) {
    for (;;) {
        size_t len = 0;
        bool has = false;
        agentloop_result r =
            agentloop_agent_take_record(agent, chain, line->data, line->cap, &len, &has);
        if (r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
            if (reserve(line, len) != 0) {
                return r;
            }
            continue; /* the record is still pending and the chain unchanged */
        }
        if (r != AGENTLOOP_RESULT_OK) {
            return r;
        }
        if (!has) {
            return AGENTLOOP_RESULT_OK;
        }
        if (fwrite(line->data, 1, len, out) != len) {
            return AGENTLOOP_RESULT_IO;
        }
    }
}

/* ---- The same run through the callback driver, agentloop_driver_run. ---- */

typedef struct {
    size_t turn;
} script;

static void model_callback(void *userdata, const uint8_t *messages, size_t messages_len,
                           const uint8_t *manifest, size_t manifest_len, agentloop_reply *reply) {
    script *s = userdata;
    (void)manifest;
    (void)manifest_len;
    /* The conversation grows by one assistant message and one tool result a turn. */
    if (messages_len == 0 || messages[0] != '[') {
        const char *why = "loop.c: the messages are not a JSON array";
        agentloop_reply_set_error(reply, u8(why), strlen(why));
        return;
    }
    if (s->turn >= sizeof SCRIPT / sizeof SCRIPT[0]) {
        const char *why = "the scripted model has no reply left";
        agentloop_reply_set_error(reply, u8(why), strlen(why));
        return;
    }
    const char *text = SCRIPT[s->turn][0];
    agentloop_reply_set_text(reply, u8(text), strlen(text));
    /* The script's calls, one at a time: name and arguments. */
    static const char *const CALLS[5][2] = {
        {"multiply", "{\"a\":2,\"b\":40}"},
        {"add", "{\"a\":\"2\",\"b\":40}"},
        {"fail", "{}"},
        {"add", "{\"a\":2,\"b\":40}"},
        {NULL, NULL},
    };
    if (CALLS[s->turn][0] != NULL) {
        const char *name = CALLS[s->turn][0], *args = CALLS[s->turn][1];
        agentloop_reply_add_call(reply, u8(name), strlen(name), u8(args), strlen(args));
    }
    s->turn++;
}

static void add_callback(void *userdata, const uint8_t *arguments, size_t len,
                         agentloop_tool_result *result) {
    (void)userdata;
    char args[128], out[64];
    double a = 0, b = 0;
    if (len >= sizeof args) {
        len = sizeof args - 1;
    }
    memcpy(args, arguments, len);
    args[len] = 0;
    if (sscanf(args, "{\"a\":%lf,\"b\":%lf}", &a, &b) != 2) {
        const char *why = "a and b must be integers";
        agentloop_tool_result_set_error(result, u8(why), strlen(why));
        return;
    }
    int n = snprintf(out, sizeof out, "{\"sum\":%.17g}", a + b);
    agentloop_tool_result_set_value(result, u8(out), (size_t)n);
}

static void echo_callback(void *userdata, const uint8_t *arguments, size_t len,
                          agentloop_tool_result *result) {
    (void)userdata;
    agentloop_tool_result_set_value(result, arguments, len);
}

static void fail_callback(void *userdata, const uint8_t *arguments, size_t len,
                          agentloop_tool_result *result) {
    (void)userdata;
    (void)arguments;
    (void)len;
    const char *why = "the tool is broken on purpose";
    agentloop_tool_result_set_error(result, u8(why), strlen(why));
}

static void greet_callback(void *userdata, const uint8_t *arguments, size_t len,
                           agentloop_tool_result *result) {
    (void)userdata;
    /* Canonical arguments are exactly {"name":"…"}; the escaped string is copied. */
    const size_t plen = strlen("{\"name\":\"");
    char out[256];
    if (len < plen + 2 || len - plen - 2 + 32 > sizeof out) {
        const char *why = "name must be a string";
        agentloop_tool_result_set_error(result, u8(why), strlen(why));
        return;
    }
    int n = snprintf(out, sizeof out, "{\"greeting\":\"hello, %.*s\"}", (int)(len - plen - 2),
                     (const char *)arguments + plen);
    agentloop_tool_result_set_value(result, u8(out), (size_t)n);
}

static uint32_t record_callback(void *userdata, const uint8_t *line, size_t len) {
    return fwrite(line, 1, len, (FILE *)userdata) == len ? 0 : 1;
}

static int run_driver(const char *path) {
    FILE *out = fopen(path, "wb");
    if (out == NULL) {
        perror(path);
        return 1;
    }
    agentloop_tool_callback callbacks[4] = {add_callback, echo_callback, fail_callback,
                                            greet_callback};
    agentloop_tool tools[4];
    for (size_t i = 0; i < 4; i++) {
        tools[i].name = u8(TOOLS[i][0]);
        tools[i].name_len = strlen(TOOLS[i][0]);
        tools[i].description = u8(TOOLS[i][1]);
        tools[i].description_len = strlen(TOOLS[i][1]);
        tools[i].schema = u8(TOOLS[i][2]);
        tools[i].schema_len = strlen(TOOLS[i][2]);
        tools[i].limit = 0;
        tools[i].callback = callbacks[i];
        tools[i].userdata = NULL;
    }
    agentloop_budgets budgets;
    agentloop_budgets_init(&budgets);
    budgets.has_max_steps = true;
    budgets.max_steps = 8;
    script s = {0};
    agentloop_outcome outcome;
    agentloop_result r = agentloop_driver_run(u8(TASK), strlen(TASK), &budgets, model_callback, &s,
                                       tools, 4, NULL, NULL, record_callback, out, &outcome);
    int status = 0;
    if (r != AGENTLOOP_RESULT_OK) {
        status = fail("agentloop_driver_run", r);
    } else {
        printf("driver stopped: %s after %llu steps, %llu tool calls\n",
               agentloop_stop_str(outcome.reason), (unsigned long long)outcome.steps,
               (unsigned long long)outcome.tool_calls);
        if (outcome.reason != AGENTLOOP_STOP_NO_TOOL_CALLS || outcome.steps != 5 ||
            outcome.unrun_calls != 0 || outcome.tool_calls != 4) {
            fprintf(stderr, "loop: the driver's run did not end as demo-recover does\n");
            status = 1;
        }
    }
    if (fclose(out) != 0 && status == 0) {
        perror(path);
        status = 1;
    }
    return status;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: loop FILE [DRIVER_FILE]\n");
        return 2;
    }
    agentloop_budgets budgets;
    agentloop_result r = agentloop_budgets_init(&budgets);
    if (r != AGENTLOOP_RESULT_OK) {
        return fail("agentloop_budgets_init", r);
    }
    budgets.has_max_steps = true;
    budgets.max_steps = 8;

    agentloop_agent *agent = NULL;
    r = agentloop_agent_new(u8(TASK), strlen(TASK), &budgets, 0, &agent);
    if (r != AGENTLOOP_RESULT_OK) {
        return fail("agentloop_agent_new", r);
    }
    agentloop_chain *chain = NULL;
    r = agentloop_chain_new(&chain);
    if (r != AGENTLOOP_RESULT_OK) {
        agentloop_agent_free(agent);
        return fail("agentloop_chain_new", r);
    }
    FILE *out = fopen(argv[1], "wb");
    if (out == NULL) {
        perror(argv[1]);
        agentloop_chain_free(chain);
        agentloop_agent_free(agent);
        return 1;
    }
    /* Start with a line buffer too small for any record: the size query grows it. */
    buffer line = {malloc(16), 16, 0}, scratch = {NULL, 0, 0}, name = {NULL, 0, 0},
           args = {NULL, 0, 0};
    int status = line.data == NULL;
    const char *what = "malloc";

    for (size_t i = 0; i < 4 && status == 0; i++) {
        r = agentloop_agent_add_tool(agent, u8(TOOLS[i][0]), strlen(TOOLS[i][0]),
                                     u8(TOOLS[i][1]), strlen(TOOLS[i][1]), u8(TOOLS[i][2]),
                                     strlen(TOOLS[i][2]), 0);
        if (r != AGENTLOOP_RESULT_OK) {
            status = fail(what = "agentloop_agent_add_tool", r);
        }
    }

    size_t turn = 0;
    uint32_t need = 0;
    while (status == 0) {
        r = agentloop_agent_poll(agent, &need);
        if (r == AGENTLOOP_RESULT_OK) {
            r = drain(agent, chain, &line, out);
        }
        if (r != AGENTLOOP_RESULT_OK) {
            status = fail("poll", r);
        } else if (need == AGENTLOOP_NEED_DONE) {
            break;
        } else if (need == AGENTLOOP_NEED_MODEL_REPLY) {
            r = model(agent, turn++, &scratch);
            if (r != AGENTLOOP_RESULT_OK) {
                status = fail("model", r);
            }
        } else if (need == AGENTLOOP_NEED_TOOL_RESULT) {
            r = tool(agent, &name, &args);
            if (r != AGENTLOOP_RESULT_OK) {
                status = fail("tool", r);
            }
        } else {
            fprintf(stderr, "loop: unknown need %u\n", (unsigned)need);
            status = 1;
        }
        if (status == 0) {
            r = drain(agent, chain, &line, out);
            if (r != AGENTLOOP_RESULT_OK) {
                status = fail("take_record", r);
            }
        }
    }

    if (status == 0) {
        uint32_t reason = 0;
        uint64_t steps = 0, tokens = 0, unrun = 0, calls = 0;
        r = agentloop_agent_outcome(agent, &reason, &steps, &tokens, &unrun, &calls);
        if (r != AGENTLOOP_RESULT_OK) {
            status = fail("agentloop_agent_outcome", r);
        } else {
            printf("stopped: %s after %llu steps, %llu tokens, %llu tool calls\n",
                   agentloop_stop_str(reason), (unsigned long long)steps,
                   (unsigned long long)tokens, (unsigned long long)calls);
            if (reason != AGENTLOOP_STOP_NO_TOOL_CALLS || steps != 5 || unrun != 0 ||
                calls != 4) {
                fprintf(stderr, "loop: the run did not end as demo-recover does\n");
                status = 1;
            }
        }
    }
    if (fclose(out) != 0 && status == 0) {
        perror(argv[1]);
        status = 1;
    }
    free(line.data);
    free(scratch.data);
    free(name.data);
    free(args.data);
    agentloop_chain_free(chain);
    agentloop_agent_free(agent);
    if (status == 0 && argc == 3) {
        status = run_driver(argv[2]);
    }
    return status;
}
