//! A Python callable `(messages, manifest) -> Reply` as a core `Model`: an exception,
//! or a return that is not a `Reply`, is the turn's `model_error`.

use agentloop_core::json::{Object, Value};
use agentloop_core::model::{Answer, Message, Model, ModelError, Reply as CoreReply};
use agentloop_core::tools::ToolSpec;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::interrupt::Interrupt;
use crate::py_tool::exception_sentence;
use crate::value::{to_python, to_value};

/// A model's reply: its text, the tool calls it asks for (`(name, arguments)` pairs)
/// and, when it knows them, its real output tokens.
#[pyclass(module = "agentloop", frozen)]
#[derive(Clone)]
pub struct Reply {
    pub(crate) reply: CoreReply,
}

#[pymethods]
impl Reply {
    #[new]
    #[pyo3(signature = (text = String::new(), calls = Vec::new(), *, output_tokens = None))]
    fn new(
        text: String,
        calls: Vec<(String, Bound<'_, PyAny>)>,
        output_tokens: Option<u64>,
    ) -> PyResult<Reply> {
        let mut reply = CoreReply::new(text);
        for (name, arguments) in &calls {
            reply = reply.with_call(name.clone(), to_value(arguments)?);
        }
        if let Some(tokens) = output_tokens {
            reply = reply.with_output_tokens(tokens);
        }
        Ok(Reply { reply })
    }

    /// The reply's text.
    #[getter]
    fn text(&self) -> &str {
        &self.reply.text
    }

    fn __repr__(&self) -> String {
        format!(
            "Reply(text={:?}, calls={})",
            self.reply.text,
            self.reply.tool_calls.len()
        )
    }
}

/// A message as the JSON-shaped dict the Python model is shown.
pub fn message_value(message: &Message) -> Value {
    let mut o = Object::new();
    o.insert("role", Value::from(message.role()));
    match message {
        Message::User { text } => {
            o.insert("text", Value::from(text.as_str()));
        }
        Message::Assistant { text, tool_calls } => {
            o.insert("text", Value::from(text.as_str()));
            let calls = tool_calls
                .iter()
                .map(|c| {
                    let mut call = Object::new();
                    call.insert("id", Value::from(c.id.as_str()));
                    call.insert("name", Value::from(c.name.as_str()));
                    call.insert("arguments", c.arguments.clone());
                    Value::Object(call)
                })
                .collect();
            o.insert("tool_calls", Value::Array(calls));
        }
        Message::Tool {
            call_id,
            name,
            result,
        } => {
            o.insert("call_id", Value::from(call_id.as_str()));
            o.insert("name", Value::from(name.as_str()));
            o.insert("ok", Value::Bool(result.is_ok()));
            match result {
                Ok(value) => o.insert("value", value.clone()),
                Err(error) => o.insert("error", Value::from(error.as_str())),
            };
        }
    }
    Value::Object(o)
}

/// A tool spec as `{"name", "description", "schema"}`.
pub fn spec_value(spec: &ToolSpec) -> Value {
    let mut o = Object::new();
    o.insert("name", Value::from(spec.name.as_str()));
    o.insert("description", Value::from(spec.description.as_str()));
    o.insert("schema", spec.schema.clone());
    Value::Object(o)
}

/// A Python callable as the loop's model.
///
/// The conversation only grows during a run, so each message is made a Python dict
/// once and the model is given the same list each turn, with the new messages appended
/// (a turn costs the new messages, not the whole conversation again). A model that
/// changed the list's length gets a list made anew. The manifest, fixed for a run, is
/// made once.
pub struct PyModel {
    function: Py<PyAny>,
    interrupt: Interrupt,
    conversation: Option<(Py<PyList>, usize)>,
    manifest: Option<Py<PyAny>>,
}

impl PyModel {
    /// The model that calls `function`.
    pub fn new(function: Py<PyAny>, interrupt: Interrupt) -> PyModel {
        PyModel {
            function,
            interrupt,
            conversation: None,
            manifest: None,
        }
    }

    /// The model's two arguments: the conversation (a new list) and the manifest.
    fn arguments<'py>(
        &mut self,
        py: Python<'py>,
        messages: &[Message],
        manifest: &[ToolSpec],
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyAny>)> {
        let list = match &self.conversation {
            Some((list, made)) if list.bind(py).len() == *made && *made <= messages.len() => {
                list.bind(py).clone()
            }
            _ => PyList::empty(py),
        };
        for message in messages.get(list.len()..).unwrap_or_default() {
            list.append(to_python(py, &message_value(message))?)?;
        }
        self.conversation = Some((list.clone().unbind(), list.len()));
        let shown = match &self.manifest {
            Some(shown) => shown.bind(py).clone(),
            None => to_python(py, &Value::Array(manifest.iter().map(spec_value).collect()))?,
        };
        self.manifest = Some(shown.clone().unbind());
        Ok((list, shown))
    }
}

impl Model for PyModel {
    fn reply(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
    ) -> Result<CoreReply, ModelError> {
        let interrupt = self.interrupt.clone();
        Python::attach(|py| {
            let fail = |e: PyErr| {
                interrupt.note(py, &e);
                ModelError::new(exception_sentence(py, &e))
            };
            let args = self.arguments(py, messages, manifest).map_err(fail)?;
            let answer = self.function.bind(py).call1(args).map_err(fail)?;
            match answer.cast::<Reply>() {
                Ok(reply) => Ok(reply.get().reply.clone()),
                Err(_) => Err(ModelError::new(format!(
                    "the model returned a {}, not an agentloop.Reply",
                    answer
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            }
        })
    }

    /// Ctrl-C while the model is asked abandons the turn: no `assistant` record, and
    /// the run stops as cancelled.
    fn reply_unless_cancelled(
        &mut self,
        messages: &[Message],
        manifest: &[ToolSpec],
        cancel: &mut dyn FnMut() -> bool,
    ) -> Answer {
        let reply = self.reply(messages, manifest);
        if reply.is_err() && cancel() {
            return Answer::Abandoned;
        }
        Answer::Reply(reply)
    }
}
