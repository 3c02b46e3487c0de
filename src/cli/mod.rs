//! Subcommands other than the hook path's core.

pub mod check;
pub mod config_cmd;
pub mod doctor;
pub mod eval;
pub mod hook;
pub mod install;
pub mod label;
pub mod log_cmd;
pub mod pause;
pub mod replay;
pub mod setup;
