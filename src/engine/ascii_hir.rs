//! The ASCII build of a pattern, up to its HIR (regex-syntax's high-level
//! form), and a compact text encoding of that HIR.
//!
//! On a pure-ASCII text, Layer 1 runs a cheaper build of each pattern (see
//! `engine::matcher`). Parsing and translating a pattern costs about as much
//! as compiling its NFA, so `build.rs` (which includes this file) does it
//! for the built-in patterns and embeds the encoded HIR; the hook decodes it
//! in a few microseconds. A user's pattern is translated at run time.
//!
//! Encoding, in prefix form: `e` empty; `l<n>:<hex>` a literal of n bytes;
//! `b<n>:<hex>` a byte class of n ranges (4 hex digits each); `k<n>:` a
//! look-around by its `Look::as_repr`; `r<min>,<max>,<greedy>:` then the
//! repeated HIR (`max` empty when unbounded); `&<n>:` and `|<n>:` a concat
//! and an alternation of the n HIRs that follow. Capture groups are dropped
//! (Layer 1 only asks whether a pattern matches).

use regex_syntax::ast::{Ast, ClassSet, ClassSetItem};
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look, Repetition};

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

/// The HIR in its compact text form; `None` for a HIR the ASCII build never
/// produces (a Unicode class).
pub fn encode(hir: &Hir) -> Option<String> {
    let mut out = String::new();
    encode_into(hir, &mut out)?;
    Some(out)
}

fn encode_into(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty => out.push('e'),
        HirKind::Literal(lit) => {
            out.push_str(&format!("l{}:", lit.0.len()));
            lit.0.iter().for_each(|b| out.push_str(&format!("{b:02x}")));
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.push_str(&format!("b{}:", class.ranges().len()));
            for r in class.ranges() {
                out.push_str(&format!("{:02x}{:02x}", r.start(), r.end()));
            }
        }
        HirKind::Class(Class::Unicode(_)) => return None,
        HirKind::Look(look) => out.push_str(&format!("k{}:", look.as_repr())),
        HirKind::Repetition(rep) => {
            let max = rep.max.map(|m| m.to_string()).unwrap_or_default();
            out.push_str(&format!("r{},{max},{}:", rep.min, u8::from(rep.greedy)));
            encode_into(&rep.sub, out)?;
        }
        HirKind::Capture(cap) => encode_into(&cap.sub, out)?,
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            let tag = if matches!(hir.kind(), HirKind::Concat(_)) {
                '&'
            } else {
                '|'
            };
            out.push_str(&format!("{tag}{}:", subs.len()));
            for sub in subs {
                encode_into(sub, out)?;
            }
        }
    }
    Some(())
}

/// Decodes [`encode`]'s form; `None` when it is malformed (then the pattern
/// is translated instead).
pub fn decode(code: &str) -> Option<Hir> {
    match read(code.as_bytes())? {
        (hir, []) => Some(hir),
        _ => None,
    }
}

/// Reads one HIR off the front of `code`, and the rest.
fn read(code: &[u8]) -> Option<(Hir, &[u8])> {
    let (&tag, rest) = code.split_first()?;
    if tag == b'e' {
        return Some((Hir::empty(), rest));
    }
    let colon = rest.iter().position(|&b| b == b':')?;
    let (head, body) = (
        std::str::from_utf8(&rest[..colon]).ok()?,
        &rest[colon + 1..],
    );
    match tag {
        b'l' => {
            let n: usize = head.parse().ok()?;
            let (hex, rest) = split(body, 2 * n)?;
            Some((Hir::literal(bytes_of(hex)?), rest))
        }
        b'b' => {
            let n: usize = head.parse().ok()?;
            let (hex, rest) = split(body, 4 * n)?;
            let ranges = bytes_of(hex)?
                .chunks_exact(2)
                .map(|r| ClassBytesRange::new(r[0], r[1]))
                .collect::<Vec<_>>();
            Some((Hir::class(Class::Bytes(ClassBytes::new(ranges))), rest))
        }
        b'k' => Some((Hir::look(Look::from_repr(head.parse().ok()?)?), body)),
        b'r' => {
            let mut parts = head.split(',');
            let min = parts.next()?.parse().ok()?;
            let max = match parts.next()? {
                "" => None,
                m => Some(m.parse().ok()?),
            };
            let greedy = parts.next()? == "1";
            let (sub, rest) = read(body)?;
            let sub = Box::new(sub);
            Some((
                Hir::repetition(Repetition {
                    min,
                    max,
                    greedy,
                    sub,
                }),
                rest,
            ))
        }
        b'&' | b'|' => {
            let n: usize = head.parse().ok()?;
            let mut subs = Vec::with_capacity(n);
            let mut rest = body;
            for _ in 0..n {
                let (sub, next) = read(rest)?;
                subs.push(sub);
                rest = next;
            }
            let hir = if tag == b'&' {
                Hir::concat(subs)
            } else {
                Hir::alternation(subs)
            };
            Some((hir, rest))
        }
        _ => None,
    }
}

fn split(code: &[u8], at: usize) -> Option<(&[u8], &[u8])> {
    (code.len() >= at).then(|| code.split_at(at))
}

fn bytes_of(hex: &[u8]) -> Option<Vec<u8>> {
    let nibble = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    hex.chunks_exact(2)
        .map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_gives_back_the_translated_hir() {
        for pattern in [
            r"\bshall (?:i|we) (?:now |then )?(?:commit|push)\b[^\n]{0,60}\?",
            r"(?:^|\n)\s*ok\s+\S+\s+[0-9.]+s\b|all (?:tests? )?pass(?:ed)?",
            r"[.!:;,(—–-]\s*x*?y+z{2,}",
            r"\bqué\b|「x」|(?m)^$",
        ] {
            let hir = translate(pattern).expect(pattern);
            let code = encode(&hir).expect(pattern);
            assert_eq!(decode(&code), Some(hir), "{pattern}: {code}");
        }
    }

    #[test]
    fn every_embedded_hir_is_what_the_pattern_translates_to() {
        let mut embedded = 0;
        for (pattern, _, code) in crate::builtin::PATTERN_PREP {
            let fresh = translate(pattern).and_then(|h| encode(&h));
            assert_eq!(fresh.as_deref().unwrap_or(""), *code, "{pattern}");
            if !code.is_empty() {
                assert!(decode(code).is_some(), "{pattern}");
                embedded += 1;
            }
        }
        assert!(embedded > 120, "{embedded} embedded");
    }

    #[test]
    fn malformed_codes_decode_to_nothing() {
        for code in [
            "", "x", "l2:61", "b1:61", "&2:e", "r1,x,1:e", "k999:", "ee", "l1:zz",
        ] {
            assert_eq!(decode(code), None, "{code}");
        }
    }

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
