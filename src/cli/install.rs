//! `guard install` and `guard uninstall`: wire guard into agents' hook
//! settings, or take it out again. The logic is in `guard::install`; this
//! file resolves the agents and prints what happened.

use clap::{ArgGroup, Args, ValueEnum};
use guard::install::{self, Agent, Change, Outcome, Scope};
use std::path::PathBuf;

/// Which settings file to edit.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    /// The user's settings (`~/.claude/settings.json`, …).
    User,
    /// The current repository's settings (`.claude/settings.json`, …).
    Project,
}

/// Options shared by install and uninstall.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("which").required(true).args(["agents", "all"])))]
pub struct InstallArgs {
    /// An agent to wire (repeatable): claude-code, codex, gemini, cursor, copilot, …
    #[arg(long = "agent", value_name = "AGENT")]
    pub agents: Vec<String>,
    /// Every agent found on this machine (on PATH, or by its config directory).
    #[arg(long)]
    pub all: bool,
    /// Edit the user's settings or the current repository's.
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
    /// Print the change as a unified diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

struct Context {
    exe: PathBuf,
    cwd: PathBuf,
    scope: Scope,
    config: Option<PathBuf>,
}

fn context(args: &InstallArgs, config: Option<PathBuf>) -> Result<Context, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the running guard binary: {e}"))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let scope = match args.scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    Ok(Context {
        exe,
        cwd,
        scope,
        config,
    })
}

fn named_agents(names: &[String]) -> Result<Vec<Agent>, String> {
    let mut out: Vec<Agent> = Vec::new();
    for name in names {
        let agent = install::find_agent(name).map_err(|e| e.to_string())?;
        if !out.iter().any(|a| a.adapter.name == agent.adapter.name) {
            out.push(agent);
        }
    }
    Ok(out)
}

fn print_diff(outcome: &Outcome) {
    if outcome.diff.is_empty() {
        println!("  (no change)");
    } else {
        print!("{}", outcome.diff);
    }
}

/// One agent's install; the message printed on success.
fn install_one(agent: &Agent, ctx: &Context, dry_run: bool) -> Result<Outcome, String> {
    let name = &agent.adapter.name;
    let path = install::settings_path(agent, ctx.scope, &install::project_root(&ctx.cwd))
        .map_err(|e| e.to_string())?;
    let (deadlines, warning) = install::deadlines_for(name, ctx.config.as_deref(), Some(&ctx.cwd));
    if let Some(w) = warning {
        eprintln!("{name}: warning: {w}");
    }
    let command = install::hook_command(&ctx.exe, name);
    let wanted = install::wanted_hooks(agent, &command, &deadlines).map_err(|e| e.to_string())?;
    install::install_file(
        &path,
        agent,
        &wanted,
        &install::guard_matcher(&ctx.exe),
        dry_run,
    )
    .map_err(|e| e.to_string())
}

/// Runs `guard install`; returns the exit code.
pub fn run_install(args: InstallArgs, config: Option<PathBuf>) -> u8 {
    let ctx = match context(&args, config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("guard install: {e}");
            return 1;
        }
    };
    let agents = if args.all {
        for e in install::load_agents().1 {
            eprintln!("guard install: skipped: {e}");
        }
        let found = install::installed_agents();
        if found.is_empty() {
            eprintln!("guard install: no agent found on this machine (looked for their executables on PATH and their config directories).");
            eprintln!("Wire one by hand, e.g.: guard install --agent claude-code");
            return 1;
        }
        found
    } else {
        match named_agents(&args.agents) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("guard install: {e}");
                return 1;
            }
        }
    };
    let mut failed = false;
    for agent in &agents {
        let name = &agent.adapter.name;
        let events: Vec<&str> = agent
            .spec
            .events
            .0
            .iter()
            .map(|(e, _)| e.as_str())
            .collect();
        match install_one(agent, &ctx, args.dry_run) {
            Ok(outcome) => {
                let file = outcome.file.display();
                if args.dry_run {
                    println!(
                        "{name}: {file} ({}, dry run: nothing written)",
                        describe(outcome.change)
                    );
                    print_diff(&outcome);
                    continue;
                }
                println!(
                    "{name}: {} {} in {file}",
                    describe(outcome.change),
                    events.join(", ")
                );
                if let Some(backup) = &outcome.backup {
                    println!("  backup of the original: {}", backup.display());
                }
                if let Some(notice) = &agent.spec.notice {
                    println!("  note: {}", notice.trim());
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{name}: not installed: {e}");
            }
        }
    }
    u8::from(failed)
}

fn describe(change: Change) -> &'static str {
    match change {
        Change::Unchanged => "already up to date:",
        Change::Created => "created the file and wired",
        Change::Updated => "wired",
        Change::Restored => "restored the original",
        Change::Removed => "removed the file guard had created",
        Change::Missing => "no settings file",
    }
}

/// Runs `guard uninstall`; returns the exit code.
pub fn run_uninstall(args: InstallArgs, config: Option<PathBuf>) -> u8 {
    let ctx = match context(&args, config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("guard uninstall: {e}");
            return 1;
        }
    };
    let agents = if args.all {
        Ok(install::agents())
    } else {
        named_agents(&args.agents)
    };
    let agents = match agents {
        Ok(a) => a,
        Err(e) => {
            eprintln!("guard uninstall: {e}");
            return 1;
        }
    };
    let mut failed = false;
    let mut touched = false;
    for agent in &agents {
        let name = &agent.adapter.name;
        match uninstall_one(agent, &ctx, args.dry_run) {
            Ok(outcome) => {
                touched |= !matches!(outcome.change, Change::Missing | Change::Unchanged);
                let file = outcome.file.display();
                match (outcome.change, args.dry_run) {
                    (Change::Missing, _) if args.all => {}
                    (Change::Unchanged, _) if args.all => {}
                    (Change::Missing, _) => {
                        println!("{name}: {file} does not exist: nothing to remove")
                    }
                    (Change::Unchanged, _) => println!("{name}: no guard entries in {file}"),
                    (change, true) => {
                        println!(
                            "{name}: {file} (dry run, nothing written: would have {})",
                            uninstall_words(change)
                        );
                        print_diff(&outcome);
                    }
                    (change, false) => println!("{name}: {} ({file})", uninstall_words(change)),
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{name}: not uninstalled: {e}");
            }
        }
    }
    if args.all && !touched && !failed {
        println!(
            "guard uninstall: no guard entries found in any agent's {} settings",
            ctx.scope.name()
        );
    }
    u8::from(failed)
}

fn uninstall_words(change: Change) -> &'static str {
    match change {
        Change::Restored => {
            "removed guard's entries and restored the original file from its backup"
        }
        Change::Removed => "removed the settings file guard had created",
        _ => "removed guard's entries; everything else kept",
    }
}

fn uninstall_one(agent: &Agent, ctx: &Context, dry_run: bool) -> Result<Outcome, String> {
    let path = install::settings_path(agent, ctx.scope, &install::project_root(&ctx.cwd))
        .map_err(|e| e.to_string())?;
    let (deadlines, _) =
        install::deadlines_for(&agent.adapter.name, ctx.config.as_deref(), Some(&ctx.cwd));
    let command = install::hook_command(&ctx.exe, &agent.adapter.name);
    let wanted = install::wanted_hooks(agent, &command, &deadlines).map_err(|e| e.to_string())?;
    install::uninstall_file(
        &path,
        agent,
        &wanted,
        &install::guard_matcher(&ctx.exe),
        dry_run,
    )
    .map_err(|e| e.to_string())
}
