//! The rule language of the `shell:` section of a detector file.
//!
//! A rule names the program(s) it is about and conditions on how they are
//! called; all conditions given must hold. Flags are matched whatever their
//! spelling or order (`-rf`, `-fr`, `-r -f`, `--recursive --force`), path
//! operands by class (see [`PathClass`]), the rest by regular expressions
//! compiled once, on first use, with size limits. `docs/config.md` has the
//! user-facing description; [`ShellRules::validate`] reports a bad rule by
//! its id. Regexes may name shared fragments, `{{name}}`, defined once in
//! the section's `patterns:` (credential paths, network clients, what a
//! production target looks like), so that a family of rules says each
//! thing in one place.

use super::rule_regex::compile;
pub(crate) use super::rule_regex::Field;
use super::{PathClass, ShellAction};
use regex::Regex;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

/// The `shell:` section: per-program parsing hints and the rules.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRules {
    /// Per program: options that take a separate value (`git -C dir`), so
    /// that the value is not mistaken for a subcommand or operand.
    #[serde(default)]
    pub programs: BTreeMap<String, ProgramSpec>,
    /// Named regex fragments, used in rule regexes as `{{name}}`.
    #[serde(default)]
    pub patterns: BTreeMap<String, String>,
    /// Programs that pass what they read on to their output (`grep`,
    /// `sort`, `base64`): a command piped only into them still prints to
    /// the agent (see [`ShellRule::printed`]).
    #[serde(default)]
    pub filters: Vec<String>,
    /// The rules, checked in order; the strictest match wins.
    #[serde(default)]
    pub rules: Vec<ShellRule>,
}

/// Parsing hints for one program.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramSpec {
    /// Options followed by a value, e.g. `["-C", "-c", "--namespace"]`.
    #[serde(default)]
    pub value_options: Vec<String>,
}

/// One rule. Every condition that is given must hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRule {
    /// Stable id, shown in the verdict and logs.
    pub id: String,
    /// `deny` or `ask`.
    pub action: ShellAction,
    /// The class the config moves the rule by (`push`, `services`...).
    #[serde(default)]
    pub class: Option<String>,
    /// Program names (bare; a trailing `*` matches a prefix: `mkfs*`).
    /// Empty: any program.
    #[serde(default)]
    pub command: Vec<String>,
    /// Alternatives for the first operand(s): `reset`, `stash drop`.
    #[serde(default)]
    pub subcommand: Vec<String>,
    /// Groups of alternative flags; every group needs one present:
    /// `[[-r, -R, --recursive], [-f, --force]]`.
    #[serde(default)]
    pub flags: Vec<Vec<String>>,
    /// At least one of these flags is present.
    #[serde(default)]
    pub any_flag: Vec<String>,
    /// None of these flags is present.
    #[serde(default)]
    pub no_flag: Vec<String>,
    /// Some operand (after the subcommand) designates one of these classes.
    #[serde(default)]
    pub targets: Vec<PathClass>,
    /// Some operand matches this regex.
    #[serde(default)]
    pub args_match: Option<String>,
    /// The last operand (where `cp`, `mv`, `install` write) matches.
    #[serde(default)]
    pub last_operand_match: Option<String>,
    /// Operands matching this regex are ignored by `targets`/`args_match`.
    #[serde(default)]
    pub skip_args: Option<String>,
    /// At least this many operands (after the subcommand).
    #[serde(default)]
    pub min_operands: Option<usize>,
    /// At most this many operands (after the subcommand).
    #[serde(default)]
    pub max_operands: Option<usize>,
    /// Branch globs (`feature/*`): the rule does not hold when the command
    /// names refs after its remote (`git push origin a b`) and every one's
    /// destination matches one of them. Set by the config's `allow_push`.
    #[serde(default)]
    pub unless_refs: Vec<String>,
    /// Some redirection matches, written as `<target` for input and
    /// `>target` for output (so `'^>/dev/sd'` is a write onto a disk).
    #[serde(default)]
    pub redirect_match: Option<String>,
    /// A heredoc or here-string fed to the command matches.
    #[serde(default)]
    pub stdin_match: Option<String>,
    /// The inline code of an interpreter (`python -c`, `node -e`, or a
    /// heredoc fed to it) matches.
    #[serde(default)]
    pub code_match: Option<String>,
    /// The assignments and arguments, joined by spaces, match.
    #[serde(default)]
    pub context_match: Option<String>,
    /// The rule does not hold when the assignments and arguments, joined by
    /// spaces, match (`kubectl apply` aimed at a local cluster).
    #[serde(default)]
    pub no_context_match: Option<String>,
    /// A later command of the same pipeline is one of these programs.
    #[serde(default)]
    pub pipe_to: Vec<String>,
    /// An earlier command of the same pipeline is one of these programs.
    #[serde(default)]
    pub pipe_from: Vec<String>,
    /// The command's output reaches the agent: it is not captured by a
    /// `$( … )`, not redirected to a file, and piped, if at all, only
    /// through the section's `filters`.
    #[serde(default)]
    pub printed: bool,
    /// `true`: only in a command run on another machine (`ssh host '…'`);
    /// `false`: only on this one.
    #[serde(default)]
    pub remote: Option<bool>,
    /// The code of a whole script, with quoted text, comments and heredoc
    /// bodies blanked, matches. Used alone (no other condition).
    #[serde(default)]
    pub text_match: Option<String>,
    /// The message for the agent.
    pub reason: String,
    /// The literal gates of the regex fields, by field name
    /// (`context_match`): what every match contains
    /// ([`crate::pattern::Gate`], encoded, on the regex with its fragments
    /// expanded). build.rs writes them into the built-in rules, so that a
    /// regex is compiled only for a command that has its literals; a rule
    /// written by hand has none (a wrong gate would hide its matches).
    #[serde(default)]
    pub literal_gates: BTreeMap<String, String>,
    /// Each regex field, compiled on first use (see [`Field`]).
    #[serde(skip)]
    compiled: [OnceLock<Result<Option<Regex>, ShellRuleError>>; Field::COUNT],
}

