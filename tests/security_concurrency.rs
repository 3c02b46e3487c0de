//! Issue 9, part 4: 200 `guard hook` processes at once. Every decision-log
//! line stays whole; the loop-guard counter and the verdict cache come out
//! exact and readable; a lock held by a stuck hook never blocks another.

mod support;

use serde_json::{json, Value};
use std::process::Child;
use std::time::{Duration, Instant};
use support::{stderr, stdout, Sandbox};

const HOOKS: usize = 200;

fn spawn(sb: &Sandbox, args: &[&str], stdin: &[u8]) -> Child {
    support::spawn_with(sb.guard(args), stdin)
}

fn stop(session: &str, text: &str, active: bool) -> Vec<u8> {
    json!({
        "session_id": session, "transcript_path": "/nonexistent/t.jsonl", "cwd": "/tmp",
        "prompt_id": "p", "hook_event_name": "Stop", "stop_hook_active": active,
        "last_assistant_message": text
    })
    .to_string()
    .into_bytes()
}

/// Starts every hook before waiting for any.
fn run_all(sb: &Sandbox, args: &[&str], stdins: Vec<Vec<u8>>) -> Vec<std::process::Output> {
    let children: Vec<Child> = stdins.iter().map(|s| spawn(sb, args, s)).collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

#[test]
fn two_hundred_hooks_writing_one_log_leave_every_line_whole() {
    let sb = Sandbox::new();
    // Long lines (the kept text is ~48 KiB each) make torn writes likely
    // if a record were written in more than one write.
    let cfg = sb.test_config(
        "judge: {backend: none}\nlog: {keep_text: true}\ndeadline: {turn_end_ms: 600000}\n",
    );
    sb.write("config/guard/config.yaml", "text: {max_bytes: 60000}\n");
    let stdins = (0..HOOKS)
        .map(|i| {
            stop(
                &format!("s{i}"),
                &format!("marker-{i}-{}", "x".repeat(48 * 1024)),
                false,
            )
        })
        .collect();
    let outs = run_all(
        &sb,
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        stdins,
    );
    for o in &outs {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    }
    let logs = sb.state_dir().join("logs");
    let mut lines = 0;
    let mut sessions = std::collections::BTreeSet::new();
    for f in std::fs::read_dir(&logs).unwrap() {
        let raw = std::fs::read(f.unwrap().path()).unwrap();
        assert!(raw.ends_with(b"\n"));
        for line in raw.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let rec: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
                panic!(
                    "a torn log line ({e}): {}",
                    String::from_utf8_lossy(&line[..200.min(line.len())])
                )
            });
            lines += 1;
            sessions.insert(rec["session"].as_str().unwrap().to_string());
            let text = rec["text"].as_str().unwrap();
            let marker = format!("marker-{}-", &rec["session"].as_str().unwrap()[1..]);
            assert!(
                text.contains(&marker),
                "the record holds its own hook's text"
            );
        }
    }
    assert_eq!(
        (lines, sessions.len()),
        (HOOKS, HOOKS),
        "one whole line per hook"
    );
}

#[test]
fn the_loop_guard_counts_exactly_under_200_concurrent_turn_ends() {
    // Every turn end of one session is blocked and says it continues the
    // last one. Serialized, the count goes 1, 2, 3, then the 4th is let
    // through (max_blocks: 3) and the count starts again: 50 of 200 are
    // allowed. A lost update would shift that number.
    let sb = Sandbox::new();
    // A deadline long enough that no watchdog answers for a hook starved of
    // CPU by 199 others (its answer would skip the loop guard).
    let cfg = sb.test_config("judge: {backend: none}\nfailure: {stop: block}\nloop_guard: {max_blocks: 3}\ndeadline: {turn_end_ms: 600000}\n");
    let stdins = (0..HOOKS)
        .map(|_| stop("shared", "ship it now", true))
        .collect();
    let outs = run_all(
        &sb,
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        stdins,
    );
    let mut allowed = 0;
    for o in &outs {
        assert_eq!(o.status.code(), Some(0));
        assert!(
            !stderr(o).contains("loop guard state unavailable"),
            "{}",
            stderr(o)
        );
        if !stdout(o).contains("\"block\"") {
            allowed += 1;
        }
    }
    assert_eq!(allowed, HOOKS / 4, "released exactly every 4th turn end");
    let state = sb.state_dir().join("sessions/claude-code-shared.json");
    let st: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(st["blocks"], 0, "200 = 50 × (3 blocks + 1 release)");
}

