//! Unit tests of the `pattern` engine: each translation matching and not, each refusal
//! with its position, the limits, and the property-name tables.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::classes::property_class;
use super::names::{BINARY, GENERAL_CATEGORY, SCRIPT};
use super::{
    LookAround, Pattern, PatternError, PatternErrorKind, SyntaxError, MAX_DENSE_DFA_BYTES,
    MAX_DENSE_NFA_STATES, MAX_GROUP_DEPTH, MAX_PATTERN_CHARS,
};

fn compile(pattern: &str) -> Pattern {
    Pattern::compile(pattern).unwrap_or_else(|e| panic!("{pattern:?} refused: {e}"))
}

/// Checks that `pattern` matches every string of `yes` and none of `no`, with its fully
/// compiled DFA (when it has one) and with the lazy DFA alike.
fn check(pattern: &str, yes: &[&str], no: &[&str]) {
    let p = compile(pattern);
    for s in yes {
        assert!(p.is_match(s), "{pattern:?} should match {s:?}");
        assert!(lazy(&p, s), "{pattern:?} should match {s:?} (lazy DFA)");
    }
    for s in no {
        assert!(!p.is_match(s), "{pattern:?} should not match {s:?}");
        assert!(
            !lazy(&p, s),
            "{pattern:?} should not match {s:?} (lazy DFA)"
        );
    }
}

/// [`Pattern::is_match`] by the lazy DFA, whatever engine the pattern has.
fn lazy(p: &Pattern, text: &str) -> bool {
    p.lazy_is_match(text)
}

fn refused(pattern: &str) -> PatternError {
    match Pattern::compile(pattern) {
        Err(e) => e,
        Ok(_) => panic!("{pattern:?} was accepted"),
    }
}

/// Checks that `pattern` is refused with `kind` at `position`.
fn refuses(pattern: &str, position: usize, kind: PatternErrorKind) {
    let e = refused(pattern);
    assert_eq!(
        (e.position, e.kind),
        (position, kind),
        "{pattern:?}: got {e}"
    );
}

fn syntax(pattern: &str, position: usize, error: SyntaxError) {
    refuses(pattern, position, PatternErrorKind::Syntax(error));
}

#[test]
fn literals_alternation_and_unanchored_search() {
    check("abc", &["abc", "xabcx"], &["ab", "acb", ""]);
    check("b?a", &["a", "xxa", "ba"], &["b", ""]);
    check("", &["", "anything"], &[]);
    check("^(a|bc)$", &["a", "bc"], &["abc", "b", ""]);
    check("a|", &["", "b"], &[]);
    check("é😀", &["xé😀"], &["é", "😀"]);
    // Characters that are syntax in other dialects but literal here.
    check("^,-:=!<>#&~'\"%@`_ $", &[",-:=!<>#&~'\"%@`_ "], &[]);
}

#[test]
fn anchors_are_the_whole_string() {
    check("^a$", &["a"], &["a\n", "\na", "ba", "ab"]);
    check("a$", &["ba", "a"], &["a\n", "ab"]);
    check("^a", &["ab"], &["ba", "\na"]);
    check("^$", &[""], &["\n"]);
    check("a^b", &[], &["ab", "a^b"]);
}

#[test]
fn dot_is_any_code_point_but_line_terminators() {
    check(
        "^.$",
        &["a", "😀", "\u{85}", "\u{0}", "\u{feff}", "\t"],
        &["\n", "\r", "\u{2028}", "\u{2029}", "", "ab"],
    );
}

#[test]
fn d_and_w_are_ascii() {
    check(
        "^\\d$",
        &["0", "5", "9"],
        &["a", "\u{663}", "\u{ff10}", "", "10"],
    );
    check("^\\D$", &["a", "\u{663}", "😀"], &["0", "9"]);
    check(
        "^\\w$",
        &["a", "z", "A", "Z", "0", "9", "_"],
        &["é", "-", "\u{17f}", "\u{212a}", " ", "$"],
    );
    check("^\\W$", &["é", "-", "\u{212a}", " "], &["a", "_", "7"]);
}

const SPACES: [char; 25] = [
    '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}',
    '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}',
    '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
];