/// A rule that cannot be used, named by its id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellRuleError {
    /// A regular expression does not compile (or is too large).
    #[error("shell rule `{rule}`: invalid `{field}` regex: {message}")]
    Regex {
        /// The rule id.
        rule: String,
        /// The field holding the regex.
        field: &'static str,
        /// The regex engine's message.
        message: String,
    },
    /// Anything else wrong with a rule.
    #[error("shell rule `{rule}`: {message}")]
    Invalid {
        /// The rule id (or its position when it has none).
        rule: String,
        /// What is wrong.
        message: String,
    },
}

impl ShellRule {
    /// One regex field, compiled on first use (then cached) with the
    /// section's `patterns` substituted; `None` when the rule has none.
    pub(crate) fn regex(
        &self,
        field: Field,
        patterns: &BTreeMap<String, String>,
    ) -> Result<Option<&Regex>, &ShellRuleError> {
        self.compiled[field as usize]
            .get_or_init(|| compile(&self.id, field.name(), field.pattern(self), patterns))
            .as_ref()
            .map(Option::as_ref)
    }

    /// Forgets the compiled regexes (after the patterns changed), and the
    /// literal gates of the regexes that name a fragment (computed on the
    /// fragments the rules were written with).
    pub(crate) fn recompile(&mut self) {
        self.compiled = Default::default();
        let uses_fragment =
            |field: Field| (field.pattern(self).as_deref()).is_some_and(|p| p.contains("{{"));
        let named: Vec<&str> = (Field::ALL.into_iter())
            .filter(|f| uses_fragment(*f))
            .map(Field::name)
            .collect();
        self.literal_gates
            .retain(|field, _| !named.contains(&field.as_str()));
    }

    /// True for a rule on the shape of the script (`text_match`), evaluated
    /// once per script rather than per command.
    pub(crate) fn is_text_rule(&self) -> bool {
        self.text_match.is_some()
    }

    fn has_command_conditions(&self) -> bool {
        !self.command.is_empty()
            || !self.subcommand.is_empty()
            || !self.flags.is_empty()
            || !self.any_flag.is_empty()
            || !self.no_flag.is_empty()
            || !self.targets.is_empty()
            || self.min_operands.is_some()
            || self.max_operands.is_some()
            || self.args_match.is_some()
            || self.last_operand_match.is_some()
            || self.printed
            || self.redirect_match.is_some()
            || self.stdin_match.is_some()
            || self.code_match.is_some()
            || self.context_match.is_some()
            || self.no_context_match.is_some()
            || !self.pipe_to.is_empty()
            || !self.pipe_from.is_empty()
    }

