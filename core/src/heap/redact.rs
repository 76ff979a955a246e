//! Keeping a secret out of a sentence. A provider may echo the API key it was sent in
//! an error body, and the codecs quote that body's text — cut to a bound — in the
//! error a `stop` record holds. Cutting first and redacting after would leave the part
//! of the key before the cut; [`bounded`] is the one function that turns text that may
//! hold a secret into a bounded quote, in this order:
//!
//! 1. every whole occurrence of the secret is replaced with [`REDACTED`], in the whole
//!    text, before anything is cut;
//! 2. the result is cut after `max_chars` characters (never inside a [`REDACTED`]: one
//!    that would not fit is left out), marked with `…`;
//! 3. every run of [`MIN_RUN`] or more characters of what is left that is also a run of
//!    the secret — the start of the key left at the end of a body or message the
//!    provider cut itself, a key echoed in part (`sk-proj-AbCdEfGh…`) — is replaced with
//!    [`REDACTED`] too.
//!
//! So the result holds no [`MIN_RUN`] consecutive characters of the text that are
//! [`MIN_RUN`] consecutive characters of the secret, wherever the secret was and
//! wherever the cut fell. A run of fewer characters is kept (every text shares short
//! runs with a key: `sk-`, a word).
//!
//! Internal (`#[doc(hidden)]`, outside the API promise): the provider codecs, and the
//! HTTP model, the MCP client, the CLI and the Python package build on it; a library user
//! sees the behaviour (`[redacted]` where a key was, a URL shown without its userinfo),
//! not these functions.
//!
//! ```
//! use agentloop_core::redact::bounded;
//!
//! let key = "sk-proj-0123456789abcdefghij";
//! let message = format!("Incorrect API key provided: {key}. Find yours at …");
//! assert_eq!(
//!     bounded(&message, Some(key), 40),
//!     "Incorrect API key provided: [redacted]. …"
//! );
//! // A provider that cut the key itself: the start it kept is redacted too.
//! assert_eq!(
//!     bounded("invalid key sk-proj-01234", Some(key), 1000),
//!     "invalid key [redacted]"
//! );
//! ```

use alloc::borrow::Cow;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What stands in a sentence where a secret was.
pub const REDACTED: &str = "[redacted]";

/// The fewest consecutive characters of a secret that are redacted when the secret is
/// not there whole.
pub const MIN_RUN: usize = 8;

/// `text` with `secret` (when given and not empty) left out, cut after `max_chars`
/// characters and marked with `…` when it was cut — in the order the
/// [module docs](self) give. `usize::MAX` cuts nothing. Without a secret, it is the
/// first `max_chars` characters, marked. The result has at most `max_chars` characters
/// and the `…`, plus 2 for each run of step 3 (a run of 8 becomes `[redacted]`).
/// Control characters are kept: escape them for a terminal after this, never before
/// (an escaped secret would no longer match), then pass the escaped text through
/// [`hide_runs`]: an escape writes digits and letters (`\u0010`) that, with the
/// characters beside them, may complete a run of the secret.
pub fn bounded(text: &str, secret: Option<&str>, max_chars: usize) -> String {
    let secret = secret.filter(|s| !s.is_empty());
    let (kept, cut) = whole_then_cut(text, secret, max_chars);
    let mut kept = match secret {
        Some(secret) => without_runs(kept, secret),
        None => kept,
    };
    if cut {
        kept.push('…');
    }
    kept
}

/// Steps 1 and 2 in one pass: the text up to `max_chars` characters, each whole
/// `secret` in it replaced, and whether anything was left out.
fn whole_then_cut(text: &str, secret: Option<&str>, max_chars: usize) -> (String, bool) {
    let mut out = String::new();
    let mut room = max_chars;
    let mut rest = text;
    loop {
        let found = secret.and_then(|s| rest.find(s).map(|at| (at, at + s.len())));
        let plain = &rest[..found.map_or(rest.len(), |(at, _)| at)];
        if let Some((end, _)) = plain.char_indices().nth(room) {
            out.push_str(&plain[..end]);
            return (out, true);
        }
        out.push_str(plain);
        room -= plain.chars().count();
        let Some((_, after)) = found else {
            return (out, false);
        };
        // REDACTED is ASCII: its length is its count of characters.
        if room < REDACTED.len() {
            return (out, true);
        }
        out.push_str(REDACTED);
        room -= REDACTED.len();
        rest = &rest[after..];
    }
}

/// Step 3 of [`bounded`] alone, for text that changed after it (escaped for a
/// sentence): each run of [`MIN_RUN`] or more characters of `text` that is also a run
/// of `secret` replaced with one [`REDACTED`]. Without a secret, `text` unchanged.
///
/// ```
/// use agentloop_core::redact::hide_runs;
///
/// // `\u0010` then `1234567`: the escape's last `0` completes `01234567`.
/// let escaped = "x\\u00101234567 y";
/// assert_eq!(hide_runs(escaped, Some("sk-0123456789")), "x\\u001[redacted] y");
/// ```
pub fn hide_runs(text: &str, secret: Option<&str>) -> String {
    match secret.filter(|s| !s.is_empty()) {
        Some(secret) => without_runs(String::from(text), secret),
        None => String::from(text),
    }
}

