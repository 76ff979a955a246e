//! What both codecs share: the checks on the options and the conversation, the body
//! assembly, and reading a response's envelope, numbers and error bodies.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{RequestError, RequestErrorKind, RequestOptions};
use crate::anchor::{seq_of, MAX_SEQ};
use crate::jcs::{to_vec, write_value};
use crate::json::{parse, Object, Value};
use crate::model::{Message, ModelError, ToolCall};
use crate::quote::escape_controls;
use crate::redact;
use crate::sink::CountingSink;

/// At most this many characters of a provider's error message (or type) are quoted in
/// a sentence; the rest is cut, marked with `…` (after the secret is redacted:
/// [`redact::bounded`]).
pub(super) const MAX_QUOTED_CHARS: usize = 1000;

/// At most this many characters of a body that holds no readable error are quoted.
pub(super) const MAX_EXCERPT_CHARS: usize = 200;

pub(super) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        object.insert(key, value);
    }
    Value::Object(object)
}

/// Whether `value` has a canonical encoding (a value built by hand may hold a NaN).
pub(super) fn encodable(value: &Value) -> bool {
    write_value(value, &mut CountingSink::default()).is_ok()
}

/// The canonical encoding of a value as a string. [`check_conversation`] has made sure
/// every value of a conversation has one; a value without one becomes `null`.
pub(super) fn canonical(value: &Value) -> String {
    to_vec(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| String::from("null"))
}

/// A tool result as the text a provider is shown, and whether it is an error: the
/// canonical JSON of the value, or the `ok:false` (or "not run") sentence.
pub(super) fn result_text(result: &Result<Value, String>) -> (String, bool) {
    match result {
        Ok(value) => (canonical(value), false),
        Err(sentence) => (sentence.clone(), true),
    }
}

/// Whether `id` is one both providers accept: non-empty, `[A-Za-z0-9_-]` only.
fn id_ok(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// See [`super::check_conversation`].
pub(super) fn check_conversation(messages: &[Message]) -> Result<(), RequestError> {
    let bad = |index: usize, what: &'static str| {
        Err(RequestErrorKind::BadConversation { index, what }.into())
    };
    if !matches!(messages.first(), Some(Message::User { .. })) {
        return bad(0, "the first message is not the user's task");
    }
    let mut ids = BTreeSet::new();
    // The calls of the last assistant message still owed a result, in order.
    let mut owed: &[ToolCall] = &[];
    for (index, message) in messages.iter().enumerate().skip(1) {
        match message {
            Message::User { .. } | Message::Assistant { .. } if !owed.is_empty() => {
                return bad(
                    index,
                    "a call of the assistant message before has no result",
                );
            }
            Message::User { .. } => {}
            Message::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    if !id_ok(&call.id) || !ids.insert(call.id.as_str()) {
                        return bad(
                            index,
                            "a call id is empty, repeats an earlier id, or holds a character other than A-Z a-z 0-9 _ -",
                        );
                    }
                    if !encodable(&call.arguments) {
                        return bad(index, "a call's arguments have no canonical JSON encoding");
                    }
                }
                owed = tool_calls;
            }
            Message::Tool {
                call_id,
                name,
                result,
            } => {
                let Some((next, rest)) = owed.split_first() else {
                    return bad(index, "a tool result answers no call still owed one");
                };
                if next.id != *call_id || next.name != *name {
                    return bad(
                        index,
                        "a tool result does not answer the next unanswered call (its id and name)",
                    );
                }
                if matches!(result, Ok(value) if !encodable(value)) {
                    return bad(index, "a tool result has no canonical JSON encoding");
                }
                owed = rest;
            }
        }
    }
    if !owed.is_empty() {
        return bad(
            messages.len() - 1,
            "the conversation ends with a call that has no result",
        );
    }
    Ok(())
}

/// Checks the options for a body whose own members are `reserved`: a model, a
/// `max_output_tokens` in range (and present when `needs_max`), no reserved member in
/// `extra`, and an `extra` with a canonical encoding.
pub(super) fn check_options(
    options: &RequestOptions,
    reserved: &[&str],
    needs_max: bool,
) -> Result<(), RequestError> {
    if options.model.is_empty() {
        return Err(RequestErrorKind::NoModel.into());
    }
    match options.max_output_tokens {
        Some(n) if n == 0 || n > MAX_SEQ => {
            return Err(RequestErrorKind::BadOption(
                "max_output_tokens",
                "an integer from 1 to 2^53-1",
            )
            .into())
        }
        None if needs_max => return Err(RequestErrorKind::NoMaxOutputTokens.into()),
        _ => {}
    }
    if let Some(name) = reserved.iter().find(|n| options.extra.contains_key(n)) {
        return Err(RequestErrorKind::Reserved(String::from(*name)).into());
    }
    if options.extra.iter().any(|(_, value)| !encodable(value)) {
        return Err(RequestErrorKind::Unencodable("the extra options").into());
    }
    Ok(())
}

