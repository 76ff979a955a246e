//! Answers in each provider's documented shapes, for scripts.
//!
//! The bodies follow the providers' API references and SDK types: OpenAI's
//! `chat.completion` object and `{"error":{message,type,param,code}}`
//! (<https://platform.openai.com/docs/api-reference/chat/object>, openai-python's
//! `ChatCompletion`), Anthropic's `message` object and
//! `{"type":"error","error":{type,message},"request_id"}`
//! (<https://docs.anthropic.com/en/api/messages>, <https://docs.anthropic.com/en/api/errors>).
//! Ids and timestamps are fixed, so a run against them is reproducible.

use crate::json::quote;
use crate::Exchange;

/// OpenAI Chat Completions answers.
pub mod openai {
    use super::*;

    /// The model the canned answers say answered.
    pub const MODEL: &str = "gpt-4.1-2025-04-14";
    /// The response id of the canned completions.
    pub const ID: &str = "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT";

    /// Token counts of a completion's `usage`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Usage {
        /// `prompt_tokens`.
        pub prompt: u64,
        /// `completion_tokens`.
        pub completion: u64,
        /// `prompt_tokens_details.cached_tokens`.
        pub cached: u64,
    }

    /// The usage [`text`] and [`tool_calls`] report: 19 prompt tokens (none cached), 10
    /// completion tokens.
    pub const USAGE: Usage = Usage {
        prompt: 19,
        completion: 10,
        cached: 0,
    };

    /// The id the canned answers give the `index`-th tool call (0-based).
    pub fn call_id(index: usize) -> String {
        format!("call_{index:024}")
    }

    /// A `chat.completion` body, pretty-printed as OpenAI sends it: one choice with
    /// `content` (`null` when `None`), `tool_calls` when `calls` (name, arguments
    /// string) is not empty, `finish_reason`, and `usage` with
    /// `prompt_tokens_details` and `completion_tokens_details`.
    pub fn completion(
        content: Option<&str>,
        calls: &[(&str, &str)],
        finish_reason: &str,
        usage: Usage,
    ) -> String {
        let content = content.map_or_else(|| "null".to_string(), quote);
        let tool_calls = if calls.is_empty() {
            String::new()
        } else {
            let items: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    format!(
                        "          {{\n            \"id\": {},\n            \"type\": \"function\",\n            \"function\": {{\n              \"name\": {},\n              \"arguments\": {}\n            }}\n          }}",
                        quote(&call_id(i)),
                        quote(name),
                        quote(arguments)
                    )
                })
                .collect();
            format!(
                ",\n        \"tool_calls\": [\n{}\n        ]",
                items.join(",\n")
            )
        };
        format!(
            r#"{{
  "id": "{ID}",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "{MODEL}",
  "choices": [
    {{
      "index": 0,
      "message": {{
        "role": "assistant",
        "content": {content},
        "refusal": null,
        "annotations": []{tool_calls}
      }},
      "logprobs": null,
      "finish_reason": {finish}
    }}
  ],
  "usage": {{
    "prompt_tokens": {prompt},
    "completion_tokens": {completion},
    "total_tokens": {total},
    "prompt_tokens_details": {{
      "cached_tokens": {cached},
      "audio_tokens": 0
    }},
    "completion_tokens_details": {{
      "reasoning_tokens": 0,
      "audio_tokens": 0,
      "accepted_prediction_tokens": 0,
      "rejected_prediction_tokens": 0
    }}
  }},
  "service_tier": "default",
  "system_fingerprint": "fp_b7faba9ef5"
}}
"#,
            finish = quote(finish_reason),
            prompt = usage.prompt,
            completion = usage.completion,
            total = usage.prompt + usage.completion,
            cached = usage.cached,
        )
    }

    /// 200 with a text answer (`finish_reason: "stop"`, [`USAGE`]).
    pub fn text(content: &str) -> Exchange {
        Exchange::ok(completion(Some(content), &[], "stop", USAGE))
    }

    /// 200 with tool calls, `(name, arguments as a JSON string)` each, no content
    /// (`finish_reason: "tool_calls"`, [`USAGE`]).
    pub fn tool_calls(calls: &[(&str, &str)]) -> Exchange {
        Exchange::ok(completion(None, calls, "tool_calls", USAGE))
    }

    /// An error body: `{"error":{"message","type","param":null,"code"}}`.
    pub fn error_body(message: &str, kind: &str, code: Option<&str>) -> String {
        format!(
            "{{\n  \"error\": {{\n    \"message\": {},\n    \"type\": {},\n    \"param\": null,\n    \"code\": {}\n  }}\n}}\n",
            quote(message),
            quote(kind),
            code.map_or_else(|| "null".to_string(), quote)
        )
    }

    /// The message of [`rate_limited`].
    pub const RATE_LIMIT_MESSAGE: &str = "Rate limit reached for gpt-4.1 in organization org-standin on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 3s. Visit https://platform.openai.com/account/rate-limits to learn more.";

    /// 429 `rate_limit_exceeded` with `Retry-After: <seconds>`.
    pub fn rate_limited(retry_after_seconds: u64) -> Exchange {
        Exchange::new(
            429,
            error_body(RATE_LIMIT_MESSAGE, "requests", Some("rate_limit_exceeded")),
        )
        .with_header("Retry-After", &retry_after_seconds.to_string())
    }

    /// The message of [`server_error`].
    pub const SERVER_ERROR_MESSAGE: &str =
        "The server had an error while processing your request. Sorry about that!";

    /// 500 `server_error`.
    pub fn server_error() -> Exchange {
        Exchange::new(500, error_body(SERVER_ERROR_MESSAGE, "server_error", None))
    }

    /// The message of [`invalid_api_key`] (OpenAI shows a masked key; this one is made up).
    pub const INVALID_KEY_MESSAGE: &str = "Incorrect API key provided: sk-stand***0000. You can find your API key at https://platform.openai.com/account/api-keys.";

    /// 401 `invalid_api_key`.
    pub fn invalid_api_key() -> Exchange {
        Exchange::new(
            401,
            error_body(
                INVALID_KEY_MESSAGE,
                "invalid_request_error",
                Some("invalid_api_key"),
            ),
        )
    }
}