#[test]
fn s_is_ecmascript_white_space_and_line_terminators() {
    let space = compile("^\\s$");
    let not_space = compile("^\\S$");
    for c in SPACES {
        let s = c.to_string();
        assert!(space.is_match(&s), "\\s should match U+{:04X}", c as u32);
        assert!(!not_space.is_match(&s), "\\S matches U+{:04X}", c as u32);
    }
    // Not white space in ECMAScript: NEL, the Mongolian vowel separator (no longer Zs),
    // zero-width space, the information separators U+001C–U+001F.
    for s in [
        "\u{85}", "\u{180e}", "\u{200b}", "\u{1c}", "\u{1f}", "a", "😀",
    ] {
        assert!(!space.is_match(s), "\\s matches {s:?}");
        assert!(not_space.is_match(s), "\\S should match {s:?}");
    }
    check("^[\\s]+$", &["\t \u{3000}"], &["\t a"]);
}

#[test]
fn word_boundaries_are_ecmascript_s_in_terms_of_ascii_w() {
    check(
        "\\bfoo\\b",
        &["foo", "a foo.", "(foo)"],
        &["afoo", "foob", "foo_"],
    );
    check("\\bé", &["aé"], &["é", " é"]);
    check("é\\b", &["éa"], &["é", "é "]);
    // ECMAScript: every position of "aéb" is a boundary (é is not a word character), so
    // `\B` cannot match: it must not match inside é's UTF-8 bytes either.
    check("\\B", &["é", "ab", "", " "], &["a", "aéb", "a b"]);
    check("a\\Bb", &["ab"], &["a b"]);
    check("é\\Bé", &["éé"], &[]);
    // An empty `\B` match inside a code point's bytes must neither count nor hide a real
    // match that starts before it (regex-automata's own unanchored search loses "Ω" here).
    check("\\B|Ω|\\t", &["BΩt", "Ω", "Bt"], &["B t"]);
    check("😀|\\B|.\\B|\\u{62}", &["1😀a", "b", "1a"], &["1 a"]);
    check("x.*y|\\B", &["xéxéy", "xéxé"], &["xéxéx", "aéaéa"]);
}

#[test]
fn character_escapes() {
    check("^\\t\\n\\v\\f\\r$", &["\t\n\u{b}\u{c}\r"], &["tnvfr"]);
    check("^\\cC\\cc\\cZ\\cj$", &["\u{3}\u{3}\u{1a}\n"], &["cC"]);
    check("^\\0$", &["\0"], &["0", ""]);
    check("^\\x41\\x7e\\xff$", &["A~ÿ"], &["x41"]);
    check("^\\u00e9\\u20AC$", &["é€"], &["u00e9"]);
    check("^\\u{1F600}\\u{41}\\u{0000000042}$", &["😀AB"], &[]);
    check("^\\u{10FFFF}$", &["\u{10ffff}"], &[]);
    // A surrogate pair written as two escapes is one code point, also in a class.
    check(
        "^\\ud83d\\ude00$",
        &["😀"],
        &["\u{fffd}\u{fffd}", "\u{fffd}"],
    );
    check("^[\\ud83d\\ude00]$", &["😀"], &[]);
    check("^\\ud83d\\ude00{2}$", &["😀😀"], &["😀"]);
    check("^[\\u{1F600}-\\u{1F64F}]+$", &["😀🙏"], &["😀a"]);
    for c in "^$\\.*+?()[]{}|/".chars() {
        let s = c.to_string();
        check(&format!("^\\{c}$"), &[&s], &["a"]);
        check(&format!("^[\\{c}]$"), &[&s], &["a"]);
    }
}

