//! proptest strategies for JSON values and record kinds.

use agentloop_core::json::{Object, Value};
use proptest::prelude::*;

/// Characters that stress a JSON string encoder: ASCII, the control characters, quote,
/// backslash, slash, U+007F, Latin-1, the BMP including U+2028 and U+E000..=U+FFFF, and
/// astral characters (which sort differently by UTF-16 code units than by code point).
pub fn json_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range(' ', '~'),
        2 => prop::char::range('\u{0}', '\u{1f}'),
        1 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', '\u{2029}', 'é']),
        1 => prop::char::range('\u{80}', '\u{7ff}'),
        1 => prop::char::range('\u{800}', '\u{d7ff}'),
        1 => prop::char::range('\u{e000}', '\u{ffff}'),
        2 => prop::char::range('\u{10000}', '\u{10ffff}'),
    ]
}

/// Strings of 0 to 12 [`json_char`]s.
pub fn json_string() -> impl Strategy<Value = String> {
    prop::collection::vec(json_char(), 0..12).prop_map(|cs| cs.into_iter().collect())
}

/// Non-empty strings, for record kinds.
pub fn record_kind() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(vec!["task", "assistant", "tool", "stop", "resume"])
            .prop_map(String::from),
        1 => prop::collection::vec(json_char(), 1..10).prop_map(|cs| cs.into_iter().collect()),
    ]
}

/// Finite doubles: any bit pattern that is finite, ±0, subnormals, huge values, the
/// ECMAScript formatting boundaries (1e21, 1e-7), and integers within ±2^53.
pub fn json_number() -> impl Strategy<Value = f64> {
    const TWO_53: i64 = 1 << 53;
    prop_oneof![
        3 => any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite()),
        3 => (-TWO_53..=TWO_53).prop_map(|i| i as f64),
        1 => (-1000i64..1000).prop_map(|i| i as f64),
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            2.2250738585072014e-308,
            f64::MAX,
            f64::MIN,
            1e21,
            1e20,
            999999999999999900000.0,
            1e-7,
            1e-6,
            0.000001,
            0.1,
            9007199254740992.0,
            1152921504606847000.0,
        ]),
        1 => (-330i32..310, 1u32..10).prop_map(|(e, d)| f64::from(d) * 10f64.powi(e))
            .prop_filter("finite", |f| f.is_finite()),
        1 => prop::num::f64::SUBNORMAL,
    ]
}

/// JSON values: null, booleans, [`json_number`]s, [`json_string`]s, and arrays and
/// objects nested at most 4 deep, with random unicode keys (deduplicated).
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        json_number().prop_map(Value::Number),
        json_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((json_string(), inner), 0..6).prop_map(|members| {
                let unique: std::collections::BTreeMap<String, Value> =
                    members.into_iter().collect();
                Value::Object(
                    Object::from_members(unique.into_iter().collect()).expect("keys are unique"),
                )
            }),
        ]
    })
}
