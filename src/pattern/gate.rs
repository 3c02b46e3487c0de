//! Literal gates: for each signal or bypass pattern, a formula over plain
//! strings that every match must contain (`commit` AND (`now` OR `right
//! away`)). Layer 1 checks the gate with `memmem` and compiles the pattern
//! only when the gate holds: compiling a pattern costs hundreds of
//! microseconds (Unicode classes under bounded repeats), checking a gate
//! well under one, and on a turn with a keyword hit most of a detector's
//! patterns cannot match. Computing a gate parses the pattern (about 0.4 M
//! instructions, 20 M for the 47 patterns of one detector), so the gates of
//! the built-in patterns are computed by build.rs (which includes this
//! file) and embedded in a compact text form that is checked without being
//! parsed into a tree; a user's pattern gets its gate on first use.
//!
//! Soundness: a gate may hold where its pattern does not match, never the
//! reverse. Patterns match case-insensitively (Unicode simple case folding),
//! so atoms and texts are both folded by [`fold`], which maps the letters
//! of one case-folding class to one letter: `Коммит`, `КОММИТ` and
//! `коммит` all become `коммит`, and a Russian pattern's gate does not hold
//! on an English text.

use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::HashMap;

/// A class of at most this many characters becomes an alternation of atoms.
const MAX_CLASS_CHARS: usize = 8;

/// What every match of a pattern contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Nothing known: the pattern may match anywhere.
    Always,
    /// This string (ASCII-lowercased).
    Atom(String),
    /// Every one of these.
    All(Vec<Gate>),
    /// At least one of these.
    Any(Vec<Gate>),
}

impl Gate {
    /// The gate of `pattern`, as the engine compiles it (case-insensitive);
    /// [`Gate::Always`] when it does not parse (compiling it then reports
    /// the error).
    pub fn of_pattern(pattern: &str) -> Gate {
        match regex_syntax::ParserBuilder::new().build().parse(pattern) {
            Ok(hir) => of_hir(&hir),
            Err(_) => Gate::Always,
        }
    }

    /// The gate in its compact text form, which [`GateText::holds`] reads
    /// without building the tree (the form build.rs embeds): `*` is
    /// `Always`, `'<len>:<bytes>` an atom, `&<n>:` and `|<n>:` `All` and
    /// `Any` of the `n` gates that follow.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        self.encode_into(&mut out);
        out
    }

    fn encode_into(&self, out: &mut String) {
        match self {
            Gate::Always => out.push('*'),
            Gate::Atom(s) => {
                out.push('\'');
                out.push_str(&s.len().to_string());
                out.push(':');
                out.push_str(s);
            }
            Gate::All(gs) | Gate::Any(gs) => {
                out.push(if matches!(self, Gate::All(_)) {
                    '&'
                } else {
                    '|'
                });
                out.push_str(&gs.len().to_string());
                out.push(':');
                for g in gs {
                    g.encode_into(out);
                }
            }
        }
    }
}

/// A text ready for gate checks: ASCII-lowercased, with the set of its
/// byte pairs (an atom with a pair the text lacks is absent without a
/// search), each atom looked up once however many gates ask for it
/// (`commit` is in dozens).
pub struct GateText<'g> {
    lowered: Vec<u8>,
    pairs: Vec<u64>,
    seen: HashMap<&'g str, bool>,
}

impl<'g> GateText<'g> {
    /// The text, folded (see [`fold`]).
    pub fn new(text: &str) -> GateText<'g> {
        let lowered = fold_text(text).into_bytes();
        let mut pairs = vec![0u64; 1 << 10];
        for w in lowered.windows(2) {
            let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
            pairs[pair >> 6] |= 1 << (pair & 63);
        }
        GateText {
            lowered,
            pairs,
            seen: HashMap::default(),
        }
    }

    /// The text, folded (see [`fold_text`]).
    pub fn folded(&self) -> &str {
        // Folded from a `&str`, character by character: UTF-8 still.
        std::str::from_utf8(&self.lowered).unwrap_or_default()
    }

    /// Whether an encoded gate (see [`Gate::encode`]) holds; a malformed
    /// one holds (the pattern is then compiled and run).
    pub fn holds(&mut self, encoded: &'g str) -> bool {
        match eval(encoded, Some(self)) {
            Some((holds, "")) => holds,
            _ => true,
        }
    }

    /// Whether the folded text contains `needle` (folded too): a needle
    /// with a byte pair the text lacks is absent without a search.
    pub fn contains(&self, needle: &str) -> bool {
        let all_pairs = needle.as_bytes().windows(2).all(|w| {
            let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
            self.pairs[pair >> 6] & (1 << (pair & 63)) != 0
        });
        all_pairs && memchr::memmem::find(&self.lowered, needle.as_bytes()).is_some()
    }

    fn has(&mut self, atom: &'g str) -> bool {
        if let Some(&found) = self.seen.get(atom) {
            return found;
        }
        let found = self.contains(atom);
        self.seen.insert(atom, found);
        found
    }
}