#[test]
fn invalid_escapes_are_refused() {
    syntax("\\", 0, SyntaxError::TrailingBackslash);
    syntax("a\\", 1, SyntaxError::TrailingBackslash);
    syntax("[\\", 1, SyntaxError::TrailingBackslash);
    for c in ['a', 'e', 'z', '_', '-', 'y', 'A', 'Z', 'M', '"', ' ', 'é'] {
        syntax(&format!("x\\{c}"), 1, SyntaxError::InvalidEscape(c));
    }
    syntax("[\\B]", 1, SyntaxError::InvalidEscape('B'));
    syntax("[\\1]", 1, SyntaxError::InvalidEscape('1'));
    syntax("[\\k]", 1, SyntaxError::InvalidEscape('k'));
    syntax("\\k", 0, SyntaxError::InvalidEscape('k'));
    syntax("\\00", 0, SyntaxError::InvalidEscape('0'));
    syntax("\\01", 0, SyntaxError::InvalidEscape('0'));
    syntax("[\\00]", 1, SyntaxError::InvalidEscape('0'));
    syntax("\\c", 0, SyntaxError::InvalidControlEscape);
    syntax("\\c1", 0, SyntaxError::InvalidControlEscape);
    syntax("[\\c_]", 1, SyntaxError::InvalidControlEscape);
    syntax("\\x4", 0, SyntaxError::InvalidHexEscape);
    syntax("\\x4g", 0, SyntaxError::InvalidHexEscape);
    syntax("\\u12", 0, SyntaxError::InvalidUnicodeEscape);
    syntax("\\u{}", 0, SyntaxError::InvalidUnicodeEscape);
    syntax("\\u{110000}", 0, SyntaxError::InvalidUnicodeEscape);
    syntax("\\u{FFFFFFFFFFFF}", 0, SyntaxError::InvalidUnicodeEscape);
    syntax("\\u{41", 0, SyntaxError::InvalidUnicodeEscape);
    syntax("\\u{4g}", 0, SyntaxError::InvalidUnicodeEscape);
}

#[test]
fn lone_surrogates_are_refused() {
    let lone = PatternErrorKind::LoneSurrogate;
    refuses("\\ud83d", 0, lone);
    refuses("a\\udc00", 1, lone);
    refuses("\\u{d800}", 0, lone);
    refuses("\\ud83d\\u{de00}", 0, lone);
    refuses("\\ud83d\\u0041", 0, lone);
    refuses("\\ude00\\ud83d", 0, lone);
    refuses("[\\ud800-\\udfff]", 1, lone);
    refuses("[a\\udfff]", 2, lone);
}

#[test]
fn character_classes() {
    check("^[a-c]$", &["a", "b", "c"], &["d", "`", "A"]);
    check("^[^a-c]$", &["d", "😀", "\n"], &["a", "b", ""]);
    check("^[a-]$", &["a", "-"], &["b"]);
    check("^[-a]$", &["a", "-"], &["b"]);
    check("^[a-b-d]$", &["a", "b", "-", "d"], &["c"]);
    check("^[--/]$", &["-", ".", "/"], &["0"]);
    check("^[\\d-]$", &["5", "-"], &["a"]);
    check("^[\\w.]+$", &["a.b_1"], &["a-b"]);
    check("^[^\\d\\s]$", &["a"], &["1", " "]);
    check("^[\\D]$", &["a"], &["1"]);
    check("^[\\W\\d]$", &["1", "-"], &["a"]);
    check("[]", &[], &["", "a", "[]"]);
    check("a[]", &[], &["a"]);
    check("^[^]$", &["a", "\n", "😀"], &["", "ab"]);
    check("^[\\b]$", &["\u{8}"], &["b"]);
    check("^[[]$", &["["], &["]"]);
    check("^[\\]]$", &["]"], &["\\"]);
    check("^[\\-]$", &["-"], &["\\"]);
    check("^[.]$", &["."], &["a"]);
    check("^[*+?(){}|^$]+$", &["*+?(){}|^$"], &["a"]);
    check("^[\\p{Lu}\\d]+$", &["A1Ä"], &["a"]);
    check("^[^\\P{Lu}]$", &["A"], &["a", "1"]);
    check("^[é-ë😀]$", &["é", "ê", "ë", "😀"], &["e"]);
    check("^[\\x00-\\x1f]$", &["\u{0}", "\u{1f}"], &[" "]);
    syntax("[z-a]", 1, SyntaxError::RangeOutOfOrder);
    syntax("x[😀-a]", 2, SyntaxError::RangeOutOfOrder);
    syntax("[a--]", 1, SyntaxError::RangeOutOfOrder);
    syntax("[\\w-z]", 1, SyntaxError::ClassEscapeInRange);
    syntax("[a-\\d]", 1, SyntaxError::ClassEscapeInRange);
    syntax("[\\p{L}-z]", 1, SyntaxError::ClassEscapeInRange);
    syntax("[a", 0, SyntaxError::UnclosedClass);
    syntax("x[a-", 1, SyntaxError::UnclosedClass);
    syntax("[^", 0, SyntaxError::UnclosedClass);
    syntax("[", 0, SyntaxError::UnclosedClass);
}

