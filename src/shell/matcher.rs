//! Evaluating one rule against one command.
//!
//! The command arrives as a [`Unit`]: its effective program (wrappers
//! already stripped), its arguments, and what surrounds it (redirections,
//! heredocs, inline code, the programs later in its pipeline). Arguments are
//! split into flags and operands here, using the program's value options so
//! that `git -C dir reset` has subcommand `reset`.

use super::paths::classify_path;
use super::refs;
use super::rules::{Field, ShellRule};
use super::ShellContext;
use crate::pattern::GateText;
use std::collections::BTreeMap;

/// One command as the rules see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unit<'a> {
    /// The effective program's bare name.
    pub program: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// `VAR=value` assignments in front of it.
    pub assignments: &'a [String],
    /// Redirection targets.
    pub redirects: &'a [String],
    /// Heredoc bodies and here-strings fed to it.
    pub stdin: &'a [String],
    /// Inline interpreter code, if any.
    pub code: Option<&'a str>,
    /// Programs later in the same pipeline (or consuming the output).
    pub downstream: Downstream<'a>,
    /// Run by `xargs`: more operands arrive from stdin.
    pub via_xargs: bool,
    /// Its output reaches the agent (see `ShellRule::printed`).
    pub printed: bool,
    /// It runs on another machine (`ssh host '…'`).
    pub remote: bool,
}

/// The programs around a command in its pipeline: the distinct names of
/// the stages with the index of their first and last stage (so that long
/// pipelines stay linear), and the consumers of the whole script.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Downstream<'a> {
    /// Distinct program names of the pipeline: (name, first, last stage).
    pub stages: &'a [(String, usize, usize)],
    /// The index of the command itself.
    pub position: usize,
    /// Programs consuming the output of the whole script.
    pub consumers: &'a [String],
}

impl Downstream<'_> {
    /// Whether some program reading the command's output satisfies `test`.
    pub fn any(&self, test: impl Fn(&str) -> bool) -> bool {
        self.stages
            .iter()
            .any(|(name, _, last)| *last > self.position && test(name))
            || self.consumers.iter().any(|c| test(c))
    }

    /// Whether some earlier stage of the pipeline satisfies `test`.
    pub fn any_before(&self, test: impl Fn(&str) -> bool) -> bool {
        self.stages
            .iter()
            .any(|(name, first, _)| *first < self.position && test(name))
    }

    /// The downstream program names, as a list.
    pub fn names(self) -> Vec<String> {
        let mut out: Vec<String> = self
            .stages
            .iter()
            .filter(|(_, _, last)| *last > self.position)
            .map(|(n, _, _)| n.clone())
            .collect();
        out.extend(self.consumers.iter().cloned());
        out
    }
}

/// Whether `name` matches a program pattern: `git`, `mkfs*` (a prefix),
/// `*deploy*` (a part), `*` (any program). Program names arrive in lower
/// case (case-insensitive filesystems run `RM` as `rm`), so a pattern
/// written `Get-ChildItem` or `Rscript` is read in lower case too.
pub(crate) fn program_matches(pattern: &str, name: &str) -> bool {
    if pattern.bytes().any(|b| b.is_ascii_uppercase()) {
        return program_matches(&pattern.to_ascii_lowercase(), name);
    }
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(rest), _) => match rest.strip_suffix('*') {
            Some(part) => name.contains(part),
            None => name.ends_with(rest),
        },
        (None, Some(prefix)) => name.starts_with(prefix),
        (None, None) => pattern == name,
    }
}

/// Splits arguments into flags and operands. Values of `value_options` are
/// dropped; everything after `--` is an operand.
pub(crate) fn split_args<'a>(
    args: &'a [String],
    value_options: &[String],
) -> (Vec<&'a str>, Vec<&'a str>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut options_ended = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if options_ended {
            operands.push(arg.as_str());
        } else if arg == "--" {
            options_ended = true;
        } else if arg.len() > 1 && arg.starts_with('-') {
            flags.push(arg.as_str());
            if value_options.iter().any(|v| v == arg) {
                iter.next();
            }
        } else {
            operands.push(arg.as_str());
        }
    }
    (flags, operands)
}

/// Whether a flag spec is present: `-r` is found inside combined short
/// flags (`-rf`), `--force` matches `--force` and `--force=…`, and a
/// single-dash word (`-delete`) matches exactly.
pub(crate) fn flag_present(spec: &str, flags: &[&str]) -> bool {
    if spec.starts_with("--") {
        return flags.iter().any(|f| {
            f == &spec
                || f.strip_prefix(spec)
                    .is_some_and(|rest| rest.starts_with('='))
        });
    }
    let mut letters = spec.get(1..).unwrap_or("").chars();
    match (letters.next(), letters.next()) {
        (Some(letter), None) => flags
            .iter()
            .any(|f| !f.starts_with("--") && f.get(1..).is_some_and(|l| l.contains(letter))),
        _ => flags.iter().any(|f| {
            f == &spec
                || f.strip_prefix(spec)
                    .is_some_and(|rest| rest.starts_with('='))
        }),
    }
}

