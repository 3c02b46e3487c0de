//! The files embedded at build time: the default config, the built-in
//! detectors and the built-in adapters (see `build.rs`).

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// The default config (`config.yaml`), the lowest config layer.
pub const DEFAULT_CONFIG: &str = include_str!("../config.yaml");
