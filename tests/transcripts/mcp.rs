//! MCP tool calls among the turn's actions, on recordings of the real CLIs
//! (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0, Copilot CLI
//! 1.0.102) run offline with a
//! stdio MCP server `gh`: the model pushed files through `push_files`,
//! edited `src/app.py` through `replace_symbol_body`, and tried
//! `merge_pull_request`, which the server answered with an error.

use super::actions::summary;
use super::*;
use guard::actions::CommandKind;

#[test]
fn real_recordings_keep_the_mcp_calls_that_ship_or_edit() {
    // Each CLI's own name for the tools, and how it records the failed merge:
    // Claude Code's `is_error` result is a refusal to it (the tool did not
    // run); Codex's `McpToolCall` item, Gemini's call and Copilot's
    // completion say `failed`, `error`, `success: false`. Copilot names the
    // tools `gh-push_files` and gives the server and the tool apart: they are
    // kept under the name the others give them.
    let cases = [
        (
            ClaudeCode,
            "claude-2.1.332-real-mcp.jsonl",
            "mcp__gh__",
            "NotRun",
        ),
        (Codex, "codex-0.171-real-mcp.jsonl", "mcp__gh__", "Failed"),
        (Gemini, "gemini-0.61-real-mcp.jsonl", "mcp_gh_", "Failed"),
        (
            Copilot,
            "copilot-1.0.102-real-mcp.jsonl",
            "mcp__gh__",
            "Failed",
        ),
    ];
    for (format, name, prefix, merge) in cases {
        let turn = last_turn(format, &fixture(name), 4096).unwrap();
        assert_eq!(
            summary(&turn),
            vec![
                format!("run {prefix}push_files Succeeded [Commit, Push]"),
                format!("edit app.py Succeeded"),
                format!("run {prefix}merge_pull_request {merge} [Push]"),
            ],
            "{name}"
        );
        assert_eq!(turn.text.as_deref(), Some("Done."), "{name}");
        // The edit came after the push and no check ran: what shipped so
        // far was checked by nothing, but it held no code change yet.
        assert!(!turn.actions.shipped_without_check(), "{name}");
        assert!(turn.actions.edited_code(), "{name}");
        let pushes: Vec<_> = turn
            .actions
            .commands()
            .filter(|run| run.is(CommandKind::Push))
            .collect();
        assert_eq!(pushes.len(), 2, "{name}");
    }
}
