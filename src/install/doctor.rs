//! `guard doctor`: checks that guard is wired and can work, and says what to
//! do about each problem. Per agent: installed or not, guard's entries
//! present and pointing at an existing executable, timeouts above guard's
//! deadline in the agent's unit, trust state where the agent has one, and
//! the last hook call seen. Then the config, the judge backend and the log
//! directory.

use super::discover::{self, Agent, Scope};
use super::edit::{FoundHook, GuardCommand};
use super::spec::TimeoutUnit;
use crate::config::{Config, DeadlineConfig, LoadOptions};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How a check went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fine.
    Ok,
    /// For information (e.g. an agent that is not installed).
    Info,
    /// Probably fine, worth a look; does not fail the doctor.
    Warn,
    /// Broken: the doctor exits non-zero.
    Error,
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The agent it is about, if any.
    pub agent: Option<String>,
    /// What was checked.
    pub check: String,
    /// How it went.
    pub status: Status,
    /// What was found.
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Every finding.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// True when no finding is an error.
    pub ok: bool,
    /// The findings, agents first.
    pub findings: Vec<Finding>,
}

/// What the doctor looks at.
#[derive(Debug, Clone)]
pub struct DoctorOptions {
    /// `--config PATH`.
    pub config_path: Option<PathBuf>,
    /// The working directory (its repository's project settings are checked too).
    pub cwd: PathBuf,
    /// The running guard binary.
    pub guard_exe: PathBuf,
}

struct Findings(Vec<Finding>);

impl Findings {
    fn add(
        &mut self,
        agent: Option<&str>,
        check: &str,
        status: Status,
        message: String,
        fix: Option<String>,
    ) {
        self.0.push(Finding {
            agent: agent.map(str::to_string),
            check: check.to_string(),
            status,
            message,
            fix,
        });
    }
}

/// Runs every check.
pub fn run(opts: &DoctorOptions) -> Report {
    let mut out = Findings(Vec::new());
    let state_dir = crate::paths::state_dir();
    let (agents, errors) = discover::load_agents();
    for agent in &agents {
        check_agent(agent, opts, &state_dir, &mut out);
    }
    out.0.extend(super::safety::unknown_shapes(&state_dir));
    for e in errors {
        out.add(
            None,
            "adapters",
            Status::Error,
            e.to_string(),
            Some("report this bug: a built-in adapter file is wrong".into()),
        );
    }
    let config = check_config(opts, &mut out);
    if let Some(config) = config {
        check_judge(&config.judge, &mut out);
        check_writable(&config.log.dir(), "log directory", &mut out);
    }
    check_writable(&state_dir, "state directory", &mut out);
    let ok = !out.0.iter().any(|f| f.status == Status::Error);
    Report {
        ok,
        findings: out.0,
    }
}

fn check_config(opts: &DoctorOptions, out: &mut Findings) -> Option<Config> {
    let load = LoadOptions {
        explicit: opts.config_path.clone(),
        cwd: Some(opts.cwd.clone()),
        agent: None,
        only_explicit: false,
    };
    let fix = Some("run `guard config validate` and correct the file it names".to_string());
    let loaded = match crate::config::load(&load) {
        Ok(l) => l,
        Err(e) => {
            out.add(None, "config", Status::Error, e.to_string(), fix);
            return None;
        }
    };
    for refused in &loaded.refused {
        out.add(
            None,
            "config",
            Status::Warn,
            format!("project config setting refused (it would loosen your policy): {refused}"),
            Some("set trust_project_config: true in your own config to allow it".into()),
        );
    }
    // A detector problem still leaves a usable config for the checks after this one.
    let detectors = match crate::detector::load::load(&loaded.config) {
        Ok(d) => d,
        Err(e) => {
            out.add(None, "config", Status::Error, e.to_string(), fix);
            return Some(loaded.config);
        }
    };
    let invalid: Vec<String> = detectors
        .iter()
        .filter_map(|d| crate::detector::load::validate(&d.spec).err())
        .map(|e| e.to_string())
        .collect();
    if invalid.is_empty() {
        out.add(
            None,
            "config",
            Status::Ok,
            format!(
                "config valid: {} layer(s), {} detector(s) enabled",
                loaded.layers.len(),
                detectors.len()
            ),
            None,
        );
    }
    for e in invalid {
        out.add(None, "config", Status::Error, e, fix.clone());
    }
    Some(loaded.config)
}

