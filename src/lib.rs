//! guard: one hook binary for every coding agent.
//!
//! Agent payload → [`adapter`] → [`event::Event`] → [`engine`] (Layer 1
//! keywords and patterns, Layer 2 judge) → [`verdict::Verdict`] → adapter
//! output. `docs/architecture.md` maps each part to its module.

pub mod actions;
pub mod adapter;
pub mod builtin;
pub mod config;
pub mod control;
pub mod detector;
pub mod engine;
pub mod eval;
pub mod event;
pub mod hook;
pub mod install;
pub mod judge;
pub mod log;
pub mod logview;
pub mod paths;
pub mod redact;
pub mod robustness;
pub mod shell;
pub mod state;
pub mod transcript;
pub mod verdict;
