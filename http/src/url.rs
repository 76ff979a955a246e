//! A base URL's userinfo (`user:password@`): what it is, and the URL shown without it.

use std::borrow::Cow;

/// The URL's userinfo (`user:password` in `https://user:password@host/v1`), if it has
/// one: what comes before the last `@` of the authority, which ends at the first `/`,
/// `?` or `#` after the scheme's `://` (RFC 3986); without a scheme, the authority
/// starts the text.
pub(crate) fn userinfo(url: &str) -> Option<&str> {
    let (_, authority, _) = split(url);
    authority.rfind('@').map(|at| &authority[..at])
}

/// `url` as it may be shown — in a start line, an event, an error sentence, a record:
/// without its userinfo (`https://user:password@host:8443/v1` →
/// `https://host:8443/v1`), the scheme, host, port, path and the rest as given. A URL
/// with no userinfo comes back as it is.
pub fn without_userinfo(url: &str) -> Cow<'_, str> {
    let (scheme, authority, rest) = split(url);
    match authority.rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}{}{rest}", &authority[at + 1..])),
        None => Cow::Borrowed(url),
    }
}

/// `url` as (scheme with `://`, authority, the rest).
fn split(url: &str) -> (&str, &str, &str) {
    let start = url.find("://").map_or(0, |at| at + 3);
    let (scheme, after) = url.split_at(start);
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    (scheme, authority, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildError, HttpModel};
    use agentloop_core::provider::{Provider, RequestOptions};

    fn build(base: &str) -> Result<HttpModel, BuildError> {
        HttpModel::new(Provider::OpenAi, base, RequestOptions::new("m"), None)
    }

    #[test]
    fn the_userinfo_is_left_out_and_the_rest_kept() {
        for (url, shown, info) in [
            (
                "https://user:pass@host:8443/v1",
                "https://host:8443/v1",
                Some("user:pass"),
            ),
            (
                "http://u@127.0.0.1/v1?x=1",
                "http://127.0.0.1/v1?x=1",
                Some("u"),
            ),
            // The last `@` of the authority ends the userinfo; a path's `@` is a path's.
            ("http://a@b:c@h/p@q", "http://h/p@q", Some("a@b:c")),
            ("http://h/p@q", "http://h/p@q", None),
            ("https://[::1]:8/v1", "https://[::1]:8/v1", None),
            // No scheme: the authority starts the text.
            ("user:pw@host/v1", "host/v1", Some("user:pw")),
            ("", "", None),
        ] {
            assert_eq!(without_userinfo(url), shown, "{url}");
            assert_eq!(userinfo(url), info, "{url}");
        }
    }

    #[test]
    fn a_userinfo_is_never_shown_and_never_beside_an_openai_key() {
        let base = "https://user:s3cret@host:8443/v1";
        let model = build(base).unwrap();
        assert_eq!(model.url(), "https://host:8443/v1/chat/completions");
        assert!(!format!("{model:?}").contains("s3cret"));
        let refused = build("https://user:s3cret@host/v1?x=1").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the base URL \"https://host/v1?x=1\" has a query (the endpoint's path is added after it)"
        );
        let with_key =
            |provider| HttpModel::new(provider, base, RequestOptions::new("m"), Some("KEY"));
        let refused = with_key(Provider::OpenAi).unwrap_err();
        assert_eq!(
            refused,
            BuildError::UserinfoAndKey(String::from("https://host:8443/v1"))
        );
        assert!(!refused.to_string().contains("s3cret"), "{refused}");
        // Anthropic's key has a header of its own.
        assert_eq!(
            with_key(Provider::Anthropic).unwrap().url(),
            "https://host:8443/v1/messages"
        );
    }
}
