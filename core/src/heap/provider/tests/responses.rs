//! Responses: bodies in the shapes the providers' API references and SDK types give
//! (openai-python `types/chat/chat_completion.py`, `completion_usage.py`,
//! `shared/error_object.py`; anthropic-sdk-python `types/message.py`, `usage.py`,
//! `shared/error_response.py`), each → the exact reply or error sentence.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{json, report};
use crate::model::{ModelError, Reply};
use crate::provider::{anthropic, openai, Provider};

/// `(label, status, body, the reply or the error sentence)`.
type Case = (&'static str, u16, String, Result<Reply, String>);

fn check(provider: Provider, cases: Vec<Case>) {
    for (label, status, body, want) in cases {
        let got = provider.parse(status, body.as_bytes(), None);
        match want {
            Ok(reply) => assert_eq!(got, Ok(reply), "{provider} {label}"),
            Err(sentence) => {
                let error = got.expect_err(label);
                assert_eq!(error.message(), sentence, "{provider} {label}");
                assert_eq!(error.status(), Some(status), "{provider} {label}");
            }
        }
    }
}

/// An OpenAI chat completion with one choice whose `message` and `finish_reason` are
/// given, and `usage` (a JSON member, or nothing).
fn completion(message: &str, finish: &str, usage: &str) -> String {
    format!(
        r#"{{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[{{"index":0,"message":{message},"logprobs":null,"finish_reason":{finish}}}]{usage},"service_tier":"default","system_fingerprint":"fp_44709d6fcb"}}"#
    )
}

const OPENAI_USAGE: &str = r#","usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}"#;

fn openai_report(finish: &str) -> crate::model::ProviderReport {
    report(
        Some("gpt-4.1-2025-04-14"),
        Some("chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"),
        Some(finish),
        Some(82),
        Some(64),
    )
}

fn call(id: &str, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"id":"{id}","type":"function","function":{{"name":"{name}","arguments":{}}}}}"#,
        crate::provider::common::canonical(&crate::json::Value::from(arguments))
    )
}

