//! The strict parser and the canonical encoder on arbitrary bytes.
//!
//! Asserts: never a panic; `parse` and `jcs::canonicalize` accept the same inputs and
//! refuse them with the same error; an error's offset lies inside the input; the
//! canonical bytes parse back to the same value and are their own canonical form
//! (`canonical(parse(canonical(x))) == canonical(x)`); the no-allocation checker
//! (`stream::check_canonical`) accepts exactly the canonical encodings, except where
//! one of its documented key limits refuses them.
#![no_main]

use agentloop_core::jcs;
use agentloop_core::json::{self, ParseOptions};
use agentloop_core::stream::{check_canonical, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = json::parse(data);
    let canonical = jcs::canonicalize(data);
    match (&parsed, &canonical) {
        (Ok(value), Ok(bytes)) => {
            let again = json::parse(bytes).expect("canonical bytes parse");
            assert_eq!(&again, value, "canonical bytes parse to the same value");
            let twice = jcs::canonicalize(bytes).expect("canonical bytes canonicalize");
            assert_eq!(&twice, bytes, "canonical form is a fixed point");
            assert_eq!(
                jcs::to_vec(value).expect("a parsed value encodes"),
                *bytes,
                "canonicalize = to_vec(parse)"
            );
            match check_canonical(bytes, MAX_DEPTH) {
                Ok(_) => {}
                Err(e) => assert!(
                    e.past_limit(),
                    "the stream checker refused canonical bytes: {e}"
                ),
            }
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "parse and canonicalize refuse alike");
            assert!(
                a.offset() <= data.len(),
                "error offset {} past the input",
                a.offset()
            );
            let _ = a.line_column(data);
            let _ = a.to_string();
        }
        _ => panic!("parse {parsed:?} but canonicalize {canonical:?}"),
    }
    if check_canonical(data, MAX_DEPTH).is_ok() {
        assert_eq!(
            canonical.as_deref().ok(),
            Some(data),
            "checker accepted non-canonical bytes"
        );
    }
    // A shallower limit only ever refuses more, and refuses with TooDeep.
    let shallow = json::parse_with(data, ParseOptions { max_depth: 3 });
    if let (Ok(v), Ok(s)) = (&parsed, &shallow) {
        assert_eq!(v, s);
    }
    if parsed.is_ok() {
        if let Err(e) = shallow {
            assert!(e.is_too_deep(), "{e}");
        }
    }
});
