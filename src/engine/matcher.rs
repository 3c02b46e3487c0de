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
//! each built-in pattern ([`Matcher::from_ascii_hir`], from a HIR prepared
//! at build time; see `engine::ascii_hir`): classes over bytes, ASCII case
//! folding and word boundaries. On ASCII text the two builds agree exactly:
//! Unicode `\w`, `\s`, `\d`, `\b` and simple case folding differ from
//! their ASCII forms only on non-ASCII characters, and a non-ASCII literal
//! cannot match either way. The NFA is less than half the size, and the
//! lazy DFA never has to give up on a word boundary.

use regex_automata::hybrid::dfa::{self as lazy, DFA};
use regex_automata::nfa::thompson::{self, pikevm::PikeVM, WhichCaptures};
use regex_automata::Input;
use std::sync::Mutex;

/// Compiled-size limit of one pattern (regex's own default is 10 MB).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// One compiled pattern (case-insensitive, Unicode-aware, like `(?i)` with
/// the `regex` crate).
pub struct Matcher {
    dfa: DFA,
    pikevm: PikeVM,
    caches: Mutex<(lazy::Cache, regex_automata::nfa::thompson::pikevm::Cache)>,
}

impl Matcher {
    /// Compiles `pattern`; the error is regex's own message (with a caret
    /// under the fault for a syntax error).
    pub fn new(pattern: &str) -> Result<Matcher, String> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(true)
            .build()
            .parse(pattern)
            .map_err(|e| e.to_string())?;
        Matcher::from_hir(&hir, true)
    }

    /// The same pattern built to run on pure-ASCII text only (see the module
    /// doc); `None` when it cannot be built so (a Unicode class such as
    /// `\p{Han}`, Unicode mode turned off, a size limit, a syntax error):
    /// then use [`Matcher::new`], which also reports the error.
    pub fn for_ascii_text(pattern: &str) -> Option<Matcher> {
        Matcher::from_ascii_hir(&super::ascii_hir::translate(pattern)?)
    }

    /// [`Matcher::for_ascii_text`] from the HIR that
    /// [`super::ascii_hir::translate`] gave (embedded for the built-in
    /// patterns).
    pub fn from_ascii_hir(hir: &regex_syntax::hir::Hir) -> Option<Matcher> {
        Matcher::from_hir(hir, false).ok()
    }

    fn from_hir(hir: &regex_syntax::hir::Hir, utf8: bool) -> Result<Matcher, String> {
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
        let pikevm = PikeVM::new_from_nfa(nfa).map_err(|e| e.to_string())?;
        let caches = Mutex::new((dfa.create_cache(), pikevm.create_cache()));
        Ok(Matcher {
            dfa,
            pikevm,
            caches,
        })
    }

    /// Whether the pattern matches anywhere in `text` (which must be pure
    /// ASCII for a matcher built by [`Matcher::for_ascii_text`]).
    pub fn is_match(&self, text: &str) -> bool {
        let mut caches = self.caches.lock().unwrap_or_else(|e| e.into_inner());
        let (dfa_cache, vm_cache) = &mut *caches;
        let input = Input::new(text).earliest(true);
        match self.dfa.try_search_fwd(dfa_cache, &input) {
            Ok(found) => found.is_some(),
            // The lazy DFA quit (a Unicode word boundary next to a non-ASCII
            // byte) or gave up: the PikeVM handles every pattern.
            Err(_) => self.pikevm.is_match(vm_cache, input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Matcher;

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
        for pattern in patterns {
            let unicode = Matcher::new(pattern).unwrap();
            let ascii = Matcher::for_ascii_text(pattern).expect(pattern);
            for text in texts {
                assert_eq!(
                    ascii.is_match(text),
                    unicode.is_match(text),
                    "{pattern} on {text}"
                );
            }
        }
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
