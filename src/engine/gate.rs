//! Literal gates: for each signal or bypass pattern, a formula over plain
//! strings that every match must contain (`commit` AND (`now` OR `right
//! away`)). Layer 1 checks the gate with `memmem` and compiles the pattern
//! only when the gate holds: compiling a pattern costs hundreds of
//! microseconds (Unicode classes under bounded repeats), checking a gate
//! well under one, and on a turn with a keyword hit most of a detector's
//! patterns cannot match. The gates of the built-in patterns are computed at
//! build time (`build.rs` includes this file) and embedded.
//!
//! Soundness: a gate may hold where its pattern does not match, never the
//! reverse. Patterns match case-insensitively (Unicode simple case folding),
//! so atoms are ASCII-lowercased and hold no cased non-ASCII letter (a
//! literal is cut there), and a text holding one of the two non-ASCII
//! letters that fold to an ASCII one (`ſ`, the Kelvin sign) is not gated.

use regex_syntax::hir::{Class, Hir, HirKind};

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

    /// Whether the gate holds on `lowered`, a text passed through
    /// [`lower_for_gates`].
    pub fn holds(&self, lowered: &[u8]) -> bool {
        match self {
            Gate::Always => true,
            Gate::Atom(s) => memchr::memmem::find(lowered, s.as_bytes()).is_some(),
            Gate::All(gs) => gs.iter().all(|g| g.holds(lowered)),
            Gate::Any(gs) => gs.iter().any(|g| g.holds(lowered)),
        }
    }

    /// The gate as JSON: an atom is a string, `All` an object `{"all":[…]}`,
    /// `Any` an array, `Always` null.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Gate::Always => Value::Null,
            Gate::Atom(s) => Value::String(s.clone()),
            Gate::All(gs) => {
                let all = Value::Array(gs.iter().map(Gate::to_json).collect());
                Value::Object([("all".to_string(), all)].into_iter().collect())
            }
            Gate::Any(gs) => Value::Array(gs.iter().map(Gate::to_json).collect()),
        }
    }

    /// Reads [`Self::to_json`]'s form back; anything else is `Always`.
    pub fn from_json(value: &serde_json::Value) -> Gate {
        use serde_json::Value;
        match value {
            Value::String(s) => Gate::Atom(s.clone()),
            Value::Array(gs) => Gate::Any(gs.iter().map(Gate::from_json).collect()),
            Value::Object(o) => match o.get("all") {
                Some(Value::Array(gs)) => Gate::All(gs.iter().map(Gate::from_json).collect()),
                _ => Gate::Always,
            },
            _ => Gate::Always,
        }
    }
}

/// The text the gates are checked on: ASCII-lowercased, or `None` when it
/// holds a non-ASCII letter that case-folds to an ASCII one (then every
/// pattern is compiled and run).
pub fn lower_for_gates(text: &str) -> Option<Vec<u8>> {
    if text.contains(['\u{17F}', '\u{212A}']) {
        return None;
    }
    Some(text.as_bytes().to_ascii_lowercase())
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
        Gate::of_pattern(pattern).holds(&lower_for_gates(text).unwrap())
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
        assert!(lower_for_gates("ſhall I commit").is_none());
        assert!(lower_for_gates("\u{212A}eep").is_none());
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
    fn json_round_trips() {
        for p in [
            r"\bnext (?:step|task)\b[^\n]{0,30}(?:commit|push)",
            "a",
            ".*",
        ] {
            let g = Gate::of_pattern(p);
            assert_eq!(Gate::from_json(&g.to_json()), g);
        }
    }
}
