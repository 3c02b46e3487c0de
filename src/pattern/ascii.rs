//! The ASCII build of a pattern, up to its HIR (regex-syntax's high-level
//! form): ASCII case folding and classes over bytes.
//!
//! On a pure-ASCII text (most English turns), Layer 1 runs this cheaper
//! build of each built-in pattern (see `matcher`): its NFA is less than
//! half the size of the Unicode build's, and costs about half as much to
//! translate and compile as the Unicode build does to parse and compile.
//! Capture groups are dropped (Layer 1 only asks whether a pattern matches).

use regex_syntax::ast::{Ast, ClassSet, ClassSetItem};
use regex_syntax::hir::Hir;

/// The ASCII build's HIR of `pattern`: ASCII case folding and classes over
/// bytes. `None` when the pattern has no ASCII build (a Unicode class such
/// as `\p{Han}`, Unicode mode turned off, a syntax error).
pub fn translate(pattern: &str) -> Option<Hir> {
    if turns_unicode_off(pattern) {
        return None;
    }
    let mut ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .ok()?;
    keep_ascii_in_classes(&mut ast);
    regex_syntax::hir::translate::TranslatorBuilder::new()
        .case_insensitive(true)
        .unicode(false)
        .utf8(false)
        .build()
        .translate(pattern, &ast)
        .ok()
}

/// Whether a flag group in `pattern` turns Unicode mode off (`(?-u)`,
/// `(?i-u:…)`): such a pattern could allow what the Unicode build refuses
/// (bytes that are not UTF-8), so it takes the Unicode build. It may say
/// yes where an escaped `\(?` looks like one, which only costs speed.
fn turns_unicode_off(pattern: &str) -> bool {
    pattern.match_indices("(?").any(|(at, _)| {
        let flags: String = pattern[at + 2..]
            .chars()
            .take_while(|c| "imsRUux-".contains(*c))
            .collect();
        flags
            .split_once('-')
            .is_some_and(|(_, off)| off.contains('u'))
    })
}

/// Drops the non-ASCII members of every bracketed class (`[.—]` becomes
/// `[.]`), which the ASCII build refuses and which cannot match ASCII text.
/// Exact on ASCII text for union, intersection, difference and negation
/// alike, since each commutes with keeping the ASCII part. A range that
/// starts in ASCII keeps its ASCII part. (`\p{..}` is left: it can match
/// ASCII, and the ASCII build then refuses the pattern.)
fn keep_ascii_in_classes(ast: &mut Ast) {
    match ast {
        Ast::ClassBracketed(class) => keep_ascii_in_set(&mut class.kind),
        Ast::Repetition(r) => keep_ascii_in_classes(&mut r.ast),
        Ast::Group(g) => keep_ascii_in_classes(&mut g.ast),
        Ast::Alternation(a) => a.asts.iter_mut().for_each(keep_ascii_in_classes),
        Ast::Concat(c) => c.asts.iter_mut().for_each(keep_ascii_in_classes),
        _ => {}
    }
}

fn keep_ascii_in_set(set: &mut ClassSet) {
    match set {
        ClassSet::Item(item) => keep_ascii_in_item(item),
        ClassSet::BinaryOp(op) => {
            keep_ascii_in_set(&mut op.lhs);
            keep_ascii_in_set(&mut op.rhs);
        }
    }
}

fn keep_ascii_in_item(item: &mut ClassSetItem) {
    match item {
        ClassSetItem::Literal(l) if !l.c.is_ascii() => *item = ClassSetItem::Empty(l.span),
        ClassSetItem::Range(r) if !r.start.c.is_ascii() => *item = ClassSetItem::Empty(r.span),
        ClassSetItem::Range(r) if !r.end.c.is_ascii() => r.end.c = '\x7f',
        ClassSetItem::Bracketed(b) => keep_ascii_in_set(&mut b.kind),
        ClassSetItem::Union(u) => u.items.iter_mut().for_each(keep_ascii_in_item),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_without_an_ascii_build() {
        assert!(translate(r"\p{Han}+").is_none());
        assert!(translate(r"[\p{Han}a]").is_none());
        assert!(translate(r"(?-u:\xFF)").is_none());
        assert!(translate(r"(?i-u)\xFF").is_none());
        assert!(translate("a(b").is_none());
        assert!(translate("a follow-up").is_some());
    }
}
