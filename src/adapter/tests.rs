//! Unit tests of the adapter mechanisms that data alone cannot show: per
//! native event render overrides, events named from the payload's shape, and
//! events that stand for one tool.

use super::AdapterSpec;
use crate::event::EventKind;
use crate::verdict::{Decision, Verdict};
use serde_json::json;

const SPEC: &str = r#"
name: test-agent
event_field: [hook_event_name]
event_rules:
  - {keys: [toolName, error], event: toolFailed}
  - {keys: [toolName], absent: [done], event: beforeTool}
default_event: fallback
events:
  beforeShell: pre_tool
  beforeTool: pre_tool
  beforeMcp: pre_tool
  toolFailed: post_tool
fields:
  tool_name: [tool_name, toolName]
  tool_input: [tool_input]
  command: [command, tool_input.command]
event_tools:
  beforeShell: shell
  beforeMcp: mcp
render:
  allow: {stdout: {}}
  deny: {stdout: {permission: deny, why: "{reason}"}}
  ask: {stdout: {permission: ask, why: "{reason}"}}
  kinds:
    pre_tool:
      allow: {stdout: {permission: allow}}
  native_events:
    beforeTool:
      ask: {as: deny}
      allow: {stdout: {permission: allow, from: native}}
"#;

fn spec() -> AdapterSpec {
    AdapterSpec::parse("test", SPEC).unwrap()
}

#[test]
fn a_native_event_override_wins_over_the_kind_and_the_default() {
    let spec = spec();
    let allow = Verdict::allow();
    let native = spec.render(EventKind::PreTool, "beforeTool", &allow, None);
    assert_eq!(
        native.stdout,
        "{\"permission\":\"allow\",\"from\":\"native\"}\n"
    );
    let kind = spec.render(EventKind::PreTool, "beforeShell", &allow, None);
    assert_eq!(kind.stdout, "{\"permission\":\"allow\"}\n");
    let default = spec.render(EventKind::PostTool, "toolFailed", &allow, None);
    assert_eq!(default.stdout, "{}\n");
}

#[test]
fn a_native_event_can_render_ask_as_deny_while_its_siblings_ask() {
    let spec = spec();
    let ask = Verdict::with(Decision::Ask, "sure?");
    let native = spec.render(EventKind::PreTool, "beforeTool", &ask, None);
    assert_eq!(
        native.stdout,
        "{\"permission\":\"deny\",\"why\":\"sure?\"}\n"
    );
    let sibling = spec.render(EventKind::PreTool, "beforeShell", &ask, None);
    assert_eq!(
        sibling.stdout,
        "{\"permission\":\"ask\",\"why\":\"sure?\"}\n"
    );
}

#[test]
fn the_event_is_named_from_the_shape_when_the_payload_has_no_name() {
    let spec = spec();
    let named = spec
        .parse_payload(json!({"hook_event_name": "beforeShell", "toolName": "x"}))
        .unwrap();
    assert_eq!(
        named.native_event, "beforeShell",
        "an event field wins over the shape rules"
    );
    let failed = spec
        .parse_payload(json!({"toolName": "bash", "error": "boom"}))
        .unwrap();
    assert_eq!(
        (failed.native_event.as_str(), failed.kind),
        ("toolFailed", EventKind::PostTool),
        "rules are tried in order"
    );
    let before = spec.parse_payload(json!({"toolName": "bash"})).unwrap();
    assert_eq!(
        (before.native_event.as_str(), before.kind),
        ("beforeTool", EventKind::PreTool)
    );
    let absent_key = spec
        .parse_payload(json!({"toolName": "bash", "done": true}))
        .unwrap();
    assert_eq!(
        absent_key.native_event, "fallback",
        "an `absent` key that is present fails the rule"
    );
}

#[test]
fn an_event_that_stands_for_a_tool_names_it_and_keeps_a_non_shell_command_out() {
    let spec = spec();
    let mcp = spec
        .parse_payload(json!({"hook_event_name": "beforeMcp", "tool_name": "db_query", "tool_input": "{\"q\":1}", "command": "npx server"}))
        .unwrap();
    let tool = mcp.tool.unwrap();
    assert_eq!(tool.canonical, "mcp");
    assert_eq!(tool.native_name, "db_query");
    assert_eq!(
        tool.input,
        json!({"q": 1}),
        "a string holding JSON is decoded"
    );
    assert_eq!(
        tool.command, None,
        "the MCP server's launch command is not a shell command"
    );

    let shell = spec
        .parse_payload(json!({"hook_event_name": "beforeShell", "command": "rm -rf /"}))
        .unwrap();
    let tool = shell.tool.unwrap();
    assert_eq!(
        (tool.canonical.as_str(), tool.command.as_deref()),
        ("shell", Some("rm -rf /"))
    );

    let no_tool = spec
        .parse_payload(json!({"hook_event_name": "beforeMcp", "command": "npx server"}))
        .unwrap();
    assert!(
        no_tool.tool.is_none(),
        "a bare command on a non-shell event is not read as a shell tool"
    );
}

/// `guard hook` reads built-in adapters from the JSON that build.rs
/// pre-parsed; it must be the same spec as the YAML file says.
#[test]
fn every_pre_parsed_builtin_adapter_is_its_yaml_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    for (stem, json) in crate::builtin::adapters() {
        let yaml = std::fs::read_to_string(dir.join(format!("{stem}.yaml"))).unwrap();
        let from_yaml = AdapterSpec::parse(stem, &yaml).unwrap();
        let from_json: AdapterSpec = serde_json::from_str(json).unwrap();
        assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"), "{stem}");
    }
}

/// `guard hook` finds an adapter it detected by its name: a built-in
/// adapter's file is named after it.
#[test]
fn every_builtin_adapter_is_named_after_its_file() {
    let (specs, errors) = crate::adapter::builtins();
    assert!(errors.is_empty(), "{errors:?}");
    for spec in &specs {
        assert!(
            crate::adapter::builtin(&spec.name).is_some(),
            "{}",
            spec.name
        );
    }
    assert_eq!(specs.len(), crate::builtin::adapters().count());
}

/// The detection part build.rs writes of each adapter (the keys it copies)
/// reads into the same `Detection` as the adapter's whole file.
#[test]
fn each_embedded_head_is_the_detection_of_its_file() {
    let heads = super::detections();
    let (specs, errors) = super::read_all::<AdapterSpec>(crate::builtin::adapters());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(heads.len(), specs.len());
    for (head, spec) in heads.iter().zip(&specs) {
        assert_eq!(
            format!("{head:?}"),
            format!("{:?}", spec.detection),
            "{}",
            head.name
        );
    }
}