fn check_judge(judge: &crate::judge::JudgeConfig, out: &mut Findings) {
    let backend = crate::judge::resolve_backend(judge);
    let set_it = "install one of the judge CLIs (codex, claude, gemini) on PATH, or set judge.backend (and judge.command / judge.url) in your config";
    let missing = |program: &str| {
        !program.is_empty()
            && crate::paths::find_program(&[program]).is_none()
            && !(program.contains('/') && Path::new(program).is_file())
    };
    match backend.as_str() {
        "" | "none" => out.add(None, "judge", Status::Warn, "no judge backend: a Layer-1 hit that needs a judgment fails by policy (turn ends allowed, gates asked)".into(), Some(set_it.into())),
        "codex" | "claude" | "gemini" if missing(&backend) => {
            out.add(None, "judge", Status::Error, format!("judge backend {backend}: `{backend}` is not on PATH"), Some(set_it.into()))
        }
        "command" if judge.command.first().is_none_or(|p| missing(p)) => {
            out.add(None, "judge", Status::Error, format!("judge backend command: {:?} cannot be run", judge.command), Some("set judge.command to the argv of an executable".into()))
        }
        "http" if judge.url.is_none() => out.add(None, "judge", Status::Error, "judge backend http has no judge.url".into(), Some("set judge.url (and judge.api_key_env)".into())),
        _ => {
            let report = crate::judge::canary::run(judge);
            let ms = report.latency_ms.unwrap_or(0);
            if crate::judge::canary::passed(&report) {
                out.add(None, "judge", Status::Ok, format!("judge backend: {backend}; canary judgment right in {ms} ms"), None);
            } else if report.outcome == crate::verdict::JudgeOutcome::Fail {
                let why = report.error.unwrap_or_default();
                out.add(None, "judge", Status::Error, format!("judge backend {backend}: the canary judgment failed ({why})"), Some("run the backend by hand (see docs/judge.md), check its login, model and judge.timeout_ms".into()));
            } else {
                out.add(None, "judge", Status::Warn, format!("judge backend {backend}: answered the canary wrongly in {ms} ms (an unverified push judged harmless)"), Some("use a stronger judge.model".into()));
            }
        }
    }
}

fn check_writable(dir: &Path, what: &str, out: &mut Findings) {
    let probe = dir.join(format!(".guard-doctor-{}", std::process::id()));
    let result = std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(&probe, b"ok"))
        .and_then(|_| std::fs::remove_file(&probe));
    match result {
        Ok(()) => out.add(
            None,
            what,
            Status::Ok,
            format!("{what} writable: {}", dir.display()),
            None,
        ),
        Err(e) => out.add(
            None,
            what,
            Status::Error,
            format!("{what} {} is not writable: {e}", dir.display()),
            Some(format!(
                "fix the permissions of {}, or point guard elsewhere (log.dir, XDG_STATE_HOME)",
                dir.display()
            )),
        ),
    }
}

/// Guard's entries found in one settings file.
struct Wired {
    path: PathBuf,
    hooks: Vec<FoundHook>,
}

