//! Tests of `json::ser`: the data model mapping, refusals with their paths.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::*;
use crate::jcs;
use crate::parse;

fn canon<T: Serialize + ?Sized>(value: &T) -> String {
    String::from_utf8(jcs::serialize_to_vec(value).unwrap()).unwrap()
}

fn kind<T: Serialize + ?Sized>(value: &T) -> (SerializeErrorKind, String) {
    let error = to_value(value).unwrap_err();
    (error.kind().clone(), error.path())
}

#[derive(serde::Serialize)]
struct Unit;

#[derive(serde::Serialize)]
struct Meters(f64);

#[derive(serde::Serialize)]
struct Pair(u8, &'static str);

#[derive(serde::Serialize)]
enum Shape {
    Empty,
    Circle(f64),
    Segment(f64, f64),
    Rect { w: f64, h: f64 },
}

#[derive(serde::Serialize)]
struct Everything {
    flag: bool,
    small: i8,
    big: u64,
    wide: i128,
    single: f32,
    double: f64,
    letter: char,
    text: &'static str,
    nothing: Option<u8>,
    something: Option<u8>,
    unit: (),
    unit_struct: Unit,
    newtype: Meters,
    tuple: (u8, bool),
    tuple_struct: Pair,
    list: Vec<u16>,
    shapes: [Shape; 4],
    #[serde(with = "bytes")]
    raw: Vec<u8>,
}

/// Serializes a `Vec<u8>` with `serialize_bytes`, as `serde_bytes` does.
mod bytes {
    pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

#[test]
fn the_data_model_maps_as_documented() {
    let everything = Everything {
        flag: true,
        small: -8,
        big: 1 << 53,
        wide: -100_000_000_000_000_000_000,
        single: 0.1,
        double: 1e21,
        letter: 'é',
        text: "a\"b",
        nothing: None,
        something: Some(7),
        unit: (),
        unit_struct: Unit,
        newtype: Meters(2.5),
        tuple: (1, false),
        tuple_struct: Pair(2, "x"),
        list: vec![3, 4],
        shapes: [
            Shape::Empty,
            Shape::Circle(1.0),
            Shape::Segment(0.0, -0.0),
            Shape::Rect { w: 2.0, h: 3.0 },
        ],
        raw: vec![0, 255],
    };
    assert_eq!(
        canon(&everything),
        concat!(
            r#"{"big":9007199254740992,"double":1e+21,"flag":true,"letter":"é","list":[3,4],"#,
            r#""newtype":2.5,"nothing":null,"raw":[0,255],"#,
            r#""shapes":["Empty",{"Circle":1},{"Segment":[0,0]},{"Rect":{"h":3,"w":2}}],"#,
            r#""single":0.10000000149011612,"small":-8,"something":7,"text":"a\"b","#,
            r#""tuple":[1,false],"tuple_struct":[2,"x"],"unit":null,"unit_struct":null,"#,
            r#""wide":-100000000000000000000}"#
        )
    );
    // The same bytes as the value the strict parser reads from them.
    let value = to_value(&everything).unwrap();
    assert_eq!(parse(canon(&everything).as_bytes()).unwrap(), value);
}

#[test]
fn integers_are_taken_exactly_or_refused() {
    assert_eq!(
        to_value(&(1u64 << 53)).unwrap(),
        Value::Number(9007199254740992.0)
    );
    assert_eq!(
        to_value(&-(1i64 << 53)).unwrap(),
        Value::Number(-9007199254740992.0)
    );
    assert_eq!(to_value(&10u128.pow(20)).unwrap(), Value::Number(1e20));
    for (value, digits) in [
        (to_value(&((1u64 << 53) + 1)), "9007199254740993"),
        (to_value(&(1u64 << 60)), "1152921504606846976"),
        (to_value(&u64::MAX), "18446744073709551615"),
        (to_value(&i64::MIN), "-9223372036854775808"),
        (
            to_value(&u128::MAX),
            "340282366920938463463374607431768211455",
        ),
        (
            to_value(&i128::MIN),
            "-170141183460469231731687303715884105728",
        ),
    ] {
        assert_eq!(
            value.unwrap_err().kind(),
            &SerializeErrorKind::InexactInteger(digits.into())
        );
    }
    let error = to_value(&BTreeMap::from([("id", vec![1u64, u64::MAX])])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the integer 18446744073709551615 would become 18446744073709552000 as a JSON \
         number (a double: integers are exact up to 2^53 in magnitude); send it as a \
         string at $.id[1]"
    );
}

#[test]
fn non_finite_floats_are_refused_where_they_are() {
    #[derive(serde::Serialize)]
    struct Reading {
        celsius: f32,
    }
    assert_eq!(
        kind(&vec![
            Reading { celsius: 1.0 },
            Reading { celsius: f32::NAN }
        ]),
        (SerializeErrorKind::NonFiniteNumber, "$[1].celsius".into())
    );
    assert_eq!(
        kind(&Shape::Segment(0.0, f64::INFINITY)),
        (SerializeErrorKind::NonFiniteNumber, "$.Segment[1]".into())
    );
    assert_eq!(
        kind(&Shape::Rect {
            w: f64::NEG_INFINITY,
            h: 1.0
        }),
        (SerializeErrorKind::NonFiniteNumber, "$.Rect.w".into())
    );
    assert_eq!(
        kind(&Shape::Circle(f64::NAN)),
        (SerializeErrorKind::NonFiniteNumber, "$.Circle".into())
    );
    assert_eq!(
        kind(&Some(f64::NAN)),
        (SerializeErrorKind::NonFiniteNumber, "$".into())
    );
}

#[test]
fn map_keys_must_be_strings() {
    #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Color {
        Red,
    }
    #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct Name(&'static str);
    assert_eq!(canon(&BTreeMap::from([('k', 1)])), r#"{"k":1}"#);
    assert_eq!(canon(&BTreeMap::from([(Color::Red, 1)])), r#"{"Red":1}"#);
    assert_eq!(canon(&BTreeMap::from([(Name("n"), 1)])), r#"{"n":1}"#);
    for (error, what) in [
        (to_value(&BTreeMap::from([(1u8, 1)])), "an integer"),
        (to_value(&BTreeMap::from([(-1i64, 1)])), "an integer"),
        (to_value(&BTreeMap::from([(true, 1)])), "a boolean"),
        (to_value(&BTreeMap::from([((), 1)])), "a unit"),
        (to_value(&BTreeMap::from([(Some("a"), 1)])), "an Option"),
        (to_value(&BTreeMap::from([(vec!["a"], 1)])), "a sequence"),
        (to_value(&BTreeMap::from([(("a", 1), 1)])), "a tuple"),
    ] {
        assert_eq!(
            error.unwrap_err().kind(),
            &SerializeErrorKind::KeyNotString(what)
        );
    }
    let nested = BTreeMap::from([("outer", BTreeMap::from([(2u32, "x")]))]);
    assert_eq!(
        to_value(&nested).unwrap_err().to_string(),
        "a map key must be a string, not an integer at $.outer"
    );
}

/// A map that gives its entries as they are, repeated keys included.
struct Entries(Vec<(&'static str, u8)>);

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[test]
fn keys_are_sorted_by_utf16_code_units_and_a_repeated_key_is_refused() {
    // Given in byte order reversed; RFC 8785 sorts "😀" (U+D83D …) before "ﬁ" (U+FB01).
    let entries = Entries(vec![("ﬁ", 1), ("😀", 2), ("\r", 3), ("€", 4), ("a", 5)]);
    assert_eq!(canon(&entries), r#"{"\r":3,"a":5,"€":4,"😀":2,"ﬁ":1}"#);
    let repeated = vec![Entries(vec![("a", 1), ("b", 2), ("a", 3)])];
    let error = to_value(&repeated).unwrap_err();
    assert_eq!(error.kind(), &SerializeErrorKind::DuplicateKey("a".into()));
    assert_eq!(error.to_string(), "the key 'a' appears twice at $[0]");
    // A field flattened over a member of the same name is a repeated key too.
    #[derive(serde::Serialize)]
    struct Outer {
        a: u8,
        #[serde(flatten)]
        inner: BTreeMap<&'static str, u8>,
    }
    let outer = Outer {
        a: 1,
        inner: BTreeMap::from([("a", 2)]),
    };
    assert_eq!(
        to_value(&outer).unwrap_err().kind(),
        &SerializeErrorKind::DuplicateKey("a".into())
    );
}

/// Fails as a `Serialize` impl may, with a sentence holding a control character.
struct Failing;

impl Serialize for Failing {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("no\nway"))
    }
}

/// Gives a value before its key, which serde's contract forbids.
struct ValueFirst;

impl Serialize for ValueFirst {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_value(&1)?;
        map.end()
    }
}

#[test]
fn a_failing_serialize_impl_is_reported_with_its_words_and_place() {
    let error = to_value(&BTreeMap::from([("x", Failing)])).unwrap_err();
    assert_eq!(error.kind(), &SerializeErrorKind::Custom("no\nway".into()));
    assert_eq!(error.to_string(), r"no\nway at $.x");
    assert_eq!(
        to_value(&ValueFirst).unwrap_err().to_string(),
        "a map value was given before its key at $"
    );
}

#[test]
fn a_value_serializes_to_itself_and_keeps_integers_integers() {
    let value = parse(
        br#"{"a":[1,-2,2.5,1e300,-0,9007199254740992,null,true,"s"],"b":{"\u00e9":{}},"c":[]}"#,
    )
    .unwrap();
    assert_eq!(to_value(&value).unwrap(), value);
    assert_eq!(
        jcs::serialize_to_vec(&value).unwrap(),
        jcs::to_vec(&value).unwrap()
    );
    // A NaN only a hand-built value can hold is refused, not written as `null`.
    let error = to_value(&Value::Array(vec![Value::Number(f64::NAN)])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "NaN and infinite numbers have no JSON encoding at $[0]"
    );
}

/// Records which serializer method a value called.
struct Spy;

impl Serializer for Spy {
    type Ok = String;
    type Error = SerializeError;
    type SerializeSeq = serde::ser::Impossible<String, SerializeError>;
    type SerializeTuple = serde::ser::Impossible<String, SerializeError>;
    type SerializeTupleStruct = serde::ser::Impossible<String, SerializeError>;
    type SerializeTupleVariant = serde::ser::Impossible<String, SerializeError>;
    type SerializeMap = serde::ser::Impossible<String, SerializeError>;
    type SerializeStruct = serde::ser::Impossible<String, SerializeError>;
    type SerializeStructVariant = serde::ser::Impossible<String, SerializeError>;
    fn serialize_bool(self, v: bool) -> Result<String, SerializeError> {
        Ok(alloc::format!("bool {v}"))
    }
    fn serialize_i8(self, _: i8) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_i16(self, _: i16) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_i32(self, _: i32) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_i64(self, v: i64) -> Result<String, SerializeError> {
        Ok(alloc::format!("i64 {v}"))
    }
    fn serialize_u8(self, _: u8) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_u16(self, _: u16) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_u32(self, _: u32) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_u64(self, v: u64) -> Result<String, SerializeError> {
        Ok(alloc::format!("u64 {v}"))
    }
    fn serialize_f32(self, _: f32) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_f64(self, v: f64) -> Result<String, SerializeError> {
        Ok(alloc::format!("f64 {v:e}"))
    }
    fn serialize_char(self, _: char) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_str(self, v: &str) -> Result<String, SerializeError> {
        Ok(alloc::format!("str {v}"))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_none(self) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_unit(self) -> Result<String, SerializeError> {
        Ok("unit".to_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, SerializeError> {
        unreachable()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, SerializeError> {
        unreachable()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, SerializeError> {
        unreachable()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SerializeError> {
        unreachable()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SerializeError> {
        unreachable()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, SerializeError> {
        unreachable()
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, SerializeError> {
        unreachable()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SerializeError> {
        unreachable()
    }
}

fn unreachable<T>() -> Result<T, SerializeError> {
    Err(serde::ser::Error::custom("a method a Value never calls"))
}

#[test]
fn a_number_is_offered_as_an_integer_when_it_is_one_within_2_pow_53() {
    let spy = |n: f64| Value::Number(n).serialize(Spy).unwrap();
    assert_eq!(spy(3.0), "u64 3");
    assert_eq!(spy(-0.0), "u64 0");
    assert_eq!(spy(-3.0), "i64 -3");
    assert_eq!(spy(9007199254740992.0), "u64 9007199254740992");
    assert_eq!(spy(-9007199254740992.0), "i64 -9007199254740992");
    assert_eq!(spy(18014398509481984.0), "f64 1.8014398509481984e16");
    assert_eq!(spy(2.5), "f64 2.5e0");
    assert_eq!(Value::Null.serialize(Spy).unwrap(), "unit");
    assert_eq!(Value::Bool(true).serialize(Spy).unwrap(), "bool true");
    assert_eq!(Value::from("s").serialize(Spy).unwrap(), "str s");
}

#[test]
fn a_full_sink_is_reported_and_errors_read_as_sentences() {
    let mut buf = [0u8; 4];
    let mut sink = agentloop_transcript::sink::SliceSink::new(&mut buf);
    let error = jcs::write_serialize(&[1, 2, 3], &mut sink).unwrap_err();
    assert_eq!(error.kind(), &SerializeErrorKind::BufferFull);
    assert!(error.buffer_full());
    assert_eq!(error.to_string(), "the output buffer is too small at $");
    assert_eq!(
        SerializeErrorKind::KeyNotString("a float").to_string(),
        "a map key must be a string, not a float"
    );
}

/// `depth` arrays, one inside the other, around `null`.
fn nested(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

#[test]
fn data_nested_deeper_than_the_parser_reads_is_refused() {
    use crate::MAX_DEPTH;
    assert_eq!(to_value(&nested(MAX_DEPTH)).unwrap(), nested(MAX_DEPTH));
    let error = to_value(&nested(MAX_DEPTH + 1)).unwrap_err();
    assert_eq!(error.kind(), &SerializeErrorKind::TooDeep);
    assert_eq!(error.path(), alloc::format!("${}", "[0]".repeat(MAX_DEPTH)));
    assert_eq!(
        SerializeErrorKind::TooDeep.to_string(),
        "arrays and objects nest deeper than 128 levels, which JSON readers here refuse"
    );
    // A variant with content is an object around its content: one level for a newtype
    // variant, two for a tuple or struct variant.
    #[derive(serde::Serialize)]
    enum Wrap {
        New(Value),
        Tuple(Value, u8),
        Struct { v: Value },
    }
    let fits = |w: &Wrap| {
        let bytes = jcs::serialize_to_vec(w).unwrap();
        parse(&bytes).unwrap();
    };
    fits(&Wrap::New(nested(MAX_DEPTH - 1)));
    fits(&Wrap::Tuple(nested(MAX_DEPTH - 2), 0));
    fits(&Wrap::Struct {
        v: nested(MAX_DEPTH - 2),
    });
    for (wrap, path) in [
        (Wrap::New(nested(MAX_DEPTH)), "$.New"),
        (Wrap::Tuple(nested(MAX_DEPTH - 1), 0), "$.Tuple[0]"),
        (
            Wrap::Struct {
                v: nested(MAX_DEPTH - 1),
            },
            "$.Struct.v",
        ),
    ] {
        let error = to_value(&wrap).unwrap_err();
        assert_eq!(error.kind(), &SerializeErrorKind::TooDeep);
        assert!(error.path().starts_with(path), "{}", error.path());
    }
}
