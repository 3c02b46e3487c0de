//! Detectors as data: the spec read from `detectors/*.yaml` (built in) or from
//! a user's file.
//!
//! A detector names the event kinds it applies to, its Layer-1 keywords,
//! signal and bypass patterns (or shell rules for command detectors), and its
//! judge prompt with the fields the judge must return and the decision rule
//! that turns them into a violation. Adding a detector is adding a file.

mod asks;
mod error;
pub mod evidence;
pub mod load;
pub mod rule;
#[cfg(test)]
mod same_as;

use crate::event::{Event, EventKind};
use crate::verdict::Decision;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;

pub use crate::pattern::PatternSpec;
pub use evidence::{ActionRule, ComputedField, Condition, TurnEvidence, VerificationSource};
pub use rule::{Rule, RuleError};

/// What Layer 1's keyword pass reads of a detector: the events it applies
/// to and its keywords. `guard hook` reads only this much of a built-in
/// detector until one of its keywords hits (see [`load`]), from the binary
/// (hence `'static`: its keywords are borrowed from there, not copied).
#[derive(Debug, Clone, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Head {
    /// See [`DetectorSpec::name`].
    pub name: String,
    /// See [`DetectorSpec::events`].
    pub events: Vec<EventKind>,
    /// See [`DetectorSpec::tools`].
    #[serde(default)]
    pub tools: Vec<String>,
    /// See [`DetectorSpec::keywords`]; the config's extra keywords are added
    /// by [`load`]. Case-folded, always ([`crate::pattern::fold_text`]: build.rs
    /// folds the built-in ones, [`DetectorSpec::head`] and [`load`] the
    /// others), as the text is before the keyword pass.
    #[serde(deserialize_with = "keyword_lines")]
    pub keywords: Keywords,
    /// See [`DetectorSpec::actions`]: a detector is read in full for an
    /// event whose actions meet the conditions of one of its rules, keyword
    /// hit or not. Only the conditions are read here: the rules' keyword
    /// lists are left out (build.rs leaves them out of the built-in heads).
    #[serde(default)]
    pub actions: Vec<ActionRule>,
}

pub use crate::builtin::KEYWORD_SEPARATOR;

/// A head's keywords, case-folded, in one string separated by
/// [`KEYWORD_SEPARATOR`]: a built-in head's are borrowed from the binary
/// and never copied, nor split but by the keyword pass that reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keywords(Cow<'static, str>);

impl Keywords {
    /// The keywords, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + Clone {
        // The separator is ASCII: every cut is at a character boundary.
        let s: &str = &self.0;
        let ends = memchr::memchr_iter(KEYWORD_SEPARATOR as u8, s.as_bytes()).chain([s.len()]);
        let mut start = 0;
        let keywords = ends.map(move |end| {
            let keyword = &s[start..end];
            start = end + 1;
            keyword
        });
        keywords.filter(|k| !k.is_empty())
    }

    /// Adds a keyword, case-folded (its separator characters dropped).
    pub fn push(&mut self, keyword: &str) {
        let all = self.0.to_mut();
        if !all.is_empty() {
            all.push(KEYWORD_SEPARATOR);
        }
        all.extend(
            crate::pattern::fold_text(keyword)
                .chars()
                .filter(|&c| c != KEYWORD_SEPARATOR),
        );
    }
}

impl<'a> FromIterator<&'a str> for Keywords {
    fn from_iter<I: IntoIterator<Item = &'a str>>(keywords: I) -> Keywords {
        let mut out = Keywords::default();
        keywords.into_iter().for_each(|k| out.push(k));
        out
    }
}

