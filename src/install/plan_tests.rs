use super::*;
use crate::config::DeadlineConfig;
use crate::install::{find_agent, wanted_hooks};
use proptest::prelude::*;
use serde_json::json;

const GUARD: &str = "/opt/bin/guard";

fn setup(name: &str) -> (Agent, Vec<WantedHook>, GuardCommand) {
    // Parsing the adapters once keeps hundreds of cases fast.
    static AGENTS: std::sync::OnceLock<Vec<(Agent, Vec<WantedHook>)>> = std::sync::OnceLock::new();
    let all = AGENTS.get_or_init(|| {
        ["claude-code", "codex"]
            .iter()
            .map(|n| {
                let agent = find_agent(n).unwrap();
                let command = format!("{GUARD} hook {}", agent.adapter.name);
                let wanted = wanted_hooks(&agent, &command, &DeadlineConfig::default()).unwrap();
                (agent, wanted)
            })
            .collect()
    });
    let (agent, wanted) = all
        .iter()
        .find(|(a, _)| a.adapter.name == name)
        .unwrap()
        .clone();
    (agent, wanted, GuardCommand::new(&[]))
}

/// An agent like Gemini: guard must also switch a setting on.
fn with_extra(mut agent: Agent) -> Agent {
    agent.spec.extra = Some(json!({"hooksConfig": {"enabled": true}}));
    agent
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[ -~é\u{1F600}/\\\\\"]{0,12}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_]{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn other_handler() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,6}( --[a-z]{1,4})?",
        prop::option::of(1u64..600),
        prop::option::of(json_value()),
    )
        .prop_map(|(cmd, timeout, extra)| {
            let mut h = Map::new();
            h.insert("type".into(), "command".into());
            h.insert("command".into(), cmd.into());
            if let Some(t) = timeout {
                h.insert("timeout".into(), t.into());
            }
            if let Some(x) = extra {
                h.insert("statusMessage".into(), x);
            }
            Value::Object(h)
        })
}

fn group(allow_empty: bool) -> impl Strategy<Value = Value> {
    let min = usize::from(!allow_empty);
    (
        prop::option::of("\\*|Bash|Edit\\|Write"),
        prop::collection::vec(other_handler(), min..3),
    )
        .prop_map(|(matcher, handlers)| {
            let mut g = Map::new();
            if let Some(m) = matcher {
                g.insert("matcher".into(), m.into());
            }
            g.insert("hooks".into(), Value::Array(handlers));
            Value::Object(g)
        })
}

