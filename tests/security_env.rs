//! Issue 9, part 5: faults of the environment. With the log directory
//! unwritable or full, the state directory unwritable, or a transcript that
//! is missing, unreadable, huge, binary, cut mid-line, `/dev/zero` or a FIFO,
//! `guard hook` still answers per policy (exit 0 and the verdict) within its
//! deadline, and says what went wrong on stderr.

mod support;

use serde_json::{json, Value};
use std::io::{Seek, SeekFrom, Write};
use support::{stderr, stdout, Sandbox};

/// Turn ends saying "ship it now" are blocked (no judge, failing closed).
fn policy(sb: &Sandbox, extra: &str) -> String {
    sb.test_config(&format!(
        "judge: {{backend: none}}\nfailure: {{stop: block}}\n{extra}"
    ))
    .to_str()
    .unwrap()
    .to_string()
}

fn stop(session: &str, transcript: &str, text: Option<&str>) -> Vec<u8> {
    let mut p = json!({
        "session_id": session, "transcript_path": transcript, "cwd": "/tmp",
        "prompt_id": "p", "hook_event_name": "Stop", "stop_hook_active": false,
    });
    if let Some(t) = text {
        p["last_assistant_message"] = json!(t);
    }
    p.to_string().into_bytes()
}

fn assert_blocked(out: &std::process::Output, what: &str, problem: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(out));
    let v: Value = serde_json::from_str(&stdout(out)).unwrap_or_else(|_| {
        panic!(
            "{what}: an answer on stdout: {:?} {}",
            stdout(out),
            stderr(out)
        )
    });
    assert_eq!(v["decision"], "block", "{what}: the verdict stands");
    assert!(
        stderr(out).contains(problem),
        "{what}: stderr says {problem:?}: {}",
        stderr(out)
    );
}

#[test]
fn an_unwritable_or_full_log_never_changes_the_answer() {
    let sb = Sandbox::new();
    // Unwritable (as root too): the log directory's parent is a regular file.
    sb.write("not-a-dir", "x");
    let cfg = policy(
        &sb,
        &format!("log: {{dir: {:?}}}\n", sb.path().join("not-a-dir/logs")),
    );
    let out = sb.run(
        &["hook", "claude-code", "--config", &cfg],
        &stop("l1", "/nonexistent", Some("ship it now")),
    );
    assert_blocked(&out, "unwritable log dir", "cannot write the decision log");

    // Full: today's log file is /dev/full, every write fails with ENOSPC.
    let sb = Sandbox::new();
    let logs = sb.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let (_, today) = guard::log::now_rfc3339();
    std::os::unix::fs::symlink("/dev/full", guard::log::file_for(&logs, &today)).unwrap();
    let cfg = policy(&sb, &format!("log: {{dir: {logs:?}}}\n"));
    let out = sb.run(
        &["hook", "claude-code", "--config", &cfg],
        &stop("l2", "/nonexistent", Some("ship it now")),
    );
    assert_blocked(&out, "full disk", "No space left");
}

#[test]
fn an_unwritable_state_directory_never_changes_the_answer() {
    let sb = Sandbox::new();
    let cfg = policy(&sb, "");
    // XDG_STATE_HOME is a regular file: no heartbeat, loop guard, cache or log.
    sb.write("state-file", "x");
    let mut cmd = sb.guard(&["hook", "claude-code", "--config", &cfg]);
    cmd.env("XDG_STATE_HOME", sb.path().join("state-file"));
    let out = sb.run_with(cmd, &stop("st", "/nonexistent", Some("ship it now")));
    assert_blocked(&out, "unwritable state dir", "loop guard state unavailable");
    assert!(
        stderr(&out).contains("cannot write the decision log"),
        "{}",
        stderr(&out)
    );

    // A pre-tool call the same way: the gate still fails safe.
    let mut cmd = sb.guard(&["hook", "claude-code", "--config", &cfg]);
    cmd.env("XDG_STATE_HOME", sb.path().join("state-file"));
    let pre = json!({"session_id": "st", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "launch it"}, "cwd": "/tmp", "transcript_path": "/nonexistent"});
    let out = sb.run_with(cmd, pre.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("\"ask\""), "{}", stdout(&out));
}

