//! Transcript readers against synthetic transcripts of each agent and
//! recordings of the real CLIs (tests/fixtures/transcripts/), and against
//! files that must be refused or read cheaply: missing, empty, directory,
//! FIFO, device, 100 MB. The turn's actions: `transcripts/actions.rs`; its
//! MCP tool calls: `transcripts/mcp.rs`; its todo list: `transcripts/plans.rs`; a check's failure read from its
//! output: `transcripts/piped_checks.rs`; its sub-agents' actions:
//! `transcripts/subagents.rs` (Claude Code), `transcripts/subagents_codex.rs`,
//! `transcripts/subagents_copilot.rs`, `transcripts/subagents_gemini.rs`.

use guard::transcript::{last_turn, last_turn_text, last_turn_text_with_stats, TranscriptFormat};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use TranscriptFormat::{ClaudeCode, Codex, Copilot, Gemini};

#[path = "transcripts/actions.rs"]
mod actions;
#[path = "transcripts/cost.rs"]
mod cost;
#[path = "transcripts/mcp.rs"]
mod mcp;
#[path = "transcripts/piped_checks.rs"]
mod piped_checks;
#[path = "transcripts/plans.rs"]
mod plans;
#[path = "transcripts/refusals.rs"]
mod refusals;
#[path = "transcripts/subagents.rs"]
mod subagents;
#[path = "transcripts/subagents_codex.rs"]
mod subagents_codex;
#[path = "transcripts/subagents_copilot.rs"]
mod subagents_copilot;
#[path = "transcripts/subagents_gemini.rs"]
mod subagents_gemini;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

/// A hook payload captured from a real CLI (tests/fixtures/captured/).
fn captured_payload(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/captured")
        .join(name);
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn read(format: TranscriptFormat, name: &str) -> Option<String> {
    last_turn_text(format, &fixture(name), 64 * 1024).unwrap()
}

/// A scratch directory removed when dropped.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("guard-transcripts-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        ScratchDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn claude_user(text: &str) -> String {
    serde_json::json!({"type": "user", "isSidechain": false, "message": {"role": "user", "content": text}}).to_string()
}

