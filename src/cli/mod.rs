//! Subcommands other than the hook path's core.

pub mod check;
pub mod config_cmd;
pub mod hook;
