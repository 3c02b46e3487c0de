//! The files embedded at build time: the default config, the built-in
//! detectors and the built-in adapters (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// The default config (`config.yaml`), the lowest config layer.
pub const DEFAULT_CONFIG: &str = include_str!("../config.yaml");

use crate::event::EventKind;

/// What Layer 1's keyword pass reads of a built-in detector (see
/// `detector::load::Head`), as constant data cut out of its file by build.rs.
#[derive(Debug)]
pub struct BuiltinHead {
    /// The file stem (`detectors/<stem>.yaml`).
    pub stem: &'static str,
    /// The detector's name.
    pub name: &'static str,
    /// The event kinds it applies to.
    pub events: &'static [EventKind],
    /// The canonical tool names it applies to (empty = all).
    pub tools: &'static [&'static str],
    /// Its keywords, as written.
    pub keywords: &'static [&'static str],
}

/// The keyword index of the built-in detectors that apply to some event
/// kinds, built by build.rs (see `engine::keyword_index`).
#[derive(Debug)]
pub struct BuiltinKeywordIndex {
    /// The event kinds; the built-in detectors that apply to them (and no
    /// others) own the keywords of `owners`.
    pub kinds: &'static [EventKind],
    /// The keywords, lowercased and indexed.
    pub set: crate::engine::KeywordSet,
    /// Each keyword of `set`, by id: (keyword, positions in
    /// [`DETECTOR_HEADS`] of the detectors that own it).
    pub owners: &'static [(&'static str, &'static [u16])],
}
