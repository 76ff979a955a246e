/*
 * provider.c: the loop with a real model, from C. The library builds each request body
 * from the conversation (agentloop_reply_request) and reads the provider's answer
 * (agentloop_reply_parse); this program only does the HTTP, with libcurl. One C tool,
 * add. The run goes through the callback driver into a transcript file, which is then
 * verified.
 *
 *   ./provider BASE_URL openai|anthropic FILE [MODEL]
 *
 * BASE_URL is where the API lives, e.g. https://api.openai.com/v1 (then
 * BASE_URL/chat/completions is asked) or https://api.anthropic.com/v1
 * (BASE_URL/messages). The API key is read from OPENAI_API_KEY or ANTHROPIC_API_KEY
 * when set, sent in its header and never printed (nor recorded: it is given to
 * agentloop_reply_parse, which redacts it from a provider's error that echoes it).
 * Records are appended to FILE (created if absent). Exit 0 when the run ended with
 * no_tool_calls and FILE verifies; 1 otherwise; 2 on bad usage.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentloop.h"

#define TASK "Add 2 and 40 with the add tool, then say the sum."

static const char ADD_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
    "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}";

/* A growable byte buffer. */
typedef struct {
    uint8_t *data;
    size_t cap;
    size_t len;
} buffer;

static int reserve(buffer *b, size_t needed) {
    if (needed <= b->cap) {
        return 0;
    }
    uint8_t *grown = realloc(b->data, needed);
    if (grown == NULL) {
        return -1;
    }
    b->data = grown;
    b->cap = needed;
    return 0;
}

/* libcurl's write callback: the response body, appended to a buffer. */
static size_t collect(char *data, size_t size, size_t n, void *userdata) {
    buffer *b = userdata;
    if (reserve(b, b->len + n) != 0) {
        return 0; /* curl fails the transfer */
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    (void)size; /* always 1 */
    return n;
}

typedef struct {
    CURL *curl;
    uint32_t provider;
    const char *key; /* NULL: none */
    char options[512];
    buffer request, response;
} host;

/* The model: request body from the library, POST, answer back to the library. */
static void model(void *userdata, const uint8_t *messages, size_t messages_len,
                  const uint8_t *manifest, size_t manifest_len, agentloop_reply *reply) {
    host *h = userdata;
    (void)messages, (void)messages_len, (void)manifest, (void)manifest_len;
    size_t len = 0;
    agentloop_result r;
    do { /* the size query: ask, grow, ask again */
        r = agentloop_reply_request(reply, h->provider, (const uint8_t *)h->options,
                                    strlen(h->options), h->request.data, h->request.cap, &len);
    } while (r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE && reserve(&h->request, len) == 0);
    if (r != AGENTLOOP_RESULT_OK) {
        /* Returning now stops the run with model_error and the library's sentence. */
        fprintf(stderr, "provider: request: %s\n", agentloop_result_str(r));
        return;
    }
    h->response.len = 0;
    curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, (const char *)h->request.data);
    /* A real host would post again on 429 and 5xx, after the Retry-After wait. */
    CURLcode c = curl_easy_perform(h->curl);
    if (c != CURLE_OK) {
        char why[256];
        int n = snprintf(why, sizeof why, "the POST failed: %s", curl_easy_strerror(c));
        agentloop_reply_set_error(reply, (const uint8_t *)why, n < 0 ? 0 : strlen(why));
        return;
    }
    long status = 0;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
    /* A reply, or the provider's error as the run's model_error: the library reads it,
     * with the key redacted from the error should the provider echo it. */
    r = agentloop_reply_parse(reply, h->provider, (uint32_t)status, h->response.data,
                              h->response.len, (const uint8_t *)h->key,
                              h->key == NULL ? 0 : strlen(h->key));
    if (r != AGENTLOOP_RESULT_OK) {
        fprintf(stderr, "provider: parse: %s\n", agentloop_result_str(r));
    }
}

/* The add tool, on canonical arguments {"a":…,"b":…} that passed its schema. */
static void add(void *userdata, const uint8_t *arguments, size_t len,
                agentloop_tool_result *result) {
    char text[128], out[64];
    long long a = 0, b = 0, most = 1LL << 52;
    (void)userdata;
    if (len < sizeof text) {
        memcpy(text, arguments, len);
        text[len] = 0;
    }
    if (len >= sizeof text || sscanf(text, "{\"a\":%lld,\"b\":%lld}", &a, &b) != 2 ||
        llabs(a) > most || llabs(b) > most) {
        const char *why = "a and b must be integers of at most 2^52";
        agentloop_tool_result_set_error(result, (const uint8_t *)why, strlen(why));
        return;
    }
    int n = snprintf(out, sizeof out, "{\"sum\":%lld}", a + b);
    agentloop_tool_result_set_value(result, (const uint8_t *)out, (size_t)n);
}