#[test]
fn two_hundred_hooks_sharing_one_cached_verdict_leave_it_readable() {
    let sb = Sandbox::new();
    let answers = sb.answers(&[("ship-now", "ship", json!({"new_proposal": true}))]);
    let cfg = sb.judged_config(&answers, 10_000, "");
    // The cache on (judged_config turns it off), long deadlines.
    let cfg_text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("cache_ttl_s: 0", "cache_ttl_s: 3600")
        .replace("turn_end_ms: 3000", "turn_end_ms: 60000");
    std::fs::write(&cfg, cfg_text).unwrap();
    let stdins = (0..HOOKS)
        .map(|i| stop(&format!("c{i}"), "ship it now", false))
        .collect();
    let outs = run_all(
        &sb,
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        stdins,
    );
    for o in &outs {
        assert!(
            stdout(o).contains("\"block\""),
            "{} {}",
            stdout(o),
            stderr(o)
        );
    }
    let cache = sb.state_dir().join("cache");
    assert!(
        cache.join(".lock").exists(),
        "writers took the cache's lock"
    );
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(".lock"))
        .collect();
    assert_eq!(
        entries.len(),
        1,
        "one entry, no temp file left: {entries:?}"
    );
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(&entries[0]).unwrap()).unwrap();
    assert_eq!(entry["outcome"], "violation");
    // A later hook is answered from it, without the judge.
    let mut cmd = sb.guard(&["hook", "claude-code", "--config", cfg.to_str().unwrap()]);
    cmd.env("GUARD_TEST_JUDGE", "crash");
    let out = sb.run_with(cmd, &stop("later", "ship it now", false));
    assert!(stdout(&out).contains("\"block\""), "{}", stderr(&out));
}

#[test]
fn a_lock_held_by_a_stuck_hook_never_blocks_the_next_one() {
    let sb = Sandbox::new();
    let cfg = sb.test_config(
        "judge: {backend: none}\nfailure: {stop: block}\ndeadline: {turn_end_ms: 600000}\n",
    );
    let state = sb.state_dir().join("sessions/claude-code-stuck.json");
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    // A stuck hook: this process holds the session's lock and never lets go.
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&state)
        .unwrap();
    use std::os::unix::io::AsRawFd;
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut child = spawn(
        &sb,
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &stop("stuck", "ship it now", false),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("guard hook waited on the lock without end");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        stdout(&out).contains("\"block\""),
        "the verdict stands: {}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("loop guard state unavailable"),
        "says what went wrong: {}",
        stderr(&out)
    );
    drop(held);
    // A file torn by a crash mid-write is read as a fresh count and rewritten.
    std::fs::write(&state, "{\"blocks\": 2, \"tu").unwrap();
    let cfg = sb.test_config(
        "judge: {backend: none}\nfailure: {stop: block}\ndeadline: {turn_end_ms: 600000}\n",
    );
    let out = sb.run(
        &["hook", "claude-code", "--config", cfg.to_str().unwrap()],
        &stop("stuck", "ship it now", false),
    );
    assert!(stdout(&out).contains("\"block\""), "{}", stderr(&out));
    let st: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(st["blocks"], 1);
}

#[test]
fn two_hundred_writers_released_at_once_never_tear_a_log_line() {
    // The same promise at the source, with the writers lined up on a
    // barrier so their writes overlap: each record is one `write` on an
    // O_APPEND file, so no line is ever cut by another.
    let dir = tempfile::tempdir().unwrap();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(HOOKS));
    let writers: Vec<_> = (0..HOOKS)
        .map(|i| {
            let (dir, barrier) = (dir.path().to_path_buf(), barrier.clone());
            std::thread::spawn(move || {
                let record = json!({"writer": i, "pad": format!("{i:03}").repeat(16 * 1024)});
                barrier.wait();
                for _ in 0..4 {
                    guard::log::append(&dir, "2026-01-01", &record).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let raw = std::fs::read(guard::log::file_for(dir.path(), "2026-01-01")).unwrap();
    let mut count = 0;
    for line in raw.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let rec: Value = serde_json::from_slice(line).expect("a whole line");
        let i = rec["writer"].as_u64().unwrap();
        assert_eq!(
            rec["pad"],
            format!("{i:03}").repeat(16 * 1024),
            "not mixed with another"
        );
        count += 1;
    }
    assert_eq!(count, HOOKS * 4);
}
