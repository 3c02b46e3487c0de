//! The command-line judge backends: `command`, `codex`, `claude`, `gemini`.
//!
//! Each backend is an argv builder (a pure function, so its exact argv is
//! tested) and a reader that finds the answer in what the CLI printed. Every
//! child gets `GUARD_JUDGE_ACTIVE=1` (guard, started by the judge's own hooks,
//! then stands aside) and its CLI's own hooks-off switch, so a judge never
//! judges itself.

use super::process::{self, ChildEnd, ChildSpec};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The environment variable that marks a judge child.
pub const JUDGE_ACTIVE_ENV: &str = "GUARD_JUDGE_ACTIVE";

/// The model Gemini is given when none is configured (without `-m` its
/// router makes extra classifier calls first).
pub const GEMINI_DEFAULT_MODEL: &str = "gemini-2.5-flash";

/// The settings override that turns Gemini's hooks off in the judge child.
pub const GEMINI_HOOKS_OFF: &str = r#"{"hooksConfig":{"enabled":false},"hooks":{}}"#;

/// What a backend answered, before it is checked.
#[derive(Debug, Clone)]
pub enum RawAnswer {
    /// Free text holding the JSON object somewhere.
    Text(String),
    /// An object the CLI already parsed (Claude's `structured_output`).
    Object(Map<String, Value>),
}

impl RawAnswer {
    /// The answer as text, for the decision log.
    pub fn as_text(&self) -> String {
        match self {
            RawAnswer::Text(t) => t.clone(),
            RawAnswer::Object(o) => Value::Object(o.clone()).to_string(),
        }
    }
}

/// One judge call to make.
pub struct Call<'a> {
    /// Backend name (`command`, `codex`, `claude`, `gemini`).
    pub backend: &'a str,
    /// The argv for `command`.
    pub command: &'a [String],
    /// The model, where the backend takes one.
    pub model: Option<&'a str>,
    /// The detector's name, or the names of a combined call separated by
    /// commas (`GUARD_DETECTOR`).
    pub detector: &'a str,
    /// The full prompt (envelope).
    pub prompt: &'a str,
    /// The answer's JSON schema.
    pub schema: &'a Value,
    /// When the child's group is killed.
    pub deadline: Instant,
    /// The stdout cap.
    pub max_output_bytes: u64,
    /// A unique tag for temporary file names (the nonce).
    pub tag: &'a str,
}

