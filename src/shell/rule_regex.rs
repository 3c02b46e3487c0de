//! The regex fields of a shell rule and their compilation: which fields a
//! rule has, `{{name}}` fragment substitution from the section's
//! `patterns:`, and compiling with size limits. Moved out of `rules.rs` to
//! keep it short; `rules` re-exports [`Field`].

use super::fragments::expand;
use super::rules::{ShellRule, ShellRuleError};
use regex::{Regex, RegexBuilder};
use std::collections::BTreeMap;

/// A rule's regex fields. Each is compiled the first time a command gets
/// that far in the rule: most commands are ruled out by their program or
/// flags first, and compiling every rule's regexes costs tens of
/// milliseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field {
    Args,
    LastOperand,
    SkipArgs,
    Redirect,
    Stdin,
    Code,
    Context,
    NoContext,
    Text,
}

impl Field {
    /// How many regex fields a rule has.
    pub(super) const COUNT: usize = 9;
    /// Every field, in declaration order.
    pub(crate) const ALL: [Field; Field::COUNT] = [
        Field::Args,
        Field::LastOperand,
        Field::SkipArgs,
        Field::Redirect,
        Field::Stdin,
        Field::Code,
        Field::Context,
        Field::NoContext,
        Field::Text,
    ];

    /// The field's name in the rule file.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Field::Args => "args_match",
            Field::LastOperand => "last_operand_match",
            Field::SkipArgs => "skip_args",
            Field::Redirect => "redirect_match",
            Field::Stdin => "stdin_match",
            Field::Code => "code_match",
            Field::Context => "context_match",
            Field::NoContext => "no_context_match",
            Field::Text => "text_match",
        }
    }

    /// The rule's regex source for this field, if any.
    pub(crate) fn pattern(self, rule: &ShellRule) -> &Option<String> {
        match self {
            Field::Args => &rule.args_match,
            Field::LastOperand => &rule.last_operand_match,
            Field::SkipArgs => &rule.skip_args,
            Field::Redirect => &rule.redirect_match,
            Field::Stdin => &rule.stdin_match,
            Field::Code => &rule.code_match,
            Field::Context => &rule.context_match,
            Field::NoContext => &rule.no_context_match,
            Field::Text => &rule.text_match,
        }
    }
}

/// Compiled-program size limit for every rule regex.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles one regex field of `rule` (`None` when absent), fragments
/// substituted; an error names the rule and the field.
pub(super) fn compile(
    rule: &str,
    field: &'static str,
    pattern: &Option<String>,
    patterns: &BTreeMap<String, String>,
) -> Result<Option<Regex>, ShellRuleError> {
    let Some(pattern) = pattern else {
        return Ok(None);
    };
    let pattern = expand(pattern, patterns, 0).map_err(|message| ShellRuleError::Regex {
        rule: rule.to_string(),
        field,
        message,
    })?;
    RegexBuilder::new(&pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(Some)
        .map_err(|e| ShellRuleError::Regex {
            rule: rule.to_string(),
            field,
            message: e.to_string(),
        })
}
