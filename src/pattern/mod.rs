//! Signal and bypass patterns: their spec, their literal gates and the
//! forward-only matcher they compile to. A leaf: it knows nothing of
//! detectors or events, so the detector format, the config (extra signals)
//! and the engine all use it.

mod ascii;
mod gate;
mod matcher;

pub use gate::{fold, fold_text, Gate, GateText};
pub use matcher::{Matcher, TextClass};

use serde::Deserialize;
use std::borrow::Cow;

/// A named regular expression (case-insensitive; `.` does not cross lines).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternSpec {
    /// Stable id, shown by `guard check` and logged.
    pub id: String,
    /// The regex (Rust `regex` syntax).
    pub pattern: String,
    /// Its literal gate, encoded, as build.rs computed it for a built-in
    /// pattern; `None` for a user's pattern, whose gate is computed when
    /// first needed. Only a built-in pattern takes the ASCII build (see
    /// `Matcher::for_ascii_text`).
    #[serde(skip)]
    pub builtin_gate: Option<Cow<'static, str>>,
}

/// Compiles one pattern the way the engine does (case-insensitive,
/// size-limited); the error is regex's own message.
pub fn compile(pattern: &str) -> Result<Matcher, String> {
    Matcher::new(pattern)
}
