//! `guard doctor`: checks that guard is wired and can work, and says what to
//! do about each problem. Per agent: installed or not, guard's entries
//! present and pointing at an existing executable, timeouts above guard's
//! deadline in the agent's unit, trust state where the agent has one, and
//! the last hook call seen. Then the config, the judge backend and the log
//! directory.

mod agent;

use crate::config::{Config, LoadOptions};
use crate::install::discover;
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

/// The findings gathered so far.
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
        agent::check_agent(agent, opts, &state_dir, &mut out);
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
