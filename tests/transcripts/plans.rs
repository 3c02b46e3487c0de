//! The agent's todo list as the turn left it, from each agent's todo tool:
//! Claude Code's `TodoWrite` (whole list) and `TaskCreate` / `TaskUpdate`
//! (one task at a time), Codex's `update_plan`, Gemini CLI's `write_todos`.
//! A list written in an earlier turn is not this turn's.

use super::*;
use guard::actions::plan::PlanStatus;
use serde_json::json;

fn write(dir: &ScratchDir, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let path = dir.path(name);
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

fn claude_tool(id: &str, name: &str, input: serde_json::Value) -> serde_json::Value {
    json!({"type": "assistant", "message": {"id": format!("m-{id}"), "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}]}})
}

fn claude_result(id: &str, content: &str) -> serde_json::Value {
    json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": id, "content": content}]}})
}

fn claude_user(text: &str) -> serde_json::Value {
    json!({"type": "user", "message": {"role": "user", "content": text}})
}

fn claude_reply(text: &str) -> serde_json::Value {
    json!({"type": "assistant", "message": {"id": "m-end", "content": [{"type": "text", "text": text}]}})
}

#[test]
fn claude_todowrite_gives_the_last_list_of_the_turn() {
    let dir = ScratchDir::new();
    let todos = |statuses: [&str; 3]| {
        json!({"todos": [
            {"content": "Add the endpoint", "status": statuses[0], "activeForm": "Adding"},
            {"content": "Write its tests", "status": statuses[1], "activeForm": "Writing"},
            {"content": "Update the docs", "status": statuses[2], "activeForm": "Updating"}]})
    };
    let path = write(
        &dir,
        "todowrite.jsonl",
        &[
            claude_user("earlier request"),
            claude_tool(
                "t0",
                "TodoWrite",
                json!({"todos": [{"content": "Old step", "status": "pending"}]}),
            ),
            claude_reply("Earlier reply."),
            claude_user("add the orders endpoint with tests and docs"),
            claude_tool(
                "t1",
                "TodoWrite",
                todos(["in_progress", "pending", "pending"]),
            ),
            claude_result("t1", "Todos have been modified successfully."),
            claude_tool(
                "t2",
                "TodoWrite",
                todos(["completed", "completed", "pending"]),
            ),
            claude_result("t2", "Todos have been modified successfully."),
            claude_reply("The endpoint is done and tested."),
        ],
    );
    let turn = last_turn(ClaudeCode, &path, 4096).unwrap();
    let plan = turn.actions.plan.as_ref().expect("the turn wrote a list");
    assert_eq!(plan.tool, "TodoWrite");
    assert_eq!(
        plan.steps(),
        [
            ("Add the endpoint", PlanStatus::Completed),
            ("Write its tests", PlanStatus::Completed),
            ("Update the docs", PlanStatus::Pending),
        ]
    );
    assert!(turn.actions.plan_left_open());
}

#[test]
fn claude_tasks_are_replayed_by_the_ids_their_results_give() {
    let dir = ScratchDir::new();
    let path = write(
        &dir,
        "tasks.jsonl",
        &[
            claude_user("migrate both tables"),
            claude_tool(
                "c1",
                "TaskCreate",
                json!({"subject": "Migrate users", "description": "…"}),
            ),
            claude_result("c1", "Task #4 created successfully: Migrate users"),
            claude_tool(
                "c2",
                "TaskCreate",
                json!({"subject": "Migrate orders", "description": "…"}),
            ),
            claude_result("c2", "Task #5 created successfully: Migrate orders"),
            claude_tool(
                "u1",
                "TaskUpdate",
                json!({"taskId": "4", "status": "completed"}),
            ),
            claude_result("u1", "Updated task #4 status"),
            claude_tool(
                "u2",
                "TaskUpdate",
                json!({"taskId": "3", "status": "completed"}),
            ),
            claude_reply("Both tables are migrated."),
        ],
    );
    let turn = last_turn(ClaudeCode, &path, 4096).unwrap();
    let plan = turn.actions.plan.as_ref().expect("the turn wrote tasks");
    assert_eq!(
        plan.steps(),
        [
            ("Migrate users", PlanStatus::Completed),
            ("Migrate orders", PlanStatus::Pending),
            ("task #3", PlanStatus::Completed),
        ]
    );
    assert!(turn.actions.plan_left_open());
}

#[test]
fn codex_update_plan_and_gemini_write_todos_give_the_turns_plan() {
    let dir = ScratchDir::new();
    let plan_call = |statuses: [&str; 2]| {
        let arguments = json!({"explanation": "x", "plan": [
            {"step": "Port the parser", "status": statuses[0]},
            {"step": "Remove the old one", "status": statuses[1]}]});
        json!({"type": "response_item", "payload": {"type": "function_call",
            "name": "update_plan", "arguments": arguments.to_string(), "call_id": "p"}})
    };
    let codex = write(
        &dir,
        "codex.jsonl",
        &[
            json!({"type": "response_item", "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "port the parser"}]}}),
            plan_call(["in_progress", "pending"]),
            plan_call(["completed", "completed"]),
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Ported."}]}}),
        ],
    );
    let turn = last_turn(Codex, &codex, 4096).unwrap();
    let plan = turn.actions.plan.as_ref().expect("the turn wrote a plan");
    assert_eq!(plan.tool, "update_plan");
    assert_eq!(plan.items.len(), 2);
    assert!(!turn.actions.plan_left_open());

    let gemini = write(
        &dir,
        "gemini.jsonl",
        &[
            json!({"id": "u1", "type": "user", "content": [{"text": "add dark mode"}]}),
            json!({"id": "g1", "type": "gemini", "content": "", "toolCalls": [{
                "id": "w1", "name": "write_todos", "status": "success",
                "args": {"todos": [
                    {"description": "Add the theme toggle", "status": "completed"},
                    {"description": "Persist the choice", "status": "cancelled"},
                    {"description": "Restyle the charts", "status": "in_progress"}]}}]}),
            json!({"id": "g2", "type": "gemini", "content": "Dark mode is in."}),
        ],
    );
    let turn = last_turn(Gemini, &gemini, 4096).unwrap();
    let plan = turn.actions.plan.as_ref().expect("the turn wrote todos");
    assert_eq!(
        plan.steps(),
        [
            ("Add the theme toggle", PlanStatus::Completed),
            ("Persist the choice", PlanStatus::Cancelled),
            ("Restyle the charts", PlanStatus::InProgress),
        ]
    );
    assert!(turn.actions.plan_left_open());
}

#[test]
fn a_turn_that_wrote_no_list_has_no_plan() {
    let dir = ScratchDir::new();
    let path = write(
        &dir,
        "none.jsonl",
        &[
            claude_user("plan it"),
            claude_tool(
                "t0",
                "TodoWrite",
                json!({"todos": [{"content": "Step", "status": "pending"}]}),
            ),
            claude_reply("Planned."),
            claude_user("thanks"),
            claude_reply("You're welcome."),
        ],
    );
    let turn = last_turn(ClaudeCode, &path, 4096).unwrap();
    assert_eq!(turn.actions.plan, None);
    assert!(!turn.actions.plan_left_open());
}

/// Recorded by the real Gemini CLI 0.61.0 (`useWriteTodos` set, offline
/// against the stub model; tests/e2e_plans.rs): two `write_todos` calls, the
/// first step marked done by the second.
#[test]
fn gemini_real_cli_recording_gives_the_last_list() {
    let turn = last_turn(Gemini, &fixture("gemini-0.61-real-plan.jsonl"), 4096).unwrap();
    let plan = turn.actions.plan.as_ref().expect("the turn wrote todos");
    assert_eq!(plan.tool, "write_todos");
    assert_eq!(
        plan.steps(),
        [
            ("Write the parser", PlanStatus::Completed),
            ("Document the parser", PlanStatus::Pending),
        ]
    );
}
