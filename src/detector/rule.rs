//! Decision rules: the boolean expression that turns a judge's fields into a
//! violation or an allow.
//!
//! A rule is data in the detector file, e.g.
//! `new_proposal && !verification_reported && !direction_query`.
//! A field reference is true only when the judge returned the boolean `true`;
//! a missing or null field is false, so `!field` counts a missing field toward
//! the violation (the design leans to "proposal detected" when an answer is
//! incomplete). `field ?? unary` is the field's value when it is a boolean,
//! else the right side: the form for a guard-computed field that is unknown
//! without the turn's actions (`verification_observed ?? verification_reported`
//! reads the prose when no run was seen). Grammar: `expr := and ('||' and)*`,
//! `and := unary ('&&' unary)*`, `unary := '!' unary | '(' expr ')' | IDENT
//! ('??' unary)?`.

use serde_json::{Map, Value};

/// A parsed decision rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// True when the named field is the boolean `true`.
    Field(String),
    /// The named field when it is a boolean, else the fallback rule.
    Fallback(String, Box<Rule>),
    /// Negation.
    Not(Box<Rule>),
    /// All must hold.
    And(Vec<Rule>),
    /// One must hold.
    Or(Vec<Rule>),
}

/// A rule that does not parse, with the byte offset of the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid decision rule at byte {offset}: {message}")]
pub struct RuleError {
    /// Byte offset in the rule text.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl Rule {
    /// Parses a rule expression.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let mut p = Parser { text, pos: 0 };
        let rule = p.or()?;
        p.skip_ws();
        if p.pos != text.len() {
            return Err(p.error("unexpected text after the expression"));
        }
        Ok(rule)
    }

    /// Evaluates the rule on a judge's answer.
    pub fn eval(&self, fields: &Map<String, Value>) -> bool {
        match self {
            Rule::Field(name) => fields.get(name) == Some(&Value::Bool(true)),
            Rule::Fallback(name, other) => match fields.get(name) {
                Some(Value::Bool(b)) => *b,
                _ => other.eval(fields),
            },
            Rule::Not(inner) => !inner.eval(fields),
            Rule::And(all) => all.iter().all(|r| r.eval(fields)),
            Rule::Or(any) => any.iter().any(|r| r.eval(fields)),
        }
    }

    /// The field names the rule refers to, in order of first use.
    pub fn fields(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Rule::Field(n) => {
                if !out.contains(&n.as_str()) {
                    out.push(n);
                }
            }
            Rule::Fallback(n, r) => {
                if !out.contains(&n.as_str()) {
                    out.push(n);
                }
                r.collect(out);
            }
            Rule::Not(r) => r.collect(out),
            Rule::And(v) | Rule::Or(v) => v.iter().for_each(|r| r.collect(out)),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> RuleError {
        RuleError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Rule, RuleError> {
        let mut items = vec![self.and()?];
        while self.eat("||") {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Rule::Or(items)
        })
    }

    fn and(&mut self) -> Result<Rule, RuleError> {
        let mut items = vec![self.unary()?];
        while self.eat("&&") {
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Rule::And(items)
        })
    }

    fn unary(&mut self) -> Result<Rule, RuleError> {
        if self.eat("!") {
            return Ok(Rule::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.or()?;
            if !self.eat(")") {
                return Err(self.error("expected ')'"));
            }
            return Ok(inner);
        }
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error("expected a field name, '!' or '('"));
        }
        self.pos += len;
        let name = rest[..len].to_string();
        if self.eat("??") {
            return Ok(Rule::Fallback(name, Box::new(self.unary()?)));
        }
        Ok(Rule::Field(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eval(rule: &str, v: Value) -> bool {
        Rule::parse(rule).unwrap().eval(v.as_object().unwrap())
    }

    const COMMIT: &str =
        "new_proposal && !verification_reported && !direction_query && !future_step_description";

    #[test]
    fn commit_rule_on_complete_answers() {
        let base = json!({"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false});
        assert!(eval(COMMIT, base.clone()));
        for allow_field in [
            "verification_reported",
            "direction_query",
            "future_step_description",
        ] {
            let mut v = base.clone();
            v[allow_field] = json!(true);
            assert!(!eval(COMMIT, v), "{allow_field}=true must allow");
        }
        let mut v = base;
        v["new_proposal"] = json!(false);
        assert!(!eval(COMMIT, v));
    }

    #[test]
    fn missing_or_null_fields_count_toward_violation() {
        assert!(eval(COMMIT, json!({"new_proposal": true})));
        assert!(eval(
            COMMIT,
            json!({"new_proposal": true, "verification_reported": null})
        ));
        assert!(!eval(
            COMMIT,
            json!({"new_proposal": null, "verification_reported": false})
        ));
        assert!(!eval(COMMIT, json!({})));
    }

    #[test]
    fn sibling_rule() {
        let r = "new_proposal && !retraction_or_quote";
        assert!(eval(
            r,
            json!({"new_proposal": true, "retraction_or_quote": false})
        ));
        assert!(eval(r, json!({"new_proposal": true})));
        assert!(!eval(
            r,
            json!({"new_proposal": true, "retraction_or_quote": true})
        ));
        assert!(!eval(r, json!({"new_proposal": false})));
    }

    #[test]
    fn grammar() {
        assert!(eval("a || (b && !c)", json!({"b": true})));
        assert!(!eval("a || (b && !c)", json!({"b": true, "c": true})));
        assert_eq!(
            Rule::parse("a && b || c").unwrap().fields(),
            vec!["a", "b", "c"]
        );
        assert!(Rule::parse("a &&").is_err());
        assert!(Rule::parse("(a").is_err());
        assert!(Rule::parse("a b").is_err());
        assert!(Rule::parse("").is_err());
    }

    #[test]
    fn fallback_reads_the_field_when_known() {
        let r = "p && !(observed ?? reported)";
        assert!(eval(
            r,
            json!({"p": true, "reported": true, "observed": false})
        ));
        assert!(!eval(
            r,
            json!({"p": true, "reported": false, "observed": true})
        ));
        assert!(!eval(r, json!({"p": true, "reported": true})));
        assert!(eval(r, json!({"p": true, "reported": false})));
        assert!(eval(r, json!({"p": true, "observed": null})));
        assert_eq!(
            Rule::parse(r).unwrap().fields(),
            vec!["p", "observed", "reported"]
        );
        assert!(Rule::parse("a ??").is_err());
    }

    #[test]
    fn strings_are_not_true() {
        assert!(!eval("a", json!({"a": "true"})));
        assert!(!eval("a", json!({"a": 1})));
    }
}