/// `codex exec` argv; the prompt goes on stdin (`-`).
pub fn codex_argv(model: Option<&str>, schema_file: &Path, last_file: &Path) -> Vec<String> {
    let mut argv: Vec<String> = [
        "codex",
        "exec",
        "--ephemeral",
        "--skip-git-repo-check",
        "-s",
        "read-only",
        "--disable",
        "hooks",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    argv.push("--output-schema".into());
    argv.push(schema_file.display().to_string());
    argv.push("-o".into());
    argv.push(last_file.display().to_string());
    if let Some(m) = model {
        argv.push("-m".into());
        argv.push(m.into());
    }
    argv.push("-".into());
    argv
}

/// `claude -p` argv; the prompt is the last argument.
pub fn claude_argv(model: Option<&str>, schema: &Value, prompt: &str) -> Vec<String> {
    let mut argv: Vec<String> = vec![
        "claude".into(),
        "-p".into(),
        "--output-format".into(),
        "json".into(),
        "--json-schema".into(),
        schema.to_string(),
        "--tools".into(),
        String::new(),
        "--no-session-persistence".into(),
        "--settings".into(),
        r#"{"disableAllHooks":true}"#.into(),
        "--max-turns".into(),
        "2".into(),
    ];
    if let Some(m) = model {
        argv.push("--model".into());
        argv.push(m.into());
    }
    argv.push(prompt.into());
    argv
}

/// `gemini -p` argv (hooks are turned off through the environment, see
/// [`gemini_env`]).
pub fn gemini_argv(model: Option<&str>, prompt: &str) -> Vec<String> {
    vec![
        "gemini".into(),
        "-p".into(),
        prompt.into(),
        "--output-format".into(),
        "json".into(),
        "-m".into(),
        model.unwrap_or(GEMINI_DEFAULT_MODEL).into(),
    ]
}

/// The environment Gemini's judge child needs: a system settings file
/// (which overrides user and project settings) turning hooks off, and
/// workspace trust so headless mode does not exit with code 55.
pub fn gemini_env(settings_file: &Path) -> Vec<(String, String)> {
    vec![
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
            settings_file.display().to_string(),
        ),
        ("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()),
    ]
}

/// The answer in `claude -p --output-format json` output: `structured_output`,
/// else `result` (a string holding the JSON).
pub fn claude_answer(stdout: &str) -> Result<RawAnswer, String> {
    let object = super::answer::last_json_object(stdout).ok_or("claude printed no JSON result")?;
    if object.get("is_error") == Some(&Value::Bool(true)) {
        let why = object
            .get("result")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        return Err(format!("claude reported an error: {why}"));
    }
    match (object.get("structured_output"), object.get("result")) {
        (Some(Value::Object(o)), _) => Ok(RawAnswer::Object(o.clone())),
        (_, Some(Value::String(s))) => Ok(RawAnswer::Text(s.clone())),
        _ => Err("claude's result has neither structured_output nor result".into()),
    }
}

/// The answer in `gemini --output-format json` output: `response`.
pub fn gemini_answer(stdout: &str) -> Result<RawAnswer, String> {
    let object = super::answer::last_json_object(stdout).ok_or("gemini printed no JSON result")?;
    match object.get("response") {
        Some(Value::String(s)) => Ok(RawAnswer::Text(s.clone())),
        _ => match object.get("error") {
            Some(e) => Err(format!("gemini reported an error: {e}")),
            None => Err("gemini's result has no response".into()),
        },
    }
}

/// A private temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Result<TempDir, String> {
        use std::os::unix::fs::DirBuilderExt;
        let path = std::env::temp_dir().join(format!("guard-judge-{}-{tag}", std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs one CLI judge call and returns its raw answer.
pub fn ask(call: &Call) -> Result<RawAnswer, String> {
    let mut env = vec![
        (JUDGE_ACTIVE_ENV.to_string(), "1".to_string()),
        ("GUARD_DETECTOR".to_string(), call.detector.to_string()),
    ];
    let mut stdin = None;
    let temp;
    let mut last_file = None;
    let argv = match call.backend {
        "command" => {
            stdin = Some(call.prompt.as_bytes().to_vec());
            call.command.to_vec()
        }
        "codex" => {
            temp = TempDir::new(call.tag)?;
            let schema_file = temp.0.join("schema.json");
            std::fs::write(&schema_file, call.schema.to_string())
                .map_err(|e| format!("cannot write the schema: {e}"))?;
            let last = temp.0.join("last-message.txt");
            stdin = Some(call.prompt.as_bytes().to_vec());
            let argv = codex_argv(call.model, &schema_file, &last);
            last_file = Some(last);
            argv
        }
        "claude" => claude_argv(call.model, call.schema, call.prompt),
        "gemini" => {
            temp = TempDir::new(call.tag)?;
            let settings = temp.0.join("settings.json");
            std::fs::write(&settings, GEMINI_HOOKS_OFF)
                .map_err(|e| format!("cannot write gemini settings: {e}"))?;
            env.extend(gemini_env(&settings));
            gemini_argv(call.model, call.prompt)
        }
        other => return Err(format!("unknown judge backend `{other}`")),
    };
    let spec = ChildSpec {
        argv,
        env,
        stdin,
        deadline: call.deadline,
        max_output_bytes: call.max_output_bytes,
    };
    let out = process::run(&spec).map_err(|e| e.to_string())?;
    match out.end {
        ChildEnd::Exited(0) => {}
        ChildEnd::Exited(code) => {
            return Err(with_stderr(
                format!("judge exited with code {code}"),
                &out.stderr,
            ))
        }
        ChildEnd::Signaled(sig) => {
            return Err(with_stderr(
                format!("judge crashed (signal {sig})"),
                &out.stderr,
            ))
        }
        ChildEnd::TimedOut => return Err("judge timed out".into()),
        ChildEnd::OutputCapped => {
            return Err(format!(
                "judge output passed the {}-byte cap",
                call.max_output_bytes
            ))
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match call.backend {
        "claude" => claude_answer(&stdout),
        "gemini" => gemini_answer(&stdout),
        "codex" => {
            let last = last_file
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            Ok(RawAnswer::Text(if last.trim().is_empty() {
                stdout
            } else {
                last
            }))
        }
        _ => Ok(RawAnswer::Text(stdout)),
    }
}

fn with_stderr(message: String, stderr: &str) -> String {
    let tail = stderr.trim();
    if tail.is_empty() {
        message
    } else {
        let cut: String = tail
            .chars()
            .rev()
            .take(300)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("{message}: {cut}")
    }
}

#[cfg(test)]
mod tests;