#[test]
fn openai_bodies() {
    let weather = call(
        "call_abc123",
        "get_weather",
        "{\n\"location\": \"Boston, MA\"\n}",
    );
    let cases: Vec<Case> = alloc::vec![
        (
            "text only",
            200,
            completion(
                r#"{"role":"assistant","content":"Hello! How can I assist you today?","refusal":null,"annotations":[]}"#,
                r#""stop""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("Hello! How can I assist you today?")
                .with_output_tokens(17)
                .with_provider(openai_report("stop"))),
        ),
        (
            "one call, content null",
            200,
            completion(
                &format!(r#"{{"role":"assistant","content":null,"tool_calls":[{weather}]}}"#),
                r#""tool_calls""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("")
                .with_call("get_weather", json(r#"{"location":"Boston, MA"}"#))
                .with_output_tokens(17)
                .with_provider(openai_report("tool_calls"))),
        ),
        (
            "several calls with text, in order",
            200,
            completion(
                &format!(
                    r#"{{"role":"assistant","content":"Checking both.","tool_calls":[{},{},{}]}}"#,
                    call("call_1", "add", r#"{"a":2,"b":40}"#),
                    call("call_2", "greet", r#"{"name":"ada"}"#),
                    call("call_3", "add", r#"{"a":1,"b":1}"#),
                ),
                r#""tool_calls""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("Checking both.")
                .with_call("add", json(r#"{"a":2,"b":40}"#))
                .with_call("greet", json(r#"{"name":"ada"}"#))
                .with_call("add", json(r#"{"a":1,"b":1}"#))
                .with_output_tokens(17)
                .with_provider(openai_report("tool_calls"))),
        ),
        (
            "arguments that are not JSON become a string value",
            200,
            completion(
                &format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{},{},{},{}]}}"#,
                    call("call_1", "add", r#"{"a": 2, "b": 4"#),
                    call("call_2", "add", ""),
                    call("call_3", "add", r#"{"a":1,"a":2}"#),
                    call("call_4", "add", "[1,2]"),
                ),
                r#""tool_calls""#,
                "",
            ),
            Ok(Reply::new("")
                .with_call("add", crate::json::Value::from(r#"{"a": 2, "b": 4"#))
                .with_call("add", crate::json::Value::from(""))
                .with_call("add", crate::json::Value::from(r#"{"a":1,"a":2}"#))
                .with_call("add", json("[1,2]"))
                .with_provider(report(
                    Some("gpt-4.1-2025-04-14"),
                    Some("chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"),
                    Some("tool_calls"),
                    None,
                    None,
                ))),
        ),
        (
            "a custom tool call keeps its input as a string",
            200,
            completion(
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"custom","custom":{"name":"grammar","input":"SELECT 1"}}]}"#,
                r#""tool_calls""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("")
                .with_call("grammar", crate::json::Value::from("SELECT 1"))
                .with_output_tokens(17)
                .with_provider(openai_report("tool_calls"))),
        ),
        (
            "the deprecated function_call, when there are no tool_calls",
            200,
            completion(
                r#"{"role":"assistant","content":null,"tool_calls":null,"function_call":{"name":"add","arguments":"{\"a\":1}"}}"#,
                r#""function_call""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("")
                .with_call("add", json(r#"{"a":1}"#))
                .with_output_tokens(17)
                .with_provider(openai_report("function_call"))),
        ),
        (
            "function_call beside tool_calls is the same call: read once",
            200,
            completion(
                &format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{}],"function_call":{{"name":"add","arguments":"{{}}"}}}}"#,
                    call("call_1", "add", "{}")
                ),
                r#""tool_calls""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("")
                .with_call("add", json("{}"))
                .with_output_tokens(17)
                .with_provider(openai_report("tool_calls"))),
        ),
        (
            "truncated at the token limit",
            200,
            completion(
                r#"{"role":"assistant","content":"The first three primes are 2, 3 and","refusal":null}"#,
                r#""length""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("The first three primes are 2, 3 and")
                .with_output_tokens(17)
                .with_provider(openai_report("length"))),
        ),
        (
            "content filter",
            200,
            completion(
                r#"{"role":"assistant","content":null,"refusal":null}"#,
                r#""content_filter""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("")
                .with_output_tokens(17)
                .with_provider(openai_report("content_filter"))),
        ),
        (
            "a refusal is the text when there is no content",
            200,
            completion(
                r#"{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}"#,
                r#""stop""#,
                OPENAI_USAGE,
            ),
            Ok(Reply::new("I'm sorry, I can't help with that.")
                .with_output_tokens(17)
                .with_provider(openai_report("stop"))),
        ),
        (
            "usage absent, finish_reason null (a compatible server)",
            200,
            String::from(
                r#"{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":null}]}"#
            ),
            Ok(Reply::new("hi")),
        ),
        (
            "usage without details, counts null",
            200,
            completion(
                r#"{"role":"assistant","content":"hi"}"#,
                r#""stop""#,
                r#","usage":{"prompt_tokens":5,"completion_tokens":null,"prompt_tokens_details":null}"#,
            ),
            Ok(Reply::new("hi").with_provider(report(
                Some("gpt-4.1-2025-04-14"),
                Some("chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"),
                Some("stop"),
                Some(5),
                None,
            ))),
        ),
        (
            "only the first choice is read",
            200,
            String::from(
                r#"{"choices":[{"index":0,"message":{"content":"one"}},{"index":1,"message":{"content":"two"}}]}"#
            ),
            Ok(Reply::new("one")),
        ),
        // Errors.
        (
            "401",
            401,
            String::from(
                r#"{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 401 (invalid_request_error, invalid_api_key): Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys."
            )),
        ),
        (
            "404",
            404,
            String::from(
                r#"{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 404 (invalid_request_error, model_not_found): The model `gpt-9` does not exist or you do not have access to it."
            )),
        ),
        (
            "429 rate limit",
            429,
            String::from(
                r#"{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500. Please try again in 1s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 429 (tokens, rate_limit_exceeded): Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500. Please try again in 1s."
            )),
        ),
        (
            "429 quota: type and code the same, named once",
            429,
            String::from(
                r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 429 (insufficient_quota): You exceeded your current quota, please check your plan and billing details."
            )),
        ),
        (
            "500",
            500,
            String::from(
                r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 500 (server_error): The server had an error while processing your request. Sorry about that!"
            )),
        ),
        (
            "503",
            503,
            String::from(
                r#"{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 503 (server_error): The engine is currently overloaded, please try again later"
            )),
        ),
        (
            "502 from a proxy, not JSON",
            502,
            String::from(
                "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"
            ),
            Err(String::from(
                r#"the provider answered HTTP 502 with a body that is not JSON (122 bytes; unexpected character '<' at byte 0): "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n""#
            )),
        ),
        (
            "504 with an empty body",
            504,
            String::new(),
            Err(String::from("the provider answered HTTP 504 with an empty body")),
        ),
        (
            "an error in a 200 (a router passing one on)",
            200,
            String::from(
                r#"{"error":{"message":"Provider returned error","code":502}}"#
            ),
            Err(String::from("the provider answered HTTP 200: Provider returned error")),
        ),
        (
            "Ollama's error shape",
            404,
            String::from(r#"{"error":"model \"llama9\" not found, try pulling it first"}"#),
            Err(String::from(
                r#"the provider answered HTTP 404: model "llama9" not found, try pulling it first"#
            )),
        ),
        (
            "vLLM's error shape",
            400,
            String::from(
                r#"{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}"#
            ),
            Err(String::from(
                "the provider answered HTTP 400 (BadRequestError): This model's maximum context length is 4096 tokens."
            )),
        ),
        (
            "an error body that names no error",
            500,
            String::from(r#"{"detail":"oops"}"#),
            Err(String::from(
                r#"the provider answered HTTP 500 with a JSON body that names no error (17 bytes): "{"detail":"oops"}""#
            )),
        ),
        // Malformed 2xx bodies.
        (
            "cut short",
            200,
            String::from(r#"{"choices":[{"message":{"content":"hel"#),
            Err(String::from(
                r#"the provider answered HTTP 200 with a body that is not JSON (38 bytes; unexpected end of input at byte 38): "{"choices":[{"message":{"content":"hel""#
            )),
        ),
        (
            "not an object",
            200,
            String::from("[1]"),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: the body is an array, not an object"
            )),
        ),
        (
            "no choices",
            200,
            String::from(r#"{"id":"x"}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices is missing"
            )),
        ),
        (
            "choices empty",
            200,
            String::from(r#"{"choices":[]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices is empty"
            )),
        ),
        (
            "choices not an array",
            200,
            String::from(r#"{"choices":{}}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices is an object, not an array"
            )),
        ),
        (
            "a choice without a message",
            200,
            String::from(r#"{"choices":[{"finish_reason":"stop"}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message is missing"
            )),
        ),
        (
            "content as an array of parts (not in the SDK's type)",
            200,
            String::from(r#"{"choices":[{"message":{"content":[{"type":"text","text":"hi"}]}}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message.content is an array, not a string or null"
            )),
        ),
        (
            "arguments not a string",
            200,
            String::from(
                r#"{"choices":[{"message":{"tool_calls":[{"type":"function","function":{"name":"add","arguments":{"a":1}}}]}}]}"#
            ),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message.tool_calls[0].function.arguments is an object, not a string"
            )),
        ),
        (
            "a call without a name",
            200,
            String::from(
                r#"{"choices":[{"message":{"tool_calls":[{"type":"function","function":{"arguments":"{}"}}]}}]}"#
            ),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message.tool_calls[0].function.name is missing"
            )),
        ),
        (
            "a call with neither function nor custom",
            200,
            String::from(r#"{"choices":[{"message":{"tool_calls":[{"id":"c","type":"web"}]}}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message.tool_calls[0].function is missing"
            )),
        ),
        (
            "a call that is not an object",
            200,
            String::from(r#"{"choices":[{"message":{"tool_calls":["add"]}}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: choices[0].message.tool_calls[0] is a string, not an object"
            )),
        ),
        (
            "a negative count",
            200,
            String::from(r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-1}}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage.prompt_tokens is the number -1, not an integer from 0 to 2^53-1"
            )),
        ),
        (
            "a fractional count",
            200,
            String::from(r#"{"choices":[{"message":{"content":"x"}}],"usage":{"completion_tokens":1.5}}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage.completion_tokens is the number 1.5, not an integer from 0 to 2^53-1"
            )),
        ),
        (
            "a count past 2^53-1",
            200,
            String::from(
                r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens_details":{"cached_tokens":9007199254740992}}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage.prompt_tokens_details.cached_tokens is the number 9007199254740992, not an integer from 0 to 2^53-1"
            )),
        ),
        (
            "a count as a string",
            200,
            String::from(r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":"12"}}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage.prompt_tokens is a string, not an integer from 0 to 2^53-1"
            )),
        ),
        (
            "a model that is not a string",
            200,
            String::from(r#"{"choices":[{"message":{"content":"x"}}],"model":7}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: model is the number 7, not a string or null"
            )),
        ),
    ];
    check(Provider::OpenAi, cases);
}

