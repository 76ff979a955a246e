//! A total order on JSON values whose equality is the JSON equality `enum` and `const`
//! use, so that a long `enum` is matched by a binary search among its members sorted
//! once at compile time, in O(log n) comparisons instead of n.
//!
//! Values of different types are ordered by type (null, boolean, number, string, array,
//! object); numbers as doubles (so `1` and `1.0`, `0` and `-0` are equal, as JSON
//! equality has them), with a NaN above every other number; strings by their bytes;
//! arrays item by item, then by length; objects member by member (key by its bytes,
//! then value: both objects hold their members in canonical key order, so equal objects
//! compare member for member), then by length.
//!
//! Equal in this order is `==` on [`Value`] for every value that holds no NaN (only a
//! hand-built value can): a NaN equals nothing under `==`, itself included, so a member
//! holding one is left out of the index and can never match, as before.

use alloc::vec::Vec;
use core::cmp::Ordering;

use super::tree::{same_key, SCAN_AT_MOST};
use super::work;
use agentloop_json::Value;

/// Compares two values in the order described in the module documentation.
pub(crate) fn cmp_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Number(x), Value::Number(y)) => x
            .partial_cmp(y)
            .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan())),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Array(x), Value::Array(y)) => {
            for (x, y) in x.iter().zip(y) {
                match cmp_values(x, y) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            for ((xk, xv), (yk, yv)) in x.iter().zip(y.iter()) {
                match xk.as_bytes().cmp(yk.as_bytes()) {
                    Ordering::Equal => {}
                    other => return other,
                }
                match cmp_values(xv, yv) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            x.len().cmp(&y.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The place of a value's type in the order.
fn rank(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// Whether `value` holds a NaN anywhere.
pub(crate) fn holds_nan(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_nan(),
        Value::Array(items) => items.iter().any(holds_nan),
        Value::Object(members) => members.iter().any(|(_, v)| holds_nan(v)),
        _ => false,
    }
}

/// The work of comparing with `value`, in the validator's steps: one, and one more
/// for each value and 64 bytes of string (or member name) in it. A comparison stops at
/// the first difference, so this is the most it takes.
pub(crate) fn weight(value: &Value) -> u64 {
    match value {
        Value::String(s) => 1 + (s.len() / 64) as u64,
        Value::Array(items) => items
            .iter()
            .fold(1, |sum, item| sum.saturating_add(weight(item))),
        Value::Object(members) => members.iter().fold(1, |sum, (key, member)| {
            sum.saturating_add(weight(member))
                .saturating_add((key.len() / 64) as u64)
        }),
        _ => 1,
    }
}

/// The most work finding a value among some takes, in the validator's steps: so many
/// comparisons, each at most the [`weight`] of the heaviest of them (or of the value
/// looked for, when it is lighter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Lookup {
    /// The comparisons.
    pub(crate) compares: u64,
    /// The weight of the heaviest value compared with.
    pub(crate) heaviest: u64,
}

impl Lookup {
    /// The lookup among `values`: comparing with each of a few, or with as many as a
    /// binary search among many compares.
    pub(crate) fn among(values: &[Value]) -> Lookup {
        let compares = if values.len() <= SCAN_AT_MOST {
            values.len() as u64
        } else {
            u64::from(usize::BITS - values.len().leading_zeros()) + 1
        };
        Lookup {
            compares,
            heaviest: values.iter().map(weight).max().unwrap_or(0),
        }
    }

    /// Both lookups, one after the other.
    pub(crate) fn and(self, other: Lookup) -> Lookup {
        Lookup {
            compares: self.compares + other.compares,
            heaviest: self.heaviest.max(other.heaviest),
        }
    }

    /// The steps of looking for `value`: a comparison stops at the first difference, so
    /// a number, a boolean or null costs one, a string at most its own weight.
    #[inline]
    pub(crate) fn steps(&self, value: &Value) -> u64 {
        let each = match value {
            Value::Array(_) | Value::Object(_) => self.heaviest,
            Value::String(s) => self.heaviest.min(1 + (s.len() / 64) as u64),
            _ => 1,
        };
        self.compares.saturating_mul(each)
    }
}

/// `a == b` (JSON equality), comparing strings (the usual `enum` entries) without a
/// call to `memcmp`.
#[inline(always)]
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => same_key(a, b),
        _ => a == b,
    }
}

/// The members of an `enum`, as written (for messages), with an index that finds a
/// value among many of them in O(log n) comparisons.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Members {
    /// The members in the order written.
    values: Vec<Value>,
    /// When there are more than [`SCAN_AT_MOST`] members: the positions of those that
    /// hold no NaN, sorted by [`cmp_values`] (empty otherwise: a few are scanned).
    sorted: Vec<usize>,
    /// The work finding a value among them takes.
    cost: Lookup,
}

