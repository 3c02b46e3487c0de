//! The files embedded at build time: the default config, the built-in
//! detectors and the built-in adapters, each pre-parsed into JSON by
//! `build.rs` (serde_json reads them several times faster than YAML, and
//! `guard hook` is a new process on every event).
//!
//! A detector or adapter is kept as the raw JSON of its file until it is
//! read: `guard hook` reads the one adapter it needs and the detectors whose
//! keywords hit, not all of them.

use serde_json::value::RawValue;
use std::sync::OnceLock;

/// The default config (`config.yaml`) as written: the lowest config layer.
pub const DEFAULT_CONFIG: &str = include_str!("../config.yaml");

/// The default config pre-parsed into JSON.
pub const DEFAULT_CONFIG_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/config.json"));

/// The literal gate of each built-in signal and bypass pattern, computed by
/// build.rs: `[[pattern, gate], ...]` (see `crate::pattern::Gate`).
pub const PATTERN_GATES_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/pattern-gates.json"));

/// One embedded file: its stem (`detectors/<stem>.yaml`) and its content as
/// JSON, not yet read into a type.
pub type Embedded = (&'static str, &'static RawValue);

/// Each built-in detector, in file-name order.
pub fn detectors() -> &'static [Embedded] {
    static CELL: OnceLock<Vec<Embedded>> = OnceLock::new();
    entries(
        &CELL,
        include_str!(concat!(env!("OUT_DIR"), "/detectors.json")),
    )
}

/// The part of each built-in detector that Layer 1's keyword pass reads
/// (name, events, tools, keywords), in the order of [`detectors`].
pub fn detector_heads() -> &'static [Embedded] {
    static CELL: OnceLock<Vec<Embedded>> = OnceLock::new();
    entries(
        &CELL,
        include_str!(concat!(env!("OUT_DIR"), "/detector-heads.json")),
    )
}

/// Each built-in adapter, in file-name order.
pub fn adapters() -> &'static [Embedded] {
    static CELL: OnceLock<Vec<Embedded>> = OnceLock::new();
    entries(
        &CELL,
        include_str!(concat!(env!("OUT_DIR"), "/adapters.json")),
    )
}

/// The `[stem, content]` pairs of an embedded list (build.rs writes valid
/// JSON of this shape; the unit tests read every entry into its type).
fn entries(cell: &'static OnceLock<Vec<Embedded>>, json: &'static str) -> &'static [Embedded] {
    cell.get_or_init(|| serde_json::from_str(json).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    /// The embedded lists hold every file of their folder, by stem.
    #[test]
    fn every_yaml_file_is_embedded() {
        for (dir, list) in [
            ("detectors", super::detectors()),
            ("adapters", super::adapters()),
        ] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                .collect();
            files.sort();
            let stems: Vec<&str> = files
                .iter()
                .filter_map(|p| p.file_stem()?.to_str())
                .collect();
            let embedded: Vec<&str> = list.iter().map(|(stem, _)| *stem).collect();
            assert_eq!(embedded, stems, "{}", dir.display());
        }
        let heads: Vec<&str> = super::detector_heads().iter().map(|(s, _)| *s).collect();
        let detectors: Vec<&str> = super::detectors().iter().map(|(s, _)| *s).collect();
        assert_eq!(heads, detectors);
    }
}