/// An action rule's keyword lists (`keywords`, `request_keywords`,
/// `request_ignores`), each case-folded in one string as a head's
/// [`Keywords`] are: a head's rules are read without them, and
/// [`load::LoadedHead::action_keywords`] reads only these of a built-in
/// detector (borrowed from the binary) to learn whether a rule hits.
/// (Embedded as `[keywords, request_keywords, request_ignores]`.)
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct RuleKeywords {
    /// See [`ActionRule::keywords`].
    #[serde(deserialize_with = "keyword_lines")]
    pub keywords: Keywords,
    /// See [`ActionRule::request_keywords`].
    #[serde(deserialize_with = "keyword_lines")]
    pub request_keywords: Keywords,
    /// See [`ActionRule::request_ignores`].
    #[serde(deserialize_with = "keyword_lines")]
    pub request_ignores: Keywords,
}

impl RuleKeywords {
    /// The lists of a rule read in full.
    pub fn of(rule: &ActionRule) -> RuleKeywords {
        let list = |l: &[String]| l.iter().map(String::as_str).collect();
        RuleKeywords {
            keywords: list(&rule.keywords),
            request_keywords: list(&rule.request_keywords),
            request_ignores: list(&rule.request_ignores),
        }
    }
}

/// The keywords of an embedded head (see [`Keywords`]), borrowed from the
/// binary unless the string holds a JSON escape (`"` or `\` in a shell
/// keyword).
fn keyword_lines<'de: 'static, D: serde::Deserializer<'de>>(d: D) -> Result<Keywords, D::Error> {
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Ok(Keywords(Borrowed::<'de>::deserialize(d)?.0))
}

impl Head {
    /// Whether the detector applies to an event (its kind, and its tools).
    pub fn applies(&self, event: &Event) -> bool {
        applies_to(&self.events, &self.tools, event)
    }
}

/// Whether a detector of these event kinds and tools applies to an event.
pub fn applies_to(events: &[EventKind], tools: &[String], event: &Event) -> bool {
    if !events.contains(&event.kind) {
        return false;
    }
    if tools.is_empty() {
        return true;
    }
    event
        .tool
        .as_ref()
        .is_some_and(|t| tools.contains(&t.canonical))
}

/// What a keyword hit needs before Layer 1 sends a detector to the judge.
///
/// The two are the ends of a measured trade-off (docs/eval.md): signals keep
/// most ordinary turns away from the judge and miss the violations no
/// signal reads; keywords miss almost none and send most turns to the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A signal (or an action rule) must match too.
    #[default]
    Signals,
    /// A keyword hit is enough; bypasses still clear it.
    Keywords,
}

/// One detector, as written in its YAML file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorSpec {
    /// Unique name, e.g. `commit-before-verification`.
    pub name: String,
    /// One line for humans.
    #[serde(default)]
    pub description: String,
    /// The event kinds it applies to.
    pub events: Vec<EventKind>,
    /// For tool events: the canonical tool names it applies to (empty = all).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Layer-1 keywords (case-insensitive substrings). Only a detector with a
    /// keyword hit runs its patterns.
    pub keywords: Vec<String>,
    /// Signal patterns: a match makes Layer 1 a hit.
    #[serde(default)]
    pub signals: Vec<PatternSpec>,
    /// What a keyword hit needs before the judge is asked (the config's
    /// `detectors.<name>.gate` overrides it).
    #[serde(default)]
    pub gate: Gate,
    /// Bypass patterns: a match makes a hit a clear allow, with no judge.
    #[serde(default)]
    pub bypasses: Vec<PatternSpec>,
    /// Bypass patterns read on the user's request that started the turn
    /// (turn ends whose agent or transcript gives it): a match makes a hit a
    /// clear allow, as for a step the user asked for.
    #[serde(default)]
    pub request_bypasses: Vec<PatternSpec>,
    /// Action rules (see [`evidence`]): Layer-1 hits from the turn's
    /// actions, read only when the event carries them.
    #[serde(default)]
    pub actions: Vec<ActionRule>,
    /// Shell rules, for detectors of shell commands (used instead of signals).
    #[serde(default)]
    pub shell: Option<crate::shell::ShellRules>,
    /// The judge's part. Without it a hit is decided by the failure policy.
    #[serde(default)]
    pub judge: Option<JudgeSpec>,
    /// What a violation becomes: `block` (turn ends), `deny` or `ask` (gates).
    #[serde(default)]
    pub on_violation: Option<Decision>,
    /// The message sent to the agent on a violation. `{judge_reason}` is
    /// replaced by the judge's `reason` field when it gave one.
    pub reason: String,
}

