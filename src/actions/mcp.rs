//! MCP tool calls that are actions: a tool that ships a change (a commit
//! or push through a forge's API, a pull request opened or merged, a deploy
//! or a migration applied), a tool that runs a build or tests, and a tool
//! that edits a local file.
//!
//! An agent can commit, merge and deploy through MCP servers as well as
//! through the shell; a reader that kept only shell and edit tools would
//! miss a push made with GitHub's `push_files` right after an edit, or a
//! bug fixed through a symbol edit. Agents name an MCP tool
//! `mcp__<server>__<tool>` (Claude Code; Codex's `namespace` and `name`;
//! Copilot CLI's `mcpServerName` and `mcpToolName`, joined so by its reader)
//! or `mcp_<server>_<tool>` (Gemini CLI); the server's name is the user's
//! own, so a tool is known by its own name, at the end. Other MCP tools (reads, searches, issue
//! trackers) are not kept, as other non-shell tools are not.

use super::CommandKind;
use serde_json::Value;

/// Tools that commit through a forge's API, on a remote branch (GitHub's
/// and GitLab's MCP servers).
const COMMIT_AND_PUSH: &[&str] = &[
    "push_files",
    "create_or_update_file",
    "commit_multiple_files",
];
/// Tools that open or merge a pull (merge) request.
const OPEN_OR_MERGE: &[&str] = &[
    "create_pull_request",
    "merge_pull_request",
    "create_merge_request",
    "merge_merge_request",
];
/// Tools that deploy, or change a hosted database's schema (Supabase's
/// `deploy_edge_function` and `apply_migration`, Vercel's `deploy_to_vercel`).
const DEPLOY: &[&str] = &[
    "deploy",
    "deploy_edge_function",
    "apply_migration",
    "deploy_to_vercel",
];
/// Tools that run tests (XcodeBuildMCP's simulator, device, macOS and Swift
/// package tests; a server's `run_tests`).
const TEST: &[&str] = &[
    "test_sim",
    "test_device",
    "test_macos",
    "swift_package_test",
    "run_tests",
];
/// Tools that build (XcodeBuildMCP's).
const BUILD: &[&str] = &[
    "build_sim",
    "build_run_sim",
    "build_device",
    "build_macos",
    "swift_package_build",
];
/// Tools that change a local file (filesystem servers, Serena's symbol and
/// text edits, Desktop Commander, JetBrains' IDE server).
const EDIT: &[&str] = &[
    "write_file",
    "edit_file",
    "create_text_file",
    "replace_symbol_body",
    "insert_after_symbol",
    "insert_before_symbol",
    "replace_regex",
    "replace_content",
    "replace_lines",
    "delete_lines",
    "insert_at_line",
    "edit_block",
    "replace_text_in_file",
    "create_new_file",
];
/// The arguments that name an edit tool's file, in the order tried.
const PATH_ARGUMENTS: &[&str] = &[
    "relative_path",
    "file_path",
    "path",
    "filePath",
    "pathInProject",
];

/// What an MCP tool call is, as an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpTool {
    /// It ships a change or runs a check: kept as a command of these kinds,
    /// named by the tool.
    Runs(&'static [CommandKind]),
    /// It changes the local file its arguments name.
    Edits,
}

/// What the tool `name` is, when it is an MCP tool guard keeps (case and
/// `-` or `_` in its name do not matter). In `mcp__<server>__<tool>` the
/// tool's own name is what follows the server; in Gemini's
/// `mcp_<server>_<tool>`, where a server's name may hold `_` too, it is the
/// name's end.
pub fn classify(name: &str) -> Option<McpTool> {
    const COMMIT_PUSH: &[CommandKind] = &[CommandKind::Commit, CommandKind::Push];
    if !name
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("mcp_"))
    {
        return None;
    }
    let name = name.to_ascii_lowercase().replace('-', "_");
    let (own, exact) = match name.strip_prefix("mcp__") {
        Some(rest) => (rest.split_once("__")?.1, true),
        None => (name.strip_prefix("mcp_")?, false),
    };
    let is = |tools: &[&str]| {
        tools.iter().any(|tool| match own.strip_suffix(tool) {
            Some("") => exact,
            Some(server) => !exact && server.len() > 1 && server.ends_with('_'),
            None => false,
        })
    };
    if is(COMMIT_AND_PUSH) {
        Some(McpTool::Runs(COMMIT_PUSH))
    } else if is(OPEN_OR_MERGE) {
        Some(McpTool::Runs(&[CommandKind::Push]))
    } else if is(DEPLOY) {
        Some(McpTool::Runs(&[CommandKind::Deploy]))
    } else if is(TEST) {
        Some(McpTool::Runs(&[CommandKind::Test]))
    } else if is(BUILD) {
        Some(McpTool::Runs(&[CommandKind::Build]))
    } else if is(EDIT) {
        Some(McpTool::Edits)
    } else {
        None
    }
}

