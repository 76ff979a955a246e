//! Python values and core's JSON `Value`, both ways.
//!
//! Python → `Value` goes through core's own serde serializer (`json::to_value`), the one
//! the Rust loop turns a typed tool's result with: the same refusals (NaN and infinities,
//! integers a double would change, non-string keys, nesting deeper than the parser
//! reads) with the same sentences and JSON paths. What only Python has (bytes, sets,
//! arbitrary objects) is refused with a sentence of its own at its path.

use agentloop_core::json::{self, Object, SerializeError, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use serde::ser::{Error as _, SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;

use crate::errors::EncodeError;

/// A Python object seen as serde data.
struct Py<'a, 'py>(&'a Bound<'py, PyAny>);

impl Serialize for Py<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        if o.is_none() {
            return s.serialize_unit();
        }
        if let Ok(b) = o.cast::<PyBool>() {
            return s.serialize_bool(b.is_true());
        }
        if o.is_instance_of::<PyInt>() {
            return integer(o, s);
        }
        if let Ok(f) = o.cast::<PyFloat>() {
            return s.serialize_f64(f.value());
        }
        if let Ok(text) = o.cast::<PyString>() {
            let text = text.to_cow().map_err(|_| {
                S::Error::custom("a str holding a lone surrogate has no UTF-8 (JSON) form")
            })?;
            return s.serialize_str(&text);
        }
        if let Ok(d) = o.cast::<PyDict>() {
            let mut map = s.serialize_map(Some(d.len()))?;
            for (k, v) in d.iter() {
                map.serialize_entry(&Py(&k), &Py(&v))?;
            }
            return map.end();
        }
        if let Ok(l) = o.cast::<PyList>() {
            return seq(l.iter(), l.len(), s);
        }
        if let Ok(t) = o.cast::<PyTuple>() {
            return seq(t.iter(), t.len(), s);
        }
        Err(S::Error::custom(no_json_form(o)))
    }
}

/// An array of the items.
fn seq<'py, S: Serializer>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut out = s.serialize_seq(Some(len))?;
    for item in items {
        out.serialize_element(&Py(&item))?;
    }
    out.end()
}

/// A Python int, as the widest Rust integer that holds it; the serializer takes it
/// exactly or refuses it as core does for a Rust integer.
fn integer<S: Serializer>(o: &Bound<'_, PyAny>, s: S) -> Result<S::Ok, S::Error> {
    if let Ok(n) = o.extract::<i64>() {
        return s.serialize_i64(n);
    }
    if let Ok(n) = o.extract::<u64>() {
        return s.serialize_u64(n);
    }
    if let Ok(n) = o.extract::<i128>() {
        return s.serialize_i128(n);
    }
    if let Ok(n) = o.extract::<u128>() {
        return s.serialize_u128(n);
    }
    let digits = o.str().map(|t| t.to_string()).unwrap_or_default();
    Err(S::Error::custom(format!(
        "the integer {digits} is beyond 128 bits, and a JSON number (a double) would change it; send it as a string"
    )))
}

/// The sentence for a Python object with no JSON form.
fn no_json_form(o: &Bound<'_, PyAny>) -> String {
    let name = o
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| String::from("object"));
    if o.is_instance_of::<PyBytes>() || o.is_instance_of::<PyByteArray>() {
        return format!(
            "a {name} has no JSON form: decode it to a str (or base64-encode it) first"
        );
    }
    format!("a Python {name} has no JSON form (JSON has null, bool, int, float, str, list, tuple and dict with str keys)")
}

/// The JSON value of a Python object, or the serializer's refusal (sentence and path).
pub fn to_value_raw(o: &Bound<'_, PyAny>) -> Result<Value, SerializeError> {
    json::to_value(&Py(o))
}

/// The JSON value of a Python object; no JSON form is an `EncodeError` naming the path.
pub fn to_value(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_raw(o).map_err(|e| EncodeError::new_err(e.to_string()))
}

/// The largest integer a double holds exactly, 2^53.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A JSON value as Python data: numbers that are integers of magnitude at most 2^53
/// become `int`, other numbers `float`; objects become dicts in canonical key order.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) if n.fract() == 0.0 && n.abs() <= EXACT => {
            (*n as i64).into_pyobject(py)?.into_any()
        }
        Value::Number(n) => PyFloat::new(py, *n).into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(object) => object_to_python(py, object)?.into_any(),
    })
}

/// An object as a dict, in the object's (canonical) key order.
fn object_to_python<'py>(py: Python<'py>, object: &Object) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in object.iter() {
        dict.set_item(k, to_python(py, v)?)?;
    }
    Ok(dict)
}

/// Bytes from a `str` (UTF-8) or a bytes-like object.
pub fn text_bytes(o: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(s) = o.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = o.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        o.get_type().name()?
    )))
}
