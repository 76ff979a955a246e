//! Tests of `json::de`: values read as Rust data, errors with their paths, and values
//! read from other serde formats.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde::de::value::{Error as PlainError, F64Deserializer, MapDeserializer};
use serde::de::IntoDeserializer;

use core::fmt;

use serde::de::MapAccess;

use super::*;
use crate::{parse, to_value};

fn value(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

fn error<T: core::fmt::Debug + for<'de> Deserialize<'de>>(text: &str) -> String {
    from_value::<T>(&value(text)).unwrap_err().to_string()
}

#[derive(Debug, PartialEq, serde::Deserialize, serde::Serialize)]
enum Shape {
    Empty,
    Circle(f64),
    Segment(f64, f64),
    Rect { w: f64, h: f64 },
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Everything<'a> {
    flag: bool,
    small: i8,
    big: u64,
    negative: i64,
    wide: i128,
    single: f32,
    double: f64,
    letter: char,
    borrowed: &'a str,
    owned: String,
    nothing: Option<u8>,
    missing: Option<u8>,
    something: Option<u8>,
    unit: (),
    tuple: (u8, bool),
    list: Vec<u16>,
    map: BTreeMap<String, f64>,
    shapes: Vec<Shape>,
}

#[test]
fn a_value_reads_as_rust_data() {
    let v = value(
        r#"{"flag":true,"small":-8,"big":9007199254740992,"negative":-3,"wide":1e20,
            "single":0.5,"double":1e21,"letter":"é","borrowed":"b","owned":"o",
            "nothing":null,"something":7,"unit":null,"tuple":[1,false],"list":[3,4],
            "map":{"x":1.5,"y":2},
            "shapes":["Empty",{"Circle":1},{"Segment":[0,-1]},{"Rect":{"w":2,"h":3}},
                      {"Empty":null}]}"#,
    );
    let read: Everything<'_> = from_value(&v).unwrap();
    assert_eq!(
        read,
        Everything {
            flag: true,
            small: -8,
            big: 1 << 53,
            negative: -3,
            wide: 100_000_000_000_000_000_000,
            single: 0.5,
            double: 1e21,
            letter: 'é',
            borrowed: "b",
            owned: "o".into(),
            nothing: None,
            missing: None,
            something: Some(7),
            unit: (),
            tuple: (1, false),
            list: vec![3, 4],
            map: BTreeMap::from([("x".into(), 1.5), ("y".into(), 2.0)]),
            shapes: vec![
                Shape::Empty,
                Shape::Circle(1.0),
                Shape::Segment(0.0, -1.0),
                Shape::Rect { w: 2.0, h: 3.0 },
                Shape::Empty,
            ],
        }
    );
    // The borrowed field points into the value.
    let Some(Value::String(s)) = v.as_object().and_then(|o| o.get("borrowed")) else {
        panic!("no string");
    };
    assert!(core::ptr::eq(read.borrowed.as_ptr(), s.as_ptr()));
}

#[test]
fn numbers_are_never_truncated_or_wrapped() {
    assert_eq!(
        error::<u8>("300"),
        "invalid value: integer `300`, expected u8 at $"
    );
    assert_eq!(
        error::<Vec<u32>>("[1,1.5]"),
        "invalid type: floating point `1.5`, expected u32 at $[1]"
    );
    assert_eq!(
        error::<u32>("-1"),
        "invalid value: integer `-1`, expected u32 at $"
    );
    // Integral but past u64: offered as a float, which an integer type refuses.
    assert_eq!(
        error::<u64>("1e20"),
        "invalid type: floating point `100000000000000000000.0`, expected u64 at $"
    );
    assert_eq!(
        error::<i64>("-1e19"),
        "invalid type: floating point `-10000000000000000000.0`, expected i64 at $"
    );
    // Above 2^53, the integer the spelling names: what the JSON text shows.
    assert_eq!(
        from_value::<u64>(&value("1152921504606847000")).unwrap(),
        1152921504606847000
    );
    assert_eq!(
        from_value::<u64>(&Value::Number(18446744073709549568.0)).unwrap(),
        18446744073709550000
    );
    // -2^63 is spelt -9223372036854776000, below i64::MIN.
    assert_eq!(
        error::<i64>("-9223372036854776000"),
        "invalid type: floating point `-9223372036854776000.0`, expected i64 at $"
    );
    assert_eq!(from_value::<f64>(&value("3")).unwrap(), 3.0);
    assert_eq!(from_value::<u128>(&value("1e19")).unwrap(), 10u128.pow(19));
    assert_eq!(
        from_value::<i128>(&value("-1e22")).unwrap(),
        -(10i128.pow(22))
    );
    assert_eq!(
        from_value::<u128>(&Value::Number(3.4e38)).unwrap(),
        34 * 10u128.pow(37)
    );
    assert_eq!(from_value::<u128>(&value("1e23")).unwrap(), 10u128.pow(23));
    assert_eq!(
        error::<u128>("-1"),
        "invalid value: integer `-1`, expected u128 at $"
    );
    assert_eq!(
        error::<i128>("1e39"),
        "invalid type: floating point `1000000000000000000000000000000000000000.0`, expected \
         i128 at $"
    );
}