#[test]
fn unicode_properties_with_ecmascript_names() {
    for p in [
        "\\p{L}",
        "\\p{Letter}",
        "\\p{gc=L}",
        "\\p{General_Category=Letter}",
    ] {
        check(
            &format!("^{p}$"),
            &["a", "é", "Ω", "中"],
            &["1", " ", "😀", "_"],
        );
    }
    check("^\\p{Lu}$", &["A", "Ω"], &["a", "ω"]);
    check("^\\p{gc=Lu}$", &["É"], &["é"]);
    check("^\\P{Lu}$", &["a", "1"], &["A"]);
    check("^\\p{Nd}+$", &["12\u{663}"], &["a"]);
    check("^\\p{digit}+$", &["\u{663}"], &["a"]);
    check("^\\p{punct}$", &["!", "¿"], &["a"]);
    check("^\\p{Combining_Mark}$", &["\u{301}"], &["a"]);
    for p in [
        "\\p{Script=Greek}",
        "\\p{sc=Greek}",
        "\\p{sc=Grek}",
        "\\p{Script_Extensions=Greek}",
        "\\p{scx=Grek}",
    ] {
        check(&format!("^{p}+$"), &["αβγ", "Ω"], &["a", "1"]);
    }
    // Script_Extensions is wider than Script: U+0342 (combining perispomeni) is
    // Inherited by Script, Greek by Script_Extensions.
    check("\\p{scx=Grek}", &["\u{342}"], &[]);
    check("\\p{sc=Grek}", &[], &["\u{342}"]);
    check("^\\p{Alphabetic}$", &["a", "中"], &["1"]);
    check("^\\p{Alpha}$", &["a"], &["1"]);
    check("^\\p{ASCII}+$", &["a\u{0}\u{7f}"], &["é"]);
    check("^\\p{Any}$", &["a", "\n", "😀"], &["", "ab"]);
    check("^\\p{Assigned}$", &["a"], &["\u{378}"]);
    check("^\\p{Emoji_Presentation}$", &["😀"], &["a"]);
    check("^\\p{White_Space}+$", &[" \t\u{85}"], &["a"]);
    check("\\p{Cs}", &[], &["a", "\u{fffd}"]);
    // Unknown: what no script has (unassigned, private use, noncharacters).
    for p in [
        "^\\p{sc=Zzzz}$",
        "^\\p{Script=Unknown}$",
        "^\\p{scx=Unknown}$",
    ] {
        check(
            p,
            &["\u{378}", "\u{e000}", "\u{ffff}"],
            &["a", "1", " ", "\u{342}"],
        );
    }
    check("^\\P{Cs}$", &["a", "😀"], &[]);
    let unknown = PatternErrorKind::UnknownProperty;
    // ECMAScript's names are exact: no loose matching, no script without `Script=`.
    for (p, at) in [
        ("\\p{letter}", 0),
        ("\\p{LETTER}", 0),
        ("\\p{lu}", 0),
        ("\\p{Greek}", 0),
        ("\\p{Script=greek}", 0),
        ("\\p{Script=Lu}", 0),
        ("\\p{gc=Greek}", 0),
        ("\\p{Foo}", 0),
        ("\\p{Foo=Bar}", 0),
        ("\\p{Block=Basic_Latin}", 0),
        ("a[\\P{Uppercase_letter}]", 2),
        // Defined by ECMAScript, but regex-syntax has no table for it.
        ("\\p{Changes_When_NFKC_Casefolded}", 0),
    ] {
        refuses(p, at, unknown);
    }
    for (p, at) in [
        ("\\p", 0),
        ("\\pL", 0),
        ("\\p{}", 0),
        ("\\p{L", 0),
        ("\\p{gc=}", 0),
        ("\\p{=L}", 0),
        ("\\p{gc=L=M}", 0),
        ("\\p{L M}", 0),
        ("a[\\P]", 2),
    ] {
        syntax(p, at, SyntaxError::InvalidPropertyEscape);
    }
}

