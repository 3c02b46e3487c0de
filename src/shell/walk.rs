//! The classification walk: lex and parse a script, resolve each command's
//! effective program, evaluate the rules, and descend into substitutions and
//! nested scripts, all within the depth, word and command budgets.

use super::expand::{self, Nested};
use super::lexer::lex;
use super::matcher::{field_holds, matches, program_matches, Downstream, Unit};
use super::parse::{parse, Pipeline, SimpleCommand};
use super::rules::{Field, ShellRule, ShellRules};
use super::values;
use super::wrappers::{resolve, Invocation};
use super::{ShellAction, ShellContext, ShellMatch, MAX_BYTES, MAX_COMMANDS, MAX_DEPTH, MAX_WORDS};
use std::collections::HashMap;

/// Longest segment text kept in a match.
const SEGMENT_CHARS: usize = 300;

/// Walks one command line and remembers the strictest match.
pub(crate) struct Walker<'a> {
    rules: &'a ShellRules,
    /// The context, with `cwd` following the script's `cd` commands.
    ctx: ShellContext,
    /// Plain `NAME=value` assignments seen so far (`$NAME` is replaced).
    vars: HashMap<String, String>,
    words_left: usize,
    bytes_left: usize,
    commands_left: usize,
    limited: Option<String>,
    best: Option<ShellMatch>,
    /// Every rule that matched, by id, each once in the order first matched.
    matched_ids: Vec<String>,
    /// Inside this many command substitutions: output is captured.
    captured: usize,
    /// Inside this many commands run on another machine (`ssh host '…'`).
    remote: usize,
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(SEGMENT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

impl<'a> Walker<'a> {
    pub(crate) fn new(rules: &'a ShellRules, ctx: &'a ShellContext) -> Self {
        Walker {
            rules,
            ctx: ctx.clone(),
            vars: HashMap::new(),
            words_left: MAX_WORDS,
            bytes_left: MAX_BYTES,
            commands_left: MAX_COMMANDS,
            limited: None,
            best: None,
            matched_ids: Vec::new(),
            captured: 0,
            remote: 0,
        }
    }

    /// The ids of every rule that matched, each once, in the order first matched.
    pub(crate) fn matched_ids(self) -> Vec<String> {
        self.matched_ids
    }

    /// The strictest match; when nothing matched but a budget ran out, an
    /// `ask` saying the command could not be examined fully.
    pub(crate) fn finish(self) -> Option<ShellMatch> {
        if self.best.is_some() {
            return self.best;
        }
        self.limited.map(|segment| ShellMatch {
            action: ShellAction::Ask,
            rule_id: "limit".into(),
            reason:
                "The command is too long or too deeply nested to be checked; confirm it is safe."
                    .into(),
            segment,
        })
    }

    fn done(&self) -> bool {
        self.best
            .as_ref()
            .is_some_and(|m| m.action == ShellAction::Deny)
    }

    fn limit(&mut self, text: &str) {
        if self.limited.is_none() {
            self.limited = Some(clip(text));
        }
    }

    fn record(&mut self, rule: &ShellRule, segment: &str) {
        if !self.matched_ids.contains(&rule.id) {
            self.matched_ids.push(rule.id.clone());
        }
        let stricter = self
            .best
            .as_ref()
            .is_none_or(|best| rule.action > best.action);
        if stricter {
            self.best = Some(ShellMatch {
                action: rule.action,
                rule_id: rule.id.clone(),
                reason: rule.reason.clone(),
                segment: clip(segment),
            });
        }
    }

    fn take_command(&mut self, text: &str) -> bool {
        if self.commands_left == 0 {
            self.limit(text);
            return false;
        }
        self.commands_left -= 1;
        true
    }

    /// Examines a script. `consumers` are the programs its output feeds.
    pub(crate) fn script(&mut self, src: &str, depth: usize, consumers: &[String]) {
        if self.done() || !self.take_command(src) {
            return;
        }
        if depth > MAX_DEPTH || src.len() > self.bytes_left {
            self.limit(src);
            return;
        }
        self.bytes_left -= src.len();
        let lexed = lex(src, &mut self.words_left);
        if lexed.truncated {
            self.limit(src);
        }
        for rule in self.rules.rules.iter().filter(|r| r.is_text_rule()) {
            let skeleton = [lexed.skeleton.as_str()];
            if field_holds(rule, &self.rules.patterns, Field::Text, false, &skeleton) {
                self.record(rule, src);
            }
        }
        for pipeline in parse(lexed.tokens) {
            self.pipeline(src, &pipeline, depth, consumers);
            if self.done() {
                return;
            }
        }
    }

    fn pipeline(&mut self, src: &str, pipeline: &Pipeline, depth: usize, consumers: &[String]) {
        let texts: Vec<Vec<String>> = pipeline
            .iter()
            .map(|c| values::word_texts(c, &self.vars))
            .collect();
        let invocations: Vec<Invocation> = texts.iter().map(|t| resolve(t)).collect();
        let mut spans: HashMap<&str, (usize, usize)> = HashMap::new();
        for (index, inv) in invocations.iter().enumerate() {
            spans
                .entry(inv.program.as_str())
                .or_insert((index, index))
                .1 = index;
        }
        let stages: Vec<(String, usize, usize)> = spans
            .into_iter()
            .map(|(name, (first, last))| (name.to_string(), first, last))
            .collect();
        for (i, (command, inv)) in pipeline.iter().zip(&invocations).enumerate() {
            let segment = command.source_text(src);
            if !self.take_command(&segment) {
                return;
            }
            let downstream = Downstream {
                stages: &stages,
                position: i,
                consumers,
            };
            let piped_in = match i {
                0 => None,
                _ => expand::visible_output(&invocations[i - 1], &stdin_of(&pipeline[i - 1])),
            };
            self.substitutions(command, inv, depth);
            let expanded = command
                .words
                .get(inv.program_index)
                .is_some_and(|w| texts[i].get(inv.program_index) != Some(&w.text));
            if (expanded && values::split_program(inv)) || values::ifs_split(command, &texts[i]) {
                // `$cmd args` where `$cmd` holds several words, or words
                // glued by `${IFS}`: re-read it.
                self.script(&texts[i].join(" "), depth + 1, &downstream.names());
                continue;
            }
            if let Some(split) = values::custom_ifs_split(command, &texts[i], &self.vars)
                .or_else(|| values::split_fields(command, &texts[i]))
            {
                self.script(&split, depth + 1, &downstream.names());
                continue;
            }
            self.track_state(inv);
            let redirects: Vec<String> = command.redirects.iter().map(|r| r.shown()).collect();
            let to_file = command.redirects.iter().any(|r| r.stdout_to_file());
            self.invocation(
                inv,
                &redirects,
                &stdin_of(command),
                downstream,
                to_file,
                piped_in.as_deref(),
                &segment,
                depth,
            );
            if self.done() {
                return;
            }
        }
    }

    /// Command substitutions run whatever the command is; their output
    /// feeds the command when it executes code (`bash -c "$(curl …)"`) or
    /// when the substitution is the command name itself.
    /// Remembers `cd DIR` and plain `NAME=value` for the commands after.
    fn track_state(&mut self, inv: &Invocation) {
        if inv.program.is_empty() && inv.scripts.is_empty() {
            for assignment in &inv.assignments {
                if let Some((name, value)) = assignment.split_once('=') {
                    if self.vars.len() < 256 && value.len() <= values::MAX_VALUE_LEN {
                        self.vars
                            .insert(name.trim_end_matches('+').to_string(), value.to_string());
                    }
                }
            }
        }
        if matches!(inv.program.as_str(), "cd" | "pushd") {
            self.ctx.cwd = values::cd_target(inv, &self.ctx);
        }
    }

    fn substitutions(&mut self, command: &SimpleCommand, inv: &Invocation, depth: usize) {
        let feeds_code = !inv.program.is_empty() && expand::runs_code(&inv.program);
        let own = vec![inv.program.clone()];
        let shell = vec!["sh".to_string()];
        for (index, word) in command.words.iter().enumerate() {
            let dynamic_name = index == inv.program_index
                && (word.text.starts_with("$(") || word.text.starts_with('`'));
            let consumers: &[String] = if dynamic_name {
                &shell
            } else if feeds_code && index > inv.program_index {
                &own
            } else {
                &[]
            };
            self.captured += 1;
            for sub in &word.subs {
                self.script(sub, depth + 1, consumers);
            }
            self.captured -= 1;
        }
        let fed: &[String] = if feeds_code { &own } else { &[] };
        for word in command
            .redirects
            .iter()
            .map(|r| &r.target)
            .chain(&command.here_strings)
        {
            self.captured += 1;
            for sub in &word.subs {
                self.script(sub, depth + 1, fed);
            }
            self.captured -= 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn invocation(
        &mut self,
        inv: &Invocation,
        redirects: &[String],
        stdin: &[String],
        downstream: Downstream,
        to_file: bool,
        piped_in: Option<&str>,
        segment: &str,
        depth: usize,
    ) {
        if !inv.scripts.is_empty() {
            let consumers = downstream.names();
            for script in &inv.scripts {
                self.script(script, depth + 1, &consumers);
            }
        }
        // A command of redirections alone (`exec 3<>/dev/tcp/…`, `> /dev/sda`)
        // still meets the rules on redirections.
        if (inv.program.is_empty() && redirects.is_empty()) || self.done() {
            return;
        }
        if let (true, Some(input)) = (inv.via_xargs, piped_in) {
            // `echo / | xargs rm -rf`: the visible input becomes operands.
            for args in values::fill_from_input(&inv.args, input, false) {
                let fed = Invocation {
                    args,
                    via_xargs: false,
                    ..inv.clone()
                };
                self.invocation(
                    &fed, redirects, stdin, downstream, to_file, None, segment, depth,
                );
                if self.done() {
                    return;
                }
            }
            return;
        }
        let mut code = expand::inline_code(inv, stdin);
        if code.is_none()
            && expand::is_interpreter(&inv.program)
            && inv.args.iter().all(|a| a.starts_with('-'))
        {
            code = piped_in.map(str::to_string);
        }
        let mut all_input = stdin.to_vec();
        all_input.extend(piped_in.map(str::to_string));
        let args = values::own_args(inv);
        let filters = &self.rules.filters;
        let printed = self.captured == 0
            && !to_file
            && !downstream.any(|p| !filters.iter().any(|f| program_matches(f, p)));
        let unit = Unit {
            program: &inv.program,
            args: &args,
            assignments: &inv.assignments,
            redirects,
            stdin: &all_input,
            code: code.as_deref(),
            downstream,
            via_xargs: inv.via_xargs,
            printed,
            remote: self.remote > 0,
        };
        let value_options = self.rules.value_options(&inv.program);
        for rule in self.rules.rules.iter().filter(|r| !r.is_text_rule()) {
            // A rule for other programs is passed over before its regexes
            // are compiled (most rules name their programs).
            let for_other_programs = !rule.command.is_empty()
                && !rule
                    .command
                    .iter()
                    .any(|p| program_matches(p, &inv.program));
            if for_other_programs {
                continue;
            }
            if matches(rule, &self.rules.patterns, &unit, value_options, &self.ctx) {
                self.record(rule, segment);
                if self.done() {
                    return;
                }
            }
        }
        for nested in expand::nested(inv, stdin, piped_in, code.as_deref()) {
            match nested {
                Nested::Script(script) => self.script(&script, depth + 1, &[]),
                Nested::Remote(script) => {
                    // Another machine: its cwd, repository and home are unknown.
                    let here = std::mem::take(&mut self.ctx);
                    self.remote += 1;
                    self.script(&script, depth + 1, &[]);
                    self.remote -= 1;
                    self.ctx = here;
                }
                Nested::Argv(argv) => {
                    if depth + 1 > MAX_DEPTH || !self.take_command(segment) {
                        self.limit(segment);
                        return;
                    }
                    let inner = resolve(&argv);
                    self.invocation(
                        &inner,
                        &[],
                        &[],
                        Downstream::default(),
                        false,
                        None,
                        &argv.join(" "),
                        depth + 1,
                    );
                }
            }
            if self.done() {
                return;
            }
        }
    }
}

fn stdin_of(command: &SimpleCommand) -> Vec<String> {
    command
        .stdin_texts()
        .into_iter()
        .map(str::to_string)
        .collect()
}