/// The body: the caller's extra members with the codec's own `members` added, as
/// canonical JSON. The options and the conversation were checked, so only the manifest
/// (a spec built by hand holding a NaN) can fail to encode.
pub(super) fn encode<const N: usize>(
    options: &RequestOptions,
    members: [(&str, Option<Value>); N],
) -> Result<Vec<u8>, RequestError> {
    let mut body = options.extra.clone();
    for (key, value) in members {
        if let Some(value) = value {
            body.insert(key, value);
        }
    }
    Ok(to_vec(&Value::Object(body))
        .map_err(|_| RequestErrorKind::Unencodable("the tool manifest"))?)
}

/// A count as a JSON number (exact: [`check_options`] keeps it at or below 2^53 − 1).
pub(super) fn count(n: u64) -> Value {
    Value::Number(n as f64)
}

// ---------------------------------------------------------------------------------
// Responses.

/// The response as a JSON object: `main` names the member a successful body has
/// (`choices`, `content`). A non-2xx status, or a 2xx body that holds an `error` and
/// no `main`, is the error the body reports, with `secret` redacted from what it
/// quotes of the body.
pub(super) fn response(
    status: u16,
    body: &[u8],
    main: &str,
    secret: Option<&str>,
) -> Result<Object, ModelError> {
    if body.is_empty() {
        return Err(answered(
            status,
            format!("the provider answered HTTP {status} with an empty body"),
        ));
    }
    let value = match parse(body) {
        Ok(value) => value,
        Err(error) => {
            return Err(answered(
                status,
                format!(
                    "the provider answered HTTP {status} with a body that is not JSON ({} bytes; {error}): \"{}\"",
                    body.len(),
                    excerpt(body, secret)
                ),
            ))
        }
    };
    let success = (200..300).contains(&status);
    if !success {
        return Err(error_body(status, body, &value, secret));
    }
    let Value::Object(object) = value else {
        return Err(malformed(
            status,
            format!("the body is {}, not an object", describe(&value)),
        ));
    };
    if !object.contains_key(main) && object.contains_key("error") {
        return Err(error_body(status, body, &Value::Object(object), secret));
    }
    Ok(object)
}

fn answered(status: u16, sentence: String) -> ModelError {
    ModelError::new(sentence).with_status(status)
}

/// A 2xx body that is not what the provider documents: `what` names the member and
/// what is wrong with it.
pub(super) fn malformed(status: u16, what: String) -> ModelError {
    answered(
        status,
        format!("the provider answered HTTP {status} with a malformed body: {what}"),
    )
}

/// The sentence for an error body: the status, the provider's error type (and code),
/// and its message. Understood shapes: `{"error":{"message","type","code"}}` (OpenAI,
/// and Anthropic's `{"type":"error","error":{"type","message"}}`), `{"error":"…"}`
/// (Ollama), and `{"message","type"}` at the top (vLLM). Each quoted text has `secret`
/// redacted before it is cut.
fn error_body(status: u16, body: &[u8], value: &Value, secret: Option<&str>) -> ModelError {
    let root = value.as_object();
    let (message, labels): (Option<&str>, [Option<&str>; 2]) =
        match root.and_then(|o| o.get("error")) {
            Some(Value::Object(error)) => (
                string(error, "message"),
                [string(error, "type"), string(error, "code")],
            ),
            Some(Value::String(message)) => (Some(message.as_str()), [None, None]),
            _ => match root {
                Some(o) if string(o, "message").is_some() => (
                    string(o, "message"),
                    [
                        string(o, "type").filter(|t| *t != "error"),
                        string(o, "code"),
                    ],
                ),
                _ => (None, [None, None]),
            },
        };
    let mut labels: Vec<&str> = labels
        .into_iter()
        .flatten()
        .filter(|l| !l.is_empty())
        .collect();
    labels.dedup();
    let message = message.filter(|m| !m.is_empty());
    if message.is_none() && labels.is_empty() {
        return answered(
            status,
            format!(
                "the provider answered HTTP {status} with a JSON body that names no error ({} bytes): \"{}\"",
                body.len(),
                excerpt(body, secret)
            ),
        );
    }
    let mut sentence = format!("the provider answered HTTP {status}");
    if !labels.is_empty() {
        let quoted: Vec<String> = labels.iter().map(|l| quote(l, secret)).collect();
        sentence.push_str(&format!(" ({})", quoted.join(", ")));
    }
    if let Some(message) = message {
        sentence.push_str(": ");
        sentence.push_str(&quote(message, secret));
    }
    answered(status, sentence)
}

fn string<'a>(object: &'a Object, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// `text` for a sentence: `secret` redacted, cut after [`MAX_QUOTED_CHARS`] characters
/// (marked `…`), control characters escaped.
fn quote(text: &str, secret: Option<&str>) -> String {
    shown(text, secret, MAX_QUOTED_CHARS)
}

/// `text` redacted and cut ([`redact::bounded`]), its control characters escaped, and
/// any run of `secret` the escapes completed (`\u0010` before `1234567`) hidden too:
/// the sentence, as shown, holds no run of the secret.
fn shown(text: &str, secret: Option<&str>, max_chars: usize) -> String {
    let bounded = redact::bounded(text, secret, max_chars);
    redact::hide_runs(&escape_controls(&bounded), secret)
}

