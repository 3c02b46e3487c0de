//! The `guard` command line. Each subcommand lives in `src/cli/`; `guard
//! hook` is the hot path and is kept free of anything it does not need.

mod cli;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// guard: one hook binary for every coding agent.
#[derive(Parser)]
#[command(name = "guard", version, about, long_about = None)]
struct Cli {
    /// Use this config file as the top layer (also GUARD_CONFIG).
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read an agent's hook payload on stdin and answer in its dialect.
    Hook {
        /// The agent (claude-code, codex, generic, …); detected from the payload when absent.
        agent: Option<String>,
        /// A payload given as an argument (argv-style agents), instead of stdin.
        payload: Option<String>,
    },
    /// Explain the decision guard would take on a text, a command or an event.
    Check(cli::check::CheckArgs),
    /// Show or validate the merged configuration.
    Config {
        #[command(subcommand)]
        action: cli::config_cmd::ConfigAction,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Hook { .. }) {
        // Printing into a closed pipe (`guard config show | head`) ends quietly.
        // SAFETY: restoring the default disposition of a signal is async-signal-safe.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    let code = match cli.command {
        Command::Hook { agent, payload } => cli::hook::run(agent, payload, cli.config),
        Command::Check(args) => cli::check::run(args, cli.config),
        Command::Config { action } => cli::config_cmd::run(action, cli.config),
    };
    ExitCode::from(code)
}
