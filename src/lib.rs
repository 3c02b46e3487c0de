//! guard: one hook binary for every coding agent.
//!
//! Agent payload → [`adapter`] → [`event::Event`] → [`engine`] (Layer 1
//! keywords and patterns, Layer 2 judge) → [`verdict::Verdict`] → adapter
//! output. `docs/architecture.md` maps each part to its module.
//!
//! `unsafe` is denied here and allowed only in the two modules that make
//! system calls std has no safe form of, each site with its `SAFETY:`
//! reason: the hook's `SIGALRM` watchdog (`hook::watchdog`) and the judge
//! child's process group (`judge::process`). docs/security.md lists them.

#![deny(unsafe_code)]

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
pub mod keywords;
pub mod log;
pub mod logview;
pub mod paths;
pub mod pattern;
pub mod redact;
pub mod robustness;
pub mod shell;
pub mod state;
pub mod transcript;
pub mod verdict;
