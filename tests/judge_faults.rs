//! The fault matrix at the judge level: every way a judge can misbehave ends
//! in a failed judgment, returned within the deadline plus one second, with
//! no judge process left behind.

mod common;

use common::{config, process_gone, spec, temp_dir, test_judge};
use guard::judge::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use guard::verdict::{JudgeOutcome, JudgeReport};
use std::time::{Duration, Instant};

/// Runs one request with the test judge in `mode`, under a hook deadline of
/// `deadline_ms`, recording the judge's pids in a file.
fn run_mode(mode: &str, deadline_ms: u64) -> (JudgeReport, Duration, Vec<u32>) {
    let tmp = temp_dir(&format!("fault-{}", mode.replace(['=', '/', ':'], "_")));
    let dir = tmp.path();
    let pids = dir.join("pids");
    let mut cfg = config(mode, 60_000);
    cfg.command
        .insert(0, format!("GUARD_TEST_JUDGE_PIDS={}", pids.display()));
    cfg.command.insert(0, "env".into());
    let s = spec();
    let requests = [JudgeRequest {
        detector: "fault",
        spec: &s,
        text: "I'll push to main now.",
        facts: None,
    }];
    let started = Instant::now();
    let ctx = JudgeContext {
        deadline: started + Duration::from_millis(deadline_ms),
        cache_dir: None,
    };
    let mut reports = judge_all(&cfg, &requests, &ctx);
    let elapsed = started.elapsed();
    let recorded = std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    (reports.remove(0), elapsed, recorded)
}

#[test]
fn every_fault_fails_within_the_deadline_and_leaves_no_process() {
    let deadline_ms = 1500;
    let faults = [
        "hang",
        "fork-hang",
        "crash",
        "exit1",
        "garbage",
        "partial",
        "omit",
        "wrongtypes",
        "wrongnonce",
        "flood",
        "sleep=30000",
    ];
    for mode in faults {
        let (report, elapsed, pids) = run_mode(mode, deadline_ms);
        assert_eq!(report.outcome, JudgeOutcome::Fail, "{mode}: {report:?}");
        assert!(report.error.is_some(), "{mode}: a failure says why");
        assert!(
            elapsed < Duration::from_millis(deadline_ms + 1000),
            "{mode} took {elapsed:?}"
        );
        if mode != "crash" && mode != "flood" {
            assert!(!pids.is_empty(), "{mode}: the judge recorded its pid");
        }
        if let Some(leader) = pids.first() {
            // The judge itself is our child: it must be reaped, not a zombie.
            assert!(
                !std::path::Path::new(&format!("/proc/{leader}")).exists(),
                "{mode}: judge {leader} not reaped"
            );
        }
        for pid in pids {
            assert!(
                process_gone(pid),
                "{mode}: process {pid} survived: {:?} {report:?}",
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
            );
        }
    }
}

#[test]
fn specific_failure_reasons() {
    let cases = [
        ("hang", "timed out"),
        ("crash", "signal"),
        ("exit1", "code 1"),
        ("garbage", "no JSON"),
        ("omit", "required field"),
        ("wrongtypes", "should be"),
        ("wrongnonce", "wrong nonce"),
        ("flood", "cap"),
    ];
    for (mode, needle) in cases {
        let (report, _, _) = run_mode(mode, 1500);
        let error = report.error.unwrap_or_default();
        assert!(error.contains(needle), "{mode}: `{error}` lacks `{needle}`");
    }
    let (wrong, _, _) = run_mode("wrongnonce", 1500);
    assert_eq!(wrong.nonce_ok, Some(false));
}

#[test]
fn a_healthy_judge_is_not_a_failure() {
    let (report, _, pids) = run_mode("ok", 10_000);
    assert_eq!(report.outcome, JudgeOutcome::Allow, "{report:?}");
    assert_eq!(report.nonce_ok, Some(true));
    assert_eq!(report.backend.as_deref(), Some("command"));
    assert!(pids.iter().all(|&p| process_gone(p)));
    let (slow, _, _) = run_mode("sleep=200", 10_000);
    assert_eq!(slow.outcome, JudgeOutcome::Allow);
}

#[test]
fn helpers_left_behind_by_a_judge_are_killed() {
    let (report, _, pids) = run_mode("fork-exit", 10_000);
    assert_eq!(report.outcome, JudgeOutcome::Allow, "{report:?}");
    assert_eq!(pids.len(), 2, "the judge and its helper");
    for pid in pids {
        assert!(process_gone(pid), "process {pid} survived");
    }
}

#[test]
fn the_judge_timeout_cuts_before_the_hook_deadline() {
    let s = spec();
    let cfg = JudgeConfig {
        timeout_ms: 300,
        ..config("hang", 300)
    };
    let requests = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "x",
        facts: None,
    }];
    let started = Instant::now();
    let ctx = JudgeContext {
        deadline: started + Duration::from_secs(30),
        cache_dir: None,
    };
    let report = &judge_all(&cfg, &requests, &ctx)[0];
    assert_eq!(report.outcome, JudgeOutcome::Fail);
    assert!(started.elapsed() < Duration::from_millis(1300));
}

#[test]
fn judgments_run_concurrently() {
    // Each judge waits until all five have started: run one after another,
    // the first would wait forever and fail at the deadline.
    let tmp = temp_dir("barrier");
    let dir = tmp.path();
    let cfg = config(&format!("barrier={}:5", dir.display()), 20_000);
    let s = spec();
    let names = ["a", "b", "c", "d", "e"];
    let requests: Vec<JudgeRequest> = names
        .iter()
        .map(|n| JudgeRequest {
            detector: n,
            spec: &s,
            text: n,
            facts: None,
        })
        .collect();
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(20),
        cache_dir: None,
    };
    let reports = judge_all(&cfg, &requests, &ctx);
    assert_eq!(reports.len(), 5);
    for r in &reports {
        assert_eq!(r.outcome, JudgeOutcome::Allow, "{r:?}");
    }
}

#[test]
fn missing_judge_program_fails_cleanly() {
    let s = spec();
    let cfg = JudgeConfig {
        command: vec!["/nonexistent/judge-program".into()],
        ..config("ok", 1000)
    };
    let requests = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "x",
        facts: None,
    }];
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(5),
        cache_dir: None,
    };
    let report = &judge_all(&cfg, &requests, &ctx)[0];
    assert_eq!(report.outcome, JudgeOutcome::Fail);
    assert!(report
        .error
        .as_deref()
        .unwrap_or("")
        .contains("cannot start"));
    assert!(test_judge().exists());
}