/// Reads one encoded gate off the front of `code`: whether it holds (when
/// `text` is given; skipped parts are only read) and the rest of `code`.
fn eval<'g>(code: &'g str, mut text: Option<&mut GateText<'g>>) -> Option<(bool, &'g str)> {
    let (tag, rest) = code.split_at_checked(1)?;
    if tag == "*" {
        return Some((true, rest));
    }
    let (count, mut rest) = rest.split_once(':')?;
    let count: usize = count.parse().ok()?;
    match tag {
        "'" => {
            let (atom, rest) = rest.split_at_checked(count)?;
            Some((text.is_none_or(|t| t.has(atom)), rest))
        }
        "&" | "|" => {
            let all = tag == "&";
            let mut result = all;
            for _ in 0..count {
                let undecided = result == all;
                let live = if undecided { text.as_deref_mut() } else { None };
                let (holds, next) = eval(rest, live)?;
                if undecided && holds != all {
                    result = !all;
                }
                rest = next;
            }
            Some((result, rest))
        }
        _ => None,
    }
}

fn of_hir(hir: &Hir) -> Gate {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Gate::Always,
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(text) => atom(text),
            Err(_) => Gate::Always,
        },
        HirKind::Class(class) => of_class(class),
        HirKind::Repetition(rep) if rep.min > 0 => of_hir(&rep.sub),
        HirKind::Repetition(_) => Gate::Always,
        HirKind::Capture(cap) => of_hir(&cap.sub),
        HirKind::Concat(subs) => all(subs.iter().map(of_hir).collect()),
        HirKind::Alternation(subs) => any(subs.iter().map(of_hir).collect()),
    }
}

/// A literal's atom: the literal, folded.
fn atom(literal: &str) -> Gate {
    match literal.is_empty() {
        true => Gate::Always,
        false => Gate::Atom(fold_text(literal)),
    }
}

/// `text` with every character folded (see [`fold`]): the form in which
/// keywords are kept and texts searched for them.
pub fn fold_text(text: &str) -> String {
    match text.is_ascii() {
        true => text.to_ascii_lowercase(),
        false => text.chars().map(fold).collect(),
    }
}

