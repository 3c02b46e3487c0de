//! The answer when guard cannot judge an event: its failure policy, in the
//! agent's dialect, with the problem on stderr. Turn ends fail open, gates
//! fail safe (ask, or deny where the agent cannot ask), an event that
//! cannot be known is allowed.

use crate::adapter::{self, AdapterSpec, HookOutput};
use crate::config::{self, Config};
use crate::event::EventKind;
use crate::verdict::{Decision, Verdict};

/// What a caught panic said.
pub(super) fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// The built-in adapter of `name`, else Claude Code's: what an answer is
/// rendered with before the payload names the agent.
pub(super) fn fallback_adapter(name: Option<&str>) -> AdapterSpec {
    name.and_then(adapter::find)
        .or_else(|| adapter::find("claude-code"))
        .unwrap_or_else(|| {
            // Only reachable if the built-in adapter files are broken.
            AdapterSpec::parse(
                "minimal",
                "name: minimal\nevents: {}\nrender: {allow: {}}\n",
            )
            .expect("minimal adapter parses")
        })
}

/// The answer when guard cannot judge: the failure policy of the kind (from
/// the config when loaded, else the defaults), with the problem on stderr.
pub(super) fn failure_output(
    spec: &AdapterSpec,
    kind: EventKind,
    native: &str,
    config: Option<&Config>,
    problem: &str,
) -> HookOutput {
    let builtin_config;
    let cfg = match config {
        Some(c) => c,
        None => {
            builtin_config = config::builtin(Some(&spec.name));
            &builtin_config
        }
    };
    let verdict = failure_verdict(kind, cfg, problem);
    let mut out = spec.render(kind, native, &verdict, cfg.ask_as);
    out.stderr.push_str(&format!("guard: {problem}\n"));
    out
}

/// The failure policy of the kind, as a verdict (allow for `other`).
pub(super) fn failure_verdict(kind: EventKind, cfg: &Config, problem: &str) -> Verdict {
    let decision = if kind == EventKind::Other {
        Decision::Allow
    } else {
        crate::engine::fit(kind, cfg.failure_for(kind))
    };
    if decision == Decision::Allow {
        Verdict::allow()
    } else {
        Verdict::with(decision, format!("guard could not check this {kind} event ({problem}), so its failure policy applies: {}.", decision.as_str()))
    }
}
