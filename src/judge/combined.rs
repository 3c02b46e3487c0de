//! One judgment per turn: several detectors that hit on the same text are
//! judged in one call.
//!
//! The combined envelope holds the fixed preamble, then one section per
//! detector (its name as heading, its prompt, its fields), then the answer
//! instructions, then the fenced text once. The answer is one JSON object:
//! `nonce` at the top level and, under each detector's name, an object with
//! that detector's fields plus `reason`. Each section is checked against its
//! own detector's fields and decided by its own rule; a missing or malformed
//! section fails that detector alone, while a bad nonce, an unreadable answer
//! or a failed call fails them all.

use super::answer::{self, AnswerError, Judgment};
use super::backends::RawAnswer;
use super::envelope::{self, PREAMBLE, REASON_LINE};
use super::{JudgeConfig, JudgeRequest};
use crate::redact::{redact, Redacted};
use crate::verdict::JudgeReport;
use serde_json::{Map, Value};
use std::time::Instant;

/// Judges `requests` (two or more, on the same redacted text `red`) in one
/// call; returns one report per request, in order, each naming the others
/// in `shared_with`.
pub(super) fn judge_group(
    cfg: &JudgeConfig,
    backend: &str,
    requests: &[&JudgeRequest],
    red: &Redacted,
    hook_deadline: Instant,
) -> Vec<JudgeReport> {
    let started = Instant::now();
    let nonce = envelope::fresh_nonce();
    // The requests of a group share one event, so one facts block.
    let facts = requests.first().and_then(|r| r.facts);
    let prompt = build(requests, &nonce, &red.text, facts);
    let schema = answer_schema(requests);
    let deadline = super::call_deadline(cfg, hook_deadline, started);
    let detectors = detector_list(requests);
    let (raw, model) = super::ask(cfg, backend, &detectors, &prompt, &schema, &nonce, deadline);
    let reports: Vec<JudgeReport> = match raw {
        Err(error) => vec![JudgeReport::failed(redact(&error).text); requests.len()],
        Ok(answer) => {
            let kept = super::kept_answer(&answer);
            read_answer(requests, &nonce, &answer)
                .into_iter()
                .map(|checked| super::checked_report(checked, Some(kept.clone())))
                .collect()
        }
    };
    reports
        .into_iter()
        .zip(requests)
        .map(|(report, request)| {
            let mut report = super::finish(report, backend, model.clone(), started);
            report.shared_with = requests
                .iter()
                .map(|r| r.detector)
                .filter(|d| *d != request.detector)
                .map(str::to_string)
                .collect();
            report
        })
        .collect()
}

/// Whether a detector may share a call: its name must be usable as a
/// top-level key of the answer (not `nonce`) and as an item of the
/// comma-separated `GUARD_DETECTOR` list.
pub fn can_combine(detector: &str) -> bool {
    !detector.is_empty() && detector != "nonce" && !detector.contains(',')
}

/// The detectors of a combined call, comma-separated (`GUARD_DETECTOR`).
pub fn detector_list(requests: &[&JudgeRequest]) -> String {
    requests
        .iter()
        .map(|r| r.detector)
        .collect::<Vec<_>>()
        .join(",")
}

/// The heading line of a detector's section in the combined envelope.
pub fn section_heading(detector: &str) -> String {
    format!("## Detector \"{detector}\"")
}

/// Builds the combined prompt: preamble, one section per detector, the
/// answer instructions, then guard's facts block (`facts`, redacted) and the
/// fenced, already redacted text, once.
pub fn build(
    requests: &[&JudgeRequest],
    nonce: &str,
    redacted_text: &str,
    facts: Option<&str>,
) -> String {
    let prompts: usize = requests.iter().map(|r| r.spec.prompt.len() + 512).sum();
    let mut out = String::with_capacity(redacted_text.len() + prompts + 1024);
    out.push_str(PREAMBLE);
    out.push_str(&format!(
        "\n\nThe text is judged for {} detectors at once. Each has its own question and \
         fields below; answer each one on its own, as if it were the only question.\n",
        requests.len()
    ));
    for r in requests {
        out.push('\n');
        out.push_str(&section_heading(r.detector));
        out.push('\n');
        out.push_str(r.spec.prompt.trim());
        out.push_str(&format!("\nFields of \"{}\":\n", r.detector));
        envelope::push_field_lines(&mut out, r.spec);
        out.push_str(REASON_LINE);
    }
    out.push_str(
        "\nAnswer with exactly one JSON object and nothing else. Its top-level keys are:\n",
    );
    out.push_str(&format!(
        "- \"nonce\" (string, required): exactly \"{nonce}\"\n"
    ));
    for r in requests {
        out.push_str(&format!(
            "- \"{0}\" (object, required): the fields of \"{0}\" above, with its \"reason\"\n",
            r.detector
        ));
    }
    out.push_str(&format!("For example: {}\n", example(requests, nonce)));
    out.push_str(&format!(
        "The object must contain \"nonce\": \"{nonce}\".\n\n"
    ));
    envelope::push_text_section(&mut out, nonce, redacted_text, facts);
    out
}

