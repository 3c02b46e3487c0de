//! Merging config values: each layer over the ones below it, then an
//! agent's `agents.<name>` section over the result.

use super::Layer;
use serde_json::{Map, Value};

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

/// The layers merged in order, each over the ones below it.
pub(super) fn merge_all(layers: &[Layer]) -> Value {
    let mut merged = Value::Object(Map::new());
    for layer in layers {
        deep_merge(&mut merged, &layer.value);
    }
    merged
}

/// Records, for each leaf of `value` (a layer from `source`), that its value
/// comes from `source`, replacing what an earlier layer recorded there.
pub(super) fn record_sources(
    prefix: &str,
    value: &Value,
    source: &str,
    out: &mut Vec<(String, String)>,
) {
    match value {
        Value::Object(map) if map.is_empty() && !prefix.is_empty() => {}
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                record_sources(&key, v, source, out);
            }
        }
        _ => {
            out.retain(|(k, _)| k != prefix && !k.starts_with(&format!("{prefix}.")));
            out.push((prefix.to_string(), source.to_string()));
        }
    }
}
