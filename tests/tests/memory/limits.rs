//! The limits as a contract (docs/assurance.md, "Limits"): each adversarial shape of
//! input — deep nesting, huge numbers, millions of keys, long keys, long strings, long
//! lines — has a documented bound, a clear error past it, and a bounded amount of heap,
//! measured with a counting global allocator (this test binary only).

use std::io::BufReader;

use agentloop_core::chain::Chain;
use agentloop_core::json::{self, ParseErrorKind, Value, MAX_DEPTH};
use agentloop_core::stream::{self, StreamOptions, StreamVerifier};
use agentloop_core::verify::{self, FaultKind, Options};

use crate::counting::peak_of;

/// The documented bound on the strict parser's heap: at most this many bytes per input
/// byte at its peak, plus [`SLACK`]. The worst shape is an array of one-digit numbers:
/// a 32-byte `Value` per 2 input bytes, in a `Vec` that doubles (up to 2x) and holds
/// the old block while it grows (another 1x of the half-size block): 16 x 3 = 48.
const HEAP_PER_INPUT_BYTE: usize = 48;
const SLACK: usize = 64 << 10;

fn parse_peak(input: &[u8]) -> (Result<Value, json::ParseError>, usize) {
    peak_of(|| json::parse(input))
}

fn assert_within_bound(what: &str, input: &[u8], peak: usize) {
    let bound = HEAP_PER_INPUT_BYTE * input.len() + SLACK;
    assert!(
        peak <= bound,
        "{what}: {} input bytes held {peak} heap bytes at the peak (bound {bound})",
        input.len()
    );
}

fn array_of_zeros(n: usize) -> Vec<u8> {
    let mut s = Vec::with_capacity(2 * n + 1);
    s.push(b'[');
    for i in 0..n {
        if i > 0 {
            s.push(b',');
        }
        s.push(b'0');
    }
    s.push(b']');
    s
}

/// `{"k<n-1>":0,…,"k0":0}`: every key out of canonical order.
fn reversed_keys(n: usize) -> Vec<u8> {
    let mut s = String::from("{");
    for i in (0..n).rev() {
        if i + 1 != n {
            s.push(',');
        }
        s.push_str(&format!("\"k{i:07}\":0"));
    }
    s.push('}');
    s.into_bytes()
}

#[test]
fn the_densest_input_stays_within_the_heap_bound() {
    // Just past a power of two elements, the Vec's last growth doubles it: the worst case.
    for n in [1 << 19, (1 << 19) + 1] {
        let input = array_of_zeros(n);
        let (value, peak) = parse_peak(&input);
        assert!(matches!(value, Ok(Value::Array(ref a)) if a.len() == n));
        assert_within_bound("an array of zeros", &input, peak);
    }
}

#[test]
fn nesting_past_the_limit_is_refused_at_the_limit_in_little_memory() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(json::parse(ok.as_bytes()).is_ok());
    // A million opening brackets: refused where depth 129 starts, without reading on.
    let deep = "[".repeat(1_000_000);
    let (result, peak) = parse_peak(deep.as_bytes());
    let error = result.unwrap_err();
    assert!(error.is_too_deep(), "{error}");
    assert_eq!(error.offset(), MAX_DEPTH);
    assert_eq!(
        error.to_string(),
        "nesting deeper than the limit at byte 128"
    );
    assert!(peak < SLACK, "a refused deep document held {peak} bytes");
}

