//! The `serde` feature of agentloop-core against independent references.
//!
//! - Any `T: Serialize` encodes canonically byte for byte as the same data built by hand
//!   as a `Value` and encoded by `jcs::to_vec` — derived structs, maps whose keys come
//!   in any order (non-ASCII and astral keys, which UTF-16 order sorts differently from
//!   byte order), floats of every kind, nested options and enums — and as serde_json's
//!   text of the same data read by the strict parser.
//! - An integer is taken exactly when the strict parser takes its decimal literal, and
//!   reads back unchanged.
//! - Values survive serde both ways, with serde_json as the other format.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use agentloop_core::chain::Chain;
use agentloop_core::jcs;
use agentloop_core::json::{self, from_value, parse, to_value, Object, ParseErrorKind, Value};
use agentloop_tests::{json_number, json_string, json_value};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    Empty,
    Circle(f64),
    Segment(i32, i32),
    Rect { w: f64, label: String },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    name: String,
    weight: f64,
    shape: Shape,
}

/// A map key that a `BTreeMap` keeps in reverse byte order: a map that hands its
/// members to the serializer in the opposite of canonical order.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(transparent)]
struct Rev(String);

impl Ord for Rev {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.cmp(&self.0)
    }
}

impl PartialOrd for Rev {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Fields in an order that is not canonical (`zeta` first), of every kind the data
/// model has that JSON carries.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Sample {
    zeta: u32,
    alpha: i64,
    real: f64,
    flag: bool,
    text: String,
    inner: Option<Inner>,
    maybe: Option<Option<u8>>,
    shapes: Vec<Shape>,
    sorted: BTreeMap<String, f64>,
    reversed: BTreeMap<Rev, i16>,
    pair: (u8, String),
    #[serde(rename = "ünïcode key")]
    renamed: char,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        json_number().prop_map(Shape::Circle),
        (any::<i32>(), any::<i32>()).prop_map(|(a, b)| Shape::Segment(a, b)),
        (json_number(), json_string()).prop_map(|(w, label)| Shape::Rect { w, label }),
    ]
}

fn inner() -> impl Strategy<Value = Inner> {
    (json_string(), json_number(), shape()).prop_map(|(name, weight, shape)| Inner {
        name,
        weight,
        shape,
    })
}

fn sample() -> impl Strategy<Value = Sample> {
    const TWO_53: i64 = 1 << 53;
    (
        (any::<u32>(), -TWO_53..=TWO_53, json_number(), any::<bool>()),
        (json_string(), prop::option::of(inner())),
        prop::option::of(prop::option::of(any::<u8>())),
        prop::collection::vec(shape(), 0..4),
        prop::collection::btree_map(json_string(), json_number(), 0..5),
        prop::collection::btree_map(json_string().prop_map(Rev), any::<i16>(), 0..5),
        (any::<u8>(), json_string(), any::<char>()),
    )
        .prop_map(
            |((zeta, alpha, real, flag), (text, inner), maybe, shapes, sorted, reversed, tail)| {
                Sample {
                    zeta,
                    alpha,
                    real,
                    flag,
                    text,
                    inner,
                    maybe,
                    shapes,
                    sorted,
                    reversed,
                    pair: (tail.0, tail.1),
                    renamed: tail.2,
                }
            },
        )
}

// The same data built by hand as values, member by member, without serde.

fn object<'a>(members: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    let mut object = Object::new();
    for (key, value) in members {
        assert!(object.insert(key, value).is_none(), "repeated key {key}");
    }
    Value::Object(object)
}

fn num(n: impl Into<f64>) -> Value {
    Value::Number(n.into())
}

fn shape_value(shape: &Shape) -> Value {
    match shape {
        Shape::Empty => Value::from("Empty"),
        Shape::Circle(r) => object([("Circle", num(*r))]),
        Shape::Segment(a, b) => object([("Segment", Value::Array(vec![num(*a), num(*b)]))]),
        Shape::Rect { w, label } => object([(
            "Rect",
            object([("w", num(*w)), ("label", Value::from(label.as_str()))]),
        )]),
    }
}