    fn check(&self, patterns: &BTreeMap<String, String>) -> Result<(), ShellRuleError> {
        let invalid = |message: &str| ShellRuleError::Invalid {
            rule: self.id.clone(),
            message: message.to_string(),
        };
        if self.reason.trim().is_empty() {
            return Err(invalid("`reason` is empty"));
        }
        if self.is_text_rule() && self.has_command_conditions() {
            return Err(invalid(
                "`text_match` cannot be combined with command conditions",
            ));
        }
        if !self.is_text_rule() && !self.has_command_conditions() {
            return Err(invalid(
                "the rule has no condition and would match every command",
            ));
        }
        let all_flags = self
            .flags
            .iter()
            .flatten()
            .chain(&self.any_flag)
            .chain(&self.no_flag);
        for flag in all_flags {
            if !flag.starts_with('-') || flag.len() < 2 {
                return Err(invalid(&format!("flag `{flag}` must start with `-`")));
            }
        }
        if self.flags.iter().any(Vec::is_empty) {
            return Err(invalid("an empty group in `flags`"));
        }
        if self
            .command
            .iter()
            .chain(&self.pipe_to)
            .chain(&self.pipe_from)
            .any(|c| c.trim().is_empty())
        {
            return Err(invalid("an empty program name"));
        }
        for field in Field::ALL {
            self.regex(field, patterns).map_err(Clone::clone)?;
        }
        Ok(())
    }
}

impl ShellRules {
    /// Checks every rule: ids present and unique, reasons present, flags
    /// well formed, regexes compile within the size limit.
    pub fn validate(&self) -> Result<(), ShellRuleError> {
        let mut seen = HashSet::new();
        for (index, rule) in self.rules.iter().enumerate() {
            if rule.id.trim().is_empty() {
                return Err(ShellRuleError::Invalid {
                    rule: format!("#{}", index + 1),
                    message: "`id` is empty".into(),
                });
            }
            if !seen.insert(rule.id.as_str()) {
                return Err(ShellRuleError::Invalid {
                    rule: rule.id.clone(),
                    message: "duplicate id".into(),
                });
            }
            rule.check(&self.patterns)?;
        }
        for (program, spec) in &self.programs {
            if let Some(bad) = spec.value_options.iter().find(|o| !o.starts_with('-')) {
                return Err(ShellRuleError::Invalid {
                    rule: format!("programs.{program}"),
                    message: format!("option `{bad}` must start with `-`"),
                });
            }
        }
        Ok(())
    }

    /// The options taking a value for `program` (empty when unknown).
    pub(crate) fn value_options(&self, program: &str) -> &[String] {
        self.programs
            .get(program)
            .map_or(&[], |spec| spec.value_options.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(yaml: &str) -> ShellRules {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn parses_and_validates() {
        let r = rules("rules:\n  - id: a\n    action: deny\n    command: [rm]\n    flags: [[-r, --recursive]]\n    targets: [root]\n    reason: no\n");
        assert!(r.validate().is_ok());
        assert_eq!(r.rules[0].targets, vec![PathClass::Root]);
    }

    #[test]
    fn bad_regex_names_the_rule() {
        let r = rules("rules:\n  - id: broken\n    action: ask\n    command: [x]\n    args_match: '('\n    reason: r\n");
        let err = r.validate().unwrap_err();
        assert!(
            matches!(&err, ShellRuleError::Regex { rule, field: "args_match", .. } if rule == "broken"),
            "{err}"
        );
    }

    #[test]
    fn rejects_duplicates_catch_alls_and_unknown_fields() {
        let dup = rules("rules:\n  - {id: a, action: ask, command: [x], reason: r}\n  - {id: a, action: ask, command: [y], reason: r}\n");
        assert!(dup.validate().is_err());
        let empty = rules("rules:\n  - {id: a, action: ask, reason: r}\n");
        assert!(empty.validate().is_err());
        let flag =
            rules("rules:\n  - {id: a, action: ask, command: [x], any_flag: [f], reason: r}\n");
        assert!(flag.validate().is_err());
        assert!(serde_saphyr::from_str::<ShellRules>(
            "rules:\n  - {id: a, action: ask, command: [x], reason: r, bogus: 1}\n"
        )
        .is_err());
    }
}
