//! Patterns two built-in detectors share, written once: in a detector file a
//! signal or bypass may be `{id, same_as: <file stem>}`, the pattern of the
//! same id in that other file (the bug-fix detectors' fix claims). build.rs
//! resolves them before embedding (it includes this file), so the hook
//! reads whole patterns and pays nothing for the sharing. A user's detector
//! file takes whole patterns only.

use serde_json::Value;

/// The pattern lists a reference may stand in.
const LISTS: [&str; 3] = ["signals", "bypasses", "request_bypasses"];

/// The files (`(stem, content)`) with every `same_as` replaced by the
/// pattern it names; an error names a reference to no such pattern (a
/// reference to a reference is one).
pub fn resolve(files: &[(String, Value)]) -> Result<Vec<(String, Value)>, String> {
    let find = |stem: &str, id: &str| -> Option<Value> {
        let (_, value) = files.iter().find(|(s, _)| s == stem)?;
        LISTS
            .iter()
            .filter_map(|list| value.get(*list)?.as_array())
            .flatten()
            .find(|p| p["id"] == id && p.get("pattern").is_some())
            .map(|p| p["pattern"].clone())
    };
    let mut out = files.to_vec();
    for (stem, value) in &mut out {
        for list in LISTS {
            let Some(Value::Array(patterns)) = value.get_mut(list) else {
                continue;
            };
            for p in patterns.iter_mut().filter_map(Value::as_object_mut) {
                let Some(Value::String(other)) = p.remove("same_as") else {
                    continue;
                };
                let id = p
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let pattern = find(&other, &id).ok_or_else(|| {
                    format!("{stem}: `{id}` is `same_as: {other}`, which has no pattern `{id}`")
                })?;
                p.insert("pattern".into(), pattern);
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
}