fn sample_value(s: &Sample) -> Value {
    let inner = match &s.inner {
        None => Value::Null,
        Some(i) => object([
            ("name", Value::from(i.name.as_str())),
            ("weight", num(i.weight)),
            ("shape", shape_value(&i.shape)),
        ]),
    };
    object([
        ("zeta", num(s.zeta)),
        ("alpha", Value::Number(s.alpha as f64)),
        ("real", num(s.real)),
        ("flag", Value::Bool(s.flag)),
        ("text", Value::from(s.text.as_str())),
        ("inner", inner),
        ("maybe", s.maybe.flatten().map_or(Value::Null, num)),
        (
            "shapes",
            Value::Array(s.shapes.iter().map(shape_value).collect()),
        ),
        (
            "sorted",
            object(s.sorted.iter().map(|(k, v)| (k.as_str(), num(*v)))),
        ),
        (
            "reversed",
            object(s.reversed.iter().map(|(k, v)| (k.0.as_str(), num(*v)))),
        ),
        (
            "pair",
            Value::Array(vec![num(s.pair.0), Value::from(s.pair.1.as_str())]),
        ),
        ("ünïcode key", Value::from(s.renamed.to_string())),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The canonical serializer writes a derived struct byte for byte as its value
    /// built by hand; serde_json's text of it, read strictly, is the same value; the
    /// bytes read back as the struct; a chain appends the same line either way.
    #[test]
    fn derived_structs_encode_as_the_same_data_built_as_a_value(s in sample()) {
        let expected = sample_value(&s);
        let canonical = jcs::serialize_to_vec(&s).unwrap();
        prop_assert_eq!(&canonical, &jcs::to_vec(&expected).unwrap());
        prop_assert_eq!(to_value(&s).unwrap(), expected.clone());

        let text = serde_json::to_vec(&s).unwrap();
        prop_assert_eq!(&jcs::to_vec(&parse(&text).unwrap()).unwrap(), &canonical);

        let value = parse(&canonical).unwrap();
        let back: Sample = from_value(&value).unwrap();
        // JSON has one null: `Some(None)` comes back as `None`.
        prop_assert_eq!(back, Sample { maybe: s.maybe.flatten().map(Some), ..s.clone() });

        let mut by_serde = Chain::new();
        let mut by_value = Chain::new();
        prop_assert_eq!(
            by_serde.append_serialize("sample", &s).unwrap(),
            by_value.append("sample", &expected).unwrap()
        );
    }

    /// A map's members are written in RFC 8785 order (UTF-16 code units) whatever
    /// order the map gives them in, and a key given twice is refused, not dropped.
    #[test]
    fn map_members_come_out_in_canonical_order_whatever_order_they_go_in(
        entries in prop::collection::vec((json_string(), json_number()), 0..8),
    ) {
        let mut unique: Vec<(String, f64)> = Vec::new();
        for (k, v) in &entries {
            if !unique.iter().any(|(u, _)| u == k) {
                unique.push((k.clone(), *v));
            }
        }
        let given_order = Entries(unique.clone());
        let mut reversed = unique.clone();
        reversed.reverse();
        let expected = object(unique.iter().map(|(k, v)| (k.as_str(), num(*v))));
        let canonical = jcs::to_vec(&expected).unwrap();
        prop_assert_eq!(&jcs::serialize_to_vec(&given_order).unwrap(), &canonical);
        prop_assert_eq!(&jcs::serialize_to_vec(&Entries(reversed)).unwrap(), &canonical);
        // Keys are sorted by UTF-16 code units, not bytes.
        let keys: Vec<&str> = expected.as_object().unwrap().iter().map(|(k, _)| k).collect();
        prop_assert!(keys.windows(2).all(|w| json::cmp_keys(w[0], w[1]).is_lt()));
        if let Some((k, v)) = unique.first() {
            let mut doubled = unique.clone();
            doubled.push((k.clone(), *v));
            let error = to_value(&Entries(doubled)).unwrap_err();
            prop_assert!(error.to_string().ends_with("' appears twice at $"), "{error}");
            prop_assert!(!error.buffer_full());
        }
    }

    /// Every value serializes to itself and to its own canonical bytes, reads back as
    /// itself through serde, and crosses serde_json both ways unchanged.
    #[test]
    fn values_survive_serde_both_ways(v in json_value()) {
        prop_assert_eq!(&to_value(&v).unwrap(), &v);
        prop_assert_eq!(jcs::serialize_to_vec(&v).unwrap(), jcs::to_vec(&v).unwrap());
        prop_assert_eq!(&from_value::<Value>(&v).unwrap(), &v);
        let text = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(&parse(text.as_bytes()).unwrap(), &v);
        prop_assert_eq!(&serde_json::from_str::<Value>(&text).unwrap(), &v);
        let canonical = jcs::to_vec(&v).unwrap();
        prop_assert_eq!(&serde_json::from_slice::<Value>(&canonical).unwrap(), &v);
    }

    /// `f32`s are widened exactly: the value is the f32's own.
    #[test]
    fn an_f32_is_widened_exactly(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        match to_value(&x) {
            Ok(v) => {
                prop_assert!(x.is_finite());
                prop_assert_eq!(v, Value::Number(f64::from(x)));
                prop_assert_eq!(from_value::<f32>(&Value::Number(f64::from(x))).unwrap(), x);
            }
            Err(e) => {
                prop_assert!(!x.is_finite());
                prop_assert_eq!(
                    e.to_string(),
                    "NaN and infinite numbers have no JSON encoding at $"
                );
            }
        }
    }

    /// An integer is taken exactly when the strict parser takes its decimal literal,
    /// as the same value; and reads back unchanged.
    #[test]
    fn integers_are_taken_iff_their_literal_parses_and_read_back_unchanged(
        magnitude in integer_magnitude(),
        negative in any::<bool>(),
    ) {
        let literal = format!("{}{magnitude}", if negative { "-" } else { "" });
        let parsed = parse(literal.as_bytes());
        if let Ok(i) = literal.parse::<i128>() {
            check_integer(i, &parsed)?;
            if let Ok(i) = i64::try_from(i) {
                check_integer(i, &parsed)?;
            }
        }
        if !negative {
            check_integer(magnitude, &parsed)?;
            if let Ok(u) = u64::try_from(magnitude) {
                check_integer(u, &parsed)?;
            }
        }
    }
}

/// Magnitudes around the edges: small, near 2^53, powers of two, digits times powers
/// of ten (some exact as doubles, some spelt the same anyway, most neither), any u64,
/// any u128.
fn integer_magnitude() -> impl Strategy<Value = u128> {
    const TWO_53: u128 = 1 << 53;
    prop_oneof![
        0u128..1000,
        (TWO_53 - 10)..(TWO_53 + 10),
        (0u32..128).prop_map(|e| 1u128 << e),
        (1u128..100_000, 0u32..30).prop_map(|(d, e)| d * 10u128.pow(e)),
        any::<u64>().prop_map(u128::from),
        any::<u128>(),
    ]
}

fn check_integer<T>(n: T, parsed: &Result<Value, json::ParseError>) -> Result<(), TestCaseError>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug + Copy,
{
    match (to_value(&n), parsed) {
        (Ok(value), Ok(from_literal)) => {
            prop_assert_eq!(&value, from_literal);
            prop_assert_eq!(from_value::<T>(&value).unwrap(), n);
        }
        (Err(error), Err(parse_error)) => {
            prop_assert!(
                error.to_string().starts_with("the integer ")
                    && error.to_string().contains(" as a JSON number "),
                "{error}"
            );
            prop_assert_eq!(parse_error.kind(), ParseErrorKind::InexactInteger);
        }
        (serialized, parsed) => {
            prop_assert!(false, "{n:?}: serialized {serialized:?}, parsed {parsed:?}");
        }
    }
    Ok(())
}

/// A map that gives its entries in the order held, repeats included.
struct Entries(Vec<(String, f64)>);

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[test]
fn non_finite_floats_and_non_string_keys_are_refused_with_where() {
    let mut s = Sample {
        zeta: 1,
        alpha: 2,
        real: 3.0,
        flag: true,
        text: String::new(),
        inner: Some(Inner {
            name: "n".into(),
            weight: f64::NAN,
            shape: Shape::Empty,
        }),
        maybe: None,
        shapes: vec![],
        sorted: BTreeMap::new(),
        reversed: BTreeMap::new(),
        pair: (0, String::new()),
        renamed: 'x',
    };
    let error = jcs::serialize_to_vec(&s).unwrap_err();
    assert_eq!(
        error.to_string(),
        "NaN and infinite numbers have no JSON encoding at $.inner.weight"
    );
    assert_eq!(error.path(), "$.inner.weight");
    s.inner = None;
    s.shapes = vec![
        Shape::Empty,
        Shape::Rect {
            w: f64::INFINITY,
            label: "l".into(),
        },
    ];
    assert_eq!(
        jcs::serialize_to_vec(&s).unwrap_err().to_string(),
        "NaN and infinite numbers have no JSON encoding at $.shapes[1].Rect.w"
    );
    let error = to_value(&BTreeMap::from([(1u8, "one")])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "a map key must be a string, not an integer at $"
    );
    // serde_json would have written the key as "1", and a NaN as null.
    assert_eq!(
        serde_json::to_string(&BTreeMap::from([(1u8, f64::NAN)])).unwrap(),
        r#"{"1":null}"#
    );
}

#[test]
fn a_value_holding_nan_is_refused_by_other_formats_too() {
    let v = Value::Array(vec![Value::Number(f64::NAN)]);
    let error = serde_json::to_string(&v).unwrap_err();
    assert_eq!(
        error.to_string(),
        "NaN and infinite numbers have no JSON encoding"
    );
    // Integral numbers go out as integers, others as floats.
    let v = parse(br#"[3,-3,2.5,1e300,9007199254740992]"#).unwrap();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        "[3,-3,2.5,1e+300,9007199254740992]"
    );
}

#[test]
fn serde_json_values_with_big_integers_are_refused_not_rounded() {
    let error = serde_json::from_str::<Value>(r#"{"id":9007199254740993}"#).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the integer 9007199254740993 would become 9007199254740992"),
        "{error}"
    );
    let error = serde_json::from_str::<Value>(r#"{"a":1,"a":2}"#).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the key 'a' appears twice in an object"),
        "{error}"
    );
}
