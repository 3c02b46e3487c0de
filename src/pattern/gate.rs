//! Literal gates: for each signal or bypass pattern, a formula over plain
//! strings that every match must contain (`commit` AND (`now` OR `right
//! away`)). Layer 1 checks the gate with `memmem` and compiles the pattern
//! only when the gate holds: compiling a pattern costs hundreds of
//! microseconds (Unicode classes under bounded repeats), checking a gate
//! well under one, and on a turn with a keyword hit most of a detector's
//! patterns cannot match. Computing a gate parses the pattern (about 0.4 M
//! instructions, 20 M for the 47 patterns of one detector), so the gates of
//! the built-in patterns are computed by build.rs (which includes this
//! file) and embedded as JSON; a user's pattern gets its gate on first use.
//!
//! Soundness: a gate may hold where its pattern does not match, never the
//! reverse. Patterns match case-insensitively (Unicode simple case folding),
//! so atoms are ASCII-lowercased and hold no cased non-ASCII letter (a
//! literal is cut there), and a text holding one of the two non-ASCII
//! letters that fold to an ASCII one (`ſ`, the Kelvin sign) is not gated.

use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::HashMap;

/// A class of at most this many characters becomes an alternation of atoms.
const MAX_CLASS_CHARS: usize = 8;

/// What every match of a pattern contains.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// `None` when the text holds a non-ASCII letter that case-folds to an
    /// ASCII one: then no gate can be trusted, and every pattern is run.
    pub fn new(text: &str) -> Option<GateText<'g>> {
        if text.contains(['\u{17F}', '\u{212A}']) {
            return None;
        }
        let lowered = text.as_bytes().to_ascii_lowercase();
        let mut pairs = vec![0u64; 1 << 10];
        for w in lowered.windows(2) {
            let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
            pairs[pair >> 6] |= 1 << (pair & 63);
        }
        Some(GateText {
            lowered,
            pairs,
            seen: HashMap::default(),
        })
    }

    /// Whether `gate` holds on the text.
    pub fn holds(&mut self, gate: &'g Gate) -> bool {
        match gate {
            Gate::Always => true,
            Gate::Atom(atom) => self.has(atom),
            Gate::All(gates) => gates.iter().all(|g| self.holds(g)),
            Gate::Any(gates) => gates.iter().any(|g| self.holds(g)),
        }
    }

    fn has(&mut self, atom: &'g str) -> bool {
        let (lowered, pairs) = (&self.lowered, &self.pairs);
        *self.seen.entry(atom).or_insert_with(|| {
            let all_pairs = atom.as_bytes().windows(2).all(|w| {
                let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
                pairs[pair >> 6] & (1 << (pair & 63)) != 0
            });
            all_pairs && memchr::memmem::find(lowered, atom.as_bytes()).is_some()
        })
    }
}

fn of_hir(hir: &Hir) -> Gate {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Gate::Always,
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(text) => atoms(text),
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

/// A literal's atoms: the runs between cased non-ASCII letters (whose case
/// variants ASCII lowercasing cannot join), ASCII-lowercased.
fn atoms(literal: &str) -> Gate {
    let pieces = literal
        .split(|c: char| !c.is_ascii() && (c.is_lowercase() || c.is_uppercase()))
        .filter(|p| !p.is_empty())
        .map(|p| Gate::Atom(p.to_ascii_lowercase()))
        .collect();
    all(pieces)
}

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
    any(chars.iter().map(|c| atoms(c)).collect())
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
        let gate = Gate::of_pattern(pattern);
        GateText::new(text).unwrap().holds(&gate)
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
    fn cased_non_ascii_letters_cut_a_literal() {
        // "opción" may be written "OPCIÓN": the gate asks only for "opci" and "n".
        assert!(holds("opción", "OPCIÓN"));
        assert!(holds("コミットします", "コミットします"));
        assert!(!holds("コミットします", "プッシュします"));
    }

    #[test]
    fn texts_with_letters_folding_to_ascii_are_not_gated() {
        // (?i)s matches 'ſ' and (?i)k the Kelvin sign.
        assert!(GateText::new("ſhall I commit").is_none());
        assert!(GateText::new("\u{212A}eep").is_none());
    }

    #[test]
    fn only_those_two_non_ascii_letters_fold_to_ascii_letters() {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(true)
            .build()
            .parse("[a-z]")
            .unwrap();
        let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
            panic!("a class")
        };
        let non_ascii: Vec<char> = class
            .ranges()
            .iter()
            .flat_map(|r| r.start()..=r.end())
            .filter(|c| !c.is_ascii())
            .collect();
        assert_eq!(non_ascii, vec!['\u{17F}', '\u{212A}']);
    }

    #[test]
    fn alternations_and_concatenations_combine() {
        let p = r"\bnext (?:step|task)\b[^\n]{0,30}(?:commit|push|1:2)";
        assert!(holds(p, "NEXT step: commit"));
        assert!(holds(p, "next task: 1:2"));
        assert!(!holds(p, "next step: merge"));
    }
}
