//! The agent's todo list as the turn left it.
//!
//! Agents keep a list of the steps of the work and mark each one done as
//! they go: Claude Code's `TodoWrite` (the whole list each time) and, since
//! 2.1.16, `TaskCreate` / `TaskUpdate` (one task at a time), Codex's
//! `update_plan`, Gemini CLI's `write_todos`. A turn that ends with steps of
//! its own list still pending while its message reports the work done has
//! delivered less than it planned: that is evidence for the judge, which
//! the prose alone may not show.
//!
//! Only what the turn itself wrote is known: the last whole list it wrote,
//! or the tasks it created or updated (a task created in an earlier turn
//! and not touched in this one is not seen).

use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// At most this many items are kept.
pub const MAX_ITEMS: usize = 64;
/// An item's text is kept up to this many bytes.
pub const MAX_ITEM_BYTES: usize = 200;

/// The todo list as the turn left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The tool that wrote it (`TodoWrite`, `TaskUpdate`, `update_plan`, …).
    pub tool: String,
    /// The items, in the list's order.
    pub items: Vec<PlanItem>,
}

/// One step of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanItem {
    /// What the step is (cut to [`MAX_ITEM_BYTES`]).
    pub text: String,
    /// Where it stands.
    pub status: PlanStatus,
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Dropped from the plan (Gemini's `cancelled`, Claude Code's `deleted`).
    Cancelled,
}

impl PlanItem {
    /// A step, its text trimmed and cut to [`MAX_ITEM_BYTES`].
    fn new(text: &str, status: PlanStatus) -> PlanItem {
        PlanItem {
            text: super::clip(text.trim(), MAX_ITEM_BYTES),
            status,
        }
    }
}

impl PlanStatus {
    /// The status a tool wrote (Claude Code's `TaskUpdate` `deleted` is a
    /// step dropped); `None` for one no agent writes.
    pub fn parse(status: &str) -> Option<PlanStatus> {
        match status {
            "pending" => Some(PlanStatus::Pending),
            "in_progress" => Some(PlanStatus::InProgress),
            "completed" => Some(PlanStatus::Completed),
            "cancelled" | "deleted" => Some(PlanStatus::Cancelled),
            _ => None,
        }
    }

    /// Whether the step is still to do (pending or in progress).
    pub fn is_open(self) -> bool {
        matches!(self, PlanStatus::Pending | PlanStatus::InProgress)
    }

    /// The status as the facts block writes it.
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Pending => "pending",
            PlanStatus::InProgress => "in progress",
            PlanStatus::Completed => "completed",
            PlanStatus::Cancelled => "cancelled",
        }
    }
}

impl Plan {
    /// A list from `(text, status)` pairs; items with a status no agent
    /// writes are left out, and the list is cut to [`MAX_ITEMS`].
    pub fn new<'a>(tool: &str, items: impl IntoIterator<Item = (&'a str, &'a str)>) -> Plan {
        let items = items
            .into_iter()
            .filter_map(|(text, status)| Some(PlanItem::new(text, PlanStatus::parse(status)?)))
            .take(MAX_ITEMS)
            .collect();
        Plan {
            tool: tool.to_owned(),
            items,
        }
    }

    /// A list from a tool's JSON array of items, each with its text under
    /// `text_key` and a `status` (`None` when `list` is no array).
    pub fn from_json(tool: &str, list: Option<&Value>, text_key: &str) -> Option<Plan> {
        let list = list?.as_array()?;
        let items = list
            .iter()
            .filter_map(|item| Some((str_at(item, text_key)?, str_at(item, "status")?)));
        Some(Plan::new(tool, items))
    }

    /// Each step as its text and status, in order.
    pub fn steps(&self) -> Vec<(&str, PlanStatus)> {
        (self.items.iter())
            .map(|i| (i.text.as_str(), i.status))
            .collect()
    }

    /// The steps still to do.
    pub fn open_items(&self) -> impl Iterator<Item = &PlanItem> {
        self.items.iter().filter(|item| item.status.is_open())
    }

    /// Whether some step is still to do.
    pub fn left_open(&self) -> bool {
        self.open_items().next().is_some()
    }

    /// The steps dropped from the list (cancelled or deleted).
    pub fn dropped_items(&self) -> impl Iterator<Item = &PlanItem> {
        (self.items.iter()).filter(|item| item.status == PlanStatus::Cancelled)
    }
}