/// Step 3: each run of [`MIN_RUN`] or more characters of `text` that is also a run of
/// `secret` replaced with one [`REDACTED`]. A run is the union of the windows of
/// [`MIN_RUN`] characters it is made of, so looking the text's windows up among the
/// secret's finds every one.
fn without_runs(text: String, secret: &str) -> String {
    let secret: Vec<char> = secret.chars().collect();
    let windows: BTreeSet<&[char]> = secret.windows(MIN_RUN).collect();
    if windows.is_empty() {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut hidden = alloc::vec![false; chars.len()];
    let mut any = false;
    for (i, window) in chars.windows(MIN_RUN).enumerate() {
        if windows.contains(window) {
            hidden[i..i + MIN_RUN].fill(true);
            any = true;
        }
    }
    if !any {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in chars.iter().enumerate() {
        match (hidden[i], i > 0 && hidden[i - 1]) {
            (false, _) => out.push(*c),
            (true, false) => out.push_str(REDACTED),
            (true, true) => {}
        }
    }
    out
}

/// A URL's userinfo (`user:password` in `https://user:password@host/v1`), if it has
/// one: what comes before the last `@` of the authority, which ends at the first `/`,
/// `?` or `#` after the scheme's `://` (RFC 3986); without a scheme, the authority
/// starts the text.
///
/// ```
/// use agentloop_core::redact::userinfo;
///
/// assert_eq!(userinfo("https://user:pw@host/v1"), Some("user:pw"));
/// assert_eq!(userinfo("https://host/v1"), None);
/// ```
pub fn userinfo(url: &str) -> Option<&str> {
    let (_, authority, _) = split_url(url);
    authority.rfind('@').map(|at| &authority[..at])
}

/// `url` as it may be shown — in a start line, an event, an error sentence, a record:
/// without its userinfo (`https://user:password@host:8443/v1` →
/// `https://host:8443/v1`), the scheme, host, port, path and the rest as given. A URL
/// with no userinfo comes back as it is.
///
/// ```
/// use agentloop_core::redact::without_userinfo;
///
/// assert_eq!(without_userinfo("https://user:pw@host:8443/v1"), "https://host:8443/v1");
/// ```
pub fn without_userinfo(url: &str) -> Cow<'_, str> {
    let (scheme, authority, rest) = split_url(url);
    match authority.rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}{}{rest}", &authority[at + 1..])),
        None => Cow::Borrowed(url),
    }
}

/// A base URL as a run's setup records it (SPEC section 4, "What a run records"):
/// [`without_userinfo`], and without its query or fragment (either may hold a
/// credential: `?key=…`).
///
/// ```
/// use agentloop_core::redact::endpoint;
///
/// assert_eq!(endpoint("https://user:pw@api.example/v1?key=k#x"), "https://api.example/v1");
/// ```
pub fn endpoint(url: &str) -> String {
    let shown = without_userinfo(url);
    let end = shown.find(['?', '#']).unwrap_or(shown.len());
    String::from(&shown[..end])
}

