//! Transcript readers against synthetic transcripts of each agent
//! (tests/fixtures/transcripts/) and against files that must be refused or
//! read cheaply: missing, empty, directory, FIFO, device, 100 MB.

use guard::transcript::{
    last_turn_text, last_turn_text_with_stats, TranscriptError, TranscriptFormat, CHUNK_BYTES,
    SCAN_CAP_BYTES,
};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use TranscriptFormat::{ClaudeCode, Codex, Gemini};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
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

// ---- Files that are not transcripts ----

#[test]
fn empty_file_has_no_text() {
    let dir = ScratchDir::new();
    let path = dir.path("empty.jsonl");
    File::create(&path).unwrap();
    for format in [ClaudeCode, Codex, Gemini] {
        assert_eq!(last_turn_text(format, &path, 1024).unwrap(), None);
    }
}

#[test]
fn missing_file_is_an_error() {
    let error = last_turn_text(
        ClaudeCode,
        Path::new("/nonexistent/guard/transcript.jsonl"),
        1024,
    )
    .unwrap_err();
    assert!(matches!(error, TranscriptError::Missing { .. }), "{error}");
}

#[test]
fn directory_is_refused() {
    let dir = ScratchDir::new();
    let error = last_turn_text(Codex, &dir.0, 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile {
                kind: "directory",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn dev_zero_is_refused() {
    let error = last_turn_text(ClaudeCode, Path::new("/dev/zero"), 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile { kind: "device", .. }
        ),
        "{error}"
    );
}

#[test]
fn symlink_to_a_device_is_refused() {
    let dir = ScratchDir::new();
    let link = dir.path("transcript.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let error = last_turn_text(ClaudeCode, &link, 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile { kind: "device", .. }
        ),
        "{error}"
    );
}

#[test]
fn fifo_is_refused_without_waiting_for_a_writer() {
    let dir = ScratchDir::new();
    let fifo = dir.path("transcript.jsonl");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path and a plain mode.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    // Opening a FIFO for reading would wait for a writer forever; the reader
    // runs on its own thread so that a regression fails instead of hanging.
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(last_turn_text(Gemini, &fifo, 1024));
    });
    let result = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("reader blocked on a FIFO");
    let error = result.unwrap_err();
    assert!(
        matches!(error, TranscriptError::NotRegularFile { kind: "fifo", .. }),
        "{error}"
    );
}

#[test]
fn garbage_file_is_an_error() {
    let dir = ScratchDir::new();
    let path = dir.path("garbage.jsonl");
    let garbage: String = (0..100).map(|i| format!("not json line {i}\n")).collect();
    fs::write(&path, garbage).unwrap();
    let error = last_turn_text(ClaudeCode, &path, 1024).unwrap_err();
    assert!(
        matches!(error, TranscriptError::TooManyMalformedLines { .. }),
        "{error}"
    );
}

// ---- Cost and truncation ----

/// Writes about `target_bytes` of earlier Claude turns (prompt, text, tool result).
fn write_claude_history(out: &mut impl Write, target_bytes: u64) {
    let filler_text = "Earlier reasoning about the module layout. ".repeat(20);
    let filler_output = "line of tool output that is long enough\n".repeat(50);
    let mut written = 0u64;
    let mut turn = 0u64;
    while written < target_bytes {
        for line in [
            claude_user(&format!("Earlier prompt {turn}")),
            claude_assistant(&format!("msg_old_{turn}"), &filler_text),
            claude_tool_result(&filler_output),
        ] {
            writeln!(out, "{line}").unwrap();
            written += line.len() as u64 + 1;
        }
        turn += 1;
    }
}

#[test]
fn hundred_megabyte_transcript_costs_only_its_last_turn() {
    let dir = ScratchDir::new();
    let path = dir.path("big.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    write_claude_history(&mut out, 100 * 1024 * 1024);
    writeln!(out, "{}", claude_user("Ship it")).unwrap();
    writeln!(
        out,
        "{}",
        claude_assistant("msg_last", "All tests pass. Pushing to main now.")
    )
    .unwrap();
    out.flush().unwrap();
    drop(out);
    assert!(fs::metadata(&path).unwrap().len() >= 100 * 1024 * 1024);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 16 * 1024).unwrap();
    assert_eq!(
        text.as_deref(),
        Some("All tests pass. Pushing to main now.")
    );
    assert!(stats.found_turn_start);
    assert!(
        stats.bytes_read <= CHUNK_BYTES as u64,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn turn_without_a_start_stops_at_the_scan_cap() {
    let dir = ScratchDir::new();
    let path = dir.path("endless-turn.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    writeln!(out, "{}", claude_user("Start of a very long turn")).unwrap();
    let output = "tool output\n".repeat(400);
    let mut written = 0u64;
    let mut step = 0u64;
    while written < SCAN_CAP_BYTES + 8 * 1024 * 1024 {
        let line = claude_tool_result(&output);
        writeln!(out, "{line}").unwrap();
        written += line.len() as u64 + 1;
        step += 1;
        if step % 100 == 0 {
            let note = claude_assistant(&format!("msg_{step}"), &format!("Progress note {step}."));
            writeln!(out, "{note}").unwrap();
            written += note.len() as u64 + 1;
        }
    }
    writeln!(out, "{}", claude_assistant("msg_end", "Finished.")).unwrap();
    out.flush().unwrap();
    drop(out);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 1024 * 1024).unwrap();
    let text = text.unwrap();
    assert!(
        text.ends_with("Finished."),
        "{}",
        &text[text.len().saturating_sub(100)..]
    );
    assert!(!stats.found_turn_start);
    assert!(
        stats.bytes_read <= SCAN_CAP_BYTES,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn reading_stops_once_enough_text_is_gathered() {
    let dir = ScratchDir::new();
    let path = dir.path("chatty.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    writeln!(out, "{}", claude_user("Go")).unwrap();
    for i in 0..20_000 {
        writeln!(
            out,
            "{}",
            claude_assistant(&format!("msg_{i}"), &format!("Step {i} done, moving on."))
        )
        .unwrap();
    }
    out.flush().unwrap();
    drop(out);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 200).unwrap();
    let text = text.unwrap();
    assert!(text.len() <= 200);
    assert!(text.ends_with("Step 19999 done, moving on."), "{text}");
    assert!(!stats.found_turn_start);
    assert!(
        stats.bytes_read <= CHUNK_BYTES as u64,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn japanese_text_is_cut_at_a_char_boundary_keeping_the_end() {
    let dir = ScratchDir::new();
    let path = dir.path("japanese.jsonl");
    let first = "テストはすべて成功しました。";
    let last = "変更をコミットしてプッシュしますか？";
    let lines = [
        claude_user("直して"),
        claude_assistant("m1", first),
        claude_assistant("m2", last),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();

    let full = format!("{first}\n\n{last}");
    for max_bytes in [
        1,
        2,
        3,
        4,
        10,
        50,
        55,
        56,
        57,
        full.len() - 1,
        full.len(),
        full.len() + 5,
    ] {
        let text = last_turn_text(ClaudeCode, &path, max_bytes)
            .unwrap()
            .unwrap_or_default();
        // The longest suffix of whole characters that fits in `max_bytes`.
        let expected = full
            .char_indices()
            .map(|(start, _)| &full[start..])
            .find(|suffix| suffix.len() <= max_bytes)
            .unwrap_or("");
        assert_eq!(text, expected, "max {max_bytes}");
    }
    assert_eq!(
        last_turn_text(ClaudeCode, &path, 9).unwrap().as_deref(),
        Some("すか？")
    );
}
