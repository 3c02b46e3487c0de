//! The command-kind table's file form (`command_kinds.yaml`: per kind, a
//! list of conditions) turned into shell rules (`ShellRules`' form: one rule
//! per condition, whose id names its kind, `test#3`). build.rs includes this
//! file and embeds the rules, so that a hook reads them with one typed parse;
//! the tests turn their own tables with it.

use serde_json::{json, Map, Value};

/// The shell rules of a table in its file form.
pub fn rules_of(file: &Value) -> Result<Value, String> {
    let file = file.as_object().ok_or("the table is not a mapping")?;
    if let Some(key) =
        (file.keys()).find(|k| !["programs", "patterns", "kinds"].contains(&k.as_str()))
    {
        return Err(format!(
            "unknown field `{key}`, expected programs, patterns or kinds"
        ));
    }
    let kinds = file
        .get("kinds")
        .and_then(Value::as_object)
        .ok_or("missing field `kinds`")?;
    let mut rules = Vec::new();
    for (name, conditions) in kinds {
        let conditions = conditions
            .as_array()
            .ok_or_else(|| format!("kind `{name}`: expected a list of conditions"))?;
        for (index, condition) in conditions.iter().enumerate() {
            let mut rule: Map<String, Value> = condition
                .as_object()
                .cloned()
                .ok_or_else(|| format!("kind `{name}` #{}: expected a mapping", index + 1))?;
            rule.insert("id".into(), json!(format!("{name}#{}", index + 1)));
            rule.insert("action".into(), json!("ask"));
            rule.insert("reason".into(), json!(format!("a {name} command")));
            rules.push(Value::Object(rule));
        }
    }
    let or_empty = |key: &str| {
        file.get(key)
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or(json!({}))
    };
    Ok(json!({"programs": or_empty("programs"), "patterns": or_empty("patterns"), "rules": rules}))
}