/// The one letter that stands for `c`'s case-folding class (the characters
/// a case-insensitive pattern treats as `c`): its lowercase, except for the
/// classes whose members lowercase differently (`ς` and `σ`, `ſ` and `s`),
/// listed in [`FOLD_EXCEPTIONS`]. A test checks every character.
pub fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if let Ok(i) = FOLD_EXCEPTIONS.binary_search_by_key(&c, |&(from, _)| from) {
        return FOLD_EXCEPTIONS[i].1;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The characters whose lowercase is not their class's letter, with that
/// letter (the lowercase most of the class shares), sorted.
const FOLD_EXCEPTIONS: [(char, char); 25] = [
    ('\u{B5}', '\u{3BC}'),
    ('\u{17F}', 's'),
    ('\u{345}', '\u{3B9}'),
    ('\u{3C2}', '\u{3C3}'),
    ('\u{3D0}', '\u{3B2}'),
    ('\u{3D1}', '\u{3B8}'),
    ('\u{3D5}', '\u{3C6}'),
    ('\u{3D6}', '\u{3C0}'),
    ('\u{3F0}', '\u{3BA}'),
    ('\u{3F1}', '\u{3C1}'),
    ('\u{3F5}', '\u{3B5}'),
    ('\u{1C80}', '\u{432}'),
    ('\u{1C81}', '\u{434}'),
    ('\u{1C82}', '\u{43E}'),
    ('\u{1C83}', '\u{441}'),
    ('\u{1C84}', '\u{442}'),
    ('\u{1C85}', '\u{442}'),
    ('\u{1C86}', '\u{44A}'),
    ('\u{1C87}', '\u{463}'),
    ('\u{1C88}', '\u{A64B}'),
    ('\u{1E9B}', '\u{1E61}'),
    ('\u{1FBE}', '\u{3B9}'),
    ('\u{1FD3}', '\u{390}'),
    ('\u{1FE3}', '\u{3B0}'),
    ('\u{FB06}', '\u{FB05}'),
];

fn of_class(class: &Class) -> Gate {
    let Class::Unicode(class) = class else {
        return Gate::Always;
    };
    let mut chars = Vec::new();
    for range in class.ranges() {
        let width = range.end() as usize - range.start() as usize + 1;
        if chars.len() + width > MAX_CLASS_CHARS {
            return Gate::Always;
        }
        chars.extend((range.start()..=range.end()).map(String::from));
    }
    any(chars.iter().map(|c| atom(c)).collect())
}

fn all(gates: Vec<Gate>) -> Gate {
    let mut kept: Vec<Gate> = Vec::new();
    for g in gates {
        match g {
            Gate::Always => {}
            Gate::All(inner) => kept.extend(inner),
            g => kept.push(g),
        }
    }
    match kept.len() {
        0 => Gate::Always,
        1 => kept.pop().unwrap_or(Gate::Always),
        _ => Gate::All(kept),
    }
}

fn any(gates: Vec<Gate>) -> Gate {
    let mut kept: Vec<Gate> = Vec::new();
    for g in gates {
        match g {
            // One branch that may match anywhere: so may the whole.
            Gate::Always => return Gate::Always,
            Gate::Any(inner) => kept.extend(inner),
            g => {
                if !kept.contains(&g) {
                    kept.push(g)
                }
            }
        }
    }
    match kept.len() {
        0 => Gate::Always,
        1 => kept.pop().unwrap_or(Gate::Always),
        _ => Gate::Any(kept),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(pattern: &str, text: &str) -> bool {
        let code = Gate::of_pattern(pattern).encode();
        GateText::new(text).holds(&code)
    }

    #[test]
    fn a_gate_needs_every_part_of_a_concatenation() {
        let p = r"\b(?:shall|should) (?:i|we) (?:commit|push)\b";
        assert!(holds(p, "Shall I COMMIT?"));
        assert!(!holds(p, "Shall I go home?"));
        assert!(!holds(p, "commit this"));
    }

    #[test]
    fn optional_parts_and_wide_classes_ask_nothing() {
        assert_eq!(Gate::of_pattern(r"(?:now )?[^\n]{0,5}"), Gate::Always);
        assert_eq!(Gate::of_pattern(r"a|b*"), Gate::Always);
        assert_eq!(
            Gate::of_pattern(r"x[:：]"),
            Gate::All(vec![
                Gate::Atom("x".into()),
                Gate::Any(vec![Gate::Atom(":".into()), Gate::Atom("：".into())])
            ])
        );
    }

    #[test]
    fn letters_of_one_case_folding_class_meet() {
        assert!(holds("opción", "OPCIÓN"));
        assert!(holds("коммит", "КОММИТ сделан"));
        assert!(holds("ΣΟΦΟΣ", "σοφος"));
        assert!(holds("shall", "ſhall I commit"));
        assert!(holds("keep", "\u{212A}eep"));
        assert!(holds("コミットします", "コミットします"));
        assert!(!holds("コミットします", "プッシュします"));
        // A Cyrillic pattern's gate does not hold on an English text.
        assert!(!holds("закоммитить (?:commit)?", "shall I commit?"));
    }

    /// Every character folds to the letter of its case-folding class, as
    /// the engine's case-insensitive matching defines the class.
    #[test]
    fn fold_agrees_with_case_insensitive_matching() {
        use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
            class.case_fold_simple();
            for m in class.ranges().iter().flat_map(|r| r.start()..=r.end()) {
                assert_eq!(fold(m), fold(c), "{c:?} and {m:?}");
            }
        }
        let exceptions: Vec<char> = FOLD_EXCEPTIONS.iter().map(|e| e.0).collect();
        assert!(exceptions.is_sorted(), "FOLD_EXCEPTIONS must stay sorted");
    }

    #[test]
    fn the_encoded_form_reads_back() {
        let p = r"\bnext (?:step|task)\b[^\n]{0,30}(?:commit|push|1:2)";
        let code = Gate::of_pattern(p).encode();
        assert_eq!(
            code,
            "&3:'5:next |2:'4:step'4:task|3:'6:commit'4:push'3:1:2"
        );
        let mut text = GateText::new("NEXT step: commit");
        assert!(text.holds(&code));
        let mut text = GateText::new("next task: 1:2");
        assert!(text.holds(&code));
        let mut text = GateText::new("next step: merge");
        assert!(!text.holds(&code));
        // Malformed: holds (the pattern is run).
        assert!(text.holds("&2:'3:abc"));
        assert!(text.holds("?"));
    }
}