/// The start of a body for a sentence: its first [`MAX_EXCERPT_CHARS`] characters
/// (bytes that are not UTF-8 shown as U+FFFD) with `secret` redacted, control
/// characters escaped, `…` when there is more.
///
/// Only the head of the body is read: enough bytes for the characters shown and one
/// more, however many whole secrets the head holds — a character takes at most 4
/// bytes, a secret of `n` bytes becomes 10 characters — plus a secret's length, so that
/// a secret in the last characters shown is whole in the head. A body longer than the
/// head always gives more than [`MAX_EXCERPT_CHARS`] characters, so it is marked cut.
fn excerpt(body: &[u8], secret: Option<&str>) -> String {
    let secret_len = secret.map_or(0, str::len);
    let head_len = (MAX_EXCERPT_CHARS + 1)
        .saturating_mul(secret_len.max(4))
        .saturating_add(secret_len);
    let head = body.get(..head_len).unwrap_or(body);
    let text = String::from_utf8_lossy(head);
    shown(&text, secret, MAX_EXCERPT_CHARS)
}

/// A value as a sentence names it: `a string`, `an object`, `the number -1`, `null`.
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => String::from("null"),
        Value::Bool(b) => format!("{b}"),
        Value::Number(_) => format!("the number {}", canonical(value)),
        Value::String(_) => String::from("a string"),
        Value::Array(_) => String::from("an array"),
        Value::Object(_) => String::from("an object"),
    }
}

/// Reads the members of one object of a 2xx body; `path` names it in sentences.
pub(super) struct Reader<'a> {
    pub status: u16,
    pub object: &'a Object,
    pub path: String,
}

impl<'a> Reader<'a> {
    /// The whole body.
    pub fn root(status: u16, object: &'a Object) -> Reader<'a> {
        Reader {
            status,
            object,
            path: String::new(),
        }
    }

    /// The path of member `key`, for a sentence.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            String::from(key)
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong(&self, key: &str, found: &Value, expected: &str) -> ModelError {
        malformed(
            self.status,
            format!(
                "{} is {}, not {expected}",
                self.path_of(key),
                describe(found)
            ),
        )
    }

    fn missing(&self, key: &str) -> ModelError {
        malformed(self.status, format!("{} is missing", self.path_of(key)))
    }

    /// A member that must be present (any JSON value).
    pub fn value(&self, key: &str) -> Result<&'a Value, ModelError> {
        self.object.get(key).ok_or_else(|| self.missing(key))
    }

    /// A string member that must be present.
    pub fn str(&self, key: &str) -> Result<&'a str, ModelError> {
        match self.value(key)? {
            Value::String(s) => Ok(s),
            other => Err(self.wrong(key, other, "a string")),
        }
    }

    /// A string member that may be absent or `null`.
    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ModelError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, other, "a string or null")),
        }
    }

    /// An array member that must be present.
    pub fn array(&self, key: &str) -> Result<&'a [Value], ModelError> {
        match self.value(key)? {
            Value::Array(items) => Ok(items),
            other => Err(self.wrong(key, other, "an array")),
        }
    }

    /// An array member that may be absent or `null` (then empty).
    pub fn opt_array(&self, key: &str) -> Result<&'a [Value], ModelError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.wrong(key, other, "an array or null")),
        }
    }

    /// An object member that must be present, as a reader.
    pub fn object(&self, key: &str) -> Result<Reader<'a>, ModelError> {
        match self.value(key)? {
            Value::Object(object) => Ok(self.nested(self.path_of(key), object)),
            other => Err(self.wrong(key, other, "an object")),
        }
    }

    /// An object member that may be absent or `null`, as a reader.
    pub fn opt_object(&self, key: &str) -> Result<Option<Reader<'a>>, ModelError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(object)) => Ok(Some(self.nested(self.path_of(key), object))),
            Some(other) => Err(self.wrong(key, other, "an object or null")),
        }
    }

    /// Item `index` of the array member `key`, which must be an object.
    pub fn item(&self, key: &str, index: usize, item: &'a Value) -> Result<Reader<'a>, ModelError> {
        let path = format!("{}[{index}]", self.path_of(key));
        match item {
            Value::Object(object) => Ok(self.nested(path, object)),
            other => Err(malformed(
                self.status,
                format!("{path} is {}, not an object", describe(other)),
            )),
        }
    }

    /// A token count that may be absent or `null`: an integer from 0 to 2^53 − 1.
    pub fn count(&self, key: &str) -> Result<Option<u64>, ModelError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) if seq_of(*n).is_some() => Ok(seq_of(*n)),
            Some(other) => Err(self.wrong(key, other, "an integer from 0 to 2^53-1")),
        }
    }

    fn nested(&self, path: String, object: &'a Object) -> Reader<'a> {
        Reader {
            status: self.status,
            object,
            path,
        }
    }
}