/// The kinds of a command that is an MCP tool's name (how a tool call that
/// ships or checks is kept), `None` for any other command line.
pub fn kinds_of_tool_name(command: &str) -> Option<&'static [CommandKind]> {
    match classify(command)? {
        McpTool::Runs(kinds) => Some(kinds),
        McpTool::Edits => None,
    }
}

/// The file an edit tool's arguments name.
pub fn edited_path(arguments: &Value) -> Option<&str> {
    PATH_ARGUMENTS
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .filter(|path| !path.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_are_known_by_their_own_name_whatever_the_server() {
        let push = Some(McpTool::Runs(&[CommandKind::Commit, CommandKind::Push]));
        assert_eq!(classify("mcp__github__push_files"), push);
        assert_eq!(classify("mcp_gh_push_files"), push, "Gemini's prefix");
        assert_eq!(classify("mcp__my-forge__create_or_update_file"), push);
        assert_eq!(
            classify("mcp__gitlab__merge_merge_request"),
            Some(McpTool::Runs(&[CommandKind::Push]))
        );
        for deploy in [
            "mcp__supabase__deploy_edge_function",
            "mcp__supabase__apply_migration",
            "mcp__vercel__deploy_to_vercel",
            "mcp__railway__deploy",
        ] {
            assert_eq!(
                classify(deploy),
                Some(McpTool::Runs(&[CommandKind::Deploy])),
                "{deploy}"
            );
        }
        assert_eq!(
            classify("mcp__XcodeBuildMCP__test_sim"),
            Some(McpTool::Runs(&[CommandKind::Test]))
        );
        assert_eq!(
            classify("mcp__serena__replace_symbol_body"),
            Some(McpTool::Edits)
        );
        assert_eq!(
            classify("mcp__desktop-commander__edit_block"),
            Some(McpTool::Edits)
        );
    }

    #[test]
    fn reads_other_tools_and_names_without_a_server_are_not_actions() {
        for name in [
            "mcp__github__get_pull_request",
            "mcp__vercel__list_deployments",
            "mcp__vercel__get_deployment",
            "mcp__supabase__list_migrations",
            "mcp__serena__find_symbol",
            "mcp__linear__create_issue",
            "push_files",
            "write_file",
            "mcp__push_files",
            "mcp_push_files",
            "mcp__vercel__cancel_deploy",
            "mcp__fs__bulk_edit_file",
            "Bash",
        ] {
            assert_eq!(classify(name), None, "{name}");
        }
        assert_eq!(kinds_of_tool_name("git push"), None);
        assert_eq!(
            kinds_of_tool_name("mcp__serena__replace_lines"),
            None,
            "an edit"
        );
    }

    #[test]
    fn the_edited_file_is_read_from_the_servers_usual_arguments() {
        assert_eq!(
            edited_path(&json!({"relative_path": "src/a.py", "body": "x"})),
            Some("src/a.py")
        );
        assert_eq!(edited_path(&json!({"path": "/w/b.rs"})), Some("/w/b.rs"));
        assert_eq!(edited_path(&json!({"pathInProject": "c.kt"})), Some("c.kt"));
        assert_eq!(edited_path(&json!({"path": ""})), None);
        assert_eq!(edited_path(&json!({"content": "x"})), None);
    }
}