/// Anthropic Messages answers.
pub mod anthropic {
    use super::*;

    /// The model the canned answers say answered.
    pub const MODEL: &str = "claude-sonnet-4-20250514";
    /// The response id of the canned messages.
    pub const ID: &str = "msg_013Zva2CMHLNnXjNJJKqJ2EF";
    /// The `request_id` of the canned errors.
    pub const REQUEST_ID: &str = "req_011CSHoEeqs5C35K2UUqR7Fy";

    /// One content block of a message.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Block<'a> {
        /// `{"type":"text","text":…}`.
        Text(&'a str),
        /// `{"type":"tool_use","id":…,"name":…,"input":…}`: the name and the input as
        /// JSON text (sent as written).
        ToolUse(&'a str, &'a str),
    }

    /// Token counts of a message's `usage`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Usage {
        /// `input_tokens` (the tokens not read from or written to the cache).
        pub input: u64,
        /// `output_tokens`.
        pub output: u64,
        /// `cache_read_input_tokens`.
        pub cache_read: u64,
    }

    /// The usage [`text`] and [`tool_use`] report: 2095 input tokens, 503 output, none
    /// cached.
    pub const USAGE: Usage = Usage {
        input: 2095,
        output: 503,
        cache_read: 0,
    };

    /// The id the canned answers give the `index`-th `tool_use` block (0-based).
    pub fn tool_use_id(index: usize) -> String {
        format!("toolu_01standin{index:014}")
    }

    /// A `message` body (compact, as Anthropic sends it): `content` blocks,
    /// `stop_reason`, `usage` with the cache members.
    pub fn message(blocks: &[Block<'_>], stop_reason: &str, usage: Usage) -> String {
        let mut calls = 0;
        let content: Vec<String> = blocks
            .iter()
            .map(|block| match block {
                Block::Text(text) => format!("{{\"type\":\"text\",\"text\":{}}}", quote(text)),
                Block::ToolUse(name, input) => {
                    let id = tool_use_id(calls);
                    calls += 1;
                    format!(
                        "{{\"type\":\"tool_use\",\"id\":{},\"name\":{},\"input\":{input}}}",
                        quote(&id),
                        quote(name)
                    )
                }
            })
            .collect();
        format!(
            "{{\"id\":\"{ID}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"{MODEL}\",\"content\":[{}],\"stop_reason\":{},\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":{},\"output_tokens\":{},\"service_tier\":\"standard\"}}}}",
            content.join(","),
            quote(stop_reason),
            usage.input,
            usage.cache_read,
            usage.output
        )
    }

    /// 200 with a text answer (`stop_reason: "end_turn"`, [`USAGE`]).
    pub fn text(text: &str) -> Exchange {
        Exchange::ok(message(&[Block::Text(text)], "end_turn", USAGE))
    }

    /// 200 with `tool_use` blocks, `(name, input as JSON text)` each, after an
    /// optional text block (`stop_reason: "tool_use"`, [`USAGE`]).
    pub fn tool_use(text: Option<&str>, calls: &[(&str, &str)]) -> Exchange {
        let mut blocks: Vec<Block<'_>> = text.map(Block::Text).into_iter().collect();
        blocks.extend(
            calls
                .iter()
                .map(|(name, input)| Block::ToolUse(name, input)),
        );
        Exchange::ok(message(&blocks, "tool_use", USAGE))
    }

    /// An error body: `{"type":"error","error":{"type","message"},"request_id"}`.
    pub fn error_body(kind: &str, message: &str) -> String {
        format!(
            "{{\"type\":\"error\",\"error\":{{\"type\":{},\"message\":{}}},\"request_id\":\"{REQUEST_ID}\"}}",
            quote(kind),
            quote(message)
        )
    }

    /// 529 `overloaded_error`.
    pub fn overloaded() -> Exchange {
        Exchange::new(529, error_body("overloaded_error", "Overloaded"))
    }

    /// The message of [`rate_limited`].
    pub const RATE_LIMIT_MESSAGE: &str = "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits.";

    /// 429 `rate_limit_error` with `retry-after: <seconds>`.
    pub fn rate_limited(retry_after_seconds: u64) -> Exchange {
        Exchange::new(429, error_body("rate_limit_error", RATE_LIMIT_MESSAGE))
            .with_header("retry-after", &retry_after_seconds.to_string())
    }

    /// 500 `api_error`.
    pub fn api_error() -> Exchange {
        Exchange::new(500, error_body("api_error", "Internal server error"))
    }

    /// 401 `authentication_error`.
    pub fn authentication_error() -> Exchange {
        Exchange::new(401, error_body("authentication_error", "invalid x-api-key"))
    }
}

