//! The encoder's tests that need values (agentloop-json's `jcs`), from the transcript
//! crate's `jcs.rs`, whose own part has no allocator.

use crate::jcs::*;
use crate::json::{parse, Value};
use alloc::string::String;

fn canon(input: &str) -> String {
    String::from_utf8(canonicalize(input.as_bytes()).unwrap()).unwrap()
}

#[test]
fn spec_section_5_vector() {
    let input = r#"{"€":1,"\r":2,"😀":3,"ﬁ":4,"a":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}"#;
    assert_eq!(
        canon(input),
        r#"{"\r":2,"a":[1e+21,1e-7,0,0.1,100000000000000000000,5e-324],"€":1,"😀":3,"ﬁ":4}"#
    );
}

#[test]
fn strings_escape_like_json_stringify() {
    assert_eq!(
        canon(r#""\u0000\u0001\u001f\b\t\n\f\r\"\\\/\u007f\u00e9\u2028""#),
        "\"\\u0000\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\u{7f}é\u{2028}\""
    );
}

#[test]
fn rfc8785_number_table() {
    // RFC 8785 Appendix B: IEEE-754 bit patterns and their canonical spellings.
    let table: &[(u64, &str)] = &[
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ];
    for &(bits, expected) in table {
        let mut out = alloc::vec::Vec::new();
        write_f64(f64::from_bits(bits), &mut out).unwrap();
        assert_eq!(core::str::from_utf8(&out).unwrap(), expected, "{bits:016x}");
    }
    for bits in [
        0x7fffffffffffffff_u64,
        0x7ff0000000000000,
        0xfff0000000000000,
    ] {
        assert_eq!(
            write_f64(f64::from_bits(bits), &mut alloc::vec::Vec::new()),
            Err(EncodeError::NonFiniteNumber)
        );
    }
}

#[test]
fn canonical_output_reads_back_to_itself() {
    for input in [
        "1e21",
        "[1000000000000000000000]",
        "1152921504606847000",
        "{\"a\":0.1}",
    ] {
        let once = canon(input);
        assert_eq!(canon(&once), once);
    }
}

#[test]
fn object_without_member_and_buffer_full() {
    let v = parse(br#"{"hash":"x","kind":"k","seq":0}"#).unwrap();
    let mut out = alloc::vec::Vec::new();
    write_object_except(v.as_object().unwrap(), Some("hash"), &mut out).unwrap();
    assert_eq!(out, br#"{"kind":"k","seq":0}"#);
    let mut small = [0u8; 5];
    let mut sink = crate::sink::SliceSink::new(&mut small);
    assert_eq!(write_value(&v, &mut sink), Err(EncodeError::BufferFull));
    assert_eq!(
        write_value(&Value::Number(f64::NAN), &mut alloc::vec::Vec::new()),
        Err(EncodeError::NonFiniteNumber)
    );
}
