//! Differential test of the `pattern` engine against ECMAScript itself: node's
//! `new RegExp(p, "u").test(s)` on random patterns from a small grammar (every
//! construct the engine translates, the ones it refuses, and syntax errors) and random
//! strings. For every pattern: where node accepts, we match exactly as node does or refuse
//! it for a feature we refuse on purpose (look-around, back-references, modifiers); where
//! node throws a SyntaxError, we refuse too.

use std::fmt::Write as _;

use agentloop_core::json::Value;
use agentloop_core::schema::pattern::{Pattern, PatternErrorKind};
use agentloop_tests::{canonical, have_program, node_on_file, skip_or_fail};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

const PATTERNS: usize = 3000;
const STRINGS_PER_PATTERN: usize = 12;

/// Reads `[pattern, [strings]]` lines; writes per line `E` and the error, or `M` and one
/// character per string: `1` match, `0` no match — ECMAScript's answer, found as
/// RegExpBuiltinExec does (the matcher tried at each code-point index, here with the `y`
/// flag) — or `2` / `3` where V8's own `test` says otherwise (V8 also tries an empty
/// match inside a surrogate pair: `/\B/u.test("0😀c")` is true in node 20, false by
/// the spec, since every code-point position of "0😀c" is a word boundary).
const NODE_REGEX: &str = r#"
const fs = require('fs');
const lines = fs.readFileSync(process.env.REGEX_INPUT, 'utf8').split('\n').filter(l => l.length);
const out = [];
for (const line of lines) {
  const [p, strings] = JSON.parse(line);
  let re, sticky;
  try { re = new RegExp(p, 'u'); sticky = new RegExp(p, 'uy'); } catch (e) { out.push('E ' + e.message.replace(/\n/g, ' ')); continue; }
  out.push('M ' + strings.map(s => {
    let spec = false;
    for (let i = 0; i <= s.length && !spec; i += (s.codePointAt(i) > 0xffff ? 2 : 1)) {
      sticky.lastIndex = i;
      spec = sticky.test(s);
    }
    const v8 = re.test(s);
    return spec === v8 ? (spec ? '1' : '0') : (spec ? '3' : '2');
  }).join(''));
}
process.stdout.write(out.join('\n') + '\n');
"#;

fn strs(items: &'static [&'static str]) -> BoxedStrategy<String> {
    select(items).prop_map(String::from).boxed()
}

/// A single character or character escape (usable in and out of classes).
fn character() -> BoxedStrategy<String> {
    prop_oneof![
        6 => strs(&["a", "b", "c", "A", "é", "Ω", "😀", "0", "9", " ", "_", ",", "/"]),
        2 => strs(&[
            "\\.", "\\*", "\\+", "\\?", "\\(", "\\)", "\\[", "\\]", "\\{", "\\}", "\\|", "\\^",
            "\\$", "\\\\", "\\/",
        ]),
        2 => strs(&[
            "\\t", "\\n", "\\v", "\\f", "\\r", "\\0", "\\x41", "\\x62", "\\xe9", "\\u0061",
            "\\u00e9", "\\u2028", "\\u{1F600}", "\\u{62}", "\\u{000041}", "\\ud83d\\ude00",
            "\\cJ", "\\ca", "\\cM",
        ]),
    ]
    .boxed()
}

/// `\d`, `\p{…}`, … (not allowed as a range end).
fn class_escape() -> BoxedStrategy<String> {
    strs(&[
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "\\p{L}",
        "\\p{Lu}",
        "\\p{Ll}",
        "\\P{L}",
        "\\p{N}",
        "\\p{Nd}",
        "\\p{P}",
        "\\p{punct}",
        "\\p{Letter}",
        "\\p{gc=Zs}",
        "\\p{General_Category=Decimal_Number}",
        "\\p{Script=Greek}",
        "\\p{sc=Latn}",
        "\\p{scx=Grek}",
        "\\p{Script_Extensions=Latin}",
        "\\p{ASCII}",
        "\\p{Alphabetic}",
        "\\p{White_Space}",
        "\\p{Any}",
        "\\p{Emoji_Presentation}",
        "\\P{ASCII}",
    ])
}