#[test]
fn groups() {
    check("^(ab)+$", &["ab", "abab"], &["", "aba"]);
    check("^(?:ab)+$", &["abab"], &["a"]);
    check("^(?<word>ab)+$", &["abab"], &["a"]);
    check("^()$", &[""], &["a"]);
    check("^(?:)+$", &[""], &["a"]);
    check("^((a)|(b(c)))*$", &["abca", ""], &["c", "abcab"]);
    // Names: ECMAScript identifiers, escapes allowed; a repeat only in another alternative.
    for name in [
        "a", "$", "_", "$_a1", "é", "ǅ", "\\u0061", "\\u{61}b", "a\\u200d", "Ωμ",
    ] {
        check(&format!("^(?<{name}>x)$"), &["x"], &["y"]);
    }
    check("^(?:(?<a>x)|(?<a>y))$", &["x", "y"], &["xy"]);
    check("(?<a>x)|((?<a>y))", &["y"], &[]);
    syntax("(?<a>x)(?<a>y)", 7, SyntaxError::DuplicateGroupName);
    syntax("(?<a>(?<a>x))", 5, SyntaxError::DuplicateGroupName);
    syntax("(?:(?<a>x)|y)(?<a>z)", 13, SyntaxError::DuplicateGroupName);
    syntax(
        "(?<a>x)|(?<b>y)(?<b>z)",
        15,
        SyntaxError::DuplicateGroupName,
    );
    for (p, at) in [
        ("(?<>x)", 3),
        ("(?<1a>x)", 3),
        ("(?<a-b>x)", 4),
        ("(?<a", 3),
        ("(?<a b>x)", 4),
        ("(?<\\x61>x)", 3),
        ("(?<a\\u0020>x)", 4),
        ("(?<😀>x)", 3),
    ] {
        syntax(p, at, SyntaxError::InvalidGroupName);
    }
    syntax("(a", 0, SyntaxError::UnclosedGroup);
    syntax("x((a)", 1, SyntaxError::UnclosedGroup);
    syntax("(?:a", 0, SyntaxError::UnclosedGroup);
    syntax("a)", 1, SyntaxError::UnmatchedParen);
    syntax("(a))", 3, SyntaxError::UnmatchedParen);
    syntax(")", 0, SyntaxError::UnmatchedParen);
    syntax("(?", 0, SyntaxError::InvalidGroup);
    syntax("(?x)", 0, SyntaxError::InvalidGroup);
    syntax("(?P<a>x)", 0, SyntaxError::InvalidGroup);
    syntax("(?>a)", 0, SyntaxError::InvalidGroup);
    refuses("(?i:a)", 0, PatternErrorKind::Modifiers);
    refuses("a(?-i:a)", 1, PatternErrorKind::Modifiers);
    refuses("(?s)", 0, PatternErrorKind::Modifiers);
}

#[test]
fn quantifiers_greedy_and_lazy() {
    check("^a*$", &["", "aaa"], &["b"]);
    check("^a+$", &["a", "aa"], &[""]);
    check("^a?$", &["", "a"], &["aa"]);
    check("^a{2}$", &["aa"], &["a", "aaa"]);
    check("^a{2,}$", &["aa", "aaaaa"], &["a"]);
    check("^a{2,3}$", &["aa", "aaa"], &["a", "aaaa"]);
    check("^a{0}$", &[""], &["a"]);
    check("^a{0,0}b$", &["b"], &["ab"]);
    check("^a{002}$", &["aa"], &["a"]);
    // Laziness changes which match is found, never whether one is.
    check("^a*?$", &["", "aaa"], &["b"]);
    check("^a+?$", &["a", "aa"], &[""]);
    check("^a??$", &["", "a"], &["aa"]);
    check("^a{2}?$", &["aa"], &["a"]);
    check("^a{2,}?$", &["aaa"], &["a"]);
    check("^a{2,3}?$", &["aaa"], &["aaaa"]);
    check("^(?:ab){2}$", &["abab"], &["ab"]);
    check("^[ab]{3}$", &["aba"], &["abc"]);
    check("^\\d{3}-\\d{4}$", &["555-1234"], &["555-123"]);
    check("^.{1,3}$", &["😀😀😀"], &["😀😀😀😀"]);
    check("^(?:a|)*$", &["", "aa"], &["b"]);
    check("^(?:a*)*b$", &["b", "aab"], &["aa"]);
}

