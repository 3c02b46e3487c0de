//! Properties every adapter file must keep, whatever its data: the agents
//! that read any output as a decision always get exit 0 and one JSON object,
//! Claude-like agents get silence on allow, the hook answers a garbage
//! payload in the agent's dialect, and every `install:` section follows the
//! schema the installer reads.

use guard::adapter::{self, AdapterSpec};
use guard::event::EventKind;
use guard::hook::{self, HookInput};
use guard::verdict::{Decision, Verdict};
use serde_json::Value;

fn spec(name: &str) -> AdapterSpec {
    adapter::find(name).unwrap_or_else(|| panic!("no adapter {name}"))
}

fn all_verdicts() -> Vec<(Verdict, Option<Decision>)> {
    let mut out = Vec::new();
    for d in [
        Decision::Allow,
        Decision::Block,
        Decision::Deny,
        Decision::Ask,
    ] {
        for ask_as in [None, Some(Decision::Deny)] {
            let mut v = if d == Decision::Allow {
                Verdict::allow()
            } else {
                Verdict::with(d, "why \"quoted\"\nsecond line")
            };
            out.push((v.clone(), ask_as));
            v.system_message = Some("for the user".into());
            out.push((v, ask_as));
        }
    }
    out
}

/// Every native event of the adapter, plus one it does not know.
fn natives(spec: &AdapterSpec) -> Vec<(String, EventKind)> {
    let mut n: Vec<(String, EventKind)> =
        spec.events.iter().map(|(k, v)| (k.clone(), *v)).collect();
    n.push(("SomeFutureEvent".into(), EventKind::Other));
    n
}

#[test]
fn gemini_cursor_and_copilot_always_get_exit_0_and_one_json_object() {
    // Gemini turns a non-zero exit with text into a deny, Cursor blocks on an
    // invalid answer to a permission hook, Copilot denies a preToolUse that
    // exits non-zero: whatever guard decides, the answer is exit 0 + JSON.
    for agent in ["gemini", "cursor", "copilot", "copilot-pascal"] {
        let spec = spec(agent);
        for (native, kind) in natives(&spec) {
            for (verdict, ask_as) in all_verdicts() {
                let out = spec.render(kind, &native, &verdict, ask_as);
                let what = format!("{agent} {native} {:?} ask_as={ask_as:?}", verdict.decision);
                assert_eq!(out.exit, 0, "{what}");
                assert!(
                    out.stdout.ends_with('\n') && out.stdout.trim_end().lines().count() == 1,
                    "{what}: {:?}",
                    out.stdout
                );
                let value: Value =
                    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(value.is_object(), "{what}");
            }
        }
    }
}

#[test]
fn cursor_permission_hooks_always_carry_a_permission() {
    let spec = spec("cursor");
    for native in ["beforeShellExecution", "beforeMCPExecution", "preToolUse"] {
        for (verdict, ask_as) in all_verdicts()
            .into_iter()
            .filter(|(v, _)| v.decision != Decision::Block)
        {
            let out = spec.render(EventKind::PreTool, native, &verdict, ask_as);
            let value: Value = serde_json::from_str(&out.stdout).unwrap();
            let permission = value["permission"]
                .as_str()
                .unwrap_or_else(|| panic!("{native}: {}", out.stdout));
            let expected = match (verdict.decision, ask_as, native) {
                (Decision::Allow, _, _) => "allow",
                (Decision::Ask, None, "beforeShellExecution" | "beforeMCPExecution") => "ask",
                _ => "deny",
            };
            assert_eq!(
                permission, expected,
                "{native} {:?} ask_as={ask_as:?}",
                verdict.decision
            );
        }
    }
}

#[test]
fn claude_like_agents_say_nothing_on_allow() {
    // Claude Code reads `permissionDecision: allow` as "skip the user's
    // prompt", and Codex rejects a plain allow: allow is exit 0 and silence.
    // Crush reads {"decision":"allow"} as a pre-approval, VS Code and Auggie
    // as an auto-approval; exit-2 agents (Cascade, Kiro) need nothing.
    let claude_like = ["claude-code", "codex", "droid", "qwen", "vscode"];
    for agent in claude_like.into_iter().chain(CANNOT_ASK.iter().copied()) {
        let spec = spec(agent);
        for (native, kind) in natives(&spec) {
            let out = spec.render(kind, &native, &Verdict::allow(), None);
            assert_eq!((out.stdout.as_str(), out.exit), ("", 0), "{agent} {native}");
        }
    }
}

/// The agents of issue 19 that have no ask (or ignore it).
const CANNOT_ASK: &[&str] = &[
    "auggie",
    "devin",
    "goose",
    "crush",
    "windsurf",
    "kiro",
    "antigravity",
    "kimi",
];