/// An Anthropic message with the given `content` blocks, `stop_reason` and `usage`
/// (a JSON member, or nothing).
fn message(content: &str, stop: &str, usage: &str) -> String {
    format!(
        r#"{{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[{content}],"model":"claude-sonnet-4-5-20250929","stop_reason":{stop},"stop_sequence":null{usage}}}"#
    )
}

const ANTHROPIC_USAGE: &str = r#","usage":{"input_tokens":2095,"cache_creation_input_tokens":100,"cache_read_input_tokens":1800,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":0},"output_tokens":503,"service_tier":"standard"}"#;

fn anthropic_report(stop: &str) -> crate::model::ProviderReport {
    report(
        Some("claude-sonnet-4-5-20250929"),
        Some("msg_01XFDUDYJgAACzvnptvVoYEL"),
        Some(stop),
        Some(2095 + 100 + 1800),
        Some(1800),
    )
}

fn anthropic_error(kind: &str, message: &str) -> String {
    format!(
        r#"{{"type":"error","error":{{"type":"{kind}","message":"{message}"}},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}}"#
    )
}

#[test]
fn anthropic_bodies() {
    let cases: Vec<Case> = alloc::vec![
        (
            "text only",
            200,
            message(r#"{"type":"text","text":"Hi, I'm Claude."}"#, r#""end_turn""#, ANTHROPIC_USAGE),
            Ok(Reply::new("Hi, I'm Claude.")
                .with_output_tokens(503)
                .with_provider(anthropic_report("end_turn"))),
        ),
        (
            "text and one call",
            200,
            message(
                r#"{"type":"text","text":"I'll check the weather."},{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"location":"San Francisco, CA","unit":"celsius"}}"#,
                r#""tool_use""#,
                ANTHROPIC_USAGE,
            ),
            Ok(Reply::new("I'll check the weather.")
                .with_call(
                    "get_weather",
                    json(r#"{"location":"San Francisco, CA","unit":"celsius"}"#),
                )
                .with_output_tokens(503)
                .with_provider(anthropic_report("tool_use"))),
        ),
        (
            "several calls, in order; an input that is not an object is kept as it is",
            200,
            message(
                r#"{"type":"tool_use","id":"toolu_1","name":"add","input":{"a":2,"b":40}},{"type":"tool_use","id":"toolu_2","name":"greet","input":{"name":"ada"}},{"type":"tool_use","id":"toolu_3","name":"echo","input":"raw"}"#,
                r#""tool_use""#,
                ANTHROPIC_USAGE,
            ),
            Ok(Reply::new("")
                .with_call("add", json(r#"{"a":2,"b":40}"#))
                .with_call("greet", json(r#"{"name":"ada"}"#))
                .with_call("echo", json(r#""raw""#))
                .with_output_tokens(503)
                .with_provider(anthropic_report("tool_use"))),
        ),
        (
            "thinking, redacted thinking and server tool blocks are skipped; texts joined",
            200,
            message(
                r#"{"type":"thinking","thinking":"Let me add.","signature":"EqQBCgIYAhIM"},{"type":"redacted_thinking","data":"EmwKAhgBEgy"},{"type":"text","text":"The sum is "},{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"2+40"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"42.","citations":null}"#,
                r#""end_turn""#,
                ANTHROPIC_USAGE,
            ),
            Ok(Reply::new("The sum is 42.")
                .with_output_tokens(503)
                .with_provider(anthropic_report("end_turn"))),
        ),
        (
            "truncated at max_tokens",
            200,
            message(r#"{"type":"text","text":"The first three primes are 2, 3 and"}"#, r#""max_tokens""#, ANTHROPIC_USAGE),
            Ok(Reply::new("The first three primes are 2, 3 and")
                .with_output_tokens(503)
                .with_provider(anthropic_report("max_tokens"))),
        ),
        (
            "a refusal with no content",
            200,
            message("", r#""refusal""#, ANTHROPIC_USAGE),
            Ok(Reply::new("")
                .with_output_tokens(503)
                .with_provider(anthropic_report("refusal"))),
        ),
        (
            "usage without cache members",
            200,
            message(r#"{"type":"text","text":"ok"}"#, r#""end_turn""#, r#","usage":{"input_tokens":12,"output_tokens":6}"#),
            Ok(Reply::new("ok").with_output_tokens(6).with_provider(report(
                Some("claude-sonnet-4-5-20250929"),
                Some("msg_01XFDUDYJgAACzvnptvVoYEL"),
                Some("end_turn"),
                Some(12),
                None,
            ))),
        ),
        (
            "usage absent",
            200,
            String::from(r#"{"content":[{"type":"text","text":"ok"}]}"#),
            Ok(Reply::new("ok")),
        ),
        // Errors.
        (
            "529 overloaded",
            529,
            anthropic_error("overloaded_error", "Overloaded"),
            Err(String::from("the provider answered HTTP 529 (overloaded_error): Overloaded")),
        ),
        (
            "429",
            429,
            anthropic_error(
                "rate_limit_error",
                "This request would exceed the rate limit for your organization of 50,000 input tokens per minute."
            ),
            Err(String::from(
                "the provider answered HTTP 429 (rate_limit_error): This request would exceed the rate limit for your organization of 50,000 input tokens per minute."
            )),
        ),
        (
            "401",
            401,
            anthropic_error("authentication_error", "invalid x-api-key"),
            Err(String::from(
                "the provider answered HTTP 401 (authentication_error): invalid x-api-key"
            )),
        ),
        (
            "404",
            404,
            anthropic_error("not_found_error", "model: claude-nope"),
            Err(String::from(
                "the provider answered HTTP 404 (not_found_error): model: claude-nope"
            )),
        ),
        (
            "500",
            500,
            anthropic_error("api_error", "Internal server error"),
            Err(String::from(
                "the provider answered HTTP 500 (api_error): Internal server error"
            )),
        ),
        (
            "400",
            400,
            anthropic_error(
                "invalid_request_error",
                "messages: roles must alternate between \\\"user\\\" and \\\"assistant\\\""
            ),
            Err(String::from(
                r#"the provider answered HTTP 400 (invalid_request_error): messages: roles must alternate between "user" and "assistant""#
            )),
        ),
        (
            "an error with no message",
            500,
            String::from(r#"{"type":"error","error":{"type":"api_error"}}"#),
            Err(String::from("the provider answered HTTP 500 (api_error)")),
        ),
        (
            "502 from a proxy, not JSON",
            502,
            String::from("error code: 502"),
            Err(String::from(
                r#"the provider answered HTTP 502 with a body that is not JSON (15 bytes; unexpected character 'e' at byte 0): "error code: 502""#
            )),
        ),
        // Malformed 2xx bodies.
        (
            "no content",
            200,
            String::from(r#"{"id":"msg_1","type":"message"}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: content is missing"
            )),
        ),
        (
            "a block without a type",
            200,
            String::from(r#"{"content":[{"text":"hi"}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: content[0].type is missing"
            )),
        ),
        (
            "a text block whose text is not a string",
            200,
            String::from(r#"{"content":[{"type":"text","text":null}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: content[0].text is null, not a string"
            )),
        ),
        (
            "a tool_use block without input",
            200,
            String::from(r#"{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"add"}]}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: content[1].input is missing"
            )),
        ),
        (
            "a count that is not an integer",
            200,
            String::from(r#"{"content":[],"usage":{"input_tokens":1,"output_tokens":true}}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage.output_tokens is true, not an integer from 0 to 2^53-1"
            )),
        ),
        (
            "input counts that add up past 2^53-1",
            200,
            String::from(
                r#"{"content":[],"usage":{"input_tokens":9007199254740991,"cache_read_input_tokens":1}}"#
            ),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: usage's input tokens (input, cache creation and cache read) add up to 9007199254740992, past 2^53-1"
            )),
        ),
        (
            "a stop_reason that is not a string",
            200,
            String::from(r#"{"content":[],"stop_reason":1}"#),
            Err(String::from(
                "the provider answered HTTP 200 with a malformed body: stop_reason is the number 1, not a string or null"
            )),
        ),
    ];
    check(Provider::Anthropic, cases);
}

#[test]
fn error_statuses_are_kept_for_the_retry_policy() {
    let retryable = |status: u16, body: &str| -> [bool; 2] {
        [
            openai::parse(status, body.as_bytes(), None)
                .unwrap_err()
                .is_retryable(),
            anthropic::parse(status, body.as_bytes(), None)
                .unwrap_err()
                .is_retryable(),
        ]
    };
    let error = anthropic_error("overloaded_error", "Overloaded");
    for status in [408, 409, 429, 500, 502, 503, 529] {
        assert_eq!(retryable(status, &error), [true, true], "{status}");
    }
    for status in [400, 401, 403, 404, 413] {
        assert_eq!(retryable(status, &error), [false, false], "{status}");
    }
    // A malformed 2xx body fails the same way every time.
    assert_eq!(retryable(200, "{}"), [false, false]);
}

#[test]
fn error_sentences_escape_controls_and_stay_short() {
    // A provider's message with a forged line and a terminal escape.
    let forged = r#"{"error":{"message":"bad\nagentloop: FORGED\u001b[31m","type":"x\ty"}}"#;
    let error = openai::parse(400, forged.as_bytes(), None).unwrap_err();
    assert_eq!(
        error.message(),
        r"the provider answered HTTP 400 (x\ty): bad\nagentloop: FORGED\u001b[31m"
    );
    // A long message is cut after 1000 characters, marked.
    let long = "é".repeat(5000);
    let body = format!(r#"{{"type":"error","error":{{"type":"api_error","message":"{long}"}}}}"#);
    let error = anthropic::parse(500, body.as_bytes(), None).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "the provider answered HTTP 500 (api_error): {}…",
            "é".repeat(1000)
        )
    );
    // A long body that is not JSON: its byte count, and an excerpt of 200 characters.
    let page = format!("<!DOCTYPE html>\n{}", "x".repeat(10_000));
    let error = openai::parse(502, page.as_bytes(), None).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            r#"the provider answered HTTP 502 with a body that is not JSON (10016 bytes; unexpected character '<' at byte 0): "<!DOCTYPE html>\n{}…""#,
            "x".repeat(184)
        )
    );
    // Bytes that are not UTF-8, with control bytes.
    let error = anthropic::parse(502, b"\xff\xfe\x1b[2J\x00", None).unwrap_err();
    assert_eq!(
        error.message(),
        "the provider answered HTTP 502 with a body that is not JSON (7 bytes; invalid UTF-8 at byte 0): \"\u{fffd}\u{fffd}\\u001b[2J\\u0000\""
    );
    // An excerpt exactly 200 characters long is not marked as cut.
    let exact = "y".repeat(200);
    let error = openai::parse(503, exact.as_bytes(), None).unwrap_err();
    assert!(
        error.message().ends_with(&format!("\"{exact}\"")),
        "{}",
        error.message()
    );
}

/// Every cut of every real body (and every single byte changed to one that breaks
/// JSON) is read without a panic: a reply or an error carrying the status.
#[test]
fn every_cut_of_a_body_is_read_without_a_panic() {
    let bodies = [
        completion(
            &format!(
                r#"{{"role":"assistant","content":"a","tool_calls":[{}]}}"#,
                call("c", "add", r#"{"a":1}"#)
            ),
            r#""tool_calls""#,
            OPENAI_USAGE,
        ),
        message(
            r#"{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"add","input":{"a":1}}"#,
            r#""tool_use""#,
            ANTHROPIC_USAGE,
        ),
        anthropic_error("overloaded_error", "Overloaded"),
    ];
    let mut read = 0;
    for body in &bodies {
        let bytes = body.as_bytes();
        for cut in 0..bytes.len() {
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                let result: Result<Reply, ModelError> = provider.parse(200, &bytes[..cut], None);
                let error = result.expect_err("a cut body is not JSON");
                assert_eq!(error.status(), Some(200));
                let mut changed = bytes.to_vec();
                changed[cut] = b'}';
                if let Err(error) = provider.parse(201, &changed, None) {
                    assert_eq!(error.status(), Some(201));
                }
                read += 2;
            }
        }
    }
    assert!(read > 1000);
}