/// `url` as (scheme with `://`, authority, the rest).
fn split_url(url: &str) -> (&str, &str, &str) {
    let start = url.find("://").map_or(0, |at| at + 3);
    let (scheme, after) = url.split_at(start);
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    (scheme, authority, rest)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_userinfo_is_left_out_and_the_rest_kept() {
        use super::{userinfo, without_userinfo};
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
    fn an_endpoint_keeps_no_credential() {
        for (given, recorded) in [
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
            (
                "https://user:secret@api.example/v1",
                "https://api.example/v1",
            ),
            (
                "https://api.example/v1?key=secret#frag",
                "https://api.example/v1",
            ),
            ("https://u@h/v1#x", "https://h/v1"),
        ] {
            assert_eq!(super::endpoint(given), recorded, "{given}");
        }
    }

    use alloc::format;
    use alloc::string::ToString;

    use super::*;

    /// A key of 164 characters, as Anthropic's are, with no run of [`MIN_RUN`] that
    /// repeats inside it or shows up in the text around it.
    fn key() -> String {
        let mut key = String::from("sk-ant-api03-");
        let mut x: u32 = 7;
        while key.len() < 164 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            key.push(char::from(alphabet[(x >> 16) as usize % alphabet.len()]));
        }
        key
    }

    /// Whether `text` holds a run of [`MIN_RUN`] characters of `key` (by std's own
    /// search, not the module's).
    fn leaks(text: &str, key: &str) -> bool {
        let key: Vec<char> = key.chars().collect();
        key.windows(MIN_RUN)
            .any(|w| text.contains(&w.iter().collect::<String>()))
    }

    #[test]
    fn the_key_is_redacted_before_the_cut_wherever_the_cut_falls() {
        let key = key();
        assert_eq!(key.len(), 164);
        for limit in [200, 1000] {
            for at in 0..limit + 20 {
                let text = format!("{}{key} and more after it", "m".repeat(at));
                let got = bounded(&text, Some(&key), limit);
                assert!(!leaks(&got, &key), "{limit} / {at}: {got}");
                assert!(got.chars().count() <= limit + 1, "{limit} / {at}");
                // The redaction shows wherever it fits whole; it is never cut in two.
                let fits = at + REDACTED.len() <= limit;
                assert_eq!(got.contains(REDACTED), fits, "{limit} / {at}: {got}");
                assert!(!got.contains("[redac…"), "{got}");
            }
        }
        // The red team's two cases: a JSON message cut at 1000 characters 127 into
        // the key, a body excerpt cut at 200 characters 95 into it.
        let message = format!("{}{key}", "x".repeat(1000 - 127));
        assert_eq!(
            bounded(&message, Some(&key), 1000),
            format!("{}[redacted]", "x".repeat(873))
        );
        let body = format!("Unauthorized: {}{key} end", "y".repeat(105 - 14));
        assert_eq!(
            bounded(&body, Some(&key), 200),
            format!("Unauthorized: {}[redacted] end", "y".repeat(91))
        );
    }

    #[test]
    fn runs_of_the_key_are_redacted_and_shorter_ones_kept() {
        let key = key();
        // The provider's own cut, or a key echoed in part: every run of 8 or more goes.
        for n in [MIN_RUN, MIN_RUN + 1, 100, 163] {
            let start = &key[..n];
            assert_eq!(
                bounded(&format!("bad key {start}"), Some(&key), 1000),
                "bad key [redacted]"
            );
            let middle = &key[164 - n..];
            assert_eq!(
                bounded(&format!("…{middle}… was refused"), Some(&key), 1000),
                "…[redacted]… was refused"
            );
        }
        // Two runs apart, and two overlapping runs: one mark each stretch.
        let text = format!("{} / {}{}", &key[..10], &key[20..30], &key[25..40]);
        assert_eq!(bounded(&text, Some(&key), 1000), "[redacted] / [redacted]");
        // Fewer than 8 characters of it stay, and so does everything else.
        let short = &key[..MIN_RUN - 1];
        let text = format!("keys look like {short}…");
        assert_eq!(bounded(&text, Some(&key), 1000), text);
        // A run at the very end of a cut.
        let text = format!("{}{}", "z".repeat(990), &key[..30]);
        assert_eq!(
            bounded(&text, Some(&key), 1000),
            format!("{}[redacted]…", "z".repeat(990))
        );
        let text = format!("{}{}", "z".repeat(993), &key[..30]);
        assert_eq!(
            bounded(&text, Some(&key), 1000),
            format!("{}{}…", "z".repeat(993), &key[..7])
        );
    }

    #[test]
    fn without_a_secret_it_cuts_by_characters() {
        assert_eq!(bounded("héllo", None, 10), "héllo");
        assert_eq!(bounded("héllo", None, 5), "héllo");
        assert_eq!(bounded("héllo", None, 2), "hé…");
        assert_eq!(bounded("héllo", None, 0), "…");
        assert_eq!(bounded("", None, 0), "");
        // An empty secret would match everywhere: it redacts nothing.
        assert_eq!(bounded("abc", Some(""), 2), "ab…");
        // A short secret is redacted whole, never in runs.
        assert_eq!(bounded("a k3y b k3", Some("k3y"), 100), "a [redacted] b k3");
        // Control characters are kept, for the caller to escape.
        assert_eq!(bounded("a\nb", Some("secret-key"), 100), "a\nb");
        // No cut at usize::MAX.
        let long = "w".repeat(10_000);
        assert_eq!(bounded(&long, Some("sk-0123456789"), usize::MAX), long);
        assert_eq!(
            bounded(
                &format!("{long}sk-0123456789"),
                Some("sk-0123456789"),
                usize::MAX
            ),
            format!("{long}[redacted]")
        );
    }

    #[test]
    fn non_ascii_secrets_and_texts_are_cut_on_characters() {
        let secret = "clé-très-secrète-ünïcödé";
        let text = format!(
            "é{secret}é{}",
            &secret[..secret.char_indices().nth(9).unwrap().0]
        );
        assert_eq!(bounded(&text, Some(secret), 100), "é[redacted]é[redacted]");
        assert_eq!(bounded(&text, Some(secret), 11), "é[redacted]…");
        assert_eq!(bounded(&text, Some(secret), 10), "é…");
        assert_eq!(REDACTED.chars().count(), REDACTED.len());
        assert_eq!(MIN_RUN.to_string(), "8");
    }
}
