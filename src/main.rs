//! The `guard` command line. Each subcommand lives in `src/cli/`; `guard
//! hook` is the hot path and is kept free of anything it does not need.
//!
//! `unsafe` is denied here as in the library, and allowed for two calls:
//! `poll(2)` on stdin (`cli::hook`) and restoring `SIGPIPE` below.

#![deny(unsafe_code)]

mod cli;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// guard: one hook binary for every coding agent.
#[derive(Parser)]
#[command(name = "guard", version, about, long_about = None)]
struct Cli {
    /// Use this config file as the top layer (also GUARD_CONFIG).
    #[arg(long, global = true, value_name = "PATH", allow_hyphen_values = true)]
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
    /// Wire guard into agents' hook settings (merging; a backup is kept).
    Install(cli::install::InstallArgs),
    /// Remove guard's entries from agents' hook settings, and nothing else.
    Uninstall(cli::install::InstallArgs),
    /// Check that guard is wired and can work; exit 1 on a problem.
    Doctor {
        /// Print the findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure the detectors on a labeled corpus (see docs/eval.md).
    Eval(cli::eval::EvalArgs),
    /// List logged decisions, one line each.
    Log(cli::log_cmd::LogArgs),
    /// Per detector and agent: events, hits, judge calls, blocks, failures, latency.
    Stats(cli::log_cmd::StatsArgs),
    /// Rerun logged decisions against the current (or a given) config; list the flips.
    Replay(cli::replay::ReplayArgs),
    /// Record what a logged decision should have been (for `guard eval --from-log`).
    Label(cli::label::LabelArgs),
    /// Switch guard off for every agent (logged); `guard resume` switches it back on.
    Pause {
        /// Resume by itself after this long (90s, 15m, 2h, 1d); default: until `guard resume`.
        #[arg(long = "for", value_name = "DURATION")]
        duration: Option<String>,
    },
    /// Switch guard back on after `guard pause` (logged).
    Resume,
}

/// The arguments of a plain `guard [--config PATH] hook [AGENT] [PAYLOAD]`
/// call, read without clap: building clap's whole command tree was a visible
/// share of a hook call, the path every agent event takes. Any other shape
/// (flags, `--help`, non-UTF-8) returns `None` and goes through clap.
fn plain_hook_call(
    args: impl Iterator<Item = std::ffi::OsString>,
) -> Option<(Option<String>, Option<String>, Option<PathBuf>)> {
    let mut args = args.map(|a| a.into_string().ok());
    let mut first = args.next()??;
    let mut config = None;
    if first == "--config" {
        let path = args.next()??;
        if path.is_empty() {
            return None; // clap's error for it
        }
        config = Some(PathBuf::from(path));
        first = args.next()??;
    }
    if first != "hook" {
        return None;
    }
    let rest: Vec<String> = args.collect::<Option<_>>()?;
    if rest.len() > 2 || rest.iter().any(|a| a.starts_with('-')) {
        return None;
    }
    let mut rest = rest.into_iter();
    Some((rest.next(), rest.next(), config))
}

/// Printing into a closed pipe (`guard config show | head`) then ends the
/// process quietly, as other command-line tools do (Rust ignores `SIGPIPE`).
#[allow(unsafe_code)]
fn restore_sigpipe() {
    // SAFETY: restoring the default disposition of a signal touches no memory.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

fn main() -> ExitCode {
    if let Some((agent, payload, config)) = plain_hook_call(std::env::args_os().skip(1)) {
        cli::hook::run(agent, payload, config);
    }
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Hook { .. }) {
        restore_sigpipe();
    }
    let code = match cli.command {
        Command::Hook { agent, payload } => cli::hook::run(agent, payload, cli.config),
        Command::Check(args) => cli::check::run(args, cli.config),
        Command::Config { action } => cli::config_cmd::run(action, cli.config),
        Command::Install(args) => cli::install::run_install(args, cli.config),
        Command::Uninstall(args) => cli::install::run_uninstall(args, cli.config),
        Command::Doctor { json } => cli::doctor::run(json, cli.config),
        Command::Eval(args) => cli::eval::run(args, cli.config),
        Command::Log(args) => cli::log_cmd::run_log(args, cli.config),
        Command::Stats(args) => cli::log_cmd::run_stats(args, cli.config),
        Command::Replay(args) => cli::replay::run(args, cli.config),
        Command::Label(args) => cli::label::run(args, cli.config),
        Command::Pause { duration } => cli::pause::pause(duration, cli.config),
        Command::Resume => cli::pause::resume(cli.config),
    };
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What clap makes of `args` when it reads them as a hook call.
    fn clap_hook_call(args: &[&str]) -> Option<(Option<String>, Option<String>, Option<PathBuf>)> {
        let cli = Cli::try_parse_from(std::iter::once("guard").chain(args.iter().copied())).ok()?;
        match cli.command {
            Command::Hook { agent, payload } => Some((agent, payload, cli.config)),
            _ => None,
        }
    }

    /// Every argv of up to five words from the words agents and people
    /// give: wherever the direct path reads a hook call, clap reads the same
    /// call; and the direct path reads the shapes agents send.
    #[test]
    fn the_direct_argv_path_agrees_with_clap() {
        let words = [
            "hook",
            "--config",
            "g.yaml",
            "codex",
            r#"{"hook_event_name":"Stop"}"#,
            "",
            "-v",
            "--help",
            "check",
        ];
        let mut argvs: Vec<Vec<&str>> = vec![vec![]];
        let mut compared = 0;
        for _ in 0..5 {
            let longer: Vec<Vec<&str>> = argvs
                .iter()
                .flat_map(|a| words.iter().map(move |w| [a.as_slice(), &[*w]].concat()))
                .collect();
            for args in &longer {
                let os = args.iter().map(std::ffi::OsString::from);
                if let Some(direct) = plain_hook_call(os) {
                    assert_eq!(Some(direct), clap_hook_call(args), "{args:?}");
                    compared += 1;
                }
            }
            argvs = longer;
        }
        assert!(compared > 300, "{compared}");
        for args in [
            &["hook"][..],
            &["hook", "codex"],
            &["hook", "gemini", r#"{"a":1}"#],
            &["--config", "g.yaml", "hook", "claude-code"],
        ] {
            let os = args.iter().map(std::ffi::OsString::from);
            assert!(plain_hook_call(os).is_some(), "{args:?}");
        }
    }
}
