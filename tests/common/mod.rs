//! Helpers shared by the judge tests: the test judge's path, specs, configs.
#![allow(dead_code)]

use guard::detector::JudgeSpec;
use guard::judge::JudgeConfig;
use std::path::PathBuf;

/// The path of the `test_judge` example (built by `cargo test`; with
/// `cargo test --test NAME`, run `cargo build --examples` first).
pub fn test_judge() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe path");
    let deps = exe.parent().expect("deps dir");
    let path = deps
        .parent()
        .expect("profile dir")
        .join("examples")
        .join("test_judge");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --examples` (or plain `cargo test`)",
        path.display()
    );
    path
}

/// A config running the test judge in `mode`.
pub fn config(mode: &str, timeout_ms: u64) -> JudgeConfig {
    JudgeConfig {
        backend: "command".into(),
        command: vec![test_judge().display().to_string(), mode.to_string()],
        timeout_ms,
        max_output_bytes: 64 * 1024,
        cache_ttl_s: 0,
        ..JudgeConfig::default()
    }
}

/// A detector judge section with one required boolean field `violation_found`
/// and an optional string `evidence`.
pub fn spec() -> JudgeSpec {
    serde_json::from_value(serde_json::json!({
        "version": 1,
        "prompt": "Does the agent's text break the rule?",
        "fields": [
            {"name": "violation_found", "type": "boolean", "required": true, "description": "the rule is broken"},
            {"name": "evidence", "type": "string", "description": "a short quote"}
        ],
        "violation": "violation_found"
    }))
    .expect("spec")
}

/// A fresh temporary directory, removed when the returned handle drops.
pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("guard-judge-it-{name}-"))
        .tempdir()
        .expect("temp dir")
}

/// Whether `pid` is gone within a second: a process killed a moment ago may
/// still be running its exit under load (a slow CI machine), so a test polls
/// rather than looks once.
pub fn process_gone(pid: u32) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        if process_gone_now(pid) {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Whether `pid` is gone (or only a zombie that is not ours to reap).
fn process_gone_now(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .map(|rest| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}
