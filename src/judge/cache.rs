//! The verdict cache: a judgment already made is not paid for twice.
//!
//! An agent often ends several turns with the same closing text, and a
//! retried hook sees the same text again. A verdict is keyed by everything
//! it depends on ([`key`]): the detector's judge section as written, the
//! judge that answered, and the redacted text; it is kept for a TTL, one small JSON file per key in the state directory (written to a
//! temporary file, then renamed, so readers never see half a file, and
//! lock-free). Writers and the sweep of expired entries hold the cache's
//! lock (`flock` on `.lock`, bounded wait: a writer that cannot get it in
//! time skips storing, the cache being an optimisation). Only violations
//! and allows are cached; a failed judgment is retried next time.

use crate::config::JudgeConfig;
use crate::detector::JudgeSpec;
use crate::state::Locked;
use crate::verdict::JudgeOutcome;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a writer waits for the cache's lock before it gives up storing.
const LOCK_WAIT: Duration = Duration::from_millis(50);

/// A cached verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Cached {
    /// Violation or Allow.
    pub outcome: JudgeOutcome,
    /// The fields, as in the report.
    pub fields: Map<String, Value>,
    /// The backend that judged.
    pub backend: Option<String>,
    /// The model that judged.
    pub model: Option<String>,
}

/// The cache key: hex SHA-256 over what a verdict depends on, so that a
/// change to any of it gets a fresh judgment:
/// - the detector and its judge section's text: prompt, fields (name, type,
///   whether required, description) and decision rule (an edited prompt is
///   judged afresh whether or not its `version` moved), and guard's own
///   version (which writes the envelope around them);
/// - the judge: `backend` (as resolved: `auto` is the CLI it found), its
///   command, URL and model;
/// - the redacted text.
pub fn key(
    detector: &str,
    spec: &JudgeSpec,
    judge: &JudgeConfig,
    backend: &str,
    redacted_text: &str,
) -> String {
    let mut h = Sha256::new();
    // Each part with its length first, each list with its count: no two
    // different inputs write the same bytes.
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(env!("CARGO_PKG_VERSION").as_bytes());
    part(detector.as_bytes());
    part(spec.prompt.as_bytes());
    part(&(spec.fields.len() as u64).to_le_bytes());
    for f in &spec.fields {
        part(f.name.as_bytes());
        part(format!("{:?}", f.kind).as_bytes());
        part(&[u8::from(f.required)]);
        part(f.description.as_bytes());
    }
    part(spec.violation.as_bytes());
    part(backend.as_bytes());
    part(&(judge.command.len() as u64).to_le_bytes());
    for arg in &judge.command {
        part(arg.as_bytes());
    }
    part(judge.url.as_deref().unwrap_or_default().as_bytes());
    part(judge.model.as_deref().unwrap_or_default().as_bytes());
    part(&Sha256::digest(redacted_text.as_bytes()));
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("verdict-{key}.json"))
}

/// The cache's lock, held by writers and the sweep; `None` when it could not
/// be had within [`LOCK_WAIT`] (a stuck holder) or the file cannot be opened.
fn lock(dir: &Path) -> Option<Locked> {
    Locked::open(&dir.join(".lock"), LOCK_WAIT)
        .ok()
        .filter(|l| l.locked)
}

fn now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The verdict stored under `key`, if younger than `ttl_s` seconds.
pub fn lookup(dir: &Path, key: &str, ttl_s: u64) -> Option<Cached> {
    if ttl_s == 0 {
        return None;
    }
    let text = std::fs::read_to_string(entry_path(dir, key)).ok()?;
    let entry: Map<String, Value> = serde_json::from_str(&text).ok()?;
    let created = entry.get("created")?.as_u64()?;
    if now_s().saturating_sub(created) >= ttl_s || created > now_s() + 60 {
        return None;
    }
    let outcome = match entry.get("outcome")?.as_str()? {
        "violation" => JudgeOutcome::Violation,
        "allow" => JudgeOutcome::Allow,
        _ => return None,
    };
    let fields = entry.get("fields")?.as_object()?.clone();
    let text_of = |k: &str| entry.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Cached {
        outcome,
        fields,
        backend: text_of("backend"),
        model: text_of("model"),
    })
}