/// A Claude Code transcript line of the assistant saying `text`.
fn assistant(text: &str) -> String {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
        .to_string()
}

#[test]
fn hostile_transcripts_fall_back_to_the_payload_and_say_why() {
    let sb = Sandbox::new();
    let cfg = policy(&sb, "");
    let user = json!({"type": "user", "message": {"role": "user", "content": "go"}}).to_string();

    let fifo = sb.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    sb.write("a-file", "x");
    let binary: Vec<u8> = (0..256 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(sb.path().join("binary.jsonl"), &binary).unwrap();
    let cut = format!(
        "{user}\n{}",
        &assistant("Let's ship it now, all done.")[..40]
    );
    sb.write("cut.jsonl", &cut);

    // (what, path, payload text, what stderr says)
    let cases: Vec<(&str, String, Option<&str>, &str)> = vec![
        (
            "FIFO",
            fifo.display().to_string(),
            Some("ship it now"),
            "not a regular file",
        ),
        (
            "/dev/zero",
            "/dev/zero".into(),
            Some("ship it now"),
            "not a regular file",
        ),
        (
            "directory",
            sb.path().display().to_string(),
            Some("ship it now"),
            "not a regular file",
        ),
        (
            "unreadable",
            sb.path().join("a-file/t.jsonl").display().to_string(),
            Some("ship it now"),
            "judged the payload's final message instead",
        ),
        (
            "binary",
            sb.path().join("binary.jsonl").display().to_string(),
            Some("ship it now"),
            "",
        ),
        (
            "cut mid-line",
            sb.path().join("cut.jsonl").display().to_string(),
            Some("ship it now"),
            "",
        ),
        (
            "missing",
            "/nonexistent/t.jsonl".into(),
            Some("ship it now"),
            "",
        ),
    ];
    for (what, path, text, problem) in cases {
        let out = sb.run(
            &["hook", "claude-code", "--config", &cfg],
            &stop(what, &path, text),
        );
        assert_blocked(&out, what, problem);
    }
    // Missing, with no text in the payload either: nothing to judge, allowed, said.
    let out = sb.run(
        &["hook", "claude-code", "--config", &cfg],
        &stop("m", "/nonexistent/t.jsonl", None),
    );
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    assert!(stderr(&out).contains("no turn text"), "{}", stderr(&out));
}

#[test]
fn a_huge_sparse_transcript_is_read_from_its_end_only() {
    let sb = Sandbox::new();
    let cfg = policy(&sb, "");
    let path = sb.path().join("huge.jsonl");
    // 4 GiB of NUL bytes (sparse: no disk used), then a real turn.
    let mut f = std::fs::File::create(&path).unwrap();
    f.seek(SeekFrom::Start(4 << 30)).unwrap();
    let user = json!({"type": "user", "message": {"role": "user", "content": "go"}}).to_string();
    write!(f, "\n{user}\n{}\n", assistant("We should ship it now.")).unwrap();
    drop(f);
    let out = sb.run(
        &["hook", "claude-code", "--config", &cfg],
        &stop("huge", path.to_str().unwrap(), None),
    );
    assert_blocked(&out, "huge transcript", "");
}

#[test]
fn a_payload_that_never_ends_is_answered_without_waiting_for_it() {
    // An agent that keeps stdin open: the watchdog only starts once the
    // payload is known, so the read itself must give up.
    let sb = Sandbox::new();
    let mut child = sb
        .guard(&["hook", "claude-code"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"hook_event_name\": \"PreToolUse\", ")
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("guard hook waited for stdin without end");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    assert!(
        stderr(&out).contains("stdin did not end"),
        "{}",
        stderr(&out)
    );
}