#[test]
fn agents_that_cannot_ask_get_a_deny_for_every_ask() {
    // The failure policy of a gate is ask; where the agent has no ask (or
    // ignores it and runs the tool), the gate must still not run the tool.
    for agent in CANNOT_ASK.iter().copied().chain(["codex"]) {
        let spec = spec(agent);
        for (native, kind) in natives(&spec).into_iter().filter(|(_, k)| k.is_gate()) {
            if kind == EventKind::PermissionRequest {
                continue;
            }
            let ask = spec.render(kind, &native, &Verdict::with(Decision::Ask, "r"), None);
            let deny = spec.render(kind, &native, &Verdict::with(Decision::Deny, "r"), None);
            assert_eq!(ask, deny, "{agent} {native}");
            assert!(ask != spec.render(kind, &native, &Verdict::allow(), None));
        }
    }
}

#[test]
fn a_garbage_payload_is_answered_in_the_named_agents_dialect() {
    for (agent, stdout) in [
        ("gemini", "{}\n"),
        ("cursor", "{}\n"),
        ("copilot", "{}\n"),
        ("claude-code", ""),
        ("codex", ""),
    ] {
        let out = hook::run(HookInput {
            agent: Some(agent.into()),
            payload: b"not json {".to_vec(),
            config_path: None,
        });
        assert_eq!((out.stdout.as_str(), out.exit), (stdout, 0), "{agent}");
        assert!(
            out.stderr.contains("not JSON"),
            "{agent}: the problem is reported on stderr: {}",
            out.stderr
        );
    }
}

#[test]
fn every_install_section_follows_the_installer_schema() {
    let (specs, errors) = adapter::builtins();
    assert!(errors.is_empty(), "{errors:?}");
    let mut installable = Vec::new();
    for spec in &specs {
        let Some(install) = &spec.install else {
            continue;
        };
        installable.push(spec.name.clone());
        let name = &spec.name;
        let strings = |key: &str| -> Vec<String> {
            install[key]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: install.{key} is a list"))
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert!(
            !strings("binaries").is_empty() || !strings("config_dirs").is_empty(),
            "{name}: how to tell it is installed"
        );
        // Both scopes, except where the agent's project file is unknown
        // (Antigravity) or there is none (Kimi reads only its user config).
        for key in ["user_file", "project_file"] {
            assert!(
                install[key]
                    .as_str()
                    .is_some_and(|s| s.ends_with(".json") || s.ends_with(".toml"))
                    || (key == "project_file" && ["antigravity", "kimi"].contains(&name.as_str())),
                "{name}: install.{key}"
            );
        }
        let format = install["format"].as_str().unwrap_or_default();
        assert!(
            [
                "claude-hooks",
                "claude-hooks-top-level",
                "cursor-hooks",
                "copilot-hooks",
                "flat-hooks",
                "kiro-hooks",
                "toml-hooks"
            ]
            .contains(&format),
            "{name}: format {format}"
        );
        let unit = install["timeout_unit"].as_str().unwrap_or_default();
        assert!(
            ["seconds", "milliseconds", "none"].contains(&unit),
            "{name}: timeout_unit {unit}"
        );
        let events = install["events"]
            .as_object()
            .unwrap_or_else(|| panic!("{name}: install.events"));
        assert!(!events.is_empty(), "{name}: no events to install");
        for (event, options) in events {
            let kind = spec
                .events
                .get(event)
                .unwrap_or_else(|| panic!("{name}: installs {event}, which it does not map"));
            let stashed = spec
                .text_stash
                .as_ref()
                .is_some_and(|t| t.save_on.contains(event));
            assert!(
                *kind != EventKind::Other || stashed,
                "{name}: installs {event}, which guard ignores"
            );
            let keys: Vec<&String> = options
                .as_object()
                .unwrap_or_else(|| panic!("{name}: {event} options"))
                .keys()
                .collect();
            assert!(
                keys.iter()
                    .all(|k| ["matcher", "entry", "fail_closed", "group"].contains(&k.as_str())),
                "{name}: {event}: the installer reads `matcher`, `entry`, `fail_closed` and `group`, got {keys:?}"
            );
            if options.get("fail_closed").is_some() {
                assert!(
                    kind.is_gate(),
                    "{name}: {event}: a fail-closed switch on a {kind} event (turn ends fail open)"
                );
            }
        }
        if let Some(extra) = install.get("extra") {
            assert!(extra.is_object(), "{name}: install.extra");
        }
    }
    installable.sort();
    assert_eq!(
        installable,
        [
            "antigravity",
            "auggie",
            "claude-code",
            "codex",
            "copilot",
            "crush",
            "cursor",
            "devin",
            "droid",
            "gemini",
            "goose",
            "kimi",
            "kiro",
            "qwen",
            "windsurf"
        ]
    );
}

#[test]
fn agents_with_different_timeout_units_say_so() {
    let unit = |agent: &str| {
        spec(agent).install.unwrap()["timeout_unit"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(unit("gemini"), "milliseconds");
    assert_eq!(unit("qwen"), "milliseconds");
    assert_eq!(unit("auggie"), "milliseconds");
    assert_eq!(unit("windsurf"), "none");
    for agent in [
        "claude-code",
        "codex",
        "cursor",
        "copilot",
        "droid",
        "goose",
        "crush",
        "devin",
        "kiro",
        "antigravity",
        "kimi",
    ] {
        assert_eq!(unit(agent), "seconds", "{agent}");
    }
}