#[test]
fn huge_numbers_are_refused_by_kind_without_copying_the_literal() {
    let digits = |n: usize| "9".repeat(n);
    let cases: Vec<(String, Option<ParseErrorKind>)> = vec![
        ("1e400".into(), Some(ParseErrorKind::NumberOutOfRange)),
        ("-1e400".into(), Some(ParseErrorKind::NumberOutOfRange)),
        ("1e-400".into(), Some(ParseErrorKind::NumberUnderflow)),
        // Exponents far past any double saturate; they do not overflow.
        (
            "1e99999999999999999999999999".into(),
            Some(ParseErrorKind::NumberOutOfRange),
        ),
        (
            "1e-99999999999999999999999999".into(),
            Some(ParseErrorKind::NumberUnderflow),
        ),
        ("0e99999999999999999999999999".into(), None),
        // A million digits: beyond the double range as an integer...
        (digits(1_000_000), Some(ParseErrorKind::NumberOutOfRange)),
        // ...and an inexact integer well inside it...
        (digits(300), Some(ParseErrorKind::InexactInteger)),
        // ...while a fraction or an exponent is an ordinary, rounded double.
        (format!("0.{}", digits(1_000_000)), None),
        (format!("{}e-999990", digits(1_000_000)), None),
        (
            format!("0.{}1", "0".repeat(1_000_000)),
            Some(ParseErrorKind::NumberUnderflow),
        ),
    ];
    for (literal, expected) in cases {
        let (result, peak) = parse_peak(literal.as_bytes());
        let short = &literal[..literal.len().min(40)];
        assert_eq!(result.err().map(|e| e.kind()), expected, "{short}");
        assert!(peak < 4096, "{short}: the number held {peak} heap bytes");
    }
    // In a record: `unserialisable_payload` naming the refusal, not `bad_json`.
    let mut line = Vec::new();
    line.extend_from_slice(b"{\"hash\":\"");
    line.extend_from_slice(&[b'0'; 64]);
    line.extend_from_slice(b"\",\"kind\":\"k\",\"payload\":");
    line.extend_from_slice(digits(1_000_000).as_bytes());
    line.extend_from_slice(b",\"prev\":\"");
    line.extend_from_slice(&[b'0'; 64]);
    line.extend_from_slice(b"\",\"seq\":0}\n");
    let report = verify::verify_bytes(&line, &Options::default());
    assert_eq!(report.faults.len(), 1, "{:?}", report.faults);
    assert_eq!(report.faults[0].kind, FaultKind::UnserialisablePayload);
    assert!(report.faults[0]
        .detail
        .to_string()
        .contains("outside the double range"));
}

#[test]
fn keys_in_any_order_cost_n_log_n_and_bounded_memory() {
    // 262,144 keys, every one out of order. Sorting them once costs well under a
    // second; inserting each into a sorted list (the parser before the fuzzing issue)
    // took minutes, and hours for the ~1.2 million keys a 16 MiB line holds.
    let n = 1 << 18;
    let input = reversed_keys(n);
    let (value, peak) = parse_peak(&input);
    let value = value.expect("distinct keys parse");
    let object = value.as_object().expect("an object");
    assert_eq!(object.len(), n);
    let keys: Vec<&str> = object.iter().map(|(k, _)| k).take(3).collect();
    assert_eq!(keys, ["k0000000", "k0000001", "k0000002"]);
    assert_within_bound("reversed keys", &input, peak);
    // The canonical encoding is in order, and the stream checker accepts it.
    let canonical = agentloop_core::jcs::canonicalize(&input).expect("encodes");
    assert!(canonical.starts_with(b"{\"k0000000\":0,\"k0000001\":0"));
    assert!(stream::check_canonical(&canonical, stream::MAX_DEPTH).is_ok());
}

#[test]
fn a_repeated_key_among_reordered_keys_is_named_where_it_repeats() {
    // The first key, in input order, that repeats an earlier one: the second "a", not
    // the second "c" (which comes later) — as when duplicates were found one by one.
    let input = br#"{"c":1,"a":2,"b":3,"a":4,"c":5}"#;
    let error = json::parse(input).unwrap_err();
    assert_eq!(error.kind(), ParseErrorKind::DuplicateKey);
    assert_eq!(error.offset(), 19, "{}", error);
    // Adjacent repeats in canonical order are found at once.
    let error = json::parse(br#"{"a":1,"b":2,"b":3}"#).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (ParseErrorKind::DuplicateKey, 13)
    );
    // And among a quarter of a million reordered keys.
    let mut input = reversed_keys(1 << 18);
    input.pop();
    let at = input.len() + 1;
    input.extend_from_slice(b",\"k0123456\":1}");
    let error = json::parse(&input).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (ParseErrorKind::DuplicateKey, at)
    );
}