impl DetectorSpec {
    /// Whether the detector applies to an event (its kind, and its tools).
    pub fn applies(&self, event: &Event) -> bool {
        applies_to(&self.events, &self.tools, event)
    }

    /// Its [`Head`].
    pub fn head(&self) -> Head {
        Head {
            name: self.name.clone(),
            events: self.events.clone(),
            tools: self.tools.clone(),
            keywords: self.keywords.iter().map(String::as_str).collect(),
            actions: (self.actions.iter())
                .map(|rule| ActionRule {
                    keywords: Vec::new(),
                    request_keywords: Vec::new(),
                    request_ignores: Vec::new(),
                    ..rule.clone()
                })
                .collect(),
        }
    }
}

/// What the judge is asked and how its answer is read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeSpec {
    /// The prompt's version, for the people who edit it (the verdict cache
    /// keys on the prompt's text itself, see `judge::cache::key`).
    #[serde(default = "one")]
    pub version: u32,
    /// The detector's prompt (the envelope adds the preamble and the text).
    pub prompt: String,
    /// The fields of the judge's JSON answer, in order.
    pub fields: Vec<FieldSpec>,
    /// The decision rule over the fields (see [`rule`]).
    pub violation: String,
    /// Fields guard computes from the turn's actions for the rule (see
    /// [`evidence`]); unknown ones are absent from the rule's fields.
    #[serde(default)]
    pub computed: Vec<ComputedField>,
    /// Whether `verification_observed` is computed (`observed`) or left
    /// unknown so the rule falls back to the judge's reading (`reported`);
    /// the config's `detectors.<name>.verification` overrides it.
    #[serde(default)]
    pub verification: VerificationSource,
}

fn one() -> u32 {
    1
}

/// The type of a judge field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// `true` or `false` (null counts as missing).
    Boolean,
    /// A string.
    String,
    /// A number.
    Number,
}

/// One field of the judge's answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// The JSON key.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// A required field that is missing or null makes the judgment fail.
    /// An optional one that is missing is left to the decision rule.
    #[serde(default)]
    pub required: bool,
    /// What it means, with examples: the judge reads it.
    #[serde(default)]
    pub description: String,
}

impl JudgeSpec {
    /// Checks a judge's answer against the fields: required ones present and
    /// non-null, every present one of the declared type. Unknown keys are kept.
    pub fn check_answer(&self, answer: &Map<String, Value>) -> Result<(), String> {
        for field in &self.fields {
            match answer.get(&field.name) {
                None | Some(Value::Null) if field.required => {
                    return Err(format!("required field `{}` is missing", field.name));
                }
                None | Some(Value::Null) => {}
                Some(v) => {
                    let ok = match field.kind {
                        FieldType::Boolean => v.is_boolean(),
                        FieldType::String => v.is_string(),
                        FieldType::Number => v.is_number(),
                    };
                    if !ok {
                        return Err(format!(
                            "field `{}` should be a {:?}, got {v}",
                            field.name, field.kind
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The JSON schema of the answer (for backends that take one), including
    /// the `nonce` and `reason` fields every judgment returns.
    pub fn answer_schema(&self) -> Value {
        let mut props = Map::new();
        let mut required = Vec::new();
        for f in &self.fields {
            let ty = match f.kind {
                FieldType::Boolean => "boolean",
                FieldType::String => "string",
                FieldType::Number => "number",
            };
            props.insert(
                f.name.clone(),
                serde_json::json!({"type": ty, "description": f.description}),
            );
            required.push(Value::String(f.name.clone()));
        }
        for extra in ["nonce", "reason"] {
            if !props.contains_key(extra) {
                props.insert(extra.to_string(), serde_json::json!({"type": "string"}));
                required.push(Value::String(extra.to_string()));
            }
        }
        serde_json::json!({
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": false
        })
    }
}
