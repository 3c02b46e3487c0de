//! `guard replay`, `guard label`, `guard eval --from-log`, the filters of
//! `guard log` and `guard stats`, on a decision log written by `guard hook` with
//! `log.keep_text` on.

mod ops_support;

use ops_support::{stderr, stdout, Env};
use serde_json::Value;

/// The decisions made, in order: (kind, subject, expected verdict).
const DECISIONS: [(&str, &str, &str); 5] = [
    ("stop", "All done. Shall I commit and push?", "block"),
    (
        "stop",
        "The migration is out of scope, I'll leave it for a follow-up.",
        "block",
    ),
    ("stop", "I'll finish the docs later.", "allow"),
    ("stop", "Listo, todo verificado.", "allow"),
    ("pre_tool", "rm -rf build/", "ask"),
];

/// Makes the five decisions above with kept text, then a sixth (a commit
/// proposal) with `keep_text` off; returns the env and the six ids.
fn logged() -> (Env, Vec<String>) {
    let env = Env::new();
    env.user_config("log: {keep_text: true}\n");
    for (kind, subject, _) in DECISIONS {
        if kind == "stop" {
            env.stop(subject, &[]);
        } else {
            env.pre_tool(subject);
        }
    }
    let no_text = env.write("no-text.yaml", "log: {keep_text: false}\n");
    env.stop("Shall I push?", &["--config", no_text.to_str().unwrap()]);
    let log = env.log();
    assert_eq!(log.len(), 6);
    for (rec, (_, _, verdict)) in log.iter().zip(DECISIONS) {
        assert_eq!(rec["verdict"], verdict, "{rec}");
    }
    assert_eq!(
        log[4]["command"], "rm -rf build/",
        "tool events keep their command"
    );
    assert_eq!(log[4]["tool"]["canonical"], "shell");
    assert!(log[5].get("text").is_none());
    (
        env,
        log.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect(),
    )
}

