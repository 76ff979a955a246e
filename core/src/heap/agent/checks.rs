//! The checks the loop applies to replies, calls and results, and the sentences it
//! records when one fails (SPEC section 4: tool failures are data).

use alloc::format;
use alloc::string::String;

use super::budget::estimate_tokens;
use super::records::{recordable, Unrecordable, MAX_ARGUMENTS_DEPTH, MAX_VALUE_DEPTH};
use crate::anchor::MAX_SEQ;
use crate::json::Value;
use crate::model::{Reply, ToolCall};
use crate::tools::{check_call, Manifest, ShownName, ToolError};

/// The tokens a reply counts for, or why it cannot be recorded (a `model_error`).
pub(crate) fn reply(reply: &Reply) -> Result<u64, String> {
    for (index, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        if let Err(problem) = recordable(arguments, MAX_ARGUMENTS_DEPTH) {
            return Err(format!(
                "the model's reply cannot be recorded: the arguments of call {index} ('{}') {}",
                ShownName(name),
                unrecordable(problem)
            ));
        }
    }
    let provider = &reply.provider;
    let counts = [
        ("output", reply.output_tokens),
        ("input", provider.input_tokens),
        ("cached input", provider.cached_input_tokens),
    ];
    for (what, tokens) in counts {
        if let Some(tokens) = tokens.filter(|&t| t > MAX_SEQ) {
            return Err(format!(
                "the model reported {tokens} {what} tokens, more than 2^53-1"
            ));
        }
    }
    if let (Some(input), Some(cached)) = (provider.input_tokens, provider.cached_input_tokens) {
        if cached > input {
            return Err(format!(
                "the model reported {cached} cached input tokens, more than its {input} input tokens"
            ));
        }
    }
    Ok(reply
        .output_tokens
        .unwrap_or_else(|| estimate_tokens(&reply.text)))
}

/// Decides whether `call` may run: the index of its tool, or the `ok:false` sentence
/// ([`crate::tools::check_call`]). `runs` holds how many times each tool (by manifest
/// index) has run.
pub(crate) fn call(manifest: &Manifest, runs: &[u64], call: &ToolCall) -> Result<usize, String> {
    check_call(manifest, runs, &call.name, &call.arguments)
}

/// The result a tool gave, as it will be recorded: its value, or the `ok:false`
/// sentence for a failure or a value no record can hold.
pub(crate) fn result(name: &str, result: Result<Value, ToolError>) -> Result<Value, String> {
    match result {
        Ok(value) => match recordable(&value, MAX_VALUE_DEPTH) {
            Ok(()) => Ok(value),
            Err(problem) => Err(format!(
                "tool '{name}' returned a value {}",
                match problem {
                    Unrecordable::NoCanonicalEncoding => String::from("with no canonical encoding"),
                    Unrecordable::TooDeep(limit) => {
                        format!("nested deeper than {limit} levels, which a record cannot hold")
                    }
                }
            )),
        },
        Err(error) if error.message().is_empty() => {
            Err(format!("tool '{name}' failed without saying why"))
        }
        Err(error) => Err(format!("tool '{name}' failed: {error}")),
    }
}

fn unrecordable(problem: Unrecordable) -> String {
    match problem {
        Unrecordable::NoCanonicalEncoding => {
            String::from("have no canonical encoding (a NaN or infinite number)")
        }
        Unrecordable::TooDeep(limit) => format!("are nested deeper than {limit} levels"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_sentences() {
        assert_eq!(
            result("fail", Err(ToolError::new("the tool is broken on purpose"))),
            Err(String::from(
                "tool 'fail' failed: the tool is broken on purpose"
            ))
        );
        assert_eq!(
            result("x", Err(ToolError::new(""))),
            Err(String::from("tool 'x' failed without saying why"))
        );
        assert_eq!(
            result("x", Ok(Value::Number(f64::INFINITY))),
            Err(String::from(
                "tool 'x' returned a value with no canonical encoding"
            ))
        );
    }

    #[test]
    fn reply_tokens_and_refusals() {
        assert_eq!(reply(&Reply::new("abcdefgh")), Ok(2));
        assert_eq!(reply(&Reply::new("abcdefgh").with_output_tokens(0)), Ok(0));
        assert_eq!(
            reply(&Reply::new("").with_output_tokens(MAX_SEQ + 1)),
            Err(String::from(
                "the model reported 9007199254740992 output tokens, more than 2^53-1"
            ))
        );
        let nan = Reply::new("").with_call("add", Value::Number(f64::NAN));
        assert_eq!(
            reply(&nan),
            Err(String::from(
                "the model's reply cannot be recorded: the arguments of call 0 ('add') have \
                 no canonical encoding (a NaN or infinite number)"
            ))
        );
    }
}