/// Stores a verdict (only Violation and Allow; others are ignored). Errors are
/// ignored too: the cache is an optimisation.
pub fn store(dir: &Path, key: &str, ttl_s: u64, verdict: &Cached) {
    let outcome = match verdict.outcome {
        JudgeOutcome::Violation => "violation",
        JudgeOutcome::Allow => "allow",
        _ => return,
    };
    if ttl_s == 0 || std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let entry = json!({
        "created": now_s(),
        "outcome": outcome,
        "fields": verdict.fields,
        "backend": verdict.backend,
        "model": verdict.model,
    });
    let Some(_lock) = lock(dir) else {
        return;
    };
    let path = entry_path(dir, key);
    let tmp = dir.join(format!(".verdict-{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, entry.to_string()).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    // About one store in 256 (keys are uniform hashes) sweeps expired entries,
    // so the directory stays small without a separate cleaner.
    if key.starts_with("00") {
        sweep(dir, ttl_s);
    }
}

/// Removes the entries older than `ttl_s` (and unreadable ones), under the
/// cache's lock (skipped when it cannot be had).
pub fn prune(dir: &Path, ttl_s: u64) {
    if let Some(_lock) = lock(dir) {
        sweep(dir, ttl_s);
    }
}

/// [`prune`] with the lock already held.
fn sweep(dir: &Path, ttl_s: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = now_s();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("verdict-") && name.ends_with(".json")) {
            continue;
        }
        let created = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.get("created").and_then(Value::as_u64));
        if created.is_none_or(|c| now.saturating_sub(c) >= ttl_s) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("guard-cache-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn verdict(outcome: JudgeOutcome) -> Cached {
        let mut fields = Map::new();
        fields.insert("new_proposal".into(), Value::Bool(true));
        Cached {
            outcome,
            fields,
            backend: Some("command".into()),
            model: None,
        }
    }

    fn spec() -> JudgeSpec {
        serde_json::from_value(json!({
            "prompt": "Is it a violation?",
            "fields": [{"name": "found", "type": "boolean", "required": true}],
            "violation": "found"
        }))
        .unwrap()
    }

    /// The key of a verdict of detector `detector` on `text`, with the
    /// default judge config.
    fn key_of(detector: &str, text: &str) -> String {
        key(detector, &spec(), &JudgeConfig::default(), "command", text)
    }

    #[test]
    fn key_depends_on_every_part() {
        let cfg = JudgeConfig::default();
        let k = key_of("a", "text");
        assert_eq!(k.len(), 64);
        assert_eq!(k, key_of("a", "text"));
        assert_ne!(k, key_of("b", "text"));
        assert_ne!(k, key_of("a", "text2"));
        let changed_specs = [
            json!({"prompt": "Is it one?"}),
            json!({"fields": [{"name": "found", "type": "boolean"}]}),
            json!({"fields": [{"name": "found", "type": "string", "required": true}]}),
            json!({"fields": [{"name": "found", "type": "boolean", "required": true, "description": "x"}]}),
            json!({"violation": "not found"}),
        ];
        for change in changed_specs {
            let mut value = json!({
                "prompt": "Is it a violation?",
                "fields": [{"name": "found", "type": "boolean", "required": true}],
                "violation": "found"
            });
            for (k, v) in change.as_object().unwrap() {
                value[k] = v.clone();
            }
            let changed: JudgeSpec = serde_json::from_value(value).unwrap();
            assert_ne!(k, key("a", &changed, &cfg, "command", "text"), "{change}");
        }
        let mut version = spec();
        version.version = 2;
        assert_eq!(
            k,
            key("a", &version, &cfg, "command", "text"),
            "the text keys, not the number"
        );
        assert_ne!(k, key("a", &spec(), &cfg, "claude", "text"));
        for change in [
            JudgeConfig {
                command: vec!["judge".into()],
                ..cfg.clone()
            },
            JudgeConfig {
                url: Some("http://127.0.0.1:1".into()),
                ..cfg.clone()
            },
            JudgeConfig {
                model: Some("m".into()),
                ..cfg.clone()
            },
        ] {
            assert_ne!(
                k,
                key("a", &spec(), &change, "command", "text"),
                "{change:?}"
            );
        }
    }

    #[test]
    fn store_then_lookup() {
        let d = dir("roundtrip");
        let k = key_of("a", "t");
        store(&d, &k, 60, &verdict(JudgeOutcome::Violation));
        assert_eq!(lookup(&d, &k, 60), Some(verdict(JudgeOutcome::Violation)));
        assert_eq!(lookup(&d, &k, 0), None);
        assert_eq!(lookup(&d, &key_of("a", "other"), 60), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn failures_are_not_stored_and_old_entries_expire() {
        let d = dir("fail");
        let k = key_of("a", "t");
        store(&d, &k, 60, &verdict(JudgeOutcome::Fail));
        assert_eq!(lookup(&d, &k, 60), None);
        std::fs::create_dir_all(&d).unwrap();
        let old = json!({"created": now_s() - 100, "outcome": "allow", "fields": {}});
        std::fs::write(entry_path(&d, &k), old.to_string()).unwrap();
        assert_eq!(lookup(&d, &k, 60), None);
        assert!(lookup(&d, &k, 1000).is_some());
        let fresh = key_of("b", "t");
        store(&d, &fresh, 60, &verdict(JudgeOutcome::Allow));
        prune(&d, 60);
        assert!(!entry_path(&d, &k).exists(), "expired entry pruned");
        assert!(entry_path(&d, &fresh).exists(), "fresh entry kept");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn writers_take_the_lock_and_a_stuck_holder_never_blocks_them() {
        let d = dir("lock");
        std::fs::create_dir_all(&d).unwrap();
        let holder = Locked::open(&d.join(".lock"), LOCK_WAIT).unwrap();
        assert!(holder.locked);
        let k = key_of("a", "t");
        let start = std::time::Instant::now();
        store(&d, &k, 60, &verdict(JudgeOutcome::Allow));
        assert!(start.elapsed() < Duration::from_secs(2), "bounded wait");
        assert_eq!(lookup(&d, &k, 60), None, "no write without the lock");
        drop(holder);
        store(&d, &k, 60, &verdict(JudgeOutcome::Allow));
        assert!(lookup(&d, &k, 60).is_some());
        let _ = std::fs::remove_dir_all(&d);
    }
}