/// One record line whose payload is `payload`, sealed by the chain.
fn record_line(payload: &Value) -> Vec<u8> {
    let mut chain = Chain::new();
    chain.append("note", payload).expect("appends").to_vec()
}

#[test]
fn long_keys_and_long_strings_verify_in_bounded_memory() {
    let long = "é😀x".repeat(1 << 18); // 1.75 MiB of UTF-8
    let mut object = json::Object::new();
    object.insert(long.clone(), Value::String(long.clone()));
    let line = record_line(&Value::Object(object));
    let (report, peak) = peak_of(|| {
        verify::verify_reader(
            BufReader::with_capacity(1 << 16, &line[..]),
            &Options::default(),
        )
    });
    assert!(report.ok(), "{:?}", report.faults);
    assert_within_bound("a long key and string", &line, peak);
    // The stream verifier keeps no line: a key past its 256 bytes is `bad_json` naming
    // that limit (its state is fixed; `stream/tests.rs` checks the exact boundary).
    let mut verifier = StreamVerifier::new(StreamOptions::default());
    verifier.push(&line);
    let report = verifier.finish();
    assert_eq!(report.faults.len(), 1);
    assert_eq!(report.faults[0].kind, FaultKind::BadJson);
    assert!(
        report.faults[0]
            .to_string()
            .contains("longer than the streaming verifier's limit of 256 bytes"),
        "{}",
        report.faults[0]
    );
}

#[test]
fn a_line_of_the_densest_payload_verifies_within_the_bound() {
    // The allocating verifier holds one line and its parsed record: 48 bytes per line
    // byte at most, so at most 768 MiB at the default 16 MiB line limit — lower
    // `max_line_bytes` (or use the stream verifier) where that is too much.
    let payload = json::parse(&array_of_zeros((1 << 19) + 1)).expect("parses");
    let line = record_line(&payload);
    let (report, peak) = peak_of(|| {
        verify::verify_reader(
            BufReader::with_capacity(1 << 16, &line[..]),
            &Options::default(),
        )
    });
    assert!(report.ok(), "{:?}", report.faults);
    // The line itself is buffered once more than the parse needs.
    let bound = (HEAP_PER_INPUT_BYTE + 2) * line.len() + SLACK;
    assert!(
        peak <= bound,
        "{} line bytes held {peak} (bound {bound})",
        line.len()
    );
    // Past the line limit the line is neither buffered nor parsed.
    let options = Options {
        max_line_bytes: 1 << 16,
        ..Options::default()
    };
    let (report, peak) =
        peak_of(|| verify::verify_reader(BufReader::with_capacity(1 << 16, &line[..]), &options));
    assert_eq!(report.faults.len(), 1);
    assert_eq!(report.faults[0].kind, FaultKind::BadJson);
    assert!(
        report.faults[0]
            .detail
            .to_string()
            .contains("more than the limit of 65536 bytes"),
        "{}",
        report.faults[0]
    );
    assert!(peak < 4 << 16, "an overlong line held {peak} bytes");
}

/// `{"properties":{"a":{KEYWORD:[…n values…]}}}`, the values written by `value`.
fn schema_listing(keyword: &str, n: usize, value: impl Fn(usize) -> String) -> Value {
    let values: Vec<String> = (0..n).map(value).collect();
    json::parse(
        format!(
            r#"{{"properties":{{"a":{{"{keyword}":[{}]}}}}}}"#,
            values.join(",")
        )
        .as_bytes(),
    )
    .expect("parses")
}

