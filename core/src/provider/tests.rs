//! Tests of the provider codecs.

use alloc::string::String;

use super::*;
use crate::json::parse;

#[test]
fn openai_smoke() {
    let messages = [Message::User { text: "hi".into() }];
    let body = openai::request(&messages, &[], &RequestOptions::new("gpt")).unwrap();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        r#"{"messages":[{"content":"hi","role":"user"}],"model":"gpt"}"#
    );
    let reply = openai::parse(200, br#"{"choices":[{"message":{"content":"yo"}}]}"#).unwrap();
    assert_eq!(reply.text, "yo");
    let _ = parse(b"1");
}
