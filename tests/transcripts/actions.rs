//! The actions read beside the text: on recordings of the real CLIs, and on
//! synthetic transcripts that stress the reader (50 MB of tool output, a
//! file cut mid-line, malformed lines, a pasted prompt above the line cap).

use super::*;
use guard::actions::{Action, CommandKind, Outcome, Verification};
use guard::transcript::{last_turn, last_turn_with_stats, LastTurn, HEAD_BYTES, MAX_LINE_BYTES};
use serde_json::json;
use std::fs::File;
use std::io::{BufWriter, Write};

/// One line per action: `edit <file> <outcome>` or `run <command> <outcome>
/// [exit N] [kinds]`, paths shortened to their file name.
pub(super) fn summary(turn: &LastTurn) -> Vec<String> {
    turn.actions
        .actions
        .iter()
        .map(|action| match action {
            Action::Edit(edit) => {
                let file = edit.path.rsplit('/').next().unwrap_or(&edit.path);
                format!("edit {file} {:?}", edit.outcome)
            }
            Action::Command(run) => {
                let mut line = format!("run {} {:?}", run.command, run.outcome);
                if let Some(code) = run.exit_code {
                    line.push_str(&format!(" exit {code}"));
                }
                if !run.kinds().is_empty() {
                    line.push_str(&format!(" {:?}", run.kinds()));
                }
                line
            }
        })
        .collect()
}

fn read_turn(format: TranscriptFormat, name: &str) -> LastTurn {
    last_turn(format, &fixture(name), 4096).unwrap()
}

const COMMIT: &str =
    "git add -A && git -c user.name=e2e -c user.email=e2e@example.com commit -qm 'Add notes'";

/// What the e2e turn did (tests/e2e_transcripts.rs), as each CLI recorded it.
fn recorded_turn(fail_code: &str, pass_code: &str, commit: &str) -> Vec<String> {
    vec![
        "edit notes.txt Succeeded".into(),
        format!("run python3 -m unittest tests.test_fail Failed{fail_code} [Test]"),
        format!("run python3 -m unittest tests.test_ok Succeeded{pass_code} [Test]"),
        format!("run {COMMIT} {commit} [Commit]"),
        "run git push origin main NotRun [Push]".into(),
    ]
}

#[test]
fn real_recordings_give_the_turns_actions_in_order() {
    // Per file: the exit status recorded for the passing test (Claude Code
    // and Gemini record none for a success) and how the commit ended
    // (Codex's sandbox keeps .git read-only).
    let cases = [
        (
            ClaudeCode,
            "claude-2.1.197-real-actions.jsonl",
            "",
            "Succeeded",
        ),
        (
            ClaudeCode,
            "claude-2.1.332-real-actions.jsonl",
            "",
            "Succeeded",
        ),
        (
            Codex,
            "codex-0.171-real-actions.jsonl",
            " exit 0",
            "Failed exit 128",
        ),
        (Gemini, "gemini-0.61-real-actions.jsonl", "", "Succeeded"),
        (
            Copilot,
            "copilot-1.0.102-real-actions.jsonl",
            " exit 0",
            "Succeeded exit 0",
        ),
    ];
    for (format, name, pass_code, commit) in cases {
        let expected = recorded_turn(" exit 1", pass_code, commit);
        let turn = read_turn(format, name);
        assert_eq!(summary(&turn), expected, "{name}");
        assert!(turn.actions.complete, "{name}");
        assert_eq!(
            turn.actions
                .verification_after_last_edit(&CommandKind::CHECKS),
            Verification::Passed,
            "{name}"
        );
        assert_eq!(
            turn.text.as_deref(),
            Some("E2E-ACTIONS: notes added, tests pass, committed."),
            "{name}"
        );
    }
}

#[test]
fn earlier_recordings_read_their_shell_calls() {
    let claude = read_turn(ClaudeCode, "claude-2.1.197-real-stop-block.jsonl");
    assert_eq!(summary(&claude), vec!["run echo hi Succeeded"]);
    let codex = read_turn(Codex, "codex-0.171-real-stop-block.jsonl");
    assert_eq!(
        summary(&codex),
        vec!["run echo hi > tool-ran.txt; echo hi Succeeded exit 0 [FileWrite]"]
    );
    // Gemini records the AfterAgent feedback as a typed prompt: the turn
    // after a block starts there, and has no action of its own.
    let gemini = read_turn(Gemini, "gemini-0.61-real-afteragent-block.jsonl");
    assert!(gemini.actions.actions.is_empty());
    assert!(gemini.actions.complete);
}

