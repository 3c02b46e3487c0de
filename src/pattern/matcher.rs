//! A compiled signal or bypass pattern that answers one question: does it
//! match this text? `guard hook` is a short-lived process that compiles a
//! few patterns and runs each once, so building costs more than searching:
//! a `regex::Regex` also builds a reverse automaton (to find where a match
//! starts), capture slots and a literal prefilter, none of which a yes/no
//! answer needs. This builds one forward NFA, searches it with a lazy DFA,
//! and falls back to the PikeVM where the lazy DFA cannot go (a Unicode
//! `\b` next to a non-ASCII byte), about half the cost of a `Regex`.
//!
//! A text that is pure ASCII (most English turns) gets a cheaper build of
//! each built-in pattern ([`Matcher::for_ascii_text`], see `ascii.rs`):
//! classes over bytes, ASCII case folding and word boundaries. On ASCII text the two builds agree exactly:
//! Unicode `\w`, `\s`, `\d`, `\b` and simple case folding differ from
//! their ASCII forms only on non-ASCII characters, and a non-ASCII literal
//! cannot match either way. The NFA is less than half the size, and the
//! lazy DFA never has to give up on a word boundary.
//!
//! A text whose only non-ASCII characters are not word characters (an em
//! dash, an arrow, an emoji: common in agents' English) gets the Unicode
//! build with ASCII word boundaries ([`Matcher::with_ascii_boundaries`]).
//! On such a text the two kinds of `\b` agree at every character boundary
//! (each side's character is a word character under both definitions or
//! under neither), and the lazy DFA, which must give up at the first
//! non-ASCII byte when a pattern has a Unicode `\b`, runs to the end
//! instead of handing the text to the PikeVM, several times slower.

use regex_automata::hybrid::dfa::{self as lazy, DFA};
use regex_automata::nfa::thompson::backtrack::{self, BoundedBacktracker};
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::Input;
use regex_syntax::hir::{Hir, HirKind, Look, Repetition};
use std::sync::Mutex;

/// Compiled-size limit of one pattern (regex's own default is 10 MB).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The bounded backtracker's visited set, at most (one bit per NFA state
/// and text position, allocated as a search needs it): enough for a 4 KB
/// turn under the built-in patterns' Unicode builds.
const BACKTRACK_VISITED_BYTES: usize = 2 << 20;

/// A matcher's search caches.
struct Caches {
    dfa: lazy::Cache,
    backtracker: backtrack::Cache,
    pikevm: pikevm::Cache,
}

/// Which build of a pattern a text can take (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextClass {
    /// Pure ASCII: the ASCII build.
    Ascii,
    /// Non-ASCII characters, none of them a word character: the Unicode
    /// build with ASCII word boundaries.
    NoWordCharBeyondAscii,
    /// Anything else: the Unicode build.
    Unicode,
}

impl TextClass {
    /// The class of `text`.
    pub fn of(text: &str) -> TextClass {
        if text.is_ascii() {
            TextClass::Ascii
        } else if text
            .chars()
            .all(|c| c.is_ascii() || !regex_syntax::is_word_character(c))
        {
            TextClass::NoWordCharBeyondAscii
        } else {
            TextClass::Unicode
        }
    }
}

/// One compiled pattern (case-insensitive, Unicode-aware, like `(?i)` with
/// the `regex` crate).
pub struct Matcher {
    dfa: DFA,
    backtracker: BoundedBacktracker,
    pikevm: PikeVM,
    caches: Mutex<Caches>,
}

impl Matcher {
    /// Compiles `pattern`; the error is regex's own message (with a caret
    /// under the fault for a syntax error).
    pub fn new(pattern: &str) -> Result<Matcher, String> {
        Matcher::from_hir(&parse(pattern)?, true)
    }

    /// The Unicode build with every word boundary made ASCII, for a text of
    /// [`TextClass::NoWordCharBeyondAscii`] only; `None` when the pattern
    /// does not compile (then [`Matcher::new`] reports why).
    pub fn with_ascii_boundaries(pattern: &str) -> Option<Matcher> {
        Matcher::from_hir(&ascii_boundaries(parse(pattern).ok()?), true).ok()
    }

    /// The same pattern built to run on pure-ASCII text only (see the module
    /// doc); `None` when it cannot be built so (a Unicode class such as
    /// `\p{Han}`, Unicode mode turned off, a size limit, a syntax error):
    /// then use [`Matcher::new`], which also reports the error.
    pub fn for_ascii_text(pattern: &str) -> Option<Matcher> {
        Matcher::from_hir(&super::ascii::translate(pattern)?, false).ok()
    }

