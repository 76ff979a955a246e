//! The `pattern` engine (ECMA-262 regex translation onto regex-automata) on arbitrary
//! patterns and texts.
//!
//! Input: a pattern, optionally a 0x00 byte and a text (without one, the pattern is also
//! the text); both must be UTF-8. Asserts: never a panic (nor a stack overflow);
//! compiling is deterministic; a refusal's position lies inside the pattern (or just past
//! it) and its message is not empty; matching is deterministic and the same through a
//! clone; wrapping the pattern in `(?:…)` changes neither whether it compiles (within the
//! group-nesting limit) nor what it matches.
#![no_main]

use agentloop_core::schema::pattern::{Pattern, PatternErrorKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (pattern, text) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let (Ok(pattern), Ok(text)) = (std::str::from_utf8(pattern), std::str::from_utf8(text)) else {
        return;
    };
    let compiled = Pattern::compile(pattern);
    assert_eq!(
        Pattern::compile(pattern),
        compiled,
        "compile is deterministic"
    );
    let grouped = Pattern::compile(&format!("(?:{pattern})"));
    let p = match compiled {
        Ok(p) => p,
        Err(e) => {
            assert!(e.position <= pattern.chars().count(), "{e}");
            assert!(!e.to_string().is_empty());
            if let Ok(g) = grouped {
                // `(?:` + a refused pattern + `)` compiles only if the refusal was a
                // stray `)` that the wrapper's `(` now closes.
                assert!(
                    pattern.contains(')'),
                    "{pattern:?} refused ({e}) but {g:?} compiles"
                );
            }
            return;
        }
    };
    assert_eq!(p.source(), pattern);
    let verdict = p.is_match(text);
    assert_eq!(p.is_match(text), verdict, "is_match is deterministic");
    assert_eq!(p.clone().is_match(text), verdict, "a clone matches alike");
    match grouped {
        Ok(g) => assert_eq!(g.is_match(text), verdict, "(?:{pattern}) on {text:?}"),
        Err(e) => assert!(
            matches!(
                e.kind,
                PatternErrorKind::TooDeep | PatternErrorKind::TooLong | PatternErrorKind::TooLarge
            ),
            "{pattern:?} compiles but its group does not: {e}"
        ),
    }
});