fn class() -> BoxedStrategy<String> {
    let item = prop_oneof![
        3 => character(),
        1 => strs(&["-", "\\-", "\\b", "[", "^", "$", ".", "*", "(", ")", "|", "{", "}"]),
        2 => strs(&["a-c", "0-9", "A-Z", "é-ë", "a-😀", " -/", "\\x00-\\x1f", "\\u0061-\\u{7a}", "--/"]),
        2 => class_escape(),
        // Syntax errors in u mode (or, for `b-a`, any mode).
        1 => strs(&["b-a", "\\d-z", "a-\\w", "\\B", "\\1", "\\c1", "\\00", "\\k", "\\a"]),
    ];
    (any::<bool>(), prop::collection::vec(item, 0..4))
        .prop_map(|(negated, items)| {
            format!("[{}{}]", if negated { "^" } else { "" }, items.concat())
        })
        .boxed()
}

fn leaf() -> BoxedStrategy<String> {
    prop_oneof![
        8 => character(),
        3 => class_escape(),
        2 => Just(String::from(".")),
        3 => class(),
        2 => strs(&["^", "$", "\\b", "\\B"]),
        // Refused on purpose (`\1` and `\k<g0>` are SyntaxErrors in node when there is no
        // such group; either way we refuse).
        1 => strs(&["(?=a)", "(?!b)", "(?<=a)", "(?<!c)", "\\1", "\\k<g0>", "(?i:a)", "(?-s:.)"]),
        // Syntax errors.
        1 => strs(&[
            "{", "}", "]", "*", "+", "?", "(", ")", "\\", "\\a", "\\-", "\\c", "\\x4", "\\u12",
            "\\u{110000}", "\\p{letter}", "\\p{Greek}", "\\p{L", "a{2,1}", "(?<1>a)", "\\ud800",
            "{1}", "a**", "(?x)", "\\00", "x{,2}",
        ]),
    ]
    .boxed()
}

fn quantifier() -> BoxedStrategy<String> {
    let q = strs(&[
        "*", "+", "?", "{2}", "{0}", "{1,}", "{0,2}", "{1,3}", "{2,2}",
    ]);
    (q, prop::bool::weighted(0.3))
        .prop_map(|(q, lazy)| if lazy { q + "?" } else { q })
        .boxed()
}

fn regex() -> BoxedStrategy<String> {
    leaf()
        .prop_recursive(4, 32, 4, |inner| {
            let term = (inner.clone(), prop::option::weighted(0.35, quantifier()))
                .prop_map(|(atom, q)| atom + q.as_deref().unwrap_or(""));
            prop_oneof![
                3 => prop::collection::vec(term, 1..5).prop_map(|t| t.concat()),
                1 => prop::collection::vec(inner.clone(), 1..4).prop_map(|a| a.join("|")),
                // `(?<@>` gets a fresh name below, so names are unique (node 20 refuses
                // even the duplicates ECMAScript 2025 allows).
                2 => (select(&["(", "(?:", "(?<@>"][..]), inner)
                    .prop_map(|(open, body)| format!("{open}{body})")),
            ]
        })
        .prop_flat_map(|body| {
            (select(&["", "^"][..]), Just(body), select(&["", "$"][..]))
                .prop_map(|(a, b, c)| format!("{a}{b}{c}"))
        })
        .prop_map(|p| {
            let mut out = String::new();
            for (i, part) in p.split("(?<@>").enumerate() {
                if i > 0 {
                    write!(out, "(?<g{}>", i - 1).unwrap();
                }
                out.push_str(part);
            }
            out
        })
        .boxed()
}

fn text() -> BoxedStrategy<String> {
    let c = select(
        &[
            'a', 'b', 'c', 'A', 'B', 'é', 'ê', 'Ω', 'α', '😀', '0', '1', '9', ' ', '\t', '\n',
            '\r', '_', '-', '.', '/', '*', '(', '{', '[', ']', '\\', '\u{2028}', '\u{a0}',
            '\u{feff}', '\u{663}', '\u{85}', '\u{8}', '\u{b}', '\u{1}', 'J', '\u{a}', '\u{d}',
        ][..],
    );
    prop::collection::vec(c, 0..7)
        .prop_map(|cs| cs.into_iter().collect())
        .boxed()
}

