//! Merging config values: each layer over the ones below it, then an
//! agent's `agents.<name>` section over the result.

use serde_json::Value;

/// Merges `over` into `base`: maps recursively, anything else replaced.
pub fn deep_merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        deep_merge(existing, v)
                    }
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// Merges the `agents.<agent>` section of `merged`, if any, over it.
pub fn apply_agent(merged: &mut Value, agent: &str) {
    if let Some(over) = merged.get("agents").and_then(|a| a.get(agent)).cloned() {
        deep_merge(merged, &over);
    }
}
