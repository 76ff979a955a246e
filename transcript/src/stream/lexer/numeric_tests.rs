//! `judge_exact`, which compares a literal with zmij's spelling of its double first,
//! against the check it replaced: the double printed by ryu-js (ECMAScript's spelling,
//! what the encoder writes) and compared. Same verdict on every literal: the spellings
//! of arbitrary doubles and their near misses, and the places where zmij's and
//! ECMAScript's layouts part. The size path of the feature `small` (`numeric_small`,
//! without `f64::from_str`) is held to the same reference on every literal here, with
//! or without the feature.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::numeric::{
    judge_by_ecmascript, judge_by_zmij, judge_exact, judge_parsed, judge_text, Judged,
};
use super::numeric_small;
use super::NumberProblem;
use crate::number;

/// The exact check before zmij: only ryu-js, for every literal (`judge_by_ecmascript`
/// is the path `judge_exact` still takes where zmij cannot settle a literal).
fn judge_by_ryu_js(text: &str) -> Judged {
    judge_parsed(text, judge_by_ecmascript)
}

/// `judge_exact` (and `judge_text` asked for the value) and the size path agree with the
/// reference on `literal`, values to the bit (the sign of a zero included).
fn agrees(literal: &str) -> Result<(), String> {
    let expected = judge_by_ryu_js(literal);
    let exact = judge_exact(literal);
    let text = judge_text(literal, true);
    // `str::parse` reads the words `inf` and `NaN`, which the lexer never passes and
    // the size path (`judge_exact` too with the feature) calls `Invalid`.
    let word = literal
        .bytes()
        .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'));
    let small = numeric_small::judge(literal);
    let size_agrees = |v| (word && crate::SMALL) || same(v, expected);
    if !size_agrees(exact) || !size_agrees(text) || !(word || same(small, expected)) {
        return Err(format!(
            "{literal}: judge_exact {exact:?}, judge_text {text:?}, size path {small:?}, \
             ryu-js alone {expected:?}"
        ));
    }
    Ok(())
}