/// The answer's shape with type names for values (an illustration, not JSON).
fn example(requests: &[&JudgeRequest], nonce: &str) -> String {
    let sections: Vec<String> = requests
        .iter()
        .map(|r| {
            let mut fields: Vec<String> = r
                .spec
                .fields
                .iter()
                .map(|f| {
                    let kind = format!("{:?}", f.kind).to_lowercase();
                    format!("\"{}\": <{kind}>", f.name)
                })
                .collect();
            fields.push("\"reason\": \"...\"".into());
            format!("\"{}\": {{{}}}", r.detector, fields.join(", "))
        })
        .collect();
    format!("{{\"nonce\": \"{nonce}\", {}}}", sections.join(", "))
}

/// The JSON schema of a combined answer: `nonce`, and under each detector's
/// name its own answer schema without `nonce`.
pub fn answer_schema(requests: &[&JudgeRequest]) -> Value {
    let mut props = Map::new();
    let mut required = vec![Value::String("nonce".into())];
    props.insert("nonce".into(), serde_json::json!({"type": "string"}));
    for r in requests {
        let mut section = r.spec.answer_schema();
        if let Some(p) = section.get_mut("properties").and_then(Value::as_object_mut) {
            p.remove("nonce");
        }
        if let Some(req) = section.get_mut("required").and_then(Value::as_array_mut) {
            req.retain(|v| v != "nonce");
        }
        props.insert(r.detector.to_string(), section);
        required.push(Value::String(r.detector.to_string()));
    }
    serde_json::json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false
    })
}

