//! The config's say over a detector's shell rules
//! (`detectors.<name>.shell:`): move a class of rules (or one rule, by id)
//! to deny, ask or allow; let plain pushes to some branches through; say
//! what a production target looks like.
//!
//! The rules stay as the detector file wrote them; [`ShellSettings::apply`]
//! edits the loaded copy, so every agent's hook sees the user's policy.

use super::rules::{ShellRuleError, ShellRules};
use super::ShellAction;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Where a class of shell rules is moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassAction {
    /// Refuse, no judge.
    Deny,
    /// Let the judge (or the human) decide.
    Ask,
    /// Switch the rules off.
    Allow,
}

/// `detectors.<name>.shell:`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellSettings {
    /// A rule class (`push`, `services`...) or a rule id, and its new action.
    pub classes: BTreeMap<String, ClassAction>,
    /// Branch globs (`feature/*`) a push that is not forced may go to
    /// without asking (the rules of class `push`).
    pub allow_push: Vec<String>,
    /// A regex that replaces the detector's `production` pattern: what in a
    /// command's arguments names a production target.
    pub production: Option<String>,
}

/// The rule class `allow_push` applies to.
const PUSH_CLASS: &str = "push";
/// The pattern `production` replaces.
const PRODUCTION: &str = "production";

impl ShellSettings {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == ShellSettings::default()
    }

    /// Applies the settings to `rules`. A class or id that no rule has, or a
    /// production regex that does not compile, is an error naming it.
    pub fn apply(&self, rules: &mut ShellRules) -> Result<(), ShellRuleError> {
        if self.is_empty() {
            return Ok(());
        }
        for (key, action) in &self.classes {
            let named = |class: &Option<String>, id: &str| {
                class.as_deref() == Some(key.as_str()) || id == key
            };
            if !rules.rules.iter().any(|r| named(&r.class, &r.id)) {
                return Err(ShellRuleError::Invalid {
                    rule: key.clone(),
                    message: "config `shell.classes`: no shell rule has this class or id".into(),
                });
            }
            match action {
                ClassAction::Allow => rules.rules.retain(|r| !named(&r.class, &r.id)),
                ClassAction::Deny | ClassAction::Ask => {
                    let to = match action {
                        ClassAction::Deny => ShellAction::Deny,
                        _ => ShellAction::Ask,
                    };
                    for rule in rules.rules.iter_mut().filter(|r| named(&r.class, &r.id)) {
                        rule.action = to;
                    }
                }
            }
        }
        if !self.allow_push.is_empty() {
            for rule in rules
                .rules
                .iter_mut()
                .filter(|r| r.class.as_deref() == Some(PUSH_CLASS))
            {
                rule.unless_refs = self.allow_push.clone();
            }
        }
        if let Some(production) = &self.production {
            rules
                .patterns
                .insert(PRODUCTION.to_string(), production.clone());
        }
        for rule in &mut rules.rules {
            rule.recompile();
        }
        rules.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = r#"
patterns:
  production: 'prod'
rules:
  - {id: push, action: ask, class: push, command: [git], subcommand: [push], reason: r}
  - {id: restart, action: ask, class: services, command: [systemctl], reason: r}
  - {id: nuke, action: ask, command: [kubectl], context_match: '{{production}}', reason: r}
"#;

    fn rules() -> ShellRules {
        serde_saphyr::from_str(RULES).unwrap()
    }

    fn settings(yaml: &str) -> ShellSettings {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn classes_and_ids_move() {
        let mut r = rules();
        settings("classes: {services: allow, nuke: deny, push: deny}")
            .apply(&mut r)
            .unwrap();
        let ids: Vec<(&str, ShellAction)> =
            r.rules.iter().map(|r| (r.id.as_str(), r.action)).collect();
        assert_eq!(
            ids,
            vec![("push", ShellAction::Deny), ("nuke", ShellAction::Deny)]
        );
    }

    #[test]
    fn unknown_class_and_bad_regex_are_errors() {
        let err = settings("classes: {pusj: allow}")
            .apply(&mut rules())
            .unwrap_err();
        assert!(err.to_string().contains("pusj"), "{err}");
        let err = settings("production: '('").apply(&mut rules()).unwrap_err();
        assert!(err.to_string().contains("nuke"), "{err}");
    }

    /// A literal gate computed on the detector's own `production` (as
    /// build.rs writes it) would hide a match of the user's: replacing a
    /// fragment drops the gates of the regexes that name one.
    #[test]
    fn a_new_production_drops_the_gates_computed_on_the_old() {
        let mut r = rules();
        let gate = crate::pattern::Gate::of_pattern("prod").encode();
        r.rules[2]
            .literal_gates
            .insert("context_match".into(), gate);
        let nuke = |r: &ShellRules| {
            let ctx = crate::shell::ShellContext::default();
            crate::shell::matching_rule_ids("kubectl delete ns blue", r, &ctx)
        };
        assert!(nuke(&r).is_empty());
        settings("production: 'blue'").apply(&mut r).unwrap();
        assert!(r.rules[2].literal_gates.is_empty());
        assert_eq!(nuke(&r), vec!["nuke".to_string()]);
    }

    #[test]
    fn allow_push_reaches_the_push_rules() {
        let mut r = rules();
        settings("allow_push: ['feature/*']").apply(&mut r).unwrap();
        assert_eq!(r.rules[0].unless_refs, vec!["feature/*"]);
        assert!(r.rules[1].unless_refs.is_empty());
    }
}