#[test]
fn dangling_quantifiers_and_lone_brackets_are_refused() {
    let nothing = SyntaxError::NothingToRepeat;
    for (p, at) in [
        ("*a", 0),
        ("+", 0),
        ("?", 0),
        ("a**", 2),
        ("a*+", 2),
        ("a???", 3),
        ("a{2}{3}", 4),
        ("a{1000}{1000}", 7),
        ("^*", 1),
        ("$+", 1),
        ("\\b+", 2),
        ("\\B{2}", 2),
        ("a|*", 2),
        ("(*)", 1),
        ("{2}", 0),
        ("x(?:{1,2})", 4),
    ] {
        syntax(p, at, nothing);
    }
    for (p, at, c) in [
        ("{", 0, '{'),
        ("a{", 1, '{'),
        ("a{,5}", 1, '{'),
        ("a{1,2", 1, '{'),
        ("a{1;2}", 1, '{'),
        ("a{x}", 1, '{'),
        ("}", 0, '}'),
        ("a}", 1, '}'),
        ("]", 0, ']'),
        ("a]", 1, ']'),
    ] {
        syntax(p, at, SyntaxError::LoneBracket(c));
    }
    syntax("a{3,2}", 1, SyntaxError::QuantifierOutOfOrder);
    syntax(
        "a{99999999999999999999,1}",
        1,
        SyntaxError::QuantifierOutOfOrder,
    );
    refuses("a{4294967296}", 1, PatternErrorKind::CountTooLarge);
    refuses("a{1,4294967296}", 1, PatternErrorKind::CountTooLarge);
    refuses(
        "a{99999999999999999999999}",
        1,
        PatternErrorKind::CountTooLarge,
    );
}

#[test]
fn look_around_and_back_references_are_refused_where_they_start() {
    for (p, at, look) in [
        ("(?=a)", 0, LookAround::Ahead),
        ("ab(?=c)", 2, LookAround::Ahead),
        ("x(?!a)", 1, LookAround::NegativeAhead),
        ("(?<=a)b", 0, LookAround::Behind),
        ("(?<!a)b", 0, LookAround::NegativeBehind),
        ("((?=a))", 1, LookAround::Ahead),
        ("[(?=a)]|(?!b)", 8, LookAround::NegativeAhead),
        // Positions count code points: not 4 bytes, not 2 UTF-16 units.
        ("😀(?=a)", 1, LookAround::Ahead),
    ] {
        refuses(p, at, PatternErrorKind::LookAround(look));
    }
    let back = PatternErrorKind::BackReference;
    refuses("(a)\\1", 3, back);
    refuses("\\9", 0, back);
    refuses("(?<a>x)\\k<a>", 7, back);
    refuses("\\k<a>(?<a>x)", 0, back);
    refuses("é(a)\\10", 4, back);
    // In a class, `(?=` is just characters.
    check("^[(?=]+$", &["(?="], &["a"]);
}

#[test]
fn messages_name_the_position_and_the_reason() {
    let cases = [
        (
            "abc(?=d)",
            "look-around '(?=' at position 3 has no linear-time meaning",
        ),
        (
            "(?<!a)",
            "look-around '(?<!' at position 0 has no linear-time meaning",
        ),
        (
            "(a)\\1",
            "back-reference at position 3 has no linear-time meaning",
        ),
        (
            "a**",
            "syntax error: quantifier has nothing to repeat at position 2",
        ),
        ("a)", "syntax error: ')' closes no group at position 1"),
        (
            "\\a",
            "syntax error: '\\a' is not an escape ECMAScript defines with the u flag at position 0",
        ),
        (
            "[z-a]",
            "syntax error: class range out of order at position 1",
        ),
        (
            "\\ud800",
            "escape names a lone surrogate, which no JSON string contains at position 0",
        ),
        (
            "\\p{letter}",
            "unknown Unicode property (names are ECMAScript's exact ones: L, Letter, \
             Script=Greek, …) at position 0",
        ),
        (
            "(?i:a)",
            "inline modifiers '(?…:' are not supported at position 0",
        ),
        (
            "a{9999999999}",
            "repetition count above 4294967295 at position 1",
        ),
        (
            "(?:a{1000}){1000}",
            "pattern compiles to an automaton larger than 8388608 bytes",
        ),
    ];
    for (pattern, message) in cases {
        assert_eq!(refused(pattern).to_string(), message, "{pattern:?}");
    }
}