#[test]
fn errors_say_where_in_the_value() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Call {
        name: String,
        #[serde(default)]
        shapes: Vec<Shape>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Turn {
        calls: Vec<Call>,
    }
    assert_eq!(
        error::<Turn>(r#"{"calls":[{"name":"a"},{"name":5}]}"#),
        "invalid type: integer `5`, expected a string at $.calls[1].name"
    );
    assert_eq!(
        error::<Turn>(r#"{"calls":[{}]}"#),
        "missing field `name` at $.calls[0]"
    );
    assert_eq!(
        error::<Turn>(r#"{"calls":[{"name":"a","shapes":[{"Rect":{"w":1}}]}]}"#),
        "missing field `h` at $.calls[0].shapes[0].Rect"
    );
    assert_eq!(
        error::<Shape>(r#"{"Segment":[1]}"#),
        "invalid length 1, expected tuple variant Shape::Segment with 2 elements at $.Segment"
    );
    assert_eq!(
        error::<Shape>(r#""Hexagon""#),
        "unknown variant `Hexagon`, expected one of `Empty`, `Circle`, `Segment`, `Rect` at $"
    );
    assert_eq!(
        error::<Shape>(r#"{"Circle":1,"Empty":null}"#),
        "invalid type: map, expected an enum: a variant name, or an object with one member at $"
    );
    assert_eq!(
        error::<Shape>(r#"{"Empty":1}"#),
        "invalid type: integer `1`, expected a unit variant at $.Empty"
    );
    assert_eq!(
        error::<Shape>(r#""Circle""#),
        "invalid type: unit variant, expected a variant with content at $"
    );
    assert_eq!(
        error::<Shape>(r#"{"Rect":[1,2]}"#),
        "invalid type: sequence, expected a struct variant at $.Rect"
    );
    assert_eq!(
        error::<Shape>(r#"{"Segment":{}}"#),
        "invalid type: map, expected a tuple variant at $.Segment"
    );
    assert_eq!(
        error::<Shape>(r#""Rect""#),
        "invalid type: unit variant, expected a struct variant at $"
    );
    assert_eq!(
        error::<Shape>(r#""Segment""#),
        "invalid type: unit variant, expected a tuple variant at $"
    );
    assert_eq!(
        error::<Shape>("[]"),
        "invalid type: sequence, expected an enum: a variant name, or an object with one \
         member at $"
    );
    // Items a type did not read are an error, not dropped.
    assert_eq!(
        error::<(u8, u8)>("[1,2,3]"),
        "invalid length 3, expected fewer items: the type read only the first ones at $"
    );
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        a: u8,
    }
    assert_eq!(
        error::<Strict>(r#"{"a":1,"b\n":2}"#),
        r"unknown field `b\n`, expected `a` at $['b\n']"
    );
    let error = from_value::<Strict>(&value(r#"{"a":"x"}"#)).unwrap_err();
    assert_eq!(error.message(), "invalid type: string \"x\", expected u8");
    assert_eq!(error.path(), "$.a");
}

/// Reads the first member of a map and stops.
#[derive(Debug)]
struct FirstMember;

impl<'de> Deserialize<'de> for FirstMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstMember;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstMember, A::Error> {
                map.next_entry::<String, Value>()?;
                Ok(FirstMember)
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// Asks for a map value without its key, which serde's contract forbids.
#[derive(Debug)]
struct ValueFirst;

impl<'de> Deserialize<'de> for ValueFirst {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ValueFirst;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValueFirst, A::Error> {
                map.next_value::<Value>()?;
                Ok(ValueFirst)
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[test]
fn members_a_type_did_not_read_are_an_error() {
    assert!(from_value::<FirstMember>(&value(r#"{"a":1}"#)).is_ok());
    assert_eq!(
        from_value::<FirstMember>(&value(r#"{"a":1,"b":2,"c":3}"#))
            .unwrap_err()
            .to_string(),
        "the member 'b' (and any after it) was not read by the type at $"
    );
    assert_eq!(
        from_value::<ValueFirst>(&value(r#"{"a":1}"#))
            .unwrap_err()
            .to_string(),
        "a member's value was asked for before its key at $"
    );
}

#[test]
fn a_value_reads_as_itself() {
    let v = value(r#"{"a":[1,-2,2.5,1e300,null,true,"s",{"é":{}}],"b":[]}"#);
    assert_eq!(from_value::<Value>(&v).unwrap(), v);
    // And what it serializes to reads back as the same value.
    assert_eq!(from_value::<Value>(&to_value(&v).unwrap()).unwrap(), v);
}

#[test]
fn a_value_from_another_format_keeps_numbers_exact() {
    let read = |d: serde::de::value::U64Deserializer<PlainError>| Value::deserialize(d);
    assert_eq!(
        read(9007199254740992u64.into_deserializer()).unwrap(),
        Value::Number(9007199254740992.0)
    );
    assert_eq!(
        read(9007199254740993u64.into_deserializer())
            .unwrap_err()
            .to_string(),
        "the integer 9007199254740993 would become 9007199254740992 as a JSON number (a \
         double: integers are exact up to 2^53 in magnitude); send it as a string"
    );
    let negative = Value::deserialize((-(1i64 << 60)).into_deserializer())
        .map_err(|e: PlainError| e.to_string());
    assert_eq!(
        negative,
        Err(
            "the integer -1152921504606846976 would become -1152921504606847000 as a JSON \
             number (a double: integers are exact up to 2^53 in magnitude); send it as a \
             string"
                .to_string()
        )
    );
    assert_eq!(
        Value::deserialize(10u128.pow(20).into_deserializer()).map_err(|e: PlainError| e),
        Ok(Value::Number(1e20))
    );
    assert!(Value::deserialize(u128::MAX.into_deserializer())
        .map_err(|e: PlainError| e)
        .is_err());
    assert!(Value::deserialize((-1i128).into_deserializer())
        .map_err(|e: PlainError| e)
        .is_ok());
    for n in [f64::NAN, f64::INFINITY] {
        let d: F64Deserializer<PlainError> = n.into_deserializer();
        assert!(Value::deserialize(d)
            .unwrap_err()
            .to_string()
            .ends_with("has no JSON encoding (NaN and infinities)"));
    }
    let d: F64Deserializer<PlainError> = 2.5.into_deserializer();
    assert_eq!(Value::deserialize(d).unwrap(), Value::Number(2.5));
}

#[test]
fn a_value_from_another_format_refuses_a_repeated_key() {
    let pairs = vec![("a", 1u8), ("b\n", 2), ("b\n", 3)];
    let d: MapDeserializer<'_, _, PlainError> = MapDeserializer::new(pairs.into_iter());
    assert_eq!(
        Value::deserialize(d).unwrap_err().to_string(),
        r"the key 'b\n' appears twice in an object"
    );
    let pairs = vec![("b", 2u8), ("a", 1)];
    let d: MapDeserializer<'_, _, PlainError> = MapDeserializer::new(pairs.into_iter());
    assert_eq!(Value::deserialize(d).unwrap(), value(r#"{"a":1,"b":2}"#));
}

#[test]
fn a_value_from_other_shapes_of_serde_data() {
    // Options, units, newtypes, sequences and chars, through a value built by serde.
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Id(u32);
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Mixed {
        id: Id,
        maybe: Option<Option<u8>>,
        unit: (),
        letters: Vec<char>,
        shape: Shape,
    }
    let mixed = Mixed {
        id: Id(7),
        maybe: Some(None),
        unit: (),
        letters: vec!['a', 'b'],
        shape: Shape::Segment(1.0, 2.0),
    };
    let v = to_value(&mixed).unwrap();
    assert_eq!(
        v,
        value(r#"{"id":7,"letters":["a","b"],"maybe":null,"shape":{"Segment":[1,2]},"unit":null}"#)
    );
    // `Some(None)` is written `null`, which reads back as `None`: JSON has one null.
    let back: Mixed = from_value(&v).unwrap();
    assert_eq!(
        back,
        Mixed {
            maybe: None,
            ..mixed
        }
    );
}

#[test]
fn a_value_read_from_serde_data_nests_at_most_as_deep_as_the_parser_reads() {
    use crate::MAX_DEPTH;
    let nested = |depth: usize| {
        let mut value = Value::Object(Object::new());
        for _ in 1..depth {
            let mut object = Object::new();
            object.insert("a", value);
            value = Value::Object(object);
        }
        value
    };
    assert_eq!(
        from_value::<Value>(&nested(MAX_DEPTH)).unwrap(),
        nested(MAX_DEPTH)
    );
    let error = from_value::<Value>(&nested(MAX_DEPTH + 1)).unwrap_err();
    assert_eq!(
        error.message(),
        "arrays and objects nest deeper than 128 levels, which a JSON value here cannot hold"
    );
    assert_eq!(error.path(), alloc::format!("${}", ".a".repeat(MAX_DEPTH)));
}