    fn from_hir(hir: &Hir, utf8: bool) -> Result<Matcher, String> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .utf8(utf8)
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(PATTERN_SIZE_LIMIT)),
            )
            .build_from_hir(hir)
            .map_err(|e| match e.size_limit() {
                Some(limit) => format!(
                    "the compiled pattern exceeds the size limit of {} KiB; use smaller repetitions",
                    limit / 1024
                ),
                None => e.to_string(),
            })?;
        let dfa = DFA::builder()
            .configure(DFA::config().unicode_word_boundary(true))
            .build_from_nfa(nfa.clone())
            .map_err(|e| e.to_string())?;
        let backtracker = BoundedBacktracker::builder()
            .configure(BoundedBacktracker::config().visited_capacity(BACKTRACK_VISITED_BYTES))
            .build_from_nfa(nfa.clone())
            .map_err(|e| e.to_string())?;
        let pikevm = PikeVM::new_from_nfa(nfa).map_err(|e| e.to_string())?;
        let caches = Mutex::new(Caches {
            dfa: dfa.create_cache(),
            backtracker: backtracker.create_cache(),
            pikevm: pikevm.create_cache(),
        });
        Ok(Matcher {
            dfa,
            backtracker,
            pikevm,
            caches,
        })
    }

    /// Whether the pattern matches anywhere in `text` (which must be pure
    /// ASCII for a matcher built by [`Matcher::for_ascii_text`]).
    pub fn is_match(&self, text: &str) -> bool {
        let mut caches = self.caches.lock().unwrap_or_else(|e| e.into_inner());
        let caches = &mut *caches;
        let input = Input::new(text).earliest(true);
        match self.dfa.try_search_fwd(&mut caches.dfa, &input) {
            Ok(found) => found.is_some(),
            // The lazy DFA quit (a Unicode word boundary next to a non-ASCII
            // byte) or gave up: the backtracker, several times faster than
            // the PikeVM, where its visited set fits; else the PikeVM.
            Err(_) => match self
                .backtracker
                .try_is_match(&mut caches.backtracker, input.clone())
            {
                Ok(found) => found,
                Err(_) => self.pikevm.is_match(&mut caches.pikevm, input),
            },
        }
    }
}

/// `pattern` parsed as the engine matches it: case-insensitive, Unicode.
fn parse(pattern: &str) -> Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(true)
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())
}

/// `hir` with each Unicode word-boundary assertion replaced by its ASCII
/// form.
fn ascii_boundaries(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => other,
        }),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(ascii_boundaries(*r.sub)),
            ..r
        }),
        HirKind::Capture(c) => ascii_boundaries(*c.sub),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(ascii_boundaries).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(ascii_boundaries).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Class(class) => Hir::class(class),
    }
}

#[cfg(test)]
mod tests {
    use super::{Matcher, TextClass};

    #[test]
    fn matches_like_a_case_insensitive_regex() {
        let cases = [
            (r"\bcommit\b", "Shall I COMMIT?", true),
            (r"\bcommit\b", "recommitted", false),
            (r"\bqué\b", "¿qué prefieres?", true),
            (r"\bpr\b", "PRを作成します", false),
            (r"コミット[^\n]{0,20}します", "コミットします", true),
            (r"^a", "b\na", false),
            (r"(?m)^a", "b\na", true),
        ];
        for (pattern, text, want) in cases {
            let re = regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .unwrap();
            assert_eq!(re.is_match(text), want, "regex {pattern} on {text}");
            assert_eq!(
                Matcher::new(pattern).unwrap().is_match(text),
                want,
                "{pattern} on {text}"
            );
        }
    }

    #[test]
    fn the_ascii_build_agrees_on_ascii_text() {
        let patterns = [
            r"\bcommit\b[^\n]{0,20}\?",
            r"(?:^|\n)\s*ok\s+\S+",
            r"\b[0-9]+ passed\b",
            r"\bqué\b|\bshall i\b",
            r"\w+ing\b",
            r"[^a-z ]",
            r"[.!:;,(—–-]\s*all pass",
            r"[^—]x|[^\x00-é]",
            r"[a-é&&[^b]]{2}",
            r"[✅]|「x」",
        ];
        let texts = [
            "Shall I COMMIT this now?",
            "recommitted\n  OK pkg 0.1s",
            "12 passed; 0 failed",
            "nothing here",
            "Testing\tthe  fix",
            "KELVIN k and long s",
            "done. All pass",
            "ax bx",
            "",
        ];
        assert_agrees_with_the_unicode_build(Matcher::for_ascii_text, &patterns, &texts);
    }

    /// Each pattern's other build (from `build`) matches each text exactly
    /// where its Unicode build does.
    fn assert_agrees_with_the_unicode_build(
        build: fn(&str) -> Option<Matcher>,
        patterns: &[&str],
        texts: &[&str],
    ) {
        for pattern in patterns {
            let unicode = Matcher::new(pattern).unwrap();
            let other = build(pattern).expect(pattern);
            for text in texts {
                assert_eq!(
                    other.is_match(text),
                    unicode.is_match(text),
                    "{pattern} on {text}"
                );
            }
        }
    }

    #[test]
    fn ascii_boundaries_agree_where_no_word_char_is_beyond_ascii() {
        let patterns = [
            r"\bcommit\b[^\n]{0,20}\?",
            r"\bdone\B|\b—",
            r"\bqué\b|\bshall i\b",
            r"(?:^|[—–-]\s*)all pass\b",
        ];
        let texts = [
            "Done — shall I commit? ✅",
            "→commit→ now?",
            "all tests pass — “commit” it?",
            "—all pass",
            "«que» … x",
        ];
        for text in texts {
            assert_eq!(
                TextClass::of(text),
                TextClass::NoWordCharBeyondAscii,
                "{text}"
            );
        }
        assert_agrees_with_the_unicode_build(Matcher::with_ascii_boundaries, &patterns, &texts);
        assert_eq!(TextClass::of("plain"), TextClass::Ascii);
        assert_eq!(TextClass::of("PRを作成"), TextClass::Unicode);
        assert_eq!(TextClass::of("café"), TextClass::Unicode);
        assert!(Matcher::with_ascii_boundaries("a(b").is_none());
    }

    #[test]
    fn a_syntax_error_points_at_the_fault() {
        let e = Matcher::new("a(b").err().unwrap();
        assert!(e.contains("unclosed group"), "{e}");
        assert!(e.contains('^'), "{e}");
    }

    #[test]
    fn an_oversized_pattern_is_refused() {
        let e = Matcher::new(r"\w{1000}{1000}").err().unwrap();
        assert!(e.contains("size limit"), "{e}");
    }
}
