//! The files embedded at build time: the default config, the built-in
//! detectors and the built-in adapters, each pre-parsed into JSON by
//! `build.rs` (serde_json reads them several times faster than YAML, and
//! `guard hook` is a new process on every event).
//!
//! A detector or adapter is kept as the JSON text of its file until it is
//! read: `guard hook` reads the adapters' detection parts, the one adapter
//! it picks and the detectors whose keywords hit, not all of them.

/// The default config (`config.yaml`) as written: the lowest config layer.
pub const DEFAULT_CONFIG: &str = include_str!("../config.yaml");

/// The default config pre-parsed into JSON.
pub const DEFAULT_CONFIG_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/config.json"));

/// What separates the keywords of an embedded detector head in its one
/// string (the same character as build.rs's): DEL, which no keyword holds,
/// JSON does not escape (so the string, and each keyword in it, is borrowed
/// from the binary) and `memchr` finds fast (a multi-byte one cost a tenth
/// of a miss in CJK keywords, whose bytes share its last one).
pub const KEYWORD_SEPARATOR: char = '\x7F';

/// One embedded file: its stem (`detectors/<stem>.yaml`) and its content as
/// JSON text, not yet read into a type.
pub type Embedded = (&'static str, &'static str);

/// Each built-in detector, in file-name order.
pub fn detectors() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(env!("OUT_DIR"), "/detectors.jsonl")))
}

/// The part of each built-in detector that Layer 1's keyword pass reads
/// (name, events, tools, keywords), in the order of [`detectors`].
pub fn detector_heads() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(
        env!("OUT_DIR"),
        "/detectors-heads.jsonl"
    )))
}

/// The literal gates of each built-in detector's patterns, encoded (see
/// `crate::pattern::Gate::encode`): `{"signals": [...], "bypasses": [...]}`
/// in the order of its file, in the order of [`detectors`].
pub fn pattern_gates() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(
        env!("OUT_DIR"),
        "/detectors-gates.jsonl"
    )))
}

/// The part of each built-in detector that a judgment reads (name, events,
/// judge, on_violation, reason; no keywords, no patterns), in the order of
/// [`detectors`].
pub fn detector_judgments() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(
        env!("OUT_DIR"),
        "/detectors-judgments.jsonl"
    )))
}

/// The keyword lists of each built-in detector's action rules
/// (`detector::RuleKeywords`, per rule), in the order of [`detectors`].
pub fn detector_actions() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(
        env!("OUT_DIR"),
        "/detectors-actions.jsonl"
    )))
}

/// Each built-in adapter, in file-name order.
pub fn adapters() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(env!("OUT_DIR"), "/adapters.jsonl")))
}

/// The part of each built-in adapter that agent detection reads
/// (`adapter::Detection`), in the order of [`adapters`].
pub fn adapter_heads() -> impl Iterator<Item = Embedded> {
    lines(include_str!(concat!(
        env!("OUT_DIR"),
        "/adapters-heads.jsonl"
    )))
}

/// The entries of a list build.rs wrote: one `["<stem>",<JSON>]` per line,
/// stems of letters, digits and `-_.` (so the line's first `",` ends it).
/// Lines are found with the `memchr` crate's search (`str::lines` scanned
/// the lines before a detector's at a fifth of a miss for a detector read).
fn lines(jsonl: &'static str) -> impl Iterator<Item = Embedded> {
    let ends = memchr::memchr_iter(b'\n', jsonl.as_bytes()).chain([jsonl.len()]);
    let mut start = 0;
    ends.filter_map(move |end| {
        // A newline is ASCII: every cut is at a character boundary.
        let line = jsonl.get(start..end)?;
        start = end + 1;
        let entry = line.strip_prefix("[\"")?.strip_suffix(']')?;
        entry.split_once("\",")
    })
}

#[cfg(test)]
mod tests {
    /// The embedded lists hold every file of their folder, by stem.
    #[test]
    fn every_yaml_file_is_embedded() {
        for (dir, list) in [
            ("detectors", super::detectors().collect::<Vec<_>>()),
            ("adapters", super::adapters().collect()),
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
        let heads: Vec<&str> = super::detector_heads().map(|(s, _)| s).collect();
        let detectors: Vec<&str> = super::detectors().map(|(s, _)| s).collect();
        assert_eq!(heads, detectors);
        for (_, json) in super::detectors().chain(super::adapters()) {
            assert!(serde_json::from_str::<serde_json::Value>(json).is_ok());
        }
    }
}