fn claude_call(id: &str, command: &str) -> String {
    json!({"type": "assistant", "message": {"id": format!("m-{id}"), "content": [
        {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}})
    .to_string()
}

fn claude_edit(id: &str, path: &str) -> String {
    json!({"type": "assistant", "message": {"id": format!("m-{id}"), "content": [
        {"type": "tool_use", "id": id, "name": "Edit",
         "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]}})
    .to_string()
}

/// A tool result in Claude Code's key order (`message` before
/// `toolUseResult`); the output is written once, in the message.
fn claude_result(id: &str, content: &str, is_error: bool) -> String {
    claude_raw_result(id, &escaped(content), is_error)
}

/// [`claude_result`] with its content already escaped for JSON (megabytes
/// of output are written without going through serde).
fn claude_raw_result(id: &str, escaped_content: &str, is_error: bool) -> String {
    format!(
        r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{escaped_content}","is_error":{is_error}}}]}},"toolUseResult":{{"interrupted":false}}}}"#
    )
}

/// `text` as the inside of a JSON string.
fn escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_owned()
}

/// About `bytes` of tool output, escaped for JSON: many short lines.
fn escaped_output(bytes: usize) -> String {
    "test output line\\n".repeat(bytes / 18)
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    for line in lines {
        writeln!(out, "{line}").unwrap();
    }
    out.flush().unwrap();
}

/// 50 MB of tool output in one result line, above the line cap: the call
/// before it and the status at its start are still read, and so is the rest
/// of the turn up to its start.
#[test]
fn a_result_with_fifty_megabytes_of_output_keeps_the_turn_whole() {
    let dir = ScratchDir::new();
    let path = dir.path("big-output.jsonl");
    let output = format!("Exit code 101\\n{}", escaped_output(50 * 1024 * 1024));
    write_lines(
        &path,
        &[
            claude_user("Fix the parser"),
            claude_edit("t1", "/w/src/parser.rs"),
            claude_result("t1", "The file /w/src/parser.rs has been updated.", false),
            claude_call("t2", "cargo test"),
            claude_raw_result("t2", &output, true),
            claude_call("t3", "git push origin main"),
            claude_result("t3", "pushed", false),
            claude_assistant("m-end", "Pushed."),
        ],
    );
    assert!(fs::metadata(&path).unwrap().len() > 50 * 1024 * 1024);
    let (turn, stats) = last_turn_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(
        summary(&turn),
        vec![
            "edit parser.rs Succeeded",
            "run cargo test Failed exit 101 [Test]",
            "run git push origin main Succeeded [Push]",
        ]
    );
    assert_eq!(turn.text.as_deref(), Some("Pushed."));
    assert!(stats.found_turn_start && turn.actions.complete);
    assert_eq!(stats.oversized_lines, 1);
    assert_eq!(stats.malformed_lines, 0);
    assert_eq!(
        turn.actions
            .verification_after_last_edit(&CommandKind::CHECKS),
        Verification::Failed
    );
}

/// The same 50 MB in Gemini's layout (the call, its status and the command's
/// output all in one rewritten message) and in Codex's (an output line).
#[test]
fn fifty_megabytes_of_output_in_gemini_and_codex_layouts() {
    let dir = ScratchDir::new();
    let big = escaped_output(50 * 1024 * 1024);
    let gemini = dir.path("gemini.jsonl");
    let response = json!({"output": "Output too large. Showing the end:\nxxx\nExit Code: 2\nProcess Group PGID: 7"});
    let call = json!({"id": "g1", "type": "gemini", "content": "", "toolCalls": [{
        "id": "c1", "name": "run_shell_command", "args": {"command": "npm test"},
        "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": response}}],
        "status": "success", "resultDisplay": "BIG"}]})
    .to_string();
    write_lines(
        &gemini,
        &[
            json!({"id": "u1", "type": "user", "content": [{"text": "run the suite"}]}).to_string(),
            call.replace("\"BIG\"", &format!("\"{big}\"")),
            json!({"id": "u2", "type": "user", "content": [{"functionResponse": {
                "id": "c1", "name": "run_shell_command", "response": response}}]})
            .to_string(),
            json!({"id": "g2", "type": "gemini", "content": "The suite fails."}).to_string(),
        ],
    );
    let (turn, stats) = last_turn_with_stats(Gemini, &gemini, 4096).unwrap();
    assert_eq!(summary(&turn), vec!["run npm test Failed exit 2 [Test]"]);
    assert_eq!((stats.oversized_lines, stats.found_turn_start), (1, true));

    let codex = dir.path("codex.jsonl");
    let output = format!(
        "Chunk ID: 1\\nWall time: 9.0 seconds\\nProcess exited with code 1\\nOutput:\\n{big}"
    );
    write_lines(
        &codex,
        &[
            json!({"type": "response_item", "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "run the suite"}]}})
            .to_string(),
            json!({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                "arguments": "{\"cmd\":\"go test ./...\"}", "call_id": "c1"}})
            .to_string(),
            format!(
                r#"{{"type":"response_item","payload":{{"type":"function_call_output","call_id":"c1","output":"{output}"}}}}"#
            ),
        ],
    );
    let (turn, stats) = last_turn_with_stats(Codex, &codex, 4096).unwrap();
    assert_eq!(
        summary(&turn),
        vec!["run go test ./... Failed exit 1 [Test]"]
    );
    assert_eq!((stats.oversized_lines, stats.found_turn_start), (1, true));
}

/// 50 MB of output over many lines that each fit: parsing stops at the scan
/// cap, the newest actions are kept, and the turn is marked incomplete, so a
/// "nothing ran after the last edit" is not concluded from half a turn.
#[test]
fn fifty_megabytes_over_many_lines_stop_at_the_scan_cap() {
    let dir = ScratchDir::new();
    let path = dir.path("many-outputs.jsonl");
    let output = escaped_output(1024 * 1024);
    let mut lines = vec![claude_user("Run everything"), claude_edit("e", "/w/a.rs")];
    for i in 0..50 {
        lines.push(claude_call(&format!("t{i}"), &format!("./check.sh {i}")));
        lines.push(claude_raw_result(&format!("t{i}"), &output, false));
    }
    write_lines(&path, &lines);
    let (turn, stats) = last_turn_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert!(!stats.found_turn_start && !turn.actions.complete);
    assert!(stats.bytes_read <= guard::transcript::SCAN_CAP_BYTES);
    let commands: Vec<&str> = turn
        .actions
        .commands()
        .map(|c| c.command.as_str())
        .collect();
    assert!((20..50).contains(&commands.len()), "{}", commands.len());
    assert_eq!(commands.last(), Some(&"./check.sh 49"));
    assert_eq!(turn.actions.edited(), None, "the edit lies beyond the cap");
    assert_eq!(
        turn.actions
            .verification_after_last_edit(&[CommandKind::Test]),
        Verification::Unknown
    );
}

#[test]
fn a_file_cut_mid_line_keeps_the_complete_actions() {
    let dir = ScratchDir::new();
    let path = dir.path("cut.jsonl");
    let result = claude_result("t2", "test result: ok. 12 passed", false);
    let cut = &result[..result.len() / 2];
    let lines = [
        claude_user("Test it"),
        claude_call("t1", "cargo build"),
        claude_result("t1", "Finished", false),
        claude_call("t2", "cargo test"),
    ];
    fs::write(&path, lines.join("\n") + "\n" + cut).unwrap();
    let (turn, stats) = last_turn_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(
        summary(&turn),
        vec![
            "run cargo build Succeeded [Build]",
            "run cargo test Unknown [Test]"
        ]
    );
    assert_eq!(stats.malformed_lines, 1);
    assert!(turn.actions.complete);
}

#[test]
fn malformed_lines_between_actions_are_skipped() {
    let dir = ScratchDir::new();
    let path = dir.path("malformed.jsonl");
    let lines = [
        claude_user("Ship it"),
        "{\"type\": \"assistant\", \"message\": ".to_string(),
        claude_call("t1", "git commit -am fix"),
        "\u{0}\u{1}garbage".to_string(),
        claude_result("t1", "[main 1a2b3c4] fix", false),
        "[1, 2, 3]".to_string(),
        claude_call("t2", "git push"),
        claude_result("t2", "Exit code 1\nrejected", true),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (turn, stats) = last_turn_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(
        summary(&turn),
        vec![
            "run git commit -am fix Succeeded [Commit]",
            "run git push Failed exit 1 [Push]",
        ]
    );
    assert_eq!(stats.malformed_lines, 3);
    assert_eq!(turn.actions.executed(CommandKind::Push).count(), 1);
    assert!(turn
        .actions
        .commands()
        .all(|c| c.outcome != Outcome::Unknown));
}

/// A prompt pasted with more than the line cap is still the turn's start,
/// read from its first bytes: the older turn's actions stay out.
#[test]
fn an_oversized_prompt_still_starts_the_turn() {
    let dir = ScratchDir::new();
    let path = dir.path("pasted.jsonl");
    let pasted = format!(
        "Here is the log:\n{}",
        "log line\n".repeat(MAX_LINE_BYTES / 9 + 10)
    );
    write_lines(
        &path,
        &[
            claude_user("Earlier task"),
            claude_call("old", "git push --force"),
            claude_result("old", "done", false),
            claude_user(&pasted),
            claude_call("new", "cargo test"),
            claude_result("new", "ok", false),
        ],
    );
    let (turn, stats) = last_turn_with_stats(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(summary(&turn), vec!["run cargo test Succeeded [Test]"]);
    assert!(stats.found_turn_start);
    assert_eq!(stats.oversized_lines, 1);
    assert!(HEAD_BYTES < MAX_LINE_BYTES);
}

#[test]
fn the_text_alone_is_what_it_was() {
    // The actions' reader goes on to the turn's start; the text reader still
    // stops once it has enough text.
    let dir = ScratchDir::new();
    let path = dir.path("chatty.jsonl");
    let mut lines = vec![claude_user("Go"), claude_call("t0", "make test")];
    lines.push(claude_result("t0", "ok", false));
    for i in 0..2000 {
        lines.push(claude_assistant(
            &format!("msg_{i}"),
            &format!("Step {i} done."),
        ));
    }
    write_lines(&path, &lines);
    let (text, text_stats) = last_turn_text_with_stats(ClaudeCode, &path, 200).unwrap();
    let (turn, turn_stats) = last_turn_with_stats(ClaudeCode, &path, 200).unwrap();
    assert_eq!(text, turn.text);
    assert!(!text_stats.found_turn_start && turn_stats.found_turn_start);
    assert_eq!(summary(&turn), vec!["run make test Succeeded [Test]"]);
}
