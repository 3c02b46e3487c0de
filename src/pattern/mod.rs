//! Signal and bypass patterns: their spec, their literal gates and the
//! forward-only matcher they compile to. A leaf: it knows nothing of
//! detectors or events, so the detector format, the config (extra signals)
//! and the engine all use it.

mod ascii;
mod gate;
mod matcher;

pub use gate::{Gate, GateText};
pub use matcher::{Matcher, TextClass};

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A named regular expression (case-insensitive; `.` does not cross lines).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternSpec {
    /// Stable id, shown by `guard check` and logged.
    pub id: String,
    /// The regex (Rust `regex` syntax).
    pub pattern: String,
}

/// Compiles one pattern the way the engine does (case-insensitive,
/// size-limited); the error is regex's own message.
pub fn compile(pattern: &str) -> Result<Matcher, String> {
    Matcher::new(pattern)
}

/// The gate build.rs computed for a built-in pattern (`None` for any other
/// pattern).
pub fn builtin_gate(pattern: &str) -> Option<&'static Gate> {
    static GATES: OnceLock<HashMap<String, Gate>> = OnceLock::new();
    GATES
        .get_or_init(|| {
            serde_json::from_str(crate::builtin::PATTERN_GATES_JSON).unwrap_or_default()
        })
        .get(pattern)
}

#[cfg(test)]
mod tests {
    /// The embedded gates are the ones computed at run time.
    #[test]
    fn every_embedded_gate_is_its_patterns() {
        let mut checked = 0;
        for (stem, json) in crate::builtin::detectors() {
            let spec: serde_json::Value = serde_json::from_str(json).unwrap();
            for list in ["signals", "bypasses"] {
                for p in spec[list].as_array().into_iter().flatten() {
                    let pattern = p["pattern"].as_str().unwrap();
                    let embedded = super::builtin_gate(pattern).expect(pattern);
                    assert_eq!(*embedded, super::Gate::of_pattern(pattern), "{stem}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