/// Whether `rule` matches `unit`. The cheap conditions come first; a regex
/// is compiled only when a command gets that far (an invalid one matches
/// nothing: `ShellRules::validate` reports it).
pub(crate) fn matches(
    rule: &ShellRule,
    patterns: &BTreeMap<String, String>,
    unit: &Unit,
    value_options: &[String],
    ctx: &ShellContext,
) -> bool {
    if !rule.command.is_empty()
        && !rule
            .command
            .iter()
            .any(|p| program_matches(p, unit.program))
    {
        return false;
    }
    let (flags, mut operands) = split_args(unit.args, value_options);
    if !rule.subcommand.is_empty() {
        let matched = rule.subcommand.iter().find_map(|alt| {
            let words: Vec<&str> = alt.split_whitespace().collect();
            (operands.len() >= words.len() && operands[..words.len()] == words[..])
                .then_some(words.len())
        });
        match matched {
            Some(n) => {
                operands.drain(..n);
            }
            None => return false,
        }
    }
    if !rule
        .flags
        .iter()
        .all(|group| group.iter().any(|f| flag_present(f, &flags)))
    {
        return false;
    }
    if !rule.any_flag.is_empty() && !rule.any_flag.iter().any(|f| flag_present(f, &flags)) {
        return false;
    }
    if rule.no_flag.iter().any(|f| flag_present(f, &flags)) {
        return false;
    }
    if rule.min_operands.is_some_and(|n| operands.len() < n)
        || rule.max_operands.is_some_and(|n| operands.len() > n)
    {
        return false;
    }
    if (rule.printed && !unit.printed) || rule.remote.is_some_and(|r| r != unit.remote) {
        return false;
    }
    if !rule.pipe_to.is_empty()
        && !unit
            .downstream
            .any(|d| rule.pipe_to.iter().any(|p| program_matches(p, d)))
    {
        return false;
    }
    if !rule.pipe_from.is_empty()
        && !unit
            .downstream
            .any_before(|d| rule.pipe_from.iter().any(|p| program_matches(p, d)))
    {
        return false;
    }
    if !rule.unless_refs.is_empty() && refs::all_match(&operands, &rule.unless_refs, ctx) {
        return false;
    }
    let regex = |field| rule.regex(field, patterns).map_err(|_| ());
    let Ok(skip) = regex(Field::SkipArgs) else {
        return false;
    };
    if let Some(skip) = skip {
        operands.retain(|o| !skip.is_match(o));
    }
    if !rule.targets.is_empty() {
        let hit = operands
            .iter()
            .any(|o| rule.targets.contains(&classify_path(o, ctx)));
        let from_stdin = unit.via_xargs && rule.targets.contains(&super::PathClass::Other);
        if !hit && !from_stdin {
            return false;
        }
    }
    let holds = |field: Field, negated: bool, inputs: &[&str]| {
        field_holds(rule, patterns, field, negated, inputs)
    };
    let given = |field: Field| field.pattern(rule).is_some();
    fn strs(list: &[String]) -> Vec<&str> {
        list.iter().map(String::as_str).collect()
    }
    let last = &operands[operands.len().saturating_sub(1)..];
    (!given(Field::Args) || holds(Field::Args, false, &operands))
        && (!given(Field::LastOperand) || holds(Field::LastOperand, false, last))
        && (!given(Field::Redirect) || holds(Field::Redirect, false, &strs(unit.redirects)))
        && (!given(Field::Stdin) || holds(Field::Stdin, false, &strs(unit.stdin)))
        && (!given(Field::Code) || holds(Field::Code, false, unit.code.as_slice()))
        && (!given(Field::Context) || holds(Field::Context, false, &[&context(unit)]))
        && (!given(Field::NoContext) || holds(Field::NoContext, true, &[&context(unit)]))
}

/// Whether a regex field of `rule` holds: its regex matches one of the
/// field's `inputs` (`negated`: none does). An input without the regex's
/// literals (its gate, see [`ShellRule::literal_gates`]) cannot match, and
/// where no input is left the regex is not compiled: most commands reach no
/// regex at all. An invalid regex matches nothing.
pub(crate) fn field_holds(
    rule: &ShellRule,
    patterns: &BTreeMap<String, String>,
    field: Field,
    negated: bool,
    inputs: &[&str],
) -> bool {
    let gate = rule.literal_gates.get(field.name());
    let mut inputs = (inputs.iter())
        .filter(|input| gate.is_none_or(|g| GateText::new(input).holds(g)))
        .peekable();
    if inputs.peek().is_none() {
        return negated;
    }
    match rule.regex(field, patterns) {
        Ok(Some(re)) => inputs.any(|input| re.is_match(input)) != negated,
        Ok(None) => true,
        Err(_) => false,
    }
}

/// The unit's `VAR=x` assignments and arguments, joined by spaces: what
/// `context_match` and `no_context_match` read.
fn context(unit: &Unit) -> String {
    let joined: Vec<&str> = unit
        .assignments
        .iter()
        .chain(unit.args)
        .map(String::as_str)
        .collect();
    joined.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_in_any_spelling() {
        for line in [["-rf"], ["-fr"], ["-Rf"], ["-vrf"]] {
            assert!(
                flag_present("-r", &line) || flag_present("-R", &line),
                "{line:?}"
            );
            assert!(flag_present("-f", &line), "{line:?}");
        }
        assert!(flag_present("--force", &["--force=true"]));
        assert!(!flag_present("--force", &["--force-with-lease"]));
        assert!(flag_present("-delete", &["-delete"]));
        assert!(!flag_present("-d", &["--dry-run"]));
    }

    #[test]
    fn split_honours_value_options_and_double_dash() {
        let args = strings(&["-C", "/repo", "reset", "--hard", "--", "-weird"]);
        let (flags, operands) = split_args(&args, &strings(&["-C"]));
        assert_eq!(flags, vec!["-C", "--hard"]);
        assert_eq!(operands, vec!["reset", "-weird"]);
    }

    #[test]
    fn program_patterns() {
        assert!(program_matches("mkfs*", "mkfs.ext4"));
        assert!(program_matches("git", "git"));
        assert!(!program_matches("git", "gitk"));
        assert!(program_matches("*deploy*", "deploy-prod.sh"));
        assert!(program_matches("*.sh", "deploy.sh"));
        assert!(program_matches("*", "anything"));
    }
}