fn str_at<'v>(item: &'v Value, key: &str) -> Option<&'v str> {
    item.get(key).and_then(Value::as_str)
}

/// The todo-list writes of a turn, met newest first (a transcript is read
/// backwards): the newest whole list (`TodoWrite`, `update_plan`,
/// `write_todos`), or the one-task writes (`TaskCreate`, `TaskUpdate`)
/// newer than any whole list. [`PlanWrites::finish`] gives the list as the
/// turn left it.
#[derive(Debug, Default)]
pub struct PlanWrites {
    writes: Writes,
    /// Task ids named by `TaskCreate` results, by call id.
    created: HashMap<String, String>,
}

#[derive(Debug, Default)]
enum Writes {
    #[default]
    None,
    List(Plan),
    Tasks(Vec<TaskWrite>),
}

/// One `TaskCreate` or `TaskUpdate`.
#[derive(Debug)]
enum TaskWrite {
    Create {
        id: Option<String>,
        subject: String,
    },
    Update {
        id: String,
        status: Option<String>,
        subject: Option<String>,
    },
}

impl PlanWrites {
    /// A whole list written at this point of the turn: the list as the turn
    /// left it, unless a newer write was met already.
    pub fn list(&mut self, plan: Plan) {
        if matches!(self.writes, Writes::None) {
            self.writes = Writes::List(plan);
        }
    }

    /// The result of the `TaskCreate` call `call_id` named its task
    /// `task_id` (met before the call, reading backwards).
    pub fn task_created_as(&mut self, call_id: &str, task_id: &str) {
        if self.created.len() < MAX_ITEMS {
            self.created.insert(call_id.to_owned(), task_id.to_owned());
        }
    }

    /// A `TaskCreate` call (`call_id`) of a task named `subject`.
    pub fn task_create(&mut self, call_id: Option<&str>, subject: &str) {
        let id = call_id.and_then(|c| self.created.remove(c));
        self.task_write(TaskWrite::Create {
            id,
            subject: subject.to_owned(),
        });
    }

    /// A `TaskUpdate` call on task `id`.
    pub fn task_update(&mut self, id: &str, status: Option<&str>, subject: Option<&str>) {
        self.task_write(TaskWrite::Update {
            id: id.to_owned(),
            status: status.map(str::to_owned),
            subject: subject.map(str::to_owned),
        });
    }

    fn task_write(&mut self, write: TaskWrite) {
        match &mut self.writes {
            Writes::None => self.writes = Writes::Tasks(vec![write]),
            Writes::Tasks(writes) if writes.len() < 4 * MAX_ITEMS => writes.push(write),
            Writes::Tasks(_) | Writes::List(_) => {}
        }
    }

    /// The list as the turn left it (`None`: the turn wrote none). Task
    /// writes are replayed oldest first: a created task starts pending; an
    /// update of a task not created this turn adds it under its id.
    pub fn finish(self) -> Option<Plan> {
        let writes = match self.writes {
            Writes::None => return None,
            Writes::List(plan) => return Some(plan),
            Writes::Tasks(writes) => writes,
        };
        let mut board = TaskBoard::default();
        for write in writes.iter().rev() {
            match write {
                TaskWrite::Create { id, subject } => board.create(id.as_deref(), subject),
                TaskWrite::Update {
                    id,
                    status,
                    subject,
                } => board.update(id, status.as_deref(), subject.as_deref()),
            }
        }
        board.finish()
    }
}

