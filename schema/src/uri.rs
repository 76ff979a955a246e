//! URI references as `$id` and `$ref` use them: resolution against a base (RFC 3986
//! section 5.2, with dot-segment removal) and percent-decoding of fragments. Nothing is
//! ever fetched: a resolved URI only names a resource of the same document, or is
//! refused as remote.

use alloc::string::String;
use alloc::vec::Vec;

/// The five parts of a URI reference (RFC 3986 appendix B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// Splits a reference as `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
fn split(reference: &str) -> Parts<'_> {
    let (rest, fragment) = match reference.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (reference, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let (scheme, rest) = match rest.find(':') {
        Some(colon) if colon > 0 && !rest[..colon].contains('/') => {
            (Some(&rest[..colon]), &rest[colon + 1..])
        }
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// RFC 3986 section 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut output: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    // Work on segments; a trailing "." or ".." leaves a trailing slash.
    let mut trailing_slash = false;
    if absolute {
        input = &input[1..];
    }
    let segments: Vec<&str> = input.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => trailing_slash = i == last,
            ".." => {
                output.pop();
                trailing_slash = i == last;
            }
            s => {
                output.push(s);
                trailing_slash = false;
            }
        }
    }
    let mut out = String::with_capacity(path.len());
    if absolute {
        out.push('/');
    }
    out.push_str(&output.join("/"));
    if trailing_slash && !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// RFC 3986 section 5.2.3, for a base with an authority or a path.
fn merge(base: &Parts<'_>, path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        let mut out = String::from("/");
        out.push_str(path);
        return out;
    }
    let keep = base.path.rfind('/').map_or(0, |slash| slash + 1);
    let mut out = String::from(&base.path[..keep]);
    out.push_str(path);
    out
}

/// Writes parts back as a URI (without a fragment when `fragment` is `None`).
fn compose(parts: &Parts<'_>, path: &str) -> String {
    let mut out = String::new();
    if let Some(scheme) = parts.scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = parts.authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(path);
    if let Some(query) = parts.query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// Resolves `reference` against `base` (an absolute URI without a fragment, or `None`
/// for a document with no base URI) and splits off the fragment: `(the resource's URI,
/// the fragment as written, empty when there is none)`. Without a base, a reference
/// that is not absolute keeps its own text (it can only name an embedded resource
/// whose `$id` is that same relative reference, or nothing).
pub(crate) fn resolve(base: Option<&str>, reference: &str) -> (String, String) {
    let r = split(reference);
    let fragment = String::from(r.fragment.unwrap_or(""));
    let Some(base) = base else {
        return (compose(&r, &remove_dot_segments(r.path)), fragment);
    };
    let b = split(base);
    let target = if r.scheme.is_some() {
        compose(&r, &remove_dot_segments(r.path))
    } else if r.authority.is_some() {
        let parts = Parts {
            scheme: b.scheme,
            ..r
        };
        compose(&parts, &remove_dot_segments(r.path))
    } else if r.path.is_empty() {
        let parts = Parts {
            query: r.query.or(b.query),
            ..b
        };
        compose(&parts, b.path)
    } else {
        let path = if r.path.starts_with('/') {
            remove_dot_segments(r.path)
        } else {
            remove_dot_segments(&merge(&b, r.path))
        };
        let parts = Parts {
            query: r.query,
            ..b
        };
        compose(&parts, &path)
    };
    (target, fragment)
}

/// Percent-decodes `text` (RFC 3986 section 2.1): `None` when an escape is malformed
/// or the bytes are not UTF-8.
pub(crate) fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(String::from(text));
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let digit = |b: u8| (b as char).to_digit(16);
            out.push((digit(hex[0])? * 16 + digit(hex[1])?) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3986 section 5.4's examples against its base URI.
    #[test]
    fn rfc_3986_reference_resolution_examples() {
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q"),
            ("g#s", "http://a/b/c/g"),
            (";x", "http://a/b/c/;x"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
        ] {
            assert_eq!(resolve(Some(base), reference).0, expected, "{reference}");
        }
        assert_eq!(
            resolve(Some(base), "g#s/t"),
            (String::from("http://a/b/c/g"), String::from("s/t"))
        );
    }

    #[test]
    fn without_a_base_a_reference_keeps_its_text() {
        assert_eq!(
            resolve(None, "#/$defs/a"),
            (String::new(), String::from("/$defs/a"))
        );
        assert_eq!(resolve(None, "tree.json").0, "tree.json");
        assert_eq!(
            resolve(None, "http://x/y.json#z"),
            (String::from("http://x/y.json"), String::from("z"))
        );
    }

    #[test]
    fn percent_decoding_refuses_bad_escapes_and_bad_utf8() {
        assert_eq!(percent_decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(percent_decode("%25").as_deref(), Some("%"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%FF"), None);
    }
}
