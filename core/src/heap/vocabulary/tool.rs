//! The `tool` payload: `{"id", "name", "ok": true, "value"}` or `{"id", "name",
//! "ok": false, "error"}`.

use alloc::string::String;

use super::member::{ERROR, ID, NAME, OK, VALUE};
use super::read::{object, Members};
use super::{PayloadError, RecordKind};
use crate::json::Value;

/// The result of one call, run or refused, as its `tool` record states it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolPayload {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's value (`ok:true`) or the error sentence (`ok:false`).
    pub result: Result<Value, String>,
}

const KIND: RecordKind = RecordKind::Tool;

impl ToolPayload {
    /// The payload the loop writes.
    pub fn encode(&self) -> Value {
        let (ok, member, value) = match &self.result {
            Ok(value) => (true, VALUE, value.clone()),
            Err(sentence) => (false, ERROR, Value::from(sentence.as_str())),
        };
        object([
            (ID, Value::from(self.id.as_str())),
            (NAME, Value::from(self.name.as_str())),
            (OK, Value::Bool(ok)),
            (member, value),
        ])
    }

    /// Reads a `tool` payload.
    pub fn decode(payload: &Value) -> Result<ToolPayload, PayloadError> {
        let members = Members::of(KIND, payload)?;
        let result = match members.boolean(OK, OK)? {
            true => Ok(members.value(VALUE, VALUE)?.clone()),
            false => Err(String::from(members.string(ERROR, ERROR)?)),
        };
        Ok(ToolPayload {
            id: String::from(members.string(ID, ID)?),
            name: String::from(members.string(NAME, NAME)?),
            result,
        })
    }
}