/// Two verdicts are the same, their values compared by bits.
fn same(a: Judged, b: Judged) -> bool {
    match (a, b) {
        (Judged::Canonical(x), Judged::Canonical(y)) => x.to_bits() == y.to_bits(),
        (Judged::Unserialisable(p, x), Judged::Unserialisable(q, y)) => {
            p == q && x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}

/// ECMAScript's spelling of `value`, and spellings around it: a `0` or `.0` appended,
/// the last character dropped, the last digit one up and one down, Rust's shortest fixed
/// and exponent forms, and 15, 16 and 17 significant digits in exponent and in fixed
/// form (as printed, and with trailing zeros cut).
fn spellings(value: f64) -> Vec<String> {
    let mut buf = [0u8; 32];
    let len = number::format_f64(value, &mut buf).unwrap_or(0);
    let canonical: String = buf
        .get(..len)
        .unwrap_or_default()
        .iter()
        .map(|&b| char::from(b))
        .collect();
    let mut out = alloc::vec![
        canonical.clone(),
        format!("{canonical}0"),
        format!("{canonical}.0"),
        format!("{value}"),
        format!("{value:e}"),
    ];
    if let Some((last, rest)) = canonical
        .char_indices()
        .last()
        .map(|(i, c)| (c, canonical.get(..i).unwrap_or_default()))
    {
        out.push(String::from(rest));
        if let Some(d) = last.to_digit(10) {
            for other in [d.wrapping_sub(1), d + 1] {
                if let Some(c) = char::from_digit(other, 10) {
                    out.push(format!("{rest}{c}"));
                }
            }
        }
    }
    // The decimal exponent of the leading digit, from Rust's exponent form.
    let exp: i32 = format!("{value:e}")
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    for digits in [15i32, 16, 17] {
        out.push(format!("{value:.*e}", (digits - 1) as usize));
        if (-30..=25).contains(&exp) {
            let fixed = format!("{value:.*}", (digits - 1 - exp).max(0) as usize);
            if fixed.contains('.') {
                let cut = fixed.trim_end_matches('0').trim_end_matches('.');
                out.push(String::from(cut));
            }
            out.push(fixed);
        }
    }
    out
}

/// Finite doubles: any bits; any significand with an exponent around both fixed ranges
/// (2^-30 to 2^75); the same with only a few significand bits (short decimals, exact
/// ties); subnormals.
fn double() -> impl Strategy<Value = f64> {
    const SIGN_AND_SIGNIFICAND: u64 = 0x800F_FFFF_FFFF_FFFF;
    const SIGN_AND_TOP_BITS: u64 = 0x800F_FF00_0000_0000;
    let biased = |mask: u64| {
        (any::<u64>(), -30i64..75)
            .prop_map(move |(bits, exp)| (bits & mask) | (((1023 + exp) as u64) << 52))
    };
    prop_oneof![
        any::<u64>(),
        biased(SIGN_AND_SIGNIFICAND),
        biased(SIGN_AND_TOP_BITS),
        any::<u64>().prop_map(|bits| bits & SIGN_AND_SIGNIFICAND),
    ]
    .prop_map(f64::from_bits)
    .prop_filter("finite", |value| value.is_finite())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn judge_exact_gives_the_ryu_js_verdict_on_the_spellings_of_any_double(
        value in double(),
    ) {
        for literal in spellings(value) {
            prop_assert_eq!(agrees(&literal), Ok(()));
        }
    }

    #[test]
    fn zmij_settles_every_canonical_literal_but_integers_and_those_below_10_to_the_minus_5(
        value in double(),
    ) {
        // The point of the zmij path is that ryu-js is rarely needed: for the double's
        // canonical spelling it gives the verdict itself, except where its doc says.
        let mut buf = [0u8; 32];
        let len = number::format_f64(value, &mut buf).unwrap_or(0);
        let literal = buf.get(..len).unwrap_or_default();
        let digits = literal.strip_prefix(b"-").unwrap_or(literal);
        let integer = !literal.iter().any(|&b| matches!(b, b'.' | b'e'));
        if !integer && !digits.starts_with(b"0.00000") {
            prop_assert_eq!(judge_by_zmij(literal, value), Some(Judged::Canonical(value)));
        }
    }
}

/// The edges of zmij's fixed range (10^-5, 10^16) and of ECMAScript's (10^-6, 10^21),
/// integers written with a point, subnormals, and the largest double, each with the
/// spellings of its double around it.
#[test]
fn judge_exact_gives_the_ryu_js_verdict_at_the_edges_of_the_fixed_ranges() {
    let literals = [
        "0.00001",
        "0.000015",
        "0.0000100000000000001",
        "0.00000999",
        "0.0000099999999999999999",
        "9.99e-6",
        "9999999999999999.5",
        "9999999999999998",
        "1234567890123456.7",
        "1234567890123456.8",
        "1234567890123456.1",
        "999999999999999.9",
        "123456789012345.6",
        "718.0202833273682",
        "0.1",
        "0.10",
        "5.0",
        "5",
        "-0.5",
        "-0.0",
        "0.0",
        "1e-7",
        "0.0000001",
        "-1.5e-7",
        "1e-6",
        "0.000001",
        "1.5e-6",
        "0.0000015",
        "1e-5",
        "1e+16",
        "1.5e+17",
        "1e+20",
        "1.2345e+20",
        "123450000000000000000",
        "1e+22",
        "1e+210",
        "1.5e-10",
        "1.5e-100",
        "1e21",
        "1e+21",
        "100000000000000000000",
        "1e+16",
        "10000000000000000",
        "5e-324",
        "4.9406564584124654e-324",
        "2.225073858507201e-308",
        "2.2250738585072014e-308",
        "1.7976931348623157e+308",
        "1.7976931348623158e+308",
        "1.7976931348623159e+308",
        "-1.7976931348623157e+308",
    ];
    for literal in literals {
        if let Err(e) = agrees(literal) {
            panic!("{e}");
        }
        let value: f64 = literal.parse().unwrap_or(0.0);
        for spelling in spellings(value) {
            if let Err(e) = agrees(&spelling) {
                panic!("{e} (a spelling around {literal})");
            }
        }
    }
    for value in [
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1e-5,
        1e-6,
        1e-7,
        1e16,
        1e20,
        1e21,
        9007199254740993.0,
    ] {
        for spelling in spellings(value).into_iter().chain(spellings(-value)) {
            if let Err(e) = agrees(&spelling) {
                panic!("{e}");
            }
        }
    }
    // What the rule is for, by the spec's spelling rather than the reference's.
    assert_eq!(judge_exact("0.00001"), Judged::Canonical(0.00001));
    assert_eq!(judge_exact("0.0000001"), Judged::NotCanonical);
    assert_eq!(judge_exact("1e-7"), Judged::Canonical(1e-7));
    assert_eq!(judge_exact("5.0"), Judged::NotCanonical);
    assert_eq!(judge_exact("-0.5"), Judged::Canonical(-0.5));
    assert_eq!(judge_exact("1e-6"), Judged::NotCanonical);
    assert_eq!(judge_exact("0.000001"), Judged::Canonical(1e-6));
    assert_eq!(judge_exact("1e+20"), Judged::NotCanonical);
    assert_eq!(judge_exact("1e+21"), Judged::Canonical(1e21));
}

/// The size path where it differs most from a parse: the two rounding thresholds of the
/// double range (just below and above each, to the 40th digit), integers past 2^53 and
/// up to the 32 bytes the lexer passes, the RFC 8785 number table (Appendix B) and near
/// misses of its spellings, and literals that are not numbers.
#[test]
fn the_size_path_gives_the_reference_verdict_at_the_range_edges_and_rfc_8785_numbers() {
    let literals = [
        // 2^1024 - 2^970 = 1.797693134862315807937289714053034150799…e308 reads as
        // infinity; just below it, as the largest double.
        "1.797693134862315807937289714053034150798e+308",
        "1.797693134862315807937289714053034150799e+308",
        "1.7976931348623158e+308",
        "1.7976931348623158079e+308",
        "1.797693134862315808e+308",
        "-1.797693134862315808e+308",
        "179769313486231580793728971405303415079900000000000000e+255",
        "1e+309",
        "1e+400",
        "-1e+400",
        // 2^-1075 = 2.470328229206232720882843964341106861825…e-324 reads as zero (a
        // tie, to even); just above it, as the least subnormal.
        "2.470328229206232720882843964341106861825e-324",
        "2.470328229206232720882843964341106861826e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "-2.4703282292062328e-324",
        "3e-324",
        "7e-324",
        "1e-400",
        "-1e-400",
        "0.000e-400",
        "-0e+999",
        // Integers: exact, past 2^53, and of the lexer's most bytes.
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "18446744073709551616",
        "295147905179352830000",
        "295147905179352825856",
        "12345678901234567890123456789012",
        "-1234567890123456789012345678901",
        "99999999999999999999999999999999",
        "100000000000000000000000000000000000000000000000000",
        // Not numbers `str::parse` reads (the lexer passes none of them).
        "",
        "-",
        ".",
        "1e",
        "1e+",
        "--1",
        "1.2.3",
        "1e5.0",
        "1.",
        ".5",
        "-.5e-3",
    ];
    let table: [u64; 24] = [
        0x0000000000000000,
        0x8000000000000000,
        0x0000000000000001,
        0x8000000000000001,
        0x7fefffffffffffff,
        0xffefffffffffffff,
        0x4340000000000000,
        0xc340000000000000,
        0x4430000000000000,
        0x44b52d02c7e14af5,
        0x44b52d02c7e14af6,
        0x44b52d02c7e14af7,
        0x444b1ae4d6e2ef4e,
        0x444b1ae4d6e2ef4f,
        0x444b1ae4d6e2ef50,
        0x3eb0c6f7a0b5ed8c,
        0x3eb0c6f7a0b5ed8d,
        0x41b3de4355555553,
        0x41b3de4355555554,
        0x41b3de4355555555,
        0x41b3de4355555556,
        0x41b3de4355555557,
        0xbecbf647612f3696,
        0x43143ff3c1cb0959,
    ];
    let around_the_table = table
        .iter()
        .flat_map(|&bits| spellings(f64::from_bits(bits)));
    for literal in literals
        .iter()
        .map(|&l| String::from(l))
        .chain(around_the_table)
    {
        if let Err(e) = agrees(&literal) {
            panic!("{e}");
        }
    }
    // What the edges are, by the spec rather than the reference.
    let small = numeric_small::judge;
    let out_of_range = Judged::Unserialisable(NumberProblem::OutOfRange, f64::INFINITY);
    assert_eq!(small("1.797693134862315808e+308"), out_of_range);
    assert_eq!(small("1.7976931348623158e+308"), Judged::NotCanonical);
    let underflow = Judged::Unserialisable(NumberProblem::Underflow, 0.0);
    assert_eq!(small("2.4703282292062327e-324"), underflow);
    assert_eq!(small("5e-324"), Judged::Canonical(5e-324));
    let inexact = Judged::Unserialisable(NumberProblem::InexactInteger, 9007199254740992.0);
    assert_eq!(small("9007199254740993"), inexact);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    /// The size path's estimate of a double's spelling (any double: normal, subnormal,
    /// the largest) is within an ulp of the double, as its window of 4 ulps assumes.
    #[test]
    fn the_size_path_estimates_within_an_ulp(value in double()) {
        let mut buf = [0u8; 32];
        let len = number::format_f64(value.abs(), &mut buf).unwrap_or(0);
        let literal = core::str::from_utf8(buf.get(..len).unwrap_or_default()).unwrap_or("");
        if value != 0.0 {
            let estimate = numeric_small::estimate_of(literal).unwrap_or(f64::NAN);
            let ulps = estimate.to_bits().abs_diff(value.abs().to_bits());
            prop_assert!(ulps <= 1, "{}: estimate {:e}, {} ulps off", literal, estimate, ulps);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Any literal of JSON's grammar within the lexer's 32 bytes: up to 20 digits before
    /// and after the point, any exponent that reaches past both ends of the double
    /// range. Most are not canonical: the size path must say so exactly as the
    /// reference does, and give the same value for an integer.
    #[test]
    fn the_size_path_gives_the_reference_verdict_on_random_literals(
        negative in any::<bool>(),
        int in "(0|[1-9][0-9]{0,19})",
        fraction in proptest::option::of("[0-9]{1,12}"),
        exponent in proptest::option::of(-345i32..=330),
    ) {
        let mut literal = String::from(if negative { "-" } else { "" });
        literal.push_str(&int);
        if let Some(fraction) = fraction {
            literal.push('.');
            literal.push_str(&fraction);
        }
        if let Some(exponent) = exponent {
            literal.push_str(&format!("e{exponent:+}"));
        }
        prop_assert_eq!(agrees(&literal), Ok(()));
    }
}

/// Every number literal of the public RFC 8785 vectors (`../shared/vectors/jcs`: the
/// inputs' spellings and the outputs' canonical ones) gets the reference verdict from
/// `judge_exact` and the size path alike. `AGENTLOOP_VECTORS` names another vectors
/// folder; the vectors must be there when `CI` is set.
#[test]
fn the_public_rfc_8785_vectors_numbers_get_the_reference_verdict() {
    use std::path::PathBuf;
    let root = match std::env::var_os("AGENTLOOP_VECTORS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    }
    .join("jcs/testdata");
    let Ok(folders) = ["input", "output"]
        .iter()
        .map(|f| std::fs::read_dir(root.join(f)))
        .collect::<Result<Vec<_>, _>>()
    else {
        let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        assert!(!in_ci, "the RFC 8785 vectors are not at {}", root.display());
        std::eprintln!(
            "SKIPPED: the RFC 8785 vectors are not at {}",
            root.display()
        );
        return;
    };
    let mut literals = Vec::new();
    for entry in folders.into_iter().flatten() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        literals.extend(number_literals(&text));
    }
    // values.json alone has ten (five spellings, five canonical forms).
    assert!(literals.len() >= 10, "{literals:?}");
    for literal in &literals {
        agrees(literal).unwrap();
    }
    assert!(literals.iter().any(|l| l == "333333333.33333329"));
    assert_eq!(judge_exact("333333333.33333329"), Judged::NotCanonical);
    assert_eq!(
        numeric_small::judge("333333333.3333333"),
        Judged::Canonical(333333333.3333333)
    );
}

/// The number literals of a JSON text outside its strings: each maximal run of
/// `-+.0-9eE` that starts with `-` or a digit.
fn number_literals(json: &str) -> Vec<String> {
    let (mut literals, mut current, mut in_string, mut escaped) =
        (Vec::new(), String::new(), false, false);
    for c in json.chars() {
        if in_string {
            (in_string, escaped) = match (escaped, c) {
                (false, '\\') => (true, true),
                (false, '"') => (false, false),
                _ => (true, false),
            };
            continue;
        }
        let part = c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E');
        if part && (!current.is_empty() || c == '-' || c.is_ascii_digit()) {
            current.push(c);
            continue;
        }
        if !current.is_empty() {
            literals.push(core::mem::take(&mut current));
        }
        in_string = c == '"';
    }
    literals
}