/// 200 with a body that is not JSON: a completion cut off mid-string, as a broken
/// proxy might pass on.
pub fn malformed() -> Exchange {
    Exchange::ok("{\n  \"id\": \"chatcmpl-B9MBs8CjcvOU2jLn4n570S5q")
}

/// 502 with an HTML page, as a gateway in front of a provider answers.
pub fn bad_gateway_html() -> Exchange {
    Exchange::new(
        502,
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n",
    )
    .with_header("Content-Type", "text/html")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, Json};

    fn json(exchange: &Exchange) -> Json {
        parse(std::str::from_utf8(&exchange.body).unwrap()).unwrap()
    }

    #[test]
    fn openai_bodies_are_json_in_the_documented_shape() {
        let body = json(&openai::tool_calls(&[
            ("add", "{\"a\":2,\"b\":40}"),
            ("echo", "{}"),
        ]));
        assert_eq!(
            body.get("object").and_then(Json::as_str),
            Some("chat.completion")
        );
        let Some(Json::Array(choices)) = body.get("choices") else {
            panic!()
        };
        let message = choices[0].get("message").unwrap();
        assert_eq!(message.get("content"), Some(&Json::Null));
        let Some(Json::Array(calls)) = message.get("tool_calls") else {
            panic!()
        };
        assert_eq!(calls.len(), 2);
        let function = calls[0].get("function").unwrap();
        assert_eq!(
            function.get("arguments").and_then(Json::as_str),
            Some("{\"a\":2,\"b\":40}")
        );
        assert_eq!(
            calls[1].get("id").and_then(Json::as_str),
            Some(openai::call_id(1).as_str())
        );
        let usage = body.get("usage").unwrap();
        assert_eq!(usage.get("total_tokens").and_then(Json::as_u64), Some(29));
        assert_eq!(
            usage
                .get("prompt_tokens_details")
                .and_then(|d| d.get("cached_tokens")),
            Some(&Json::Number("0".into()))
        );
        let text = json(&openai::text("a \"quoted\"\nline"));
        let Some(Json::Array(choices)) = text.get("choices") else {
            panic!()
        };
        assert_eq!(
            choices[0]
                .get("message")
                .and_then(|m| m.get("content"))
                .and_then(Json::as_str),
            Some("a \"quoted\"\nline")
        );
        assert!(choices[0]
            .get("message")
            .unwrap()
            .get("tool_calls")
            .is_none());

        let limited = openai::rate_limited(3);
        assert_eq!(
            (limited.status, limited.headers.clone()),
            (429, vec![("Retry-After".into(), "3".into())])
        );
        let error = json(&limited);
        assert_eq!(
            error
                .get("error")
                .and_then(|e| e.get("code"))
                .and_then(Json::as_str),
            Some("rate_limit_exceeded")
        );
        assert_eq!(
            json(&openai::server_error())
                .get("error")
                .and_then(|e| e.get("code")),
            Some(&Json::Null)
        );
        assert_eq!(openai::invalid_api_key().status, 401);
    }

    #[test]
    fn anthropic_bodies_are_json_in_the_documented_shape() {
        let body = json(&anthropic::tool_use(
            Some("Let me add."),
            &[("add", "{\"a\":2,\"b\":40}")],
        ));
        assert_eq!(body.get("type").and_then(Json::as_str), Some("message"));
        let Some(Json::Array(content)) = body.get("content") else {
            panic!()
        };
        assert_eq!(content[0].get("type").and_then(Json::as_str), Some("text"));
        assert_eq!(
            content[1].get("id").and_then(Json::as_str),
            Some(anthropic::tool_use_id(0).as_str())
        );
        assert_eq!(
            content[1].get("input").and_then(|i| i.get("b")),
            Some(&Json::Number("40".into()))
        );
        assert_eq!(
            body.get("stop_reason").and_then(Json::as_str),
            Some("tool_use")
        );
        assert_eq!(
            body.get("usage")
                .and_then(|u| u.get("output_tokens"))
                .and_then(Json::as_u64),
            Some(503)
        );

        for (exchange, status, kind) in [
            (anthropic::overloaded(), 529, "overloaded_error"),
            (anthropic::rate_limited(2), 429, "rate_limit_error"),
            (anthropic::api_error(), 500, "api_error"),
            (
                anthropic::authentication_error(),
                401,
                "authentication_error",
            ),
        ] {
            let error = json(&exchange);
            assert_eq!(exchange.status, status);
            assert_eq!(error.get("type").and_then(Json::as_str), Some("error"));
            assert_eq!(
                error
                    .get("error")
                    .and_then(|e| e.get("type"))
                    .and_then(Json::as_str),
                Some(kind)
            );
        }
    }

    #[test]
    fn the_malformed_bodies_are_not_json() {
        assert!(parse(std::str::from_utf8(&malformed().body).unwrap()).is_err());
        assert!(parse(std::str::from_utf8(&bad_gateway_html().body).unwrap()).is_err());
    }
}