fn claude_assistant(id: &str, text: &str) -> String {
    serde_json::json!({"type": "assistant", "isSidechain": false,
        "message": {"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}})
    .to_string()
}

fn claude_tool_result(output: &str) -> String {
    serde_json::json!({"type": "user", "isSidechain": false, "toolUseResult": {"stdout": output},
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": output}]}})
    .to_string()
}

// ---- Claude Code ----

#[test]
fn claude_turn_skips_tool_results_meta_sidechain_and_merges_split_messages() {
    let text = read(ClaudeCode, "claude-turn-with-tools.jsonl").unwrap();
    assert_eq!(
        text,
        "I'll run the tests first.\n\n\
         The nested-map case dropped the last key.\n\n\
         Fixed it; shall I commit and push?"
    );
}

#[test]
fn claude_stop_hook_feedback_neither_ends_the_turn_nor_adds_text() {
    let text = read(ClaudeCode, "claude-stop-hook-continuation.jsonl").unwrap();
    assert_eq!(
        text,
        "Hello from the stub.\n\nPINEAPPLE. Hello from the stub."
    );
}

/// Recorded by the real Claude Code 2.1.197 (offline, loopback stub model):
/// prompt, Bash tool call and result, reply, a Stop-hook block (an `isMeta`
/// "Stop hook feedback:" user line), and the reply after it. Both replies
/// belong to the turn.
#[test]
fn claude_real_cli_recording_is_read() {
    let path = fixture("claude-2.1.197-real-stop-block.jsonl");
    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(
        text.as_deref(),
        Some("Done after tool.\n\nDone after tool.")
    );
    assert!(stats.found_turn_start);
    assert_eq!(stats.malformed_lines, 0);
}

#[test]
fn claude_file_cut_mid_line_keeps_the_complete_lines() {
    assert_eq!(
        read(ClaudeCode, "claude-cut-mid-line.jsonl").as_deref(),
        Some("Checks are green.")
    );
}

#[test]
fn claude_malformed_lines_are_skipped() {
    let (text, stats) =
        last_turn_text_with_stats(ClaudeCode, &fixture("claude-malformed-lines.jsonl"), 1024)
            .unwrap();
    assert_eq!(text.as_deref(), Some("First part.\n\nSecond part."));
    assert_eq!(stats.malformed_lines, 3);
    assert!(stats.found_turn_start);
}

// ---- Codex ----

#[test]
fn codex_turn_skips_injected_context_tool_calls_and_event_echoes() {
    let text = read(Codex, "codex-turn-with-tools.jsonl").unwrap();
    assert_eq!(
        text,
        "Bumping the version in Cargo.toml.\n\n\
         Version bumped to 0.2.0. Shall I tag and push the release?"
    );
}

#[test]
fn codex_hook_prompt_neither_ends_the_turn_nor_adds_text() {
    assert_eq!(
        read(Codex, "codex-hook-continuation.jsonl").as_deref(),
        Some("Hello from the stub.\n\nPINEAPPLE.")
    );
}

/// Recorded by the real Codex CLI 0.171.0 (offline, loopback stub model):
/// developer and `<environment_context>` messages, prompt, `exec_command`
/// call and output, reply, a Stop-hook block (`<hook_prompt …>` user
/// message), and the reply after it. Both replies belong to the turn.
#[test]
fn codex_real_cli_recording_is_read() {
    let path = fixture("codex-0.171-real-stop-block.jsonl");
    let (text, stats) = last_turn_text_with_stats(Codex, &path, 4096).unwrap();
    assert_eq!(
        text.as_deref(),
        Some("Done after tool.\n\nDone after tool.")
    );
    assert!(stats.found_turn_start);
    assert_eq!(stats.malformed_lines, 0);
}

#[test]
fn codex_only_injected_context_reads_the_whole_file() {
    let dir = ScratchDir::new();
    let path = dir.path("rollout.jsonl");
    let lines = [
        r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>x</user_instructions>"}]}}"#,
        r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Ready."}]}}"#,
    ];
    fs::write(&path, lines.join("\n")).unwrap();
    let (text, stats) = last_turn_text_with_stats(Codex, &path, 1024).unwrap();
    assert_eq!(text.as_deref(), Some("Ready."));
    assert!(!stats.found_turn_start);
}

// ---- Gemini ----

#[test]
fn gemini_turn_skips_tool_responses_info_and_rewritten_records() {
    let text = read(Gemini, "gemini-session.jsonl").unwrap();
    assert_eq!(
        text,
        "Loader refactored; tests pass.\n\nShall I open the PR now?"
    );
}

/// Recorded by the real Gemini CLI 0.61.0 (offline, loopback stub model): a
/// history snapshot with the injected `<session_context>`, a prompt, a tool
/// call rewritten under one id, a tool response, a reply, then an AfterAgent
/// block whose feedback is stored as a plain user message (so it starts the
/// turn: the known Gemini limit) and the reply after it.
#[test]
fn gemini_real_cli_recording_is_read() {
    let path = fixture("gemini-0.61-real-afteragent-block.jsonl");
    let (text, stats) = last_turn_text_with_stats(Gemini, &path, 4096).unwrap();
    assert_eq!(text.as_deref(), Some("Done after tool."));
    assert!(stats.found_turn_start);
    assert_eq!(stats.malformed_lines, 0);
}

#[test]
fn gemini_legacy_whole_json_session_is_read() {
    assert_eq!(
        read(Gemini, "gemini-legacy-session.json").as_deref(),
        Some("README added. Ready to commit.")
    );
}

// ---- Real recordings of the pinned CLIs (tests/e2e/capture.rs) ----

/// What the capture run's model said: a reply after one shell tool call,
/// then a reply after the blocking turn-end hook's feedback.
const CAPTURED_FIRST: &str = "E2E-CAPTURE-FIRST: done after the tool.";
const CAPTURED_SECOND: &str = "E2E-CAPTURE-SECOND: PINEAPPLE.";

fn captured(format: TranscriptFormat, name: &str) -> Option<String> {
    let (text, stats) = last_turn_text_with_stats(format, &fixture(name), 4096).unwrap();
    assert!(stats.found_turn_start, "{name}: no turn start found");
    assert_eq!(stats.malformed_lines, 0, "{name}");
    text
}

/// Where the feedback is marked (Claude's `isMeta` line, Codex's
/// `<hook_prompt>`) or points at the blocking hook's record (Copilot,
/// Droid), both replies belong to the turn.
#[test]
fn pinned_cli_recordings_hold_both_replies_of_the_turn() {
    let both = format!("{CAPTURED_FIRST}\n\n{CAPTURED_SECOND}");
    for (format, name) in [
        (ClaudeCode, "claude-2.1.332-real-stop-block.jsonl"),
        (Codex, "codex-0.171.0-real-stop-block.jsonl"),
        (
            TranscriptFormat::Copilot,
            "copilot-1.0.102-real-stop-block.jsonl",
        ),
        (
            TranscriptFormat::Droid,
            "droid-0.225.1-real-stop-block.jsonl",
        ),
    ] {
        assert_eq!(
            captured(format, name).as_deref(),
            Some(both.as_str()),
            "{name}"
        );
    }
}

/// The request that started the turn is the user's typed prompt, never the
/// blocking hook's feedback recorded after it, nor injected context.
#[test]
fn pinned_cli_recordings_give_the_users_request_not_the_feedback() {
    for (format, name) in [
        (ClaudeCode, "claude-2.1.332-real-stop-block.jsonl"),
        (Codex, "codex-0.171.0-real-stop-block.jsonl"),
        (Copilot, "copilot-1.0.102-real-stop-block.jsonl"),
        (
            TranscriptFormat::Droid,
            "droid-0.225.1-real-stop-block.jsonl",
        ),
    ] {
        let turn = last_turn(format, &fixture(name), 4096).unwrap();
        assert_eq!(
            turn.prompt.as_deref(),
            Some("Run the tool, then answer."),
            "{name}"
        );
    }
}

/// Gemini CLI 0.61.0 still records AfterAgent feedback as a plain user
/// message: it starts the turn (the known Gemini limit).
#[test]
fn pinned_gemini_recording_starts_the_turn_at_the_feedback() {
    assert_eq!(
        captured(Gemini, "gemini-0.61.0-real-stop-block.jsonl").as_deref(),
        Some(CAPTURED_SECOND)
    );
}
