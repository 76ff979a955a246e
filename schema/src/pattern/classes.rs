//! The translator's free helpers: the sets of `.`, `\s` and ASCII ranges, literals,
//! the group-name alternative test, and the `\p{…}` name resolution and property sets
//! from regex-syntax's tables.

use alloc::string::String;

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};

use super::names;

/// Whether two groups at `a` and `b` (paths of (disjunction, alternative)) are in
/// different alternatives of one disjunction, so at most one of them takes part in a match.
pub(super) fn separate_alternatives(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .is_some_and(|(x, y)| x.0 == y.0)
}

pub(super) fn literal(c: char) -> Hir {
    let mut buf = [0; 4];
    Hir::literal(c.encode_utf8(&mut buf).as_bytes())
}

pub(super) fn ascii_set(ranges: &[(char, char)]) -> ClassUnicode {
    ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
}

/// `.`: anything but the line terminators.
pub(super) fn dot() -> ClassUnicode {
    let mut set = ascii_set(&[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')]);
    set.negate();
    set
}

/// `\s`: ECMAScript's WhiteSpace (with every Zs) and LineTerminator.
pub(super) fn space() -> ClassUnicode {
    ascii_set(&[
        ('\t', '\r'),
        (' ', ' '),
        ('\u{a0}', '\u{a0}'),
        ('\u{1680}', '\u{1680}'),
        ('\u{2000}', '\u{200a}'),
        ('\u{2028}', '\u{2029}'),
        ('\u{202f}', '\u{202f}'),
        ('\u{205f}', '\u{205f}'),
        ('\u{3000}', '\u{3000}'),
        ('\u{feff}', '\u{feff}'),
    ])
}

/// Whether `c` is in `set` (its ranges are sorted and disjoint).
pub(super) fn contains(set: &ClassUnicode, c: char) -> bool {
    set.ranges()
        .binary_search_by(|r| {
            if r.end() < c {
                core::cmp::Ordering::Less
            } else if r.start() > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn lookup(table: &[(&'static str, &'static str)], name: &str) -> Option<&'static str> {
    table
        .binary_search_by(|(alias, _)| (*alias).cmp(name))
        .ok()
        .map(|i| table[i].1)
}

/// The canonical `(property, value)` that `\p{name}` or `\p{name=value}` names (`""` for
/// a binary property), if the names are ECMAScript's exact spelling of a property these
/// tables have.
pub(super) fn resolve(name: &str, value: Option<&str>) -> Option<(&'static str, &'static str)> {
    Some(match value {
        None => match lookup(names::GENERAL_CATEGORY, name) {
            Some(canonical) => ("gc", canonical),
            None => ("", lookup(names::BINARY, name)?),
        },
        Some(value) => match name {
            "General_Category" | "gc" => ("gc", lookup(names::GENERAL_CATEGORY, value)?),
            "Script" | "sc" => ("sc", lookup(names::SCRIPT, value)?),
            "Script_Extensions" | "scx" => ("scx", lookup(names::SCRIPT, value)?),
            _ => return None,
        },
    })
}

/// The set `\p{name}` or `\p{name=value}` denotes, if `resolve` knows the names.
#[cfg(test)]
pub(super) fn property_class(name: &str, value: Option<&str>) -> Option<ClassUnicode> {
    let (property, value) = resolve(name, value)?;
    canonical_class(property, value)
}

/// The set of a canonical `(property, value)`.
pub(super) fn canonical_class(property: &str, value: &str) -> Option<ClassUnicode> {
    match (property, value) {
        // No Rust string holds a surrogate, so regex-syntax has no table for them.
        ("gc", "Surrogate") => Some(ClassUnicode::empty()),
        // regex-syntax has no table for Script=Unknown (Zzzz): it is what no other script
        // has, and Script_Extensions=Unknown is the same set.
        ("sc" | "scx", "Unknown") => {
            let mut known = ClassUnicode::empty();
            for (alias, canonical) in names::SCRIPT {
                if alias == canonical && *canonical != "Unknown" {
                    known.union(&unicode_class("sc", canonical)?);
                }
            }
            known.negate();
            Some(known)
        }
        (property, value) => unicode_class(property, value),
    }
}

/// The class regex-syntax's tables give for `\p{name=value}` (canonical names; `name`
/// empty for a binary property `value`). The AST node is built here rather than parsed
/// from text, so the binary carries regex-syntax's translator and tables but not its
/// parser.
fn unicode_class(name: &str, value: &str) -> Option<ClassUnicode> {
    use regex_syntax::ast::{self, Ast, Position, Span};
    let kind = if name.is_empty() {
        ast::ClassUnicodeKind::Named(String::from(value))
    } else {
        ast::ClassUnicodeKind::NamedValue {
            op: ast::ClassUnicodeOpKind::Equal,
            name: String::from(name),
            value: String::from(value),
        }
    };
    let class = Ast::class_unicode(ast::ClassUnicode {
        span: Span::splat(Position::new(0, 1, 1)),
        negated: false,
        kind,
    });
    let hir = regex_syntax::hir::translate::Translator::new()
        .translate("", &class)
        .ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(set)) => Some(set.clone()),
        HirKind::Class(Class::Bytes(set)) if set.ranges().is_empty() => Some(ClassUnicode::empty()),
        // A one-character set comes back as a literal.
        HirKind::Literal(bytes) => {
            let mut chars = core::str::from_utf8(&bytes.0).ok()?.chars();
            let c = chars.next()?;
            chars.next().is_none().then(|| ascii_set(&[(c, c)]))
        }
        _ => None,
    }
}