impl Members {
    /// Indexes `values`.
    pub(crate) fn new(values: Vec<Value>) -> Members {
        let mut sorted = Vec::new();
        if values.len() > SCAN_AT_MOST {
            sorted = (0..values.len())
                .filter(|&i| !holds_nan(&values[i]))
                .collect();
            sorted.sort_unstable_by(|&a, &b| {
                work::comparison();
                cmp_values(&values[a], &values[b])
            });
        }
        let cost = Lookup::among(&values);
        Members {
            values,
            sorted,
            cost,
        }
    }

    /// The work [`Members::contains`] takes.
    pub(crate) fn cost(&self) -> Lookup {
        self.cost
    }

    /// The members in the order written.
    pub(crate) fn values(&self) -> &[Value] {
        &self.values
    }

    /// Whether `value` is one of the members (JSON equality).
    #[inline]
    pub(crate) fn contains(&self, value: &Value) -> bool {
        if self.values.len() <= SCAN_AT_MOST {
            return self.values.iter().any(|v| {
                work::comparison();
                json_eq(v, value)
            });
        }
        self.sorted
            .binary_search_by(|&i| {
                work::comparison();
                cmp_values(&self.values[i], value)
            })
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentloop_json::Object;
    use alloc::vec;
    use proptest::prelude::*;

    /// Values from a small domain, so that equal ones (and `0`, `-0`, NaN) are common.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            proptest::sample::select(vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                1.5,
                1e300,
                f64::INFINITY,
                f64::NAN
            ])
            .prop_map(Value::Number),
            proptest::sample::select(vec!["", "a", "b", "ab", "é", "😀"]).prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map(
                    proptest::sample::select(vec!["a", "b", "ﬁ", "😀"]),
                    inner,
                    0..3
                )
                .prop_map(|members| {
                    let mut object = Object::new();
                    for (key, value) in members {
                        object.insert(key, value);
                    }
                    Value::Object(object)
                }),
            ]
        })
    }

    proptest! {
        /// Equal in the order is `==` for values without a NaN, and the order is one:
        /// antisymmetric and transitive.
        #[test]
        fn the_order_agrees_with_json_equality(a in value(), b in value(), c in value()) {
            let ab = cmp_values(&a, &b);
            if !holds_nan(&a) && !holds_nan(&b) {
                prop_assert_eq!(ab == Ordering::Equal, a == b, "{:?} {:?}", a, b);
            }
            prop_assert_eq!(cmp_values(&b, &a), ab.reverse());
            let bc = cmp_values(&b, &c);
            if ab != Ordering::Greater && bc != Ordering::Greater {
                prop_assert_ne!(cmp_values(&a, &c), Ordering::Greater);
            }
        }

        /// Members, few (scanned) or many (searched), contain exactly the values one of
        /// them `==`.
        #[test]
        fn members_contain_what_json_equality_finds(
            values in proptest::collection::vec(value(), 0..40),
            fresh in value(),
            pick in any::<proptest::sample::Index>(),
            from_members in any::<bool>(),
        ) {
            let probe = if from_members && !values.is_empty() {
                pick.get(&values).clone()
            } else {
                fresh
            };
            let expected = values.contains(&probe);
            let members = Members::new(values);
            prop_assert_eq!(members.contains(&probe), expected, "{:?}", probe);
        }
    }

    #[test]
    fn a_nan_matches_nothing_and_an_infinity_itself_among_many() {
        // Only a hand-built value holds either; `==` is the rule.
        let mut values: Vec<Value> = (0..20).map(|i| Value::Number(f64::from(i))).collect();
        values.push(Value::Number(f64::NAN));
        values.push(Value::Array(vec![Value::Number(f64::NAN)]));
        values.push(Value::Number(f64::INFINITY));
        let mut object = Object::new();
        object.insert("a", Value::Number(f64::NAN));
        values.push(Value::Object(object.clone()));
        let members = Members::new(values);
        assert!(!members.contains(&Value::Number(f64::NAN)));
        assert!(!members.contains(&Value::Array(vec![Value::Number(f64::NAN)])));
        assert!(!members.contains(&Value::Object(object)));
        assert!(members.contains(&Value::Number(f64::INFINITY)));
        assert!(!members.contains(&Value::Number(f64::NEG_INFINITY)));
        assert!(members.contains(&Value::Number(-0.0)));
        assert!(members.contains(&Value::Number(19.0)));
        assert!(!members.contains(&Value::Number(20.0)));
        assert_eq!(members.values().len(), 24);
    }

    #[test]
    fn members_are_found_at_every_count_around_the_scan() {
        for n in 0..30 {
            let values: Vec<Value> = (0..n).map(|i| Value::Number(f64::from(i))).collect();
            let members = Members::new(values);
            for i in 0..n {
                assert!(members.contains(&Value::Number(f64::from(i))), "{i} of {n}");
            }
            assert!(!members.contains(&Value::Number(f64::from(n))), "{n}");
            assert!(!members.contains(&Value::Null), "{n}");
        }
    }
}
