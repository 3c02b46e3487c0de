//! The per-agent checks of `guard doctor`: guard's entries present in the
//! agent's settings and pointing at an existing executable, timeouts above
//! guard's deadline in the agent's unit, the fail-closed switch, trust state
//! where the agent has one, and the last hook call seen.

use super::{DoctorOptions, Findings, Status};
use crate::config::DeadlineConfig;
use crate::install::discover::{self, Agent, Scope};
use crate::install::edit::{FoundHook, GuardCommand};
use crate::install::spec::TimeoutUnit;
use std::path::{Path, PathBuf};

#[path = "agent_trust.rs"]
mod trust;
use trust::check_trust;

/// Guard's entries found in one settings file.
struct Wired {
    path: PathBuf,
    hooks: Vec<FoundHook>,
}

pub(super) fn check_agent(
    agent: &Agent,
    opts: &DoctorOptions,
    state_dir: &Path,
    out: &mut Findings,
) {
    let name = agent.adapter.name.as_str();
    let guard = crate::install::guard_matcher(&opts.guard_exe);
    let install_cmd = format!("guard install --agent {name}");
    let presence = discover::presence(&agent.spec);
    let mut wired = Vec::new();
    let root = discover::project_root(&opts.cwd);
    for scope in [Scope::User, Scope::Project] {
        let Ok(path) = discover::settings_path(agent, scope, &root) else {
            continue;
        };
        match crate::install::plan::find_in_file(&path, agent, &guard) {
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
        crate::install::deadlines_for(name, opts.config_path.as_deref(), Some(&opts.cwd));
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
    out.0.extend(crate::install::safety::fail_closed_switches(
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
}
