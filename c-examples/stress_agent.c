/*
 * stress_agent.c: the stress program's operation on agent handles: new agents with
 * random budgets and tools, tool results and model replies in any state, and the
 * size queries of what an agent says. See stress.c.
 */
#include "stress.h"

#include <string.h>

static agentloop_result messages_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_messages_json(ctx, buf, cap, len);
}

static agentloop_result call_json_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_call_json(ctx, buf, cap, len);
}

static agentloop_result stop_error_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_stop_error(ctx, buf, cap, len);
}

struct request_ctx {
    agentloop_agent *agent;
    uint32_t provider;
    const uint8_t *options;
    size_t options_len;
};

static agentloop_result request_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    struct request_ctx *c = ctx;
    return agentloop_agent_request(c->agent, c->provider, c->options, c->options_len, buf, cap,
                                   len);
}

static agentloop_result request_error_fn(void *ctx, uint8_t *buf, size_t cap, size_t *len) {
    return agentloop_agent_request_error(ctx, buf, cap, len);
}

void op_agent(const uint8_t *in, size_t len) {
    size_t i = below(SLOTS);
    agentloop_agent *a = PICK(agents);
    const uint32_t needs_agent = BIT(AGENTLOOP_RESULT_NULL_PARAMETER) |
                                 BIT(AGENTLOOP_RESULT_INVALID_STATE) | BIT(AGENTLOOP_RESULT_OK);
    switch (below(14)) {
    case 0: {
        agentloop_agent_free(agents[i]);
        agents[i] = NULL;
        agentloop_budgets budgets;
        expect(agentloop_budgets_init(&budgets), BIT(AGENTLOOP_RESULT_OK), "budgets_init");
        budgets.has_max_steps = one_in(2);
        budgets.max_steps = one_in(16) ? UINT64_MAX : below(4);
        budgets.has_max_tokens = one_in(3);
        budgets.max_tokens = below(50);
        budgets.has_max_tool_calls = one_in(3);
        budgets.max_tool_calls = below(4);
        budgets.has_max_total_tokens = one_in(3);
        budgets.max_total_tokens = one_in(16) ? UINT64_MAX : below(80);
        if (one_in(4)) {
            budgets.stop_sentinel = in;
            budgets.stop_sentinel_len = len < 8 ? len : 8;
        }
        agentloop_agent *fresh = NULL;
        agentloop_result r = expect(
            agentloop_agent_new(maybe_null(in), len, one_in(4) ? NULL : &budgets,
                                one_in(8) ? (UINT64_C(1) << 53) : below(3), &fresh),
            BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INVALID_UTF8) |
                BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
            "agent_new");
        if (r == AGENTLOOP_RESULT_OK) {
            agents[i] = fresh;
        }
        break;
    }
    case 1: {
        static const char *const NAMES[] = {"add", "echo", "", "\xc3\x28", "add", "a.b"};
        const char *name = NAMES[below(6)];
        const char *schema = random_schema();
        const uint8_t *schema_in = one_in(4) ? in : (const uint8_t *)schema;
        size_t schema_len = schema_in == in ? len : strlen(schema);
        agentloop_result r = expect(
            agentloop_agent_add_tool(a, (const uint8_t *)name, strlen(name),
                                     (const uint8_t *)"d", 1, schema_in, schema_len,
                                     one_in(16) ? UINT64_MAX : below(3)),
            ANY_INPUT | needs_agent | BIT(AGENTLOOP_RESULT_SCHEMA_REFUSED) |
                BIT(AGENTLOOP_RESULT_NOT_PROVIDER_SAFE) | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
            "agent_add_tool");
        /* The explanation agrees: a sentence for a name or schema refused, empty for
         * one registered. */
        size_t need = (size_t)-1;
        agentloop_result e = expect(
            agentloop_tool_explain((const uint8_t *)name, strlen(name), schema_in, schema_len,
                                   NULL, 0, &need),
            ANY_INPUT | BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE),
            "tool_explain");
        bool agrees = r == AGENTLOOP_RESULT_OK ? e == AGENTLOOP_RESULT_OK && need == 0
                      : r == AGENTLOOP_RESULT_NOT_PROVIDER_SAFE || r == AGENTLOOP_RESULT_SCHEMA_REFUSED
                          ? e == AGENTLOOP_RESULT_INSUFFICIENT_SIZE && need > 0
                          : true;
        if (!agrees) {
            fail("tool_explain", "disagrees with agent_add_tool");
        }
        break;
    }
    case 2: {
        uint32_t need = 0;
        expect(agentloop_agent_poll(a, one_in(16) ? NULL : &need),
               BIT(AGENTLOOP_RESULT_OK) | BIT(AGENTLOOP_RESULT_NULL_PARAMETER), "agent_poll");
        break;
    }
    case 3: {
        static const char *const CALLS[] = {
            "[]", "[{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}]",
            "[{\"name\":\"echo\",\"arguments\":{}}]", "{}", "[{\"name\":1}]",
        };
        const char *c = CALLS[below(5)];
        expect(agentloop_agent_feed_reply(a, maybe_null(in), len,
                                          one_in(4) ? in : (const uint8_t *)c,
                                          one_in(4) ? len : strlen(c), one_in(2),
                                          one_in(8) ? UINT64_MAX : below(100)),
               ANY_INPUT | needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT),
               "agent_feed_reply");
        break;
    }
    case 4:
        expect(agentloop_agent_feed_model_error(a, maybe_null(in), len),
               ANY_INPUT | needs_agent, "agent_feed_model_error");
        break;
    case 5:
        expect(agentloop_agent_feed_tool_result(a, maybe_null(in), len), ANY_INPUT | needs_agent,
               "agent_feed_tool_result");
        break;
    case 6:
        expect(agentloop_agent_feed_tool_error(a, maybe_null(in), len), ANY_INPUT | needs_agent,
               "agent_feed_tool_error");
        break;
    case 7:
        size_query(messages_fn, a, needs_agent, "agent_messages_json");
        size_query(call_json_fn, a, needs_agent, "agent_call_json");
        break;
    case 8: {
        uint8_t out[512];
        size_t out_len = 0;
        bool has = false;
        expect(agentloop_agent_take_record(a, PICK(chains), one_in(4) ? NULL : out,
                                           below(sizeof out + 1), &out_len,
                                           one_in(16) ? NULL : &has),
               needs_agent | BIT(AGENTLOOP_RESULT_INSUFFICIENT_SIZE) |
                   BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) | BIT(AGENTLOOP_RESULT_CHAIN_EXHAUSTED),
               "agent_take_record");
        break;
    }
    case 9: {
        uint32_t reason = 0;
        uint64_t steps = 0, tokens = 0, unrun = 0, tools = 0;
        agentloop_result r =
            expect(agentloop_agent_outcome(a, &reason, one_in(2) ? NULL : &steps, &tokens,
                                           one_in(2) ? NULL : &unrun, &tools),
                   needs_agent, "agent_outcome");
        if (r == AGENTLOOP_RESULT_OK) {
            check_static_string(agentloop_stop_str(reason), "stop_str");
        }
        size_query(stop_error_fn, a, needs_agent, "agent_stop_error");
        break;
    }
    case 10:
        expect(agentloop_agent_cancel(a), BIT(AGENTLOOP_RESULT_OK) |
                                              BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
               "agent_cancel");
        break;
    case 11: {
        /* A provider request: providers 0 and 3 are unknown; options good, refused by
         * the codec (no model, Anthropic without max_output_tokens, a reserved member),
         * not JSON, or the random input. */
        static const char *const OPTIONS[] = {
            "{\"model\":\"m\",\"max_output_tokens\":16}", "{\"model\":\"m\"}",
            "{\"model\":\"m\",\"tools\":[]}", "{}", "[", "{\"model\":\"m\",\"x\":1e400}",
        };
        const char *o = OPTIONS[below(6)];
        bool random_options = one_in(4);
        struct request_ctx c = {a, (uint32_t)below(4),
                                random_options ? maybe_null(in) : (const uint8_t *)o,
                                random_options ? len : strlen(o)};
        size_query(request_fn, &c,
                   needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                       BIT(AGENTLOOP_RESULT_INVALID_JSON) |
                       BIT(AGENTLOOP_RESULT_NO_CANONICAL_FORM) |
                       BIT(AGENTLOOP_RESULT_REQUEST_REFUSED),
                   "agent_request");
        size_query(request_error_fn, a, BIT(AGENTLOOP_RESULT_NULL_PARAMETER),
                   "agent_request_error");
        break;
    }
    case 12: {
        /* A provider's answer: any bytes, any status, known or unknown providers. */
        static const uint32_t STATUSES[] = {200, 429, 500, 529, 0, 1000};
        static const char *const BODIES[] = {
            "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}",
            "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],"
            "\"stop_reason\":\"end_turn\"}",
        };
        const char *b = BODIES[below(2)];
        uint32_t status = one_in(8) ? (uint32_t)next_u64() : STATUSES[below(6)];
        bool random_body = one_in(2);
        /* The key to redact: none, a part of the input, or garbage. */
        size_t secret_len = one_in(2) ? 0 : (len < 12 ? len : 12);
        const uint8_t *body = random_body ? maybe_null(in) : (const uint8_t *)b;
        size_t body_len = random_body ? len : strlen(b);
        const uint32_t answered = needs_agent | BIT(AGENTLOOP_RESULT_INVALID_ARGUMENT) |
                                  BIT(AGENTLOOP_RESULT_INVALID_UTF8);
        if (one_in(2)) {
            expect(agentloop_agent_feed_response(a, (uint32_t)below(4), status, body, body_len,
                                                 maybe_null(in), secret_len),
                   answered, "agent_feed_response");
        } else {
            /* With the request body the host says it sent: any bytes, or NULL. */
            expect(agentloop_agent_feed_exchange(a, (uint32_t)below(4), maybe_null(in), len,
                                                 status, body, body_len, maybe_null(in),
                                                 secret_len),
                   answered, "agent_feed_exchange");
        }
        break;
    }
    default:
        FREE_SLOT(agents, i, agentloop_agent_free);
        break;
    }
}