#[test]
fn required_names_past_the_limit_are_refused_at_registration() {
    use agentloop_core::schema::{Schema, MAX_REQUIRED_NAMES};
    // At the limit: compiled, and an object missing every name gets one violation a name.
    let name = |i: usize| format!(r#""n{i}""#);
    let schema = Schema::compile(&schema_listing("required", MAX_REQUIRED_NAMES, name))
        .expect("the limit is allowed");
    let instance = json::parse(br#"{"a":{}}"#).expect("parses");
    let found = schema.validate(&instance, "$");
    assert_eq!(found.len(), MAX_REQUIRED_NAMES);
    assert_eq!(
        found[MAX_REQUIRED_NAMES - 1].to_string(),
        format!(
            "$.a: missing required property 'n{}'",
            MAX_REQUIRED_NAMES - 1
        )
    );
    // One more: refused, naming the keyword, where it is, and the limit.
    let e = Schema::compile(&schema_listing("required", MAX_REQUIRED_NAMES + 1, name))
        .expect_err("past the limit");
    assert_eq!(e.pointer, "/properties/a/required");
    assert_eq!(
        e.to_string(),
        "schema refused at /properties/a/required: keyword 'required' lists 10001 names, \
         more than the 10000 a schema may list"
    );
}

#[test]
fn enum_values_past_the_limit_are_refused_at_registration() {
    use agentloop_core::schema::{Schema, MAX_ENUM_VALUES};
    // At the limit, matched against as many items (each a member, the last one not):
    // the independent tester's 100,000 × 100,000, which took 12 s when each item was
    // compared with every member.
    let member = |i: usize| format!(r#""v{i}""#);
    let values: Vec<String> = (0..MAX_ENUM_VALUES).map(member).collect();
    let schema =
        json::parse(format!(r#"{{"items":{{"enum":[{}]}}}}"#, values.join(",")).as_bytes())
            .expect("parses");
    let schema = Schema::compile(&schema).expect("the limit is allowed");
    let mut items: Vec<String> = (0..MAX_ENUM_VALUES).rev().map(member).collect();
    let instance = json::parse(format!("[{}]", items.join(",")).as_bytes()).expect("parses");
    assert!(schema.is_valid(&instance));
    assert!(schema.validate(&instance, "$").is_empty());
    items[MAX_ENUM_VALUES - 1] = String::from(r#""w""#);
    let instance = json::parse(format!("[{}]", items.join(",")).as_bytes()).expect("parses");
    let found = schema.validate(&instance, "$");
    assert_eq!(found.len(), 1);
    assert!(
        found[0].to_string().starts_with(&format!(
            r#"$[{}]: expected one of ["v0","v1","#,
            MAX_ENUM_VALUES - 1
        )),
        "{}",
        found[0]
    );
    // One more: refused, naming the keyword, where it is, and the limit.
    let e = Schema::compile(&schema_listing("enum", MAX_ENUM_VALUES + 1, member))
        .expect_err("past the limit");
    assert_eq!(e.pointer, "/properties/a/enum");
    assert_eq!(
        e.to_string(),
        "schema refused at /properties/a/enum: keyword 'enum' lists 100001 values, more \
         than the 100000 a schema may list"
    );
}

/// The most heap compiling a schema may hold at its peak, per byte of the schema
/// document (beside the parsed document itself, which the caller holds), plus [`SLACK`].
/// The densest shape is a list of empty subschemas, `{"anyOf":[{},{},…]}`: a compiled
/// node of about 600 bytes (its keywords, its place in the document, the copy of the
/// document the schema keeps) for every 3 bytes, 205 a byte measured.
const SCHEMA_HEAP_PER_BYTE: usize = 256;

/// `{"properties":{"kkk…":{"properties":{"a0":{"$ref":"#"},…}}}}`: `n` subschemas under
/// a key of `key_bytes` bytes.
fn subschemas_under_a_long_key(key_bytes: usize, n: usize) -> Vec<u8> {
    let members: Vec<String> = (0..n)
        .map(|i| format!(r##""a{i}":{{"$ref":"#"}}"##))
        .collect();
    format!(
        r#"{{"properties":{{"{}":{{"properties":{{{}}}}}}}}}"#,
        "k".repeat(key_bytes),
        members.join(",")
    )
    .into_bytes()
}

#[test]
fn compiling_a_schema_takes_heap_in_proportion_to_its_size() {
    use agentloop_core::schema::Schema;
    // Each of the 4,096 subschemas below a 16 KiB key has that key in its JSON pointer:
    // kept whole for each (three times: to resolve references, for messages, for each
    // `$ref`), that was 200 MiB for a 100 KiB document: quadratic in its size.
    let document = subschemas_under_a_long_key(1 << 14, 1 << 12);
    let value = json::parse(&document).expect("parses");
    let (schema, peak) = peak_of(|| Schema::compile(&value));
    let schema = schema.expect("compiles");
    let bound = SCHEMA_HEAP_PER_BYTE * document.len() + SLACK;
    assert!(
        peak <= bound,
        "a {}-byte schema held {peak} heap bytes while compiling (bound {bound})",
        document.len()
    );
    // The references still resolve: the members are validated against the root.
    let key = "k".repeat(1 << 14);
    let instance = format!(r#"{{"{key}":{{"a0":{{"{key}":{{"a1":{{"{key}":5}}}}}}}}}}"#);
    let instance = json::parse(instance.as_bytes()).expect("parses");
    let found = schema.validate(&instance, "$");
    assert_eq!(found.len(), 0, "{found:?}");
    // The densest shape stays within the bound too.
    let densest = format!(r#"{{"anyOf":[{}]}}"#, vec!["{}"; 1 << 14].join(","));
    let value = json::parse(densest.as_bytes()).expect("parses");
    let (compiled, peak) = peak_of(|| Schema::compile(&value));
    assert!(compiled.is_ok());
    let bound = SCHEMA_HEAP_PER_BYTE * densest.len() + SLACK;
    assert!(
        peak <= bound,
        "empty subschemas: {peak} heap bytes (bound {bound})"
    );
    // And a reference to nothing is refused where it is, the pointer spelt out whole.
    let mut broken = document.clone();
    let at = broken.len() - 4;
    broken.splice(at..at, br##","zz":{"$ref":"#/nowhere"}"##.iter().copied());
    let e = Schema::compile(&json::parse(&broken).expect("parses")).expect_err("refused");
    assert_eq!(e.pointer, format!("/properties/{key}/properties/zz/$ref"));
}

/// The red team's schema of issue 28: `n` string properties, the `i`-th with the
/// pattern `pattern(i)`.
fn schema_with_patterns(n: usize, pattern: impl Fn(usize) -> String) -> Value {
    let members: Vec<String> = (0..n)
        .map(|i| format!(r#""p{i}":{{"type":"string","pattern":"{}"}}"#, pattern(i)))
        .collect();
    let text = format!(
        r#"{{"type":"object","properties":{{{}}}}}"#,
        members.join(",")
    );
    json::parse(text.as_bytes()).expect("parses")
}

/// What compiling any schema of up to a megabyte may hold at its peak (issue 28, item
/// 2), beside the parsed document.
const SCHEMA_OF_A_MEGABYTE_HEAP: usize = 64 << 20;

#[test]
fn schemas_whose_patterns_pass_their_budget_are_refused_in_bounded_memory() {
    use agentloop_core::schema::{Schema, MAX_SCHEMA_COMPILED_BYTES};
    // 50, 80 and 300 patterns of 9 MB of automaton each took 0.5, 0.8 and 4.3 GB and
    // seconds to compile: now the budget is spent at the second, and the rest is not
    // built.
    for n in [50, 80, 300] {
        let schema = schema_with_patterns(n, |i| format!("^\\\\p{{L}}{{195}}{i}$"));
        let (compiled, peak) = peak_of(|| Schema::compile(&schema));
        let e = compiled.expect_err("past the budget");
        assert!(
            e.over_budget()
                .is_some_and(|o| o.budget == MAX_SCHEMA_COMPILED_BYTES),
            "{e}"
        );
        assert!(
            peak <= SCHEMA_OF_A_MEGABYTE_HEAP,
            "{n} patterns: {peak} bytes at the peak"
        );
    }
    // As the red team wrote it, one pattern 300 times: compiled once.
    let schema = schema_with_patterns(300, |_| String::from("^\\\\p{L}{195}$"));
    let (compiled, peak) = peak_of(|| Schema::compile(&schema));
    let compiled = compiled.expect("compiles");
    assert!(compiled.compiled_bytes() <= MAX_SCHEMA_COMPILED_BYTES);
    assert!(
        peak <= SCHEMA_OF_A_MEGABYTE_HEAP,
        "{peak} bytes at the peak"
    );
}

#[test]
fn every_dense_schema_of_a_megabyte_compiles_or_is_refused_in_bounded_memory() {
    use agentloop_core::schema::Schema;
    // A megabyte of the densest subschemas of each kind: `{"not":{}}` took 124 MB to
    // compile, `{"enum":[1]}` 103 MB; each subschema is now charged to the schema's
    // budget for its compiled form, and the schema refused past it.
    for unit in [
        "{}",
        "true",
        r#"{"minimum":1}"#,
        r#"{"type":"null"}"#,
        r#"{"not":{}}"#,
        r#"{"enum":[1]}"#,
        r#"{"const":[1]}"#,
        r#"{"required":["a"]}"#,
        r#"{"properties":{"a":{}}}"#,
        r#"{"pattern":"a"}"#,
    ] {
        let n = (1 << 20) / (unit.len() + 1) - 8;
        let document = format!(r#"{{"anyOf":[{}]}}"#, vec![unit; n].join(","));
        assert!(document.len() < 1 << 20);
        let value = json::parse(document.as_bytes()).expect("parses");
        let (compiled, peak) = peak_of(|| Schema::compile(&value));
        if let Err(e) = &compiled {
            assert!(e.over_budget().is_some(), "{unit}: {e}");
        }
        assert!(
            peak <= SCHEMA_OF_A_MEGABYTE_HEAP,
            "{unit}: {peak} bytes at the peak"
        );
    }
}

#[test]
fn violations_quote_a_long_value_without_writing_it_whole() {
    use crate::counting::allocated_by;
    use agentloop_core::schema::Schema;
    // Each violation quotes the `const` (cut at 100 bytes): it was written whole each
    // time, 500 KB a violation.
    let schema = format!(r#"{{"items":{{"const":"{}"}}}}"#, "x".repeat(500_000));
    let schema =
        Schema::compile(&json::parse(schema.as_bytes()).expect("parses")).expect("compiles");
    let items = vec!["1"; 1_000].join(",");
    let instance = json::parse(format!("[{items}]").as_bytes()).expect("parses");
    let (found, allocated) = allocated_by(|| schema.validate(&instance, "$"));
    assert_eq!(found.len(), 1_000);
    assert!(found[0].message.starts_with("expected const \"xxxx"));
    assert!(
        found[0].message.ends_with("xxx..., got 1"),
        "{}",
        found[0].message
    );
    assert!(allocated < 2_000_000, "{allocated} bytes allocated");
}

#[test]
fn compiling_many_references_allocates_in_proportion_to_the_schema() {
    use crate::counting::allocated_by;
    use agentloop_core::schema::Schema;
    // Each reference searched the whole document for its own place (for a sentence it
    // only needs when refused): 5,000 references × a 250 KB document.
    let n = 5_000;
    let defs: Vec<String> = (0..n)
        .map(|i| format!(r#""d{i}":{{"minimum":-{i}}}"#))
        .collect();
    let refs: Vec<String> = (0..n)
        .map(|i| format!(r##"{{"$ref":"#/$defs/d{i}"}}"##))
        .collect();
    let document = format!(
        r#"{{"$defs":{{{}}},"items":{{"allOf":[{}]}}}}"#,
        defs.join(","),
        refs.join(",")
    );
    let value = json::parse(document.as_bytes()).expect("parses");
    let (compiled, allocated) = allocated_by(|| Schema::compile(&value));
    assert!(compiled.is_ok());
    assert!(
        allocated <= 64 * document.len(),
        "{} bytes of schema: {allocated} bytes allocated",
        document.len()
    );
}