static int usage(void) {
    fprintf(stderr, "usage: provider BASE_URL openai|anthropic FILE [MODEL]\n");
    return 2;
}

int main(int argc, char **argv) {
    int openai = argc >= 4 && strcmp(argv[2], "openai") == 0;
    if (argc < 4 || argc > 5 || (!openai && strcmp(argv[2], "anthropic") != 0)) {
        return usage();
    }
    const char *model_name = argc == 5 ? argv[4] : openai ? "gpt-4.1" : "claude-sonnet-4-0";
    const char *key = getenv(openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
    host h = {.provider = openai ? AGENTLOOP_PROVIDER_OPENAI : AGENTLOOP_PROVIDER_ANTHROPIC,
              .key = key};
    char url[2048], auth[1024];
    const char *path = openai ? "/chat/completions" : "/messages";
    const char *scheme = openai ? "Authorization: Bearer " : "x-api-key: ";
    int n1 = snprintf(url, sizeof url, "%s%s", argv[1], path);
    int n2 = snprintf(auth, sizeof auth, "%s%s", scheme, key == NULL ? "" : key);
    int n3 = snprintf(h.options, sizeof h.options, "{\"model\":\"%s\",\"max_output_tokens\":1024}",
                      model_name);
    if (n1 < 0 || n1 >= (int)sizeof url || n2 < 0 || n2 >= (int)sizeof auth || n3 < 0 ||
        n3 >= (int)sizeof h.options || strpbrk(model_name, "\"\\") != NULL) {
        return usage();
    }
    const char *lines[] = {"Content-Type: application/json",
                           openai ? NULL : "anthropic-version: 2023-06-01",
                           key == NULL ? NULL : auth};

    int status = 1;
    struct curl_slist *headers = NULL;
    agentloop_writer *writer = NULL;
    agentloop_report *report = NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        return 1;
    }
    h.curl = curl_easy_init();
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct curl_slist *longer =
            lines[i] == NULL ? headers : curl_slist_append(headers, lines[i]);
        if (longer == NULL) {
            goto cleanup;
        }
        headers = longer;
    }
    if (h.curl == NULL) {
        goto cleanup;
    }
    curl_easy_setopt(h.curl, CURLOPT_URL, url);
    curl_easy_setopt(h.curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h.curl, CURLOPT_WRITEDATA, &h.response);
    curl_easy_setopt(h.curl, CURLOPT_TIMEOUT, 300L);

    const char *description = "Adds two integers a and b.";
    agentloop_tool tool = {(const uint8_t *)"add", 3, (const uint8_t *)description,
                           strlen(description), (const uint8_t *)ADD_SCHEMA, strlen(ADD_SCHEMA),
                           0, add, NULL};
    agentloop_budgets budgets;
    agentloop_budgets_init(&budgets);
    budgets.has_max_steps = true; /* a model that never stops asking for tools */
    budgets.max_steps = 8;
    agentloop_outcome outcome;
    agentloop_result r =
        agentloop_writer_open((const uint8_t *)argv[3], strlen(argv[3]), NULL, &writer);
    if (r == AGENTLOOP_RESULT_OK) {
        r = agentloop_driver_run_to_writer(writer, (const uint8_t *)TASK, strlen(TASK), &budgets,
                                           model, &h, &tool, 1, NULL, NULL, &outcome);
    }
    if (r != AGENTLOOP_RESULT_OK) {
        fprintf(stderr, "provider: %s: %s\n", argv[3], agentloop_result_str(r));
        goto cleanup;
    }
    printf("provider: stopped with %s after %llu turns and %llu tool calls\n",
           agentloop_stop_str(outcome.reason), (unsigned long long)outcome.steps,
           (unsigned long long)outcome.tool_calls);
    r = agentloop_transcript_verify_file((const uint8_t *)argv[3], strlen(argv[3]), NULL,
                                         &report);
    if (r != AGENTLOOP_RESULT_OK || !agentloop_report_ok(report)) {
        fprintf(stderr, "provider: %s does not verify\n", argv[3]);
        goto cleanup;
    }
    printf("provider: %s verifies: %llu records\n", argv[3],
           (unsigned long long)agentloop_report_count(report));
    status = outcome.reason == AGENTLOOP_STOP_NO_TOOL_CALLS ? 0 : 1;

cleanup:
    agentloop_report_free(report);
    agentloop_writer_free(writer);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h.curl);
    curl_global_cleanup();
    free(h.request.data);
    free(h.response.data);
    return status;
}
