//! Classifying a shell command: is it a test run, a build, a linter, a
//! commit, a push, a deploy, or a write to files?
//!
//! The table is data (`command_kinds.yaml`, embedded), written in the rule
//! language of the `dangerous-command` detector and evaluated by the same
//! shell parser ([`crate::shell::matching_rule_ids`]), so wrappers, `&&`
//! chains, pipelines and `bash -c '…'` strings are seen through the same way.
//! The table is read once per process, on the first command classified.

use crate::shell::{self, ShellContext, ShellRules};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// What a command is, by the programs it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandKind {
    /// Runs tests (`cargo test`, `pytest`, `npm test`, `go test`, `make check`, …).
    Test,
    /// Compiles or type-checks (`cargo build`, `tsc`, `npm run build`, `make`, …).
    Build,
    /// Runs a linter or formatter (`cargo clippy`, `eslint`, `ruff`, …).
    Lint,
    /// Records a commit (`git commit`, `git merge`, `git cherry-pick`, …).
    Commit,
    /// Sends changes off the machine (`git push`, `gh pr create`, `gh pr merge`, …).
    Push,
    /// Deploys or publishes (`kubectl apply`, `terraform apply`, `npm publish`, …).
    Deploy,
    /// Changes files from the shell (`sed -i`, `> file`, `tee`, `git apply`, …).
    FileWrite,
    /// Looks something up, read only, where a non-zero exit may only mean
    /// "not found" (`grep`, `rg`, `find`, `ls`, `git diff`, …): no failure
    /// the agent saw.
    Lookup,
}

impl CommandKind {
    /// Every kind, in a stable order.
    pub const ALL: [CommandKind; 8] = [
        CommandKind::Test,
        CommandKind::Build,
        CommandKind::Lint,
        CommandKind::Commit,
        CommandKind::Push,
        CommandKind::Deploy,
        CommandKind::FileWrite,
        CommandKind::Lookup,
    ];

    /// The kinds a claim of "verified" can rest on.
    pub const CHECKS: [CommandKind; 3] = [CommandKind::Test, CommandKind::Build, CommandKind::Lint];

    /// The snake_case name used in `command_kinds.yaml` and in logs.
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Test => "test",
            CommandKind::Build => "build",
            CommandKind::Lint => "lint",
            CommandKind::Commit => "commit",
            CommandKind::Push => "push",
            CommandKind::Deploy => "deploy",
            CommandKind::FileWrite => "file_write",
            CommandKind::Lookup => "lookup",
        }
    }

    /// Parses a snake_case kind name.
    pub fn parse(name: &str) -> Option<CommandKind> {
        CommandKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }

    /// Whether the kind is a check (test, build or lint).
    pub fn is_check(self) -> bool {
        CommandKind::CHECKS.contains(&self)
    }
}

/// Commands longer than this are classified on their first bytes only.
pub(crate) const CLASSIFY_BYTES: usize = 64 * 1024;

/// `command_kinds.yaml` as shell rules (`kinds/table.rs`, run by
/// build.rs): read on every turn end with a command, in one typed parse.
const TABLE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/command_kinds.json"));

/// The table, as shell rules, with the kind of each rule id.
#[derive(Debug, Default)]
struct KindTable {
    rules: ShellRules,
    kind_of_rule: HashMap<String, CommandKind>,
}

/// The kinds of the programs `command` runs, in [`CommandKind::ALL`] order,
/// each once; empty when it is none of them.
pub fn classify_command(command: &str) -> Vec<CommandKind> {
    static TABLE: OnceLock<KindTable> = OnceLock::new();
    // The embedded table is validated by a test, not on the hook path (that
    // would compile every regex); should it ever fail to load, commands stay
    // unclassified rather than break the hook.
    let table = TABLE.get_or_init(|| load(TABLE_JSON).unwrap_or_default());
    let head = super::head(command, CLASSIFY_BYTES);
    let ids = shell::matching_rule_ids(head, &table.rules, &ShellContext::default());
    let mut kinds: Vec<CommandKind> = ids
        .iter()
        .filter_map(|id| table.kind_of_rule.get(id).copied())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
}

/// Reads the table's rules (`kinds/table.rs`): each rule's id names its
/// kind. Its regexes are compiled when first needed; [`validate`] checks
/// them all.
fn load(json: &str) -> Result<KindTable, String> {
    let rules: ShellRules = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let mut kind_of_rule = HashMap::new();
    for rule in &rules.rules {
        let name = rule.id.split('#').next().unwrap_or_default();
        let kind = CommandKind::parse(name).ok_or_else(|| format!("unknown kind `{name}`"))?;
        kind_of_rule.insert(rule.id.clone(), kind);
    }
    Ok(KindTable {
        rules,
        kind_of_rule,
    })
}

/// The embedded table's rules, as a hook reads them.
#[cfg(test)]
pub(crate) fn embedded_rules() -> ShellRules {
    load(TABLE_JSON).map(|t| t.rules).unwrap_or_default()
}

/// A table in its file form (as JSON), as a hook reads it, every rule
/// checked (regexes compiled).
#[cfg(test)]
fn validate(file: &str) -> Result<KindTable, String> {
    let file: serde_json::Value = serde_json::from_str(file).map_err(|e| e.to_string())?;
    let table = load(&table::rules_of(&file)?.to_string())?;
    table.rules.validate().map_err(|e| e.to_string())?;
    Ok(table)
}

#[cfg(test)]
mod table;
#[cfg(test)]
mod tests;