fn check_agent(agent: &Agent, opts: &DoctorOptions, state_dir: &Path, out: &mut Findings) {
    let name = agent.adapter.name.as_str();
    let guard = super::guard_matcher(&opts.guard_exe);
    let install_cmd = format!("guard install --agent {name}");
    let presence = discover::presence(&agent.spec);
    let mut wired = Vec::new();
    let root = discover::project_root(&opts.cwd);
    for scope in [Scope::User, Scope::Project] {
        let Ok(path) = discover::settings_path(agent, scope, &root) else {
            continue;
        };
        match super::plan::find_in_file(&path, agent, &guard) {
            Ok(None) => {}
            Ok(Some((path, hooks))) => {
                if !hooks.is_empty() {
                    wired.push(Wired { path, hooks });
                }
            }
            Err(e) => out.add(
                Some(name),
                "settings",
                Status::Error,
                e.to_string(),
                Some(format!(
                    "correct the file (the agent cannot read it either), then `{install_cmd}`"
                )),
            ),
        }
    }
    if wired.is_empty() {
        match presence {
            Some(why) => out.add(
                Some(name),
                "wired",
                Status::Info,
                format!("installed ({why}), guard not wired"),
                Some(install_cmd),
            ),
            None => out.add(
                Some(name),
                "installed",
                Status::Info,
                "not installed".into(),
                None,
            ),
        }
        return;
    }
    let where_ = wired
        .iter()
        .map(|w| w.path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    out.add(
        Some(name),
        "wired",
        Status::Ok,
        format!("guard wired in {where_}"),
        None,
    );
    let (deadlines, warning) =
        super::deadlines_for(name, opts.config_path.as_deref(), Some(&opts.cwd));
    if let Some(w) = warning {
        out.add(Some(name), "timeouts", Status::Warn, w, None);
    }
    for w in &wired {
        check_entries(agent, w, &deadlines, &install_cmd, out);
    }
    if let Some(trust_file) = &agent.spec.trust_state {
        check_trust(agent, trust_file, &wired, out);
    }
    match crate::state::last_heartbeat(state_dir, name) {
        Some(at) => {
            let ago = crate::state::now_secs().saturating_sub(at);
            out.add(Some(name), "last call", Status::Ok, format!("last hook call {} ago", human_duration(ago)), None);
        }
        None => out.add(Some(name), "last call", Status::Warn, "wired but never fired: no hook call seen yet".into(),
            Some(format!("start a session of {} and end a turn; if it still never fires, check that the agent loads {where_}{}", agent.adapter.description,
                if agent.spec.trust_state.is_some() { " and that the hooks are trusted" } else { "" }))),
    }
}

fn check_entries(
    agent: &Agent,
    wired: &Wired,
    deadlines: &DeadlineConfig,
    install_cmd: &str,
    out: &mut Findings,
) {
    let name = agent.adapter.name.as_str();
    let file = wired.path.display();
    for (event, _) in &agent.spec.events.0 {
        match wired.hooks.iter().filter(|h| &h.event == event).count() {
            0 => out.add(
                Some(name),
                "entries",
                Status::Warn,
                format!("{file}: {event} is not wired"),
                Some(install_cmd.to_string()),
            ),
            1 => {}
            n => out.add(
                Some(name),
                "entries",
                Status::Warn,
                format!("{file}: {event} has {n} guard entries (each call runs guard {n} times)"),
                Some(install_cmd.to_string()),
            ),
        }
    }
    out.0.extend(super::safety::fail_closed_switches(
        agent,
        &wired.path,
        &wired.hooks,
        install_cmd,
    ));
    for hook in &wired.hooks {
        let exe = GuardCommand::executable(&hook.command).unwrap_or_default();
        if !executable_exists(&exe) {
            out.add(
                Some(name),
                "executable",
                Status::Error,
                format!(
                    "{file}: {} runs {exe:?}, which is not an executable",
                    hook.event
                ),
                Some(format!(
                    "{install_cmd} (from the guard binary you want the agent to run)"
                )),
            );
        }
        let Some(kind) = agent.adapter.events.get(&hook.event).copied() else {
            out.add(
                Some(name),
                "entries",
                Status::Warn,
                format!(
                    "{file}: guard is wired under {}, an event guard does not know for this agent",
                    hook.event
                ),
                Some(format!("guard uninstall --agent {name} && {install_cmd}")),
            );
            continue;
        };
        let unit = agent.spec.timeout_unit;
        let deadline_ms = deadlines.for_kind(kind).as_millis() as u64;
        match hook.timeout {
            None if unit == TimeoutUnit::None => {}
            None => out.add(
                Some(name),
                "timeouts",
                Status::Info,
                format!(
                    "{file}: {} has no timeout (the agent's default applies)",
                    hook.event
                ),
                None,
            ),
            Some(t) => {
                if let Some(problem) = timeout_problem(t, unit, deadline_ms) {
                    out.add(
                        Some(name),
                        "timeouts",
                        Status::Error,
                        format!(
                            "{file}: {} timeout {t} {}: {problem}",
                            hook.event,
                            unit.name()
                        ),
                        Some(install_cmd.to_string()),
                    );
                }
            }
        }
    }
}

/// What is wrong with a timeout, if anything.
pub fn timeout_problem(value: u64, unit: TimeoutUnit, deadline_ms: u64) -> Option<String> {
    let ms = unit.to_ms(value);
    if unit == TimeoutUnit::Milliseconds && value > 0 && value < 1000 {
        return Some("this agent counts milliseconds: the value looks like seconds, so the agent kills guard almost at once".into());
    }
    if ms <= deadline_ms {
        return Some(format!("not above guard's own deadline ({deadline_ms} ms): the agent would kill guard before it answers"));
    }
    if unit == TimeoutUnit::Seconds && value >= 10_000 {
        return Some("this agent counts seconds: the value looks like milliseconds (a hung hook would block for hours)".into());
    }
    None
}

fn executable_exists(word: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    if word.is_empty() {
        return false;
    }
    if !word.contains('/') {
        return crate::paths::find_program(&[word]).is_some();
    }
    std::fs::metadata(word).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One `[hooks.state."<file>:<event_key>:<group>:<handler>"]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRecord {
    /// The table's key.
    pub key: String,
    /// Whether it holds a `trusted_hash`.
    pub trusted: bool,
    /// Whether it says `enabled = false`.
    pub disabled: bool,
}

/// Reads the trust tables of a Codex `config.toml` (a line scan: guard
/// only needs the table names and two keys).
pub fn trust_records(toml: &str) -> Vec<TrustRecord> {
    let mut out: Vec<TrustRecord> = Vec::new();
    let mut current: Option<usize> = None;
    for line in toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            current = None;
            let header = line.trim_start_matches('[').trim_end_matches(']').trim();
            if let Some(key) = header
                .strip_prefix("hooks.state.")
                .and_then(|k| k.strip_prefix('"'))
                .and_then(|k| k.strip_suffix('"'))
            {
                out.push(TrustRecord {
                    key: key.replace("\\\\", "\\"),
                    trusted: false,
                    disabled: false,
                });
                current = Some(out.len() - 1);
            }
            continue;
        }
        let Some(record) = current.and_then(|i| out.get_mut(i)) else {
            continue;
        };
        let compact: String = line
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if compact.starts_with("trusted_hash=") {
            record.trusted = true;
        } else if compact == "enabled=false" {
            record.disabled = true;
        }
    }
    out
}

/// Codex's key for a native event name: `PreToolUse` → `pre_tool_use`.
pub fn snake_event(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Checks the agent's trust records (Codex: `[hooks.state."<file>:…"]`
/// tables with a `trusted_hash`) for each wired event. Guard cannot check
/// the hashes themselves: a hook changed since it was trusted is reported
/// fine here but skipped by the agent.
fn check_trust(agent: &Agent, trust_file: &str, wired: &[Wired], out: &mut Findings) {
    let name = agent.adapter.name.as_str();
    let fix = Some(format!("start {}, type /hooks and trust guard's hooks (again after each install that changes them)", agent.adapter.description));
    let Some(path) = super::spec::expand_path(trust_file, crate::paths::home().as_deref()) else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    if text
        .lines()
        .any(|l| l.split('#').next().unwrap_or("").replace(' ', "") == "bypass_hook_trust=true")
    {
        out.add(
            Some(name),
            "trust",
            Status::Ok,
            format!(
                "{}: bypass_hook_trust = true (every hook runs)",
                path.display()
            ),
            None,
        );
        return;
    }
    let records = trust_records(&text);
    for w in wired {
        let mut events: Vec<&str> = w.hooks.iter().map(|h| h.event.as_str()).collect();
        events.dedup();
        for event in events {
            let canonical = std::fs::canonicalize(&w.path).unwrap_or_else(|_| w.path.clone());
            let prefixes =
                [&w.path, &canonical].map(|p| format!("{}:{}:", p.display(), snake_event(event)));
            let mine: Vec<&TrustRecord> = records
                .iter()
                .filter(|r| prefixes.iter().any(|p| r.key.starts_with(p)))
                .collect();
            if mine.iter().any(|r| r.disabled) {
                out.add(
                    Some(name),
                    "trust",
                    Status::Error,
                    format!(
                        "{event} in {} is disabled in {}",
                        w.path.display(),
                        path.display()
                    ),
                    fix.clone(),
                );
            } else if !mine.iter().any(|r| r.trusted) {
                out.add(Some(name), "trust", Status::Error, format!("{event} in {} is not trusted (no record in {}): the agent skips it silently", w.path.display(), path.display()), fix.clone());
            } else {
                out.add(Some(name), "trust", Status::Ok, format!("{event}: trust recorded (guard cannot verify the hash: if the hook changed since, trust it again)"), None);
            }
        }
    }
}

fn human_duration(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_checked_against_the_deadline_and_the_unit() {
        assert_eq!(timeout_problem(30, TimeoutUnit::Seconds, 20_000), None);
        assert!(timeout_problem(20, TimeoutUnit::Seconds, 20_000)
            .unwrap()
            .contains("deadline"));
        assert!(timeout_problem(30, TimeoutUnit::Milliseconds, 20_000)
            .unwrap()
            .contains("seconds"));
        assert_eq!(
            timeout_problem(30_000, TimeoutUnit::Milliseconds, 20_000),
            None
        );
        assert!(timeout_problem(30_000, TimeoutUnit::Seconds, 20_000)
            .unwrap()
            .contains("milliseconds"));
    }

    #[test]
    fn codex_trust_tables_are_read() {
        let toml = "model = \"x\"\n[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:ab\"\n\n[hooks.state.\"/h/.codex/hooks.json:stop:1:0\"]\nenabled = false # off\n[other]\ntrusted_hash = 1\n";
        let records = trust_records(toml);
        assert_eq!(records.len(), 2);
        assert_eq!(
            records[0],
            TrustRecord {
                key: "/h/.codex/hooks.json:pre_tool_use:0:0".into(),
                trusted: true,
                disabled: false
            }
        );
        assert!(records[1].disabled && !records[1].trusted);
        assert_eq!(snake_event("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_event("Stop"), "stop");
    }
}
