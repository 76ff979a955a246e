//! One JSON-RPC message from a server, whatever carried it (a line on stdout, an HTTP
//! body, an event of a stream): what kind it is, the answer a response gives, the
//! reply a server request gets; and the messages the client sends, over either
//! transport ([`outgoing`], [`cancelled`]).

use std::time::Duration;

use agentloop_core::jcs;
use agentloop_core::json::{self, Object, Value};

use super::{members, METHOD_NOT_FOUND};
use crate::error::{Garbage, McpError};

/// What a message from the server is.
pub(crate) enum Incoming<'a> {
    /// A request from the server: answered at once ([`reply_to`]), never left waiting.
    Request {
        /// Its method.
        method: &'a str,
        /// Its id.
        id: &'a Value,
    },
    /// A notification (logging, progress, list changed), by its method: nothing to
    /// answer ([`TOOLS_LIST_CHANGED`] is noted).
    Notification(&'a str),
    /// A response to the request with this id.
    Response(&'a Value),
    /// An error with a null id: one the server could not tie to a request.
    Orphan(&'a Value),
}

/// The notification a server sends when its tool list changed.
pub(crate) const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// `bytes` as a JSON-RPC message object, or how it is not one.
pub(crate) fn parse(bytes: &[u8]) -> Result<Object, Garbage> {
    match json::parse(bytes) {
        Ok(Value::Object(message)) => Ok(message),
        Ok(_) => Err(Garbage::NotMessage("it is not a JSON object")),
        Err(error) => Err(Garbage::NotJson(error)),
    }
}

/// What kind of message `message` is, or the JSON-RPC rule it breaks.
pub(crate) fn classify(message: &Object) -> Result<Incoming<'_>, Garbage> {
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Garbage::NotMessage("it has no \"jsonrpc\": \"2.0\""));
    }
    match (message.get("method"), message.get("id")) {
        (Some(Value::String(method)), Some(id)) => Ok(Incoming::Request { method, id }),
        (Some(Value::String(method)), None) => Ok(Incoming::Notification(method)),
        (Some(_), _) => Err(Garbage::NotMessage("its \"method\" is not a string")),
        (None, Some(Value::Null)) => match message.get("error") {
            Some(error) => Ok(Incoming::Orphan(error)),
            None => Err(Garbage::NotMessage("it has a null \"id\" and no \"error\"")),
        },
        (None, Some(id)) => Ok(Incoming::Response(id)),
        (None, None) => Err(Garbage::NotMessage(
            "it has neither a \"method\" nor an \"id\"",
        )),
    }
}

/// A response id as one of ours (an integer from 1 below 2^53), if it is one.
pub(crate) fn our_id(id: &Value) -> Option<u64> {
    id.as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n < 2f64.powi(53))
        .map(|n| n as u64)
}

/// What a response to request `method` says: its `result`, or why there is none.
pub(crate) fn outcome(message: &Object, method: &str) -> Result<Value, McpError> {
    match (message.get("result"), message.get("error")) {
        (Some(result), None) => Ok(result.clone()),
        (None, Some(error)) => Err(rpc_error(method, error)),
        (Some(_), Some(_)) => Err(McpError::BadAnswer {
            method: String::from(method),
            reason: String::from("it has both \"result\" and \"error\""),
        }),
        (None, None) => Err(McpError::BadAnswer {
            method: String::from(method),
            reason: String::from("it has neither \"result\" nor \"error\""),
        }),
    }
}

/// The reply to the server's request `method` with `id`: `ping` is answered with an
/// empty result, anything else with "method not found" (this client declares no
/// capabilities).
pub(crate) fn reply_to(method: &str, id: &Value) -> Value {
    let answer = if method == "ping" {
        ("result", Value::Object(Object::new()))
    } else {
        let error = members(vec![
            ("code", Value::Number(METHOD_NOT_FOUND)),
            (
                "message",
                Value::from(format!(
                    "Method not found: agentloop does not support '{method}'"
                )),
            ),
        ]);
        ("error", error)
    };
    members(vec![
        ("jsonrpc", Value::from("2.0")),
        ("id", id.clone()),
        answer,
    ])
}

/// A request to the server (with its `id`) or a notification (without one): `method`
/// and its `params`, if any.
pub(crate) fn outgoing(id: Option<u64>, method: &str, params: Option<Value>) -> Value {
    let mut message = vec![("jsonrpc", Value::from("2.0"))];
    if let Some(id) = id {
        message.push(("id", Value::Number(id as f64)));
    }
    message.push(("method", Value::from(method)));
    if let Some(params) = params {
        message.push(("params", params));
    }
    members(message)
}

/// The params of `notifications/cancelled` for request `id`, unanswered after `timeout`.
pub(crate) fn cancelled(id: u64, timeout: Duration) -> Value {
    members(vec![
        (
            "reason",
            Value::from(format!("no answer within {timeout:?}")),
        ),
        ("requestId", Value::Number(id as f64)),
    ])
}

/// The error a JSON-RPC `error` member stands for.
pub(crate) fn rpc_error(method: &str, error: &Value) -> McpError {
    let bad = |reason: &str| McpError::BadAnswer {
        method: String::from(method),
        reason: format!("its \"error\" {reason}"),
    };
    let Some(error) = error.as_object() else {
        return bad("is not an object");
    };
    let code = match error.get("code").and_then(Value::as_f64) {
        Some(code) if code.fract() == 0.0 && code.abs() < 2f64.powi(53) => code as i64,
        _ => return bad("has no integer \"code\""),
    };
    let Some(message) = error.get("message").and_then(Value::as_str) else {
        return bad("has no string \"message\"");
    };
    let data = error
        .get("data")
        .map(|data| String::from_utf8_lossy(&jcs::to_vec(data).unwrap_or_default()).into_owned());
    McpError::Rpc {
        method: String::from(method),
        code,
        message: String::from(message),
        data,
    }
}