/// The tasks of a turn, applied oldest first.
#[derive(Debug, Default)]
struct TaskBoard {
    /// `(id, item)` in the order the tasks were first met.
    tasks: Vec<(String, PlanItem)>,
    /// The last tool applied.
    tool: String,
}

impl TaskBoard {
    fn create(&mut self, id: Option<&str>, subject: &str) {
        self.tool = "TaskCreate".into();
        if self.tasks.len() < MAX_ITEMS {
            let item = PlanItem::new(subject, PlanStatus::Pending);
            self.tasks.push((id.unwrap_or("").to_owned(), item));
        }
    }

    fn update(&mut self, id: &str, status: Option<&str>, subject: Option<&str>) {
        self.tool = "TaskUpdate".into();
        let index = match self.tasks.iter().position(|(known, _)| known == id) {
            Some(index) => index,
            None if self.tasks.len() < MAX_ITEMS => {
                let name = format!("task #{}", super::head(id, 32));
                let item = PlanItem::new(&name, PlanStatus::Pending);
                self.tasks.push((id.to_owned(), item));
                self.tasks.len() - 1
            }
            None => return,
        };
        let item = &mut self.tasks[index].1;
        if let Some(status) = status.and_then(PlanStatus::parse) {
            item.status = status;
        }
        if let Some(subject) = subject {
            item.text = PlanItem::new(subject, item.status).text;
        }
    }

    fn finish(self) -> Option<Plan> {
        (!self.tasks.is_empty()).then(|| Plan {
            tool: self.tool,
            items: self.tasks.into_iter().map(|(_, item)| item).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_list_keeps_known_statuses_and_reports_open_steps() {
        let plan = Plan::new(
            "update_plan",
            [
                ("Add the migration", "completed"),
                ("Update the docs", "pending"),
                ("Wire the route", "in_progress"),
                ("Old idea", "cancelled"),
                ("Odd", "someday"),
            ],
        );
        assert_eq!(plan.items.len(), 4);
        let open: Vec<&str> = plan.open_items().map(|i| i.text.as_str()).collect();
        assert_eq!(open, ["Update the docs", "Wire the route"]);
        assert!(plan.left_open());
        let done = Plan::new("TodoWrite", [("a", "completed"), ("b", "cancelled")]);
        assert!(!done.left_open());
    }

    #[test]
    fn tasks_are_replayed_in_order_and_unknown_ids_are_added() {
        // Met newest first, as a reader going backwards meets them.
        let mut writes = PlanWrites::default();
        writes.task_update("2", Some("deleted"), None);
        writes.task_update("7", Some("in_progress"), None);
        writes.task_update("1", Some("completed"), None);
        writes.task_created_as("c2", "2");
        writes.task_create(Some("c2"), "Test it");
        writes.task_created_as("c1", "1");
        writes.task_create(Some("c1"), "Write the parser");
        let plan = writes.finish().expect("tasks were met");
        assert_eq!(plan.tool, "TaskUpdate");
        assert_eq!(
            plan.steps(),
            [
                ("Write the parser", PlanStatus::Completed),
                ("Test it", PlanStatus::Cancelled),
                ("task #7", PlanStatus::InProgress),
            ]
        );
        assert!(PlanWrites::default().finish().is_none());
    }

    #[test]
    fn the_newest_write_wins_between_a_list_and_tasks() {
        let mut list_newest = PlanWrites::default();
        list_newest.list(Plan::new("TodoWrite", [("a", "completed")]));
        list_newest.task_create(None, "older task");
        assert_eq!(
            list_newest.finish().map(|p| p.tool),
            Some("TodoWrite".into())
        );
        let mut tasks_newest = PlanWrites::default();
        tasks_newest.task_create(None, "newer task");
        tasks_newest.list(Plan::new("TodoWrite", [("a", "completed")]));
        assert_eq!(
            tasks_newest.finish().map(|p| p.tool),
            Some("TaskCreate".into())
        );
    }
}
