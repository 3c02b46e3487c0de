//! Exact argv of each CLI backend and how their outputs are read.

use super::*;
use serde_json::json;

#[test]
fn codex_argv_is_exact() {
    let argv = codex_argv(
        Some("gpt-5.4-mini"),
        Path::new("/t/schema.json"),
        Path::new("/t/last.txt"),
    );
    assert_eq!(
        argv,
        [
            "codex",
            "exec",
            "--ephemeral",
            "--skip-git-repo-check",
            "-s",
            "read-only",
            "--disable",
            "hooks",
            "--output-schema",
            "/t/schema.json",
            "-o",
            "/t/last.txt",
            "-m",
            "gpt-5.4-mini",
            "-"
        ]
    );
    let no_model = codex_argv(None, Path::new("/s"), Path::new("/l"));
    assert!(!no_model.contains(&"-m".to_string()));
    assert_eq!(no_model.last().map(String::as_str), Some("-"));
}

#[test]
fn claude_argv_is_exact() {
    let schema = json!({"type": "object"});
    let argv = claude_argv(Some("haiku"), &schema, "PROMPT");
    assert_eq!(
        argv,
        [
            "claude",
            "-p",
            "--output-format",
            "json",
            "--json-schema",
            r#"{"type":"object"}"#,
            "--tools",
            "",
            "--no-session-persistence",
            "--settings",
            r#"{"disableAllHooks":true}"#,
            "--max-turns",
            "2",
            "--model",
            "haiku",
            "PROMPT"
        ]
    );
    assert_eq!(claude_argv(None, &schema, "P").len(), 14);
}

#[test]
fn gemini_argv_and_env_are_exact() {
    assert_eq!(
        gemini_argv(None, "PROMPT"),
        [
            "gemini",
            "-p",
            "PROMPT",
            "--output-format",
            "json",
            "-m",
            GEMINI_DEFAULT_MODEL
        ]
    );
    assert_eq!(
        gemini_argv(Some("gemini-2.5-pro"), "P")[6],
        "gemini-2.5-pro"
    );
    let env = gemini_env(Path::new("/t/settings.json"));
    assert!(env.contains(&(
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH".to_string(),
        "/t/settings.json".to_string()
    )));
    assert!(env.contains(&("GEMINI_CLI_TRUST_WORKSPACE".to_string(), "true".to_string())));
    let settings: Value = serde_json::from_str(GEMINI_HOOKS_OFF).unwrap();
    assert_eq!(settings["hooksConfig"]["enabled"], json!(false));
}

#[test]
fn claude_output_structured_then_result() {
    let structured =
        json!({"type": "result", "result": "", "structured_output": {"a": true}}).to_string();
    assert!(
        matches!(claude_answer(&structured), Ok(RawAnswer::Object(o)) if o["a"] == json!(true))
    );
    let text = json!({"type": "result", "result": "```json\n{\"a\": 1}\n```"}).to_string();
    assert!(matches!(claude_answer(&text), Ok(RawAnswer::Text(t)) if t.contains("\"a\": 1")));
    let error = json!({"type": "result", "is_error": true, "result": "overloaded"}).to_string();
    assert!(claude_answer(&error).unwrap_err().contains("overloaded"));
    assert!(claude_answer("not json").is_err());
}

#[test]
fn gemini_output_response() {
    let out = json!({"response": "{\"a\": true}", "stats": {}}).to_string();
    assert!(matches!(gemini_answer(&out), Ok(RawAnswer::Text(t)) if t == "{\"a\": true}"));
    assert!(
        gemini_answer(&json!({"error": {"message": "quota"}}).to_string())
            .unwrap_err()
            .contains("quota")
    );
}

#[test]
fn command_backend_passes_prompt_and_env() {
    let argv = vec![
        "sh".to_string(),
        "-c".to_string(),
        "printf '%s|%s|' \"$GUARD_JUDGE_ACTIVE\" \"$GUARD_DETECTOR\"; cat".to_string(),
    ];
    let schema = json!({});
    let call = Call {
        backend: "command",
        command: &argv,
        model: None,
        detector: "det-x",
        prompt: "the prompt",
        schema: &schema,
        deadline: Instant::now() + std::time::Duration::from_secs(10),
        max_output_bytes: 4096,
        tag: "t1",
    };
    assert!(matches!(ask(&call), Ok(RawAnswer::Text(t)) if t == "1|det-x|the prompt"));
}

#[test]
fn unknown_backend_is_an_error() {
    let schema = json!({});
    let call = Call {
        backend: "telepathy",
        command: &[],
        model: None,
        detector: "d",
        prompt: "p",
        schema: &schema,
        deadline: Instant::now(),
        max_output_bytes: 1,
        tag: "t2",
    };
    assert!(ask(&call).unwrap_err().contains("telepathy"));
}