#[test]
fn limits() {
    let longest = "a".repeat(MAX_PATTERN_CHARS);
    assert!(compile(&longest).is_match(&longest));
    refuses(
        &"a".repeat(MAX_PATTERN_CHARS + 1),
        MAX_PATTERN_CHARS,
        PatternErrorKind::TooLong,
    );
    // Counted in code points, not bytes.
    assert!(Pattern::compile(&"é".repeat(MAX_PATTERN_CHARS)).is_ok());

    let nest = |n: usize| "(".repeat(n) + "a" + &")".repeat(n);
    assert!(compile(&nest(MAX_GROUP_DEPTH)).is_match("a"));
    refuses(
        &nest(MAX_GROUP_DEPTH + 1),
        MAX_GROUP_DEPTH,
        PatternErrorKind::TooDeep,
    );
    refuses(
        &"(?:".repeat(1000),
        MAX_GROUP_DEPTH * 3,
        PatternErrorKind::TooDeep,
    );

    for p in [
        "(?:a{1000}){1000}",
        "((a{100}){100}){100}",
        "a{1000000}",
        "[\\s\\S]{0,100000}",
        "\\p{L}{1000}",
        "^\\p{L}{1,200}$",
        "(?:(?:(?:(?:\\w{50}){50}){50}){50}){50}",
        "x{4294967295}",
    ] {
        refuses(p, 0, PatternErrorKind::TooLarge);
    }
    // The longest patterns of the costliest sets: each set is built from the tables once
    // (Script=Unknown is the complement of 170 scripts), however often it is named.
    for unit in ["\\p{sc=Zzzz}", "[\\p{L}\\P{scx=Zzzz}]"] {
        let p = unit.repeat(MAX_PATTERN_CHARS / unit.chars().count());
        refuses(&p, 0, PatternErrorKind::TooLarge);
    }
    let name = format!("(?<a{}>)", "é".repeat(MAX_PATTERN_CHARS - 6));
    assert!(compile(&name).is_match(""));
    // Realistic patterns are well inside the bound.
    for p in [
        "^[\\p{L}\\p{N}_-]{1,64}$",
        "^\\p{L}{1,100}$",
        "^[\\p{L}\\p{M}\\s'-]{1,100}$",
        "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$",
        "^[^@\\s]{1,64}@[^@\\s]{1,255}$",
        "^(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?$",
        "^https?://[\\w.-]+(?::\\d{1,5})?(?:/[\\w./%-]*)?$",
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "^[^\\n]{1,5000}$",
        "a{100000}",
        // An empty repetition collapses to one empty match.
        "(?:){4294967295}",
    ] {
        compile(p);
    }
}

#[test]
fn small_patterns_are_fully_compiled_within_the_bound() {
    // (pattern, whether it gets a fully compiled DFA)
    let cases = [
        ("^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$", true),
        ("^[A-Za-z0-9._-]+$", true),
        ("^[a-z0-9-]{1,39}$", true),
        ("^(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?$", true),
        (
            "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            true,
        ),
        ("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", true),
        ("\\bis\\b|\\Bé", true),
        ("^(a+)+$", true),
        ("", true),
        ("a{100}", true),
        ("^[a-zA-Z0-9_-]{1,64}$", true),
        // 313 automaton states, a 41 KB table.
        ("^a{300}", true),
        // Too many automaton states (413; its table, 54 KB, would fit), or too large a
        // table: the lazy DFA.
        ("^a{400}", false),
        ("^a{600}", false),
        ("a{100000}", false),
        ("^\\p{L}{1,100}$", false),
        ("^[^\\n]{1,5000}$", false),
    ];
    let texts = [
        "",
        "a",
        "rust-lang",
        "-rust",
        "rust clippy",
        "octocat",
        "Octo Cat",
        "12:59",
        "24:00",
        "0f8fad5b-d19b-4de6-a3b7-8a5f6c1d4b2e",
        "a@b.c",
        "@b.c",
        "this is é",
        "aaaa!",
        "é😀",
        "\n",
    ];
    assert!((313..413).contains(&MAX_DENSE_NFA_STATES));
    for (pattern, dense) in cases {
        let p = compile(pattern);
        let bytes = p.dense_bytes();
        assert_eq!(bytes.is_some(), dense, "{pattern:?}: {bytes:?}");
        assert!(
            bytes.is_none_or(|b| b <= MAX_DENSE_DFA_BYTES),
            "{pattern:?}: {bytes:?}"
        );
        for text in texts {
            assert_eq!(p.is_match(text), lazy(&p, text), "{pattern:?} on {text:?}");
        }
    }
}