/// The refusals that are ours alone: ECMAScript accepts these constructs.
fn refused_on_purpose(kind: PatternErrorKind) -> bool {
    matches!(
        kind,
        PatternErrorKind::LookAround(_)
            | PatternErrorKind::BackReference
            | PatternErrorKind::Modifiers
            | PatternErrorKind::LoneSurrogate
    )
}

#[test]
fn patterns_match_as_ecmascript_regexp_with_the_u_flag() {
    if !have_program("node") {
        skip_or_fail("skipped: node not found");
        return;
    }
    let mut runner = TestRunner::deterministic();
    let cases_strategy = (regex(), prop::collection::vec(text(), STRINGS_PER_PATTERN));
    let mut cases: Vec<(String, Vec<String>)> = vec![
        // The issue's catastrophic pattern (short: node backtracks, 2^n steps), and the
        // suite's favourite.
        (
            String::from("^(a+)+$"),
            vec!["a".repeat(16) + "!", "a".repeat(16)],
        ),
        // Where V8's `test` departs from the spec (an empty match inside a surrogate
        // pair) and regex-automata's unanchored search from ECMAScript's (an empty match
        // inside a code point's UTF-8 bytes).
        (String::from("\\B|\\$|A"), vec!["0😀c".into(), "$".into()]),
        (String::from("\\B|Ω|\\t"), vec!["BΩt".into(), "B t".into()]),
        (
            String::from("^\\p{Letter}+$"),
            vec!["αβγ".into(), "ab1".into(), "".into()],
        ),
    ];
    while cases.len() < PATTERNS {
        let (pattern, mut strings) = cases_strategy
            .new_tree(&mut runner)
            .expect("generate a case")
            .current();
        // A string made of the pattern's own literal characters matches more often.
        strings.push(pattern.chars().filter(|c| c.is_alphanumeric()).collect());
        cases.push((pattern, strings));
    }

    let answers = node_answers(&cases);

    let mut mismatches = Vec::new();
    let (mut both_compile, mut ours_only_refused, mut both_refuse) = (0, 0, 0);
    let (mut matched, mut unmatched, mut v8_quirks) = (0, 0, 0);
    for ((pattern, strings), answer) in cases.iter().zip(&answers) {
        let ours = Pattern::compile(pattern);
        let answer = answer.as_str();
        match (answer.strip_prefix("M "), ours) {
            (Some(bits), Ok(p)) => {
                both_compile += 1;
                for (s, bit) in strings.iter().zip(bits.chars()) {
                    let node = matches!(bit, '1' | '3');
                    if matches!(bit, '2' | '3') {
                        v8_quirks += 1;
                    }
                    if node {
                        matched += 1;
                    } else {
                        unmatched += 1;
                    }
                    if p.is_match(s) != node {
                        mismatches.push(format!(
                            "/{pattern}/u on {s:?}: node {node}, ours {}",
                            !node
                        ));
                    }
                }
            }
            (Some(_), Err(e)) if refused_on_purpose(e.kind) => ours_only_refused += 1,
            (Some(_), Err(e)) => {
                mismatches.push(format!("/{pattern}/u: node accepts, we refuse: {e}"))
            }
            (None, Err(_)) => both_refuse += 1,
            (None, Ok(_)) => mismatches.push(format!(
                "/{pattern}/u: node refuses ({}), we accept",
                answer.trim_start_matches("E ")
            )),
        }
    }
    eprintln!(
        "{} patterns: {both_compile} compiled by both ({matched} matches, {unmatched} \
         non-matches; {v8_quirks} where V8's `test` departs from the spec), \
         {ours_only_refused} refused by us on purpose, {both_refuse} refused by both",
        cases.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} disagreements with node:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    // The corpus must exercise each outcome.
    assert!(both_compile > PATTERNS / 3, "{both_compile}");
    assert!(ours_only_refused > 10, "{ours_only_refused}");
    assert!(both_refuse > 20, "{both_refuse}");
    assert!(
        matched > 1000 && unmatched > 1000,
        "{matched} / {unmatched}"
    );
}