/// Reads a combined answer into one result per request, in order. No JSON
/// object, or a missing or wrong nonce, fails every section; a missing or
/// malformed section fails its detector alone.
pub fn read_answer(
    requests: &[&JudgeRequest],
    nonce: &str,
    raw: &RawAnswer,
) -> Vec<Result<Judgment, AnswerError>> {
    let object = match raw {
        RawAnswer::Text(text) => answer::last_json_object(text),
        RawAnswer::Object(object) => Some(object.clone()),
    };
    let whole = object
        .ok_or(AnswerError::NoJson)
        .and_then(|o| answer::check_nonce(&o, nonce).map(|()| o));
    requests
        .iter()
        .map(|r| {
            let object = whole.as_ref().map_err(Clone::clone)?;
            match object.get(r.detector) {
                Some(Value::Object(section)) => answer::judge_section(r.spec, section),
                Some(other) => Err(AnswerError::Fields(format!(
                    "the section for `{}` is not an object: {other}",
                    r.detector
                ))),
                None => Err(AnswerError::MissingSection(r.detector.to_string())),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::JudgeSpec;
    use crate::verdict::JudgeOutcome;
    use serde_json::json;

    fn spec(field: &str) -> JudgeSpec {
        serde_json::from_value(json!({
            "prompt": format!("Question about {field}?"),
            "fields": [{"name": field, "type": "boolean", "required": true, "description": "d"}],
            "violation": field
        }))
        .unwrap()
    }

    const N: &str = "Nonce12345abcdef";

    fn with<T>(f: impl FnOnce(&[&JudgeRequest]) -> T) -> T {
        let (a, b) = (spec("pushed"), spec("unverified"));
        let ra = JudgeRequest {
            detector: "a",
            spec: &a,
            text: "t",
            facts: None,
        };
        let rb = JudgeRequest {
            detector: "b",
            spec: &b,
            text: "t",
            facts: None,
        };
        f(&[&ra, &rb])
    }

    #[test]
    fn the_envelope_has_a_section_per_detector_and_the_text_once() {
        let prompt = with(|r| build(r, N, "I will push now.", None));
        assert_eq!(prompt.matches("I will push now.").count(), 1);
        let a = prompt.find("## Detector \"a\"").unwrap();
        let b = prompt.find("## Detector \"b\"").unwrap();
        let fa = prompt.find("\"pushed\" (boolean, required)").unwrap();
        let fb = prompt.find("\"unverified\" (boolean, required)").unwrap();
        let answer = prompt.find("Its top-level keys are").unwrap();
        let start = prompt.find(&envelope::start_marker(N)).unwrap();
        assert!(a < fa && fa < b && b < fb && fb < answer && answer < start);
        assert!(prompt.ends_with(&format!("{}\n", envelope::end_marker(N))));
        assert!(prompt.starts_with(PREAMBLE));
        assert!(prompt.contains("\"a\": {\"pushed\": <boolean>, \"reason\": \"...\"}"));
    }

    #[test]
    fn the_facts_block_comes_once_before_the_marked_text() {
        let facts = "What guard saw this turn:\n1. ran `cargo test` (exit 0)";
        let prompt = with(|r| build(r, N, "I will push now.", Some(facts)));
        assert_eq!(prompt.matches(facts).count(), 1);
        let at = prompt.find(facts).unwrap();
        assert!(at > prompt.find("Its top-level keys are").unwrap());
        assert!(at < prompt.find(&envelope::start_marker(N)).unwrap());
    }

    #[test]
    fn the_schema_nests_each_detector() {
        let schema = with(answer_schema);
        assert_eq!(schema["required"], json!(["nonce", "a", "b"]));
        assert_eq!(
            schema["properties"]["a"]["required"],
            json!(["pushed", "reason"])
        );
        assert!(schema["properties"]["b"]["properties"]
            .get("nonce")
            .is_none());
    }

    #[test]
    fn each_section_gets_its_own_rule() {
        let out = format!(
            "ok {{\"nonce\": \"{N}\", \"a\": {{\"pushed\": true, \"reason\": \"r\"}}, \"b\": {{\"unverified\": false}}}}"
        );
        let results = with(|r| read_answer(r, N, &RawAnswer::Text(out)));
        assert_eq!(
            results[0].as_ref().unwrap().outcome,
            JudgeOutcome::Violation
        );
        assert_eq!(results[1].as_ref().unwrap().outcome, JudgeOutcome::Allow);
    }

    #[test]
    fn a_missing_or_malformed_section_fails_that_detector_only() {
        let missing = json!({"nonce": N, "a": {"pushed": false}});
        let results = with(|r| {
            read_answer(
                r,
                N,
                &RawAnswer::Object(missing.as_object().unwrap().clone()),
            )
        });
        assert_eq!(results[0].as_ref().unwrap().outcome, JudgeOutcome::Allow);
        assert_eq!(results[1], Err(AnswerError::MissingSection("b".into())));
        let bad = json!({"nonce": N, "a": "yes", "b": {"unverified": "no"}}).to_string();
        let results = with(|r| read_answer(r, N, &RawAnswer::Text(bad)));
        assert!(results
            .iter()
            .all(|r| matches!(r, Err(AnswerError::Fields(_)))));
    }

    #[test]
    fn a_bad_nonce_or_no_json_fails_every_section() {
        let wrong = json!({"nonce": "guess", "a": {"pushed": false}, "b": {"unverified": false}});
        let results = with(|r| read_answer(r, N, &RawAnswer::Text(wrong.to_string())));
        assert!(results.iter().all(|r| *r == Err(AnswerError::WrongNonce)));
        let results = with(|r| read_answer(r, N, &RawAnswer::Text("nothing".into())));
        assert!(results.iter().all(|r| *r == Err(AnswerError::NoJson)));
    }

    #[test]
    fn names_that_cannot_be_keys_are_not_combined() {
        assert!(can_combine("ship-now"));
        assert!(!can_combine("nonce"));
        assert!(!can_combine("a,b"));
    }
}
