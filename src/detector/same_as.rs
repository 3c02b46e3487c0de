//! Patterns and action rules two built-in detectors share, written once. In
//! a detector file a signal, bypass or action rule may be
//! `{id, same_as: <file stem>}`: the entry of the same id in that other
//! file, its fields copied where the reference sets none (the bug-fix
//! detectors' fix claims and edit rules). An action rule may instead take
//! some fields of another rule: `same_as: {detector, rule, fields: [...]}`
//! (a request list shared by rules of different conditions). build.rs
//! resolves them before embedding (it includes this file), so the hook
//! reads whole entries and pays nothing for the sharing. A user's detector
//! file writes each entry whole.

use serde_json::{Map, Value};

/// The lists a reference may stand in, each with the lists it is looked up
/// in: a pattern in any pattern list, an action rule among the actions.
const LISTS: [(&str, &[&str]); 4] = [
    ("signals", &PATTERNS),
    ("bypasses", &PATTERNS),
    ("request_bypasses", &PATTERNS),
    ("actions", &["actions"]),
];
const PATTERNS: [&str; 3] = ["signals", "bypasses", "request_bypasses"];

/// The files (`(stem, content)`) with every `same_as` replaced by the
/// fields it names; an error names a reference to no such entry or field
/// (a reference to a reference is one).
pub fn resolve(files: &[(String, Value)]) -> Result<Vec<(String, Value)>, String> {
    let find = |stem: &str, lists: &[&str], id: &str| -> Option<Map<String, Value>> {
        let (_, value) = files.iter().find(|(s, _)| s == stem)?;
        (lists.iter())
            .filter_map(|list| value.get(*list)?.as_array())
            .flatten()
            .filter_map(Value::as_object)
            .find(|e| e["id"] == id && !e.contains_key("same_as"))
            .cloned()
    };
    let mut out = files.to_vec();
    for (stem, value) in &mut out {
        for (list, lookup) in LISTS {
            let Some(Value::Array(entries)) = value.get_mut(list) else {
                continue;
            };
            for e in entries.iter_mut().filter_map(Value::as_object_mut) {
                let Some(reference) = e.remove("same_as") else {
                    continue;
                };
                let id = e
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let (other, rule, fields) = match &reference {
                    Value::String(other) => (other.as_str(), id.as_str(), None),
                    Value::Object(r) if list == "actions" => (
                        r.get("detector").and_then(Value::as_str).unwrap_or(""),
                        r.get("rule").and_then(Value::as_str).unwrap_or(""),
                        r.get("fields").and_then(Value::as_array),
                    ),
                    _ => return Err(format!("{stem}: `{id}` has a `same_as` of the wrong shape")),
                };
                let kind = if list == "actions" { "rule" } else { "pattern" };
                let source = find(other, lookup, rule).ok_or_else(|| {
                    format!("{stem}: `{id}` is `same_as: {other}`, which has no {kind} `{rule}`")
                })?;
                let wanted = |k: &String| fields.is_none_or(|f| f.iter().any(|f| f == k));
                for (k, v) in source.into_iter().filter(|(k, _)| wanted(k)) {
                    e.entry(k).or_insert(v);
                }
                for f in fields.into_iter().flatten() {
                    if !e.contains_key(f.as_str().unwrap_or("")) {
                        return Err(format!(
                            "{stem}: `{id}` takes {f} from {other}'s `{rule}`, which has none"
                        ));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use serde_json::json;

    #[test]
    fn a_reference_takes_the_pattern_of_the_same_id_and_a_dangling_one_is_an_error() {
        let files = vec![
            (
                "a".to_string(),
                json!({"signals": [{"id": "x", "same_as": "b"}]}),
            ),
            (
                "b".to_string(),
                json!({"bypasses": [{"id": "x", "pattern": "p"}]}),
            ),
        ];
        let out = resolve(&files).unwrap();
        assert_eq!(out[0].1, json!({"signals": [{"id": "x", "pattern": "p"}]}));
        let dangling = vec![(
            "a".to_string(),
            json!({"signals": [{"id": "y", "same_as": "a"}]}),
        )];
        assert!(resolve(&dangling).unwrap_err().contains("no pattern `y`"));
    }

    #[test]
    fn an_action_rule_takes_the_rule_of_the_same_id_or_the_fields_it_names() {
        let files = vec![
            (
                "a".to_string(),
                json!({"actions": [
                    {"id": "r", "same_as": "b"},
                    {"id": "s", "when": ["w"], "same_as": {"detector": "b", "rule": "r", "fields": ["request_keywords"]}},
                ]}),
            ),
            (
                "b".to_string(),
                json!({"actions": [{"id": "r", "when": ["v"], "keywords": ["k"], "request_keywords": ["q"]}]}),
            ),
        ];
        let out = resolve(&files).unwrap();
        assert_eq!(
            out[0].1["actions"],
            json!([
                {"id": "r", "when": ["v"], "keywords": ["k"], "request_keywords": ["q"]},
                {"id": "s", "when": ["w"], "request_keywords": ["q"]},
            ])
        );
        let missing = vec![
            (
                "a".to_string(),
                json!({"actions": [{"id": "s", "same_as": {"detector": "b", "rule": "r", "fields": ["overrides"]}}]}),
            ),
            ("b".to_string(), json!({"actions": [{"id": "r"}]})),
        ];
        assert!(resolve(&missing).unwrap_err().contains("overrides"));
    }
}