/// Node's answer (see [`NODE_REGEX`]) for each `(pattern, strings)`, from one process.
fn node_answers(cases: &[(String, Vec<String>)]) -> Vec<String> {
    let mut input = String::new();
    for (pattern, strings) in cases {
        let line = Value::Array(vec![
            Value::from(pattern.as_str()),
            Value::Array(strings.iter().map(|s| Value::from(s.as_str())).collect()),
        ]);
        input.push_str(std::str::from_utf8(&canonical(&line)).expect("UTF-8"));
        input.push('\n');
    }
    let output = node_on_file(NODE_REGEX, "REGEX_INPUT", input.as_bytes());
    let answers = String::from_utf8(output).expect("node writes UTF-8");
    let answers: Vec<String> = answers.lines().map(String::from).collect();
    assert_eq!(answers.len(), cases.len(), "one answer per pattern");
    answers
}

/// The aliases (first column) of one table of `schema/src/pattern/names.rs`
/// (and `names/script.rs`).
fn table(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("const {name}: &[(&str, &str)] = &["))
        .unwrap_or_else(|| panic!("table {name} not found"));
    let body = &source[start..];
    let body = &body[body.find("= &[").expect("table start")..body.find("];").expect("table end")];
    // Every other string literal, whatever rustfmt did to the lines.
    body.split('"')
        .skip(1)
        .step_by(4)
        .map(String::from)
        .collect()
}

/// Every property name the engine accepts is one node accepts, with the same sets on a
/// sample of long-assigned characters; the same names in the wrong case are refused by
/// both (ECMAScript has no loose matching).
#[test]
fn property_names_are_ecmascript_s() {
    if !have_program("node") {
        skip_or_fail("skipped: node not found");
        return;
    }
    // The tables: `names.rs`, and `SCRIPT` in its own file beside it.
    let dir = agentloop_tests::workspace_root().join("schema/src/pattern");
    let mut source = std::fs::read_to_string(dir.join("names.rs")).expect("read names.rs");
    source += &std::fs::read_to_string(dir.join("names/script.rs")).expect("read script.rs");
    let mut patterns = Vec::new();
    for alias in table(&source, "GENERAL_CATEGORY") {
        patterns.push(format!("\\p{{{alias}}}"));
        patterns.push(format!("\\P{{gc={alias}}}"));
        patterns.push(format!("\\p{{General_Category={alias}}}"));
    }
    for alias in table(&source, "SCRIPT") {
        patterns.push(format!("\\p{{sc={alias}}}"));
        patterns.push(format!("\\p{{Script_Extensions={alias}}}"));
    }
    for alias in table(&source, "BINARY") {
        patterns.push(format!("\\P{{{alias}}}"));
    }
    assert_eq!(patterns.len(), 80 * 3 + 336 * 2 + 96, "names.rs tables");
    let wrong_case: Vec<String> = patterns
        .iter()
        .map(|p| p.to_lowercase())
        .filter(|p| !patterns.contains(p))
        .chain(
            patterns
                .iter()
                .map(|p| p.to_uppercase().replace("\\P", "\\p")),
        )
        .filter(|p| !patterns.contains(p))
        .collect();
    let sample: Vec<String> = [
        "a", "A", "1", " ", "_", "α", "Ω", "я", "中", "!", "€", "😀", "\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let cases: Vec<(String, Vec<String>)> = patterns
        .iter()
        .chain(&wrong_case)
        .map(|p| (format!("^{p}$"), sample.clone()))
        .collect();
    let answers = node_answers(&cases);
    let mut problems = Vec::new();
    for ((pattern, strings), answer) in cases.iter().zip(&answers) {
        match (Pattern::compile(pattern), answer.strip_prefix("M ")) {
            (Ok(p), Some(bits)) => {
                for (s, bit) in strings.iter().zip(bits.chars()) {
                    if p.is_match(s) != matches!(bit, '1' | '3') {
                        problems.push(format!("{pattern} on {s:?}: node says {bit}"));
                    }
                }
            }
            (Err(_), None) => {}
            (Ok(_), None) => problems.push(format!("{pattern}: node refuses, we accept")),
            (Err(e), Some(_)) => problems.push(format!("{pattern}: node accepts, we refuse: {e}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(wrong_case.len() > 800, "{}", wrong_case.len());
}