/// A settings file: unknown keys, nested objects, and other tools' hooks
/// under the events guard uses and others.
pub(crate) fn settings(allow_empty: bool) -> impl Strategy<Value = Map<String, Value>> {
    let min = usize::from(!allow_empty);
    let event = prop_oneof![
        Just("Stop"),
        Just("SubagentStop"),
        Just("PreToolUse"),
        Just("PostToolUse"),
        Just("SessionStart")
    ];
    let hooks = prop::collection::vec(
        (event, prop::collection::vec(group(allow_empty), min..3)),
        min..4,
    )
    .prop_map(|events| {
        events
            .into_iter()
            .map(|(e, g)| (e.to_string(), Value::Array(g)))
            .collect::<Map<String, Value>>()
    });
    (
        prop::collection::vec(("[a-zA-Z_]{1,10}", json_value()), 0..5),
        prop::option::of(hooks),
        0usize..6,
    )
        .prop_map(|(keys, hooks, position)| {
            let mut root: Map<String, Value> =
                keys.into_iter().filter(|(k, _)| k != "hooks").collect();
            if let Some(h) = hooks {
                let mut entries: Vec<(String, Value)> =
                    std::mem::take(&mut root).into_iter().collect();
                entries.insert(
                    position.min(entries.len()),
                    ("hooks".into(), Value::Object(h)),
                );
                root = entries.into_iter().collect();
            }
            root
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn install_twice_equals_install_once(original in settings(true), agent in prop_oneof![Just("claude-code"), Just("codex")]) {
        let (agent, wanted, guard) = setup(agent);
        let once = plan_install(&original, &agent, &wanted, &guard).unwrap();
        let twice = plan_install(&once, &agent, &wanted, &guard).unwrap();
        prop_assert_eq!(&once, &twice);
        let style = json_file::Style::default();
        prop_assert_eq!(json_file::render(&once, &style), json_file::render(&twice, &style));
        prop_assert_eq!(edit::find(&once, agent.spec.format, &guard).len(), wanted.len());
    }

    #[test]
    fn uninstall_after_install_restores_the_backup(original in settings(true), extra in any::<bool>()) {
        let (mut agent, wanted, guard) = setup("claude-code");
        if extra {
            agent = with_extra(agent);
        }
        let installed = plan_install(&original, &agent, &wanted, &guard).unwrap();
        prop_assert_eq!(plan_uninstall(&installed, Some(&original), &agent, &wanted, &guard), UninstallPlan::RestoreBackup);
    }

    #[test]
    fn removing_guard_gives_back_a_file_without_empties(original in settings(false)) {
        let (agent, wanted, guard) = setup("codex");
        let mut installed = plan_install(&original, &agent, &wanted, &guard).unwrap();
        edit::uninstall(&mut installed, agent.spec.format, &guard);
        // Serialized, so that key order counts too.
        prop_assert_eq!(serde_json::to_string(&installed).unwrap(), serde_json::to_string(&original).unwrap());
    }

    #[test]
    fn a_moved_binary_replaces_the_old_entries(original in settings(true)) {
        let (agent, wanted, guard) = setup("claude-code");
        let installed = plan_install(&original, &agent, &wanted, &guard).unwrap();
        let moved: Vec<WantedHook> = wanted.iter().map(|w| WantedHook { command: "'/new place/guard' hook claude-code".into(), ..w.clone() }).collect();
        let reinstalled = plan_install(&installed, &agent, &moved, &guard).unwrap();
        let found = edit::find(&reinstalled, agent.spec.format, &guard);
        prop_assert_eq!(found.len(), wanted.len());
        prop_assert!(found.iter().all(|h| h.command.starts_with("'/new place/")));
    }

    #[test]
    fn user_edits_after_install_are_kept_by_uninstall(original in settings(false), value in json_value()) {
        prop_assume!(!original.contains_key("addedLater"));
        let (agent, wanted, guard) = setup("claude-code");
        let mut installed = plan_install(&original, &agent, &wanted, &guard).unwrap();
        installed.insert("addedLater".into(), value.clone());
        let mut expected = original.clone();
        expected.insert("addedLater".into(), value);
        match plan_uninstall(&installed, Some(&original), &agent, &wanted, &guard) {
            UninstallPlan::Write(v) => prop_assert_eq!(serde_json::to_string(&v).unwrap(), serde_json::to_string(&expected).unwrap()),
            other => prop_assert!(false, "unexpected plan {:?}", other),
        }
    }
}

#[test]
fn a_file_guard_created_is_removed_on_uninstall() {
    for name in ["claude-code", "codex"] {
        let (agent, wanted, guard) = setup(name);
        let agent = with_extra(agent);
        let created = plan_install(&Map::new(), &agent, &wanted, &guard).unwrap();
        assert_eq!(
            plan_uninstall(&created, None, &agent, &wanted, &guard),
            UninstallPlan::RemoveFile
        );
    }
}

#[test]
fn a_backup_holding_guard_entries_is_not_restored() {
    let (agent, wanted, guard) = setup("claude-code");
    let old = plan_install(&Map::new(), &agent, &wanted, &guard).unwrap();
    match plan_uninstall(&old, Some(&old), &agent, &wanted, &guard) {
        UninstallPlan::Write(v) => assert!(edit::find(&v, agent.spec.format, &guard).is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn nothing_to_do_without_guard_entries() {
    let (agent, wanted, guard) = setup("claude-code");
    let file = json!({"hooks": {"Stop": []}}).as_object().unwrap().clone();
    assert_eq!(
        plan_uninstall(&file, None, &agent, &wanted, &guard),
        UninstallPlan::Nothing
    );
}