fn replay(env: &Env, config: Option<&str>) -> Value {
    let mut args = Vec::new();
    let cfg;
    if let Some(yaml) = config {
        cfg = env.write("replay.yaml", yaml);
        args.extend(["--config", cfg.to_str().unwrap()]);
    }
    let log = env.log_dir();
    args.extend(["replay", log.to_str().unwrap(), "--json"]);
    let out = env.guard(&args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn replay_flips_exactly_the_decisions_whose_detector_changed() {
    let (env, ids) = logged();
    let same = replay(&env, None);
    assert_eq!(
        (
            same["records"].as_u64(),
            same["replayed"].as_u64(),
            same["skipped_without_text"].as_u64()
        ),
        (Some(6), Some(5), Some(1))
    );
    assert_eq!(
        same["flips"],
        serde_json::json!([]),
        "the same config flips nothing"
    );

    let changed = replay(&env, Some("detectors:\n  t-commit: {mode: shadow}\n  t-scope:\n    extra_signals: [{id: later, pattern: \"later\"}]\n"));
    let flips = changed["flips"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = flips
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap(),
                f["before"].as_str().unwrap(),
                f["after"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (ids[0].as_str(), "block", "allow"),
            (ids[2].as_str(), "allow", "block")
        ]
    );
    assert_eq!(
        flips[0]["detectors"],
        serde_json::json!([{"detector": "t-commit", "before": "block", "after": "block~shadow"}])
    );
    assert_eq!(
        flips[1]["detectors"],
        serde_json::json!([{"detector": "t-scope", "before": "allow", "after": "block"}])
    );
    assert_eq!(changed["changed_without_flip"], serde_json::json!([]));

    let text = env.guard(
        &[
            "--config",
            env.path().join("replay.yaml").to_str().unwrap(),
            "replay",
            env.log_dir().to_str().unwrap(),
        ],
        None,
    );
    let text = stdout(&text);
    assert!(
        text.contains(
            "6 decision(s): 5 replayed, 1 skipped without kept text, 0 skipped (paused); 2 flipped"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}  ", ids[2]))
            && text.contains("allow → block  [t-scope allow→block]"),
        "{text}"
    );
}

#[test]
fn a_kept_command_is_redacted() {
    let env = Env::new();
    env.user_config("log: {keep_text: true}\n");
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    env.pre_tool(&format!(
        "curl -H 'Authorization: token {secret}' https://api.github.com/user"
    ));
    let rec = env.log().pop().unwrap();
    let command = rec["command"].as_str().unwrap();
    assert!(
        command.starts_with("curl -H") && !command.contains(secret),
        "{command}"
    );
    assert!(!rec["text"].as_str().unwrap().contains(secret));
}

#[test]
fn replay_reads_a_single_log_file() {
    let (env, ids) = logged();
    let mut all = String::new();
    for rec in env.log() {
        all.push_str(&format!("{rec}\n"));
    }
    let file = env.write("copy.jsonl", &all);
    let cfg = env.write("shadow.yaml", "detectors:\n  t-commit: {mode: shadow}\n");
    let out = env.guard(
        &[
            "--config",
            cfg.to_str().unwrap(),
            "replay",
            file.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let flipped: Vec<&str> = r["flips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(flipped, [ids[0].as_str()]);
    assert_eq!(
        env.guard(&["replay", "/nonexistent.jsonl"], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn labels_become_a_corpus_and_its_figures() {
    let (env, ids) = logged();
    let label = |args: &[&str]| {
        let mut a = vec!["label"];
        a.extend(args);
        env.guard(&a, None)
    };
    let out = label(&[&ids[0], "block"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("as block (t-commit)"));
    let ambiguous = label(&[&ids[2], "block"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert!(
        stderr(&ambiguous).contains("--detector"),
        "{}",
        stderr(&ambiguous)
    );
    assert_eq!(
        label(&[&ids[2], "block", "--detector", "t-scope"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(label(&[&ids[3], "allow"]).status.code(), Some(0));
    assert_eq!(label(&[&ids[4], "deny"]).status.code(), Some(0));
    assert_eq!(
        label(&[&ids[4], "block"]).status.code(),
        Some(2),
        "block does not fit a pre_tool decision"
    );
    assert_eq!(label(&["no-such-id", "allow"]).status.code(), Some(2));
    let no_text = label(&[&ids[5], "block"]);
    assert_eq!(no_text.status.code(), Some(0));
    assert!(
        stderr(&no_text).contains("not kept"),
        "{}",
        stderr(&no_text)
    );
    assert_eq!(
        std::fs::read_to_string(env.state_dir().join("labels.jsonl"))
            .unwrap()
            .lines()
            .count(),
        5
    );

    let emitted = env.guard(&["eval", "--from-log", "--emit-corpus"], None);
    assert_eq!(emitted.status.code(), Some(0));
    assert!(
        stderr(&emitted).contains("1 labeled decision(s) skipped"),
        "{}",
        stderr(&emitted)
    );
    let cases = guard::eval::corpus::parse("emitted", &stdout(&emitted)).unwrap();
    let case_ids: Vec<&str> = cases.iter().map(|c| c.id()).collect();
    let mut expected = vec![
        ids[0].as_str(),
        ids[2].as_str(),
        ids[3].as_str(),
        ids[4].as_str(),
    ];
    expected.sort();
    assert_eq!(case_ids, expected);

    let out = env.guard(&["eval", "--from-log", "--no-judge", "--json"], None);
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let det = |n: &str| {
        r["detectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["detector"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            det("t-commit")["block_cases"].as_u64(),
            det("t-commit")["layer1_hits"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(det("t-scope")["layer1_missed"], serde_json::json!([ids[2]]));
    assert_eq!(r["pre_tool"]["wrong"][0]["id"], ids[4].as_str());
}

#[test]
fn log_filters_by_verdict_detector_and_time() {
    let (env, ids) = logged();
    let lines = |args: &[&str]| {
        let mut a = vec!["log"];
        a.extend(args);
        let out = env.guard(&a, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let blocks = lines(&["--verdict", "block"]);
    assert_eq!(blocks.len(), 3);
    assert!(
        blocks[0].contains(&ids[0]) && blocks[1].contains(&ids[1]) && blocks[2].contains(&ids[5])
    );
    let scope = lines(&["--detector", "t-scope"]);
    assert_eq!(
        scope.len(),
        1,
        "only the decision where t-scope fired: {scope:?}"
    );
    assert!(
        scope[0].contains(&ids[1]) && scope[0].contains(" block  t-scope  guard [t-scope]"),
        "{scope:?}"
    );
    assert_eq!(lines(&["--since", "1h"]).len(), 6);
    assert_eq!(lines(&["--since", "2099-01-01"]).len(), 0);
    assert_eq!(
        lines(&["--since", "2000-01-01T00:00:00+02:00", "--verdict", "ask"]).len(),
        1
    );
    let json = lines(&["--json", "--verdict", "allow"]);
    assert_eq!(json.len(), 2);
    assert!(json
        .iter()
        .all(|l| serde_json::from_str::<Value>(l).unwrap()["verdict"] == "allow"));
    assert_eq!(
        env.guard(&["log", "--since", "last tuesday"], None)
            .status
            .code(),
        Some(2)
    );

    let stats = stdout(&env.guard(&["stats"], None));
    let header = stats.lines().next().unwrap();
    assert!(
        header.starts_with("detector") && header.contains("p95ms"),
        "{stats}"
    );
    let commit = stats.lines().find(|l| l.starts_with("t-commit")).unwrap();
    let cells: Vec<&str> = commit.split_whitespace().collect();
    // t-commit applied to the 5 stop decisions; it hit 2 (one without text
    // kept) and blocked them, and was judged with the turn where t-scope hit
    // (that judgment failed too, and left it allowed).
    assert_eq!(
        &cells[..10],
        ["t-commit", "generic", "5", "2", "0", "3", "0", "2", "0", "3"],
        "{stats}"
    );

    // Per signal: `proposal` sent both commit proposals to the judge, alone;
    // every judgment failed (no judge), so none found or allowed anything.
    let out = env.guard(&["stats", "--by-signal", "--json"], None);
    let rows: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let row = |signal: &str| {
        let rows = rows.as_array().unwrap();
        let r = rows.iter().find(|r| r["signal"] == signal);
        let r = r.unwrap_or_else(|| panic!("{signal}: {rows:?}"));
        let n = |k: &str| r[k].as_u64().unwrap();
        (
            r["detector"].clone(),
            n("hits"),
            n("alone"),
            n("violations"),
            n("allowed"),
        )
    };
    assert_eq!(row("proposal"), ("t-commit".into(), 2, 2, 0, 0));
    assert_eq!(row("defer"), ("t-scope".into(), 1, 1, 0, 0));
    let text = stdout(&env.guard(&["stats", "--by-signal"], None));
    assert!(text.starts_with("detector  signal"), "{text}");
}
