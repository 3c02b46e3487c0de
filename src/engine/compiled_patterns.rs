//! One detector's patterns, compiled on first use behind their literal
//! gates: a pattern whose gate does not hold on the text is never compiled,
//! and a text that allows it gets the cheaper ASCII build. Layer 1
//! ([`super::layer1`]) runs them; this module only builds them.

use crate::detector::load::LoadedDetector;
use crate::detector::PatternSpec;
use crate::pattern::{Gate, Matcher, TextClass};
use std::borrow::Cow;
use std::sync::OnceLock;

/// One pattern, compiled on first use behind its literal gate (see
/// [`crate::pattern::Gate`]): a pattern whose gate does not hold on the
/// text cannot match and is never compiled.
#[derive(Default)]
pub(super) struct Gated {
    /// The literal gate, encoded.
    gate: OnceLock<Cow<'static, str>>,
    regex: OnceLock<Result<Matcher, String>>,
    /// The cheaper build for pure-ASCII text (`None`: the pattern needs
    /// the Unicode build).
    ascii: OnceLock<Option<Matcher>>,
    /// The Unicode build with ASCII word boundaries, for a text whose
    /// non-ASCII characters are no word characters.
    ascii_boundaries: OnceLock<Option<Matcher>>,
}

impl Gated {
    /// The pattern's compile error, if it was compiled and is invalid.
    pub(super) fn error(&self) -> Option<&String> {
        self.regex.get()?.as_ref().err()
    }
}

/// The encoded gate of a pattern: computed by build.rs for the built-in
/// patterns, here for the user's.
fn gate_of(p: &PatternSpec) -> Cow<'static, str> {
    match &p.builtin_gate {
        Some(gate) => gate.clone(),
        None => Cow::Owned(Gate::of_pattern(&p.pattern).encode()),
    }
}

/// The ASCII build of a built-in pattern. A user's pattern always takes the
/// Unicode build: that is the build whose errors and size limits `guard
/// config validate` reports, and an ASCII build could accept what it
/// refuses (`\w{1000}` is small over ASCII).
fn ascii_build_of(p: &PatternSpec) -> Option<Matcher> {
    p.builtin_gate.as_ref()?;
    Matcher::for_ascii_text(&p.pattern)
}

/// Which of a detector's pattern lists.
#[derive(Clone, Copy)]
pub(super) enum List {
    Signals,
    Bypasses,
    RequestBypasses,
}

impl List {
    pub(super) fn patterns(self, d: &LoadedDetector) -> &[PatternSpec] {
        match self {
            List::Signals => &d.spec.signals,
            List::Bypasses => &d.spec.bypasses,
            List::RequestBypasses => &d.spec.request_bypasses,
        }
    }

    fn name(self) -> &'static str {
        match self {
            List::Signals => "signal",
            List::Bypasses => "bypass",
            List::RequestBypasses => "request bypass",
        }
    }
}

/// One pattern to compile and run: its detector, list, place in the list,
/// spec and slot.
pub(super) struct Job<'a> {
    pub(super) detector: &'a str,
    pub(super) list: List,
    pub(super) position: usize,
    pub(super) pattern: &'a PatternSpec,
    pub(super) slot: &'a Gated,
}

impl<'a> Job<'a> {
    /// The pattern compiled for a text of class `class` (see
    /// [`TextClass`]): the cheaper build the text allows, else the Unicode
    /// build.
    fn compile_for(&self, class: TextClass) -> Result<&Matcher, &String> {
        let pattern = &self.pattern.pattern;
        let cheaper = match class {
            TextClass::Ascii => self.slot.ascii.get_or_init(|| ascii_build_of(self.pattern)),
            TextClass::NoWordCharBeyondAscii => self
                .slot
                .ascii_boundaries
                .get_or_init(|| Matcher::with_ascii_boundaries(pattern)),
            TextClass::Unicode => &None,
        };
        match cheaper {
            Some(m) => Ok(m),
            None => self.compile().as_ref(),
        }
    }

    /// The pattern's literal gate, encoded (see [`crate::pattern::Gate`]).
    pub(super) fn gate(&self) -> &'a str {
        self.slot.gate.get_or_init(|| gate_of(self.pattern))
    }

    /// Whether the pattern matches `text` (of class `class`); the error
    /// names the detector and pattern.
    pub(super) fn run(&self, text: &str, class: TextClass) -> Result<bool, String> {
        (self.compile_for(class).map(|m| m.is_match(text))).map_err(String::clone)
    }

    fn compile(&self) -> &Result<Matcher, String> {
        self.slot.regex.get_or_init(|| {
            crate::pattern::compile(&self.pattern.pattern).map_err(|e| {
                format!(
                    "detector `{}`: {} pattern `{}` (`{}`) is invalid: {}",
                    self.detector,
                    self.list.name(),
                    self.pattern.id,
                    crate::engine::tail(&self.pattern.pattern, 80),
                    last_line(&e)
                )
            })
        })
    }
}

fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(message)
        .trim()
}

/// One detector's patterns, each compiled on first use behind its gate, per
/// [`List`].
#[derive(Default)]
pub(super) struct Compiled(pub(super) [OnceLock<Vec<Gated>>; 3]);