#[test]
fn the_catastrophic_pattern_is_linear() {
    let p = compile("^(a+)+$");
    let mut text = "a".repeat(50);
    assert!(p.is_match(&text));
    text.push('!');
    assert!(!p.is_match(&text));
    // And much longer: a backtracking engine would never finish these.
    let long = "a".repeat(100_000) + "!";
    assert!(!p.is_match(&long));
    assert!(!compile("^(a|a)*$").is_match(&long));
    assert!(!compile("^(\\w+\\s?)*$").is_match(&long));
    assert!(!compile("(x+x+)+y").is_match(&"x".repeat(100_000)));
}

#[test]
fn pattern_is_clone_debug_and_equal_by_source() {
    let p = compile("^a+$");
    let q = p.clone();
    assert_eq!(p, q);
    assert_eq!(q.source(), "^a+$");
    assert!(q.is_match("aa"));
    assert_ne!(p, compile("^a+?$"));
    assert_eq!(format!("{p:?}"), "Pattern(\"^a+$\")");
    // A compiled schema is shared between threads: so must its patterns be.
    fn shareable<T: Send + Sync>(_: &T) {}
    shareable(&p);
}

#[test]
fn every_property_name_resolves() {
    for table in [GENERAL_CATEGORY, SCRIPT, BINARY] {
        for pair in table.windows(2) {
            assert!(pair[0].0 < pair[1].0, "not sorted: {pair:?}");
        }
    }
    let mut missing = Vec::new();
    for (alias, _) in GENERAL_CATEGORY {
        for (name, value) in [
            (*alias, None),
            ("gc", Some(*alias)),
            ("General_Category", Some(*alias)),
        ] {
            if property_class(name, value).is_none() {
                missing.push(format!("{name} {value:?}"));
            }
        }
    }
    for (alias, _) in SCRIPT {
        for name in ["sc", "Script", "scx", "Script_Extensions"] {
            match property_class(name, Some(alias)) {
                Some(set) if !set.ranges().is_empty() => {}
                _ => missing.push(format!("{name}={alias}")),
            }
        }
    }
    for (alias, _) in BINARY {
        match property_class(alias, None) {
            Some(set) if !set.ranges().is_empty() => {}
            _ => missing.push(String::from(*alias)),
        }
    }
    assert!(missing.is_empty(), "do not resolve: {missing:?}");
    assert_eq!(
        (GENERAL_CATEGORY.len(), SCRIPT.len(), BINARY.len()),
        (80, 336, 96)
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Any text compiles or is refused at a position inside it, without panicking; what
    /// compiles matches any text without panicking.
    #[test]
    fn compile_never_panics(
        pattern in "[\\\\()\\[\\]{}|?*+.^$:=!<>ka-c0-9,\\-pPuxdDwWsSbB_é😀 ]{0,24}",
        text in "[a-c0-9 _é😀\n-]{0,12}",
    ) {
        match Pattern::compile(&pattern) {
            Ok(p) => {
                // Both engines, and the same answer.
                proptest::prop_assert_eq!(p.is_match(&text), lazy(&p, &text), "{:?} on {:?}", pattern, text);
            }
            Err(e) => proptest::prop_assert!(e.position <= pattern.chars().count(), "{e}"),
        }
    }
}
