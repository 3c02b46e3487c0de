//! `guard eval` on tests/corpus/handcheck.yaml: the figures guard prints
//! equal the ones counted by hand below.
//!
//! Layer 1 by hand (see the notes in the corpus):
//! - t-commit: block cases c1 c2 c4 c5 b1 (5). Hits: c1 c4 b1; c2 is
//!   bypassed (tests passed); c5 matches no signal. Recall 3/5 = 0.6.
//!   Other cases c3 c6 s1 s2 s3 n1 (6); only c6 hits ("can i commit").
//!   Pass-through 5/6.
//! - t-scope: block cases s1 s3 b1 (3), all hit: recall 1. Other cases (8):
//!   s2 hits but is bypassed ("as you asked"), the rest miss: pass-through 1.
//!
//! End to end with the `none` judge and `failure.stop: block`, a detector
//! blocks exactly its Layer-1 hits, each a failed judgment; a turn end one
//! detector hit is judged for the other too (the whole turn), and that
//! failed judgment leaves the other allowed:
//! - t-commit: TP c1 c4 b1, FN c2 c5, FP c6, TN 5: precision 3/4, recall
//!   3/5, F1 2·0.75·0.6/1.35 = 2/3; 6 judge failures (its 4 hits, and s1
//!   s3 with the turn).
//! - t-scope: TP 3, TN 8: precision = recall = F1 = 1; 6 judge failures
//!   (its 3 hits, and c1 c4 c6 with the turn).
//! - together: labeled block c1 c2 c4 c5 s1 s3 b1, blocked c1 c4 c6 s1 s3
//!   b1: TP 5, FP 1 (c6), FN 2 (c2 c5), TN 3 (c3 s2 n1).
//!
//! Per turn: block turns c1 c2 c4 c5 s1 s3 b1 (7); caught c1 c4 s1 s3 b1
//! (5/7); missed c2 c5, of which c2 was let through by a bypass. Ordinary
//! turns c3 c6 s2 n1: c6 hits, the rest pass (3/4). By language: en 5/7 and
//! 2/3 (c3 c6 s2), es n1 only (1/1).
//!
//! Per signal (`--by-signal`; every turn's judgment joins both detectors,
//! so any hit catches a block turn): `proposal` sends c6 alone and catches
//! c1 c4 alone and b1 with `defer`; `defer` catches s1 s3 alone and b1. A
//! held-out part's turns are not counted.
//!
//! Pre-tool, `failure.pre_tool: ask`: g1 and g2 hit and the failed judgment
//! asks; g3 and g4 allow (g4 has the keyword, no signal). Deny recall 0/1,
//! ask recall 1/1, pass-through 2/2, no false deny, wrong: g2 (deny→ask).

mod ops_support;

use ops_support::{stderr, stdout, Env};
use serde_json::Value;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/handcheck.yaml");

fn eval_json(env: &Env, extra: &[&str]) -> Value {
    let mut args = vec!["eval", CORPUS, "--json", "--no-cache"];
    args.extend(extra);
    let out = env.guard(&args, None);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn detector<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["detector"] == name)
        .unwrap()
}

fn close(v: &Value, expected: f64) -> bool {
    (v.as_f64().unwrap() - expected).abs() < 1e-9
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn layer1_figures_equal_the_hand_count() {
    let env = Env::new();
    let r = eval_json(&env, &["--no-judge"]);
    assert_eq!(
        (
            r["cases"].as_u64(),
            r["turn_end_cases"].as_u64(),
            r["pre_tool_cases"].as_u64()
        ),
        (Some(15), Some(11), Some(4))
    );
    assert_eq!(r["judged"], false);
    assert_eq!(
        r["detectors"].as_array().unwrap().len(),
        2,
        "only the turn-end detectors: {r}"
    );

    let c = detector(&r, "t-commit");
    assert_eq!(
        (c["block_cases"].as_u64(), c["layer1_hits"].as_u64()),
        (Some(5), Some(3))
    );
    assert!(close(&c["layer1_recall"], 0.6));
    assert_eq!(strings(&c["layer1_missed"]), ["c5"]);
    assert_eq!(strings(&c["bypass_errors"]), ["c2"]);
    assert_eq!(
        (c["other_cases"].as_u64(), c["passed_through"].as_u64()),
        (Some(6), Some(5))
    );
    assert!(close(&c["layer1_pass_through"], 5.0 / 6.0));
    assert_eq!(strings(&c["layer1_false_hits"]), ["c6"]);
    assert!(
        c.get("end_to_end").is_none(),
        "no end-to-end figures without the judge"
    );

    let s = detector(&r, "t-scope");
    assert_eq!(
        (s["block_cases"].as_u64(), s["layer1_hits"].as_u64()),
        (Some(3), Some(3))
    );
    assert!(close(&s["layer1_recall"], 1.0));
    assert_eq!(
        (s["other_cases"].as_u64(), s["passed_through"].as_u64()),
        (Some(8), Some(8))
    );
    assert!(strings(&s["bypass_errors"]).is_empty());

    let g = &r["pre_tool"];
    assert_eq!(
        (
            g["denied"].as_u64(),
            g["deny_cases"].as_u64(),
            g["asked"].as_u64(),
            g["ask_cases"].as_u64()
        ),
        (Some(0), Some(1), Some(1), Some(1))
    );
    assert_eq!(
        (g["allowed"].as_u64(), g["allow_cases"].as_u64()),
        (Some(2), Some(2))
    );
    assert!(strings(&g["false_denies"]).is_empty());
    assert_eq!(
        g["wrong"],
        serde_json::json!([{"id": "g2", "expected": "deny", "got": "ask"}])
    );
}

#[test]
fn end_to_end_figures_equal_the_hand_count() {
    let env = Env::new();
    let r = eval_json(&env, &[]);
    assert_eq!(r["judged"], true);
    let e = &detector(&r, "t-commit")["end_to_end"];
    let counts = |e: &Value| {
        [
            "true_positives",
            "false_positives",
            "false_negatives",
            "true_negatives",
        ]
        .map(|k| e[k].as_u64().unwrap())
    };
    assert_eq!(counts(e), [3, 1, 2, 5]);
    assert!(close(&e["precision"], 0.75) && close(&e["recall"], 0.6) && close(&e["f1"], 2.0 / 3.0));
    assert_eq!(e["judge_failures"], 6);
    let wrong: Vec<(String, String)> = e["wrong"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["id"].as_str().unwrap().into(),
                w["got"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        wrong,
        [
            ("c2".to_string(), "allow".to_string()),
            ("c5".into(), "allow".into()),
            ("c6".into(), "block".into())
        ]
    );

    let s = &detector(&r, "t-scope")["end_to_end"];
    assert_eq!(counts(s), [3, 0, 0, 8]);
    assert!(close(&s["f1"], 1.0));
    assert_eq!(s["judge_failures"], 6);
    assert_eq!(counts(&r["overall"]), [5, 1, 2, 3]);
    assert_eq!(
        r["overall"]["judge_failures"], 6,
        "c1 c4 c6 s1 s3 b1 each had a failed judgment"
    );
}

#[test]
fn per_turn_figures_equal_the_hand_count() {
    let env = Env::new();
    let r = eval_json(&env, &["--no-judge"]);
    let t = &r["turns"];
    assert_eq!(
        (t["block_turns"].as_u64(), t["caught"].as_u64()),
        (Some(7), Some(5))
    );
    assert!(close(&t["recall"], 5.0 / 7.0));
    assert_eq!(strings(&t["missed"]), ["c2", "c5"]);
    assert_eq!(strings(&t["bypassed"]), ["c2"]);
    assert_eq!(
        (t["ordinary_turns"].as_u64(), t["passed"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(strings(&t["false_hits"]), ["c6"]);
    let en = &r["turns_by_lang"]["en"];
    assert_eq!(
        (en["caught"].as_u64(), en["block_turns"].as_u64()),
        (Some(5), Some(7))
    );
    assert_eq!(
        (en["passed"].as_u64(), en["ordinary_turns"].as_u64()),
        (Some(2), Some(3))
    );
    let es = &r["turns_by_lang"]["es"];
    assert_eq!(
        (es["passed"].as_u64(), es["block_turns"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(
        r.get("turns_unambiguous").is_none(),
        "no case is marked ambiguous"
    );
}

#[test]
fn several_parts_are_reported_apart_and_a_held_out_part_hides_its_ids() {
    let env = Env::new();
    let other = env.write(
        "other.yaml",
        "- {id: o1, lang: fr, text: \"Shall I commit?\", labels: {t-commit: block}, ambiguous: true}\n- {id: o2, lang: fr, text: \"Rien à signaler.\"}\n",
    );
    let other = other.to_str().unwrap();
    let out = env.guard(
        &["eval", CORPUS, "--heldout", other, "--no-judge", "--json"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let parts = v["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(
        (parts[0]["heldout"].as_bool(), parts[1]["heldout"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(parts[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("handcheck.yaml"));
    assert_eq!(parts[1]["turns"]["caught"], 1);
    assert_eq!(parts[1]["turns"]["passed"], 1);
    assert_eq!(
        parts[1]["turns_unambiguous"]["block_turns"], 0,
        "o1 is a judgment call"
    );

    let out = env.guard(
        &[
            "eval",
            CORPUS,
            "--heldout",
            other,
            "--no-judge",
            "--by-lang",
        ],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains("per turn, layer 1: recall 0.714 (5/7)  pass-through 0.750 (3/4)  let through by a bypass 1"),
        "{text}"
    );
    assert!(text.contains("    missed: c2, c5\n"), "{text}");
    assert!(
        text.contains("  es   recall n/a (0/0)  pass-through 1.000 (1/1)"),
        "{text}"
    );
    let (_, held) = text.split_once("(held-out)").unwrap();
    // The file's path is named; its random temp folder may hold "o2".
    let held = held.replace(other, "");
    assert!(held.contains("recall 1.000 (1/1)"), "{held}");
    assert!(
        !held.contains("o1") && !held.contains("o2"),
        "held-out ids stay out of the text: {held}"
    );
    assert!(text.contains("per turn, layer 1, by part:"), "{text}");

    let below = env.guard(
        &[
            "eval",
            CORPUS,
            "--heldout",
            other,
            "--no-judge",
            "--min-turn-recall",
            "0.8",
        ],
        None,
    );
    assert_eq!(below.status.code(), Some(1));
    assert!(
        stderr(&below)
            .contains("handcheck.yaml: per turn: Layer-1 recall 0.714 is below the minimum 0.800"),
        "{}",
        stderr(&below)
    );
    assert!(!stderr(&below).contains("other.yaml"), "{}", stderr(&below));
}

#[test]
fn per_signal_figures_equal_the_hand_count_and_leave_held_out_parts_out() {
    let env = Env::new();
    let held = env.write(
        "held.yaml",
        "- {id: h1, lang: en, text: \"Shall I commit?\", labels: {t-commit: block}}\n",
    );
    let held = held.to_str().unwrap();
    let args = [
        "eval",
        CORPUS,
        "--heldout",
        held,
        "--no-judge",
        "--by-signal",
    ];
    let out = env.guard(&[&args[..], &["--json"]].concat(), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let row = |s: &Value| {
        let n = |k: &str| s[k].as_u64().unwrap();
        let name = format!(
            "{}/{}",
            s["detector"].as_str().unwrap(),
            s["signal"].as_str().unwrap()
        );
        (
            name,
            n("ordinary_turns"),
            n("ordinary_turns_alone"),
            n("block_turns"),
            n("block_turns_alone"),
        )
    };
    let rows: Vec<_> = v["signals"].as_array().unwrap().iter().map(row).collect();
    assert_eq!(
        rows,
        [
            ("t-commit/proposal".into(), 1, 1, 3, 2),
            ("t-scope/defer".into(), 0, 0, 3, 2)
        ]
    );
    let text = stdout(&env.guard(&args, None));
    assert!(
        text.contains("per signal, over the 1 tuning part(s)"),
        "{text}"
    );
    assert!(
        text.contains("         1     (1)      3     (2)  t-commit / proposal\n"),
        "{text}"
    );
    let alone = env.guard(
        &["eval", "--heldout", held, "--no-judge", "--by-signal"],
        None,
    );
    assert!(
        stdout(&alone).contains("per signal: no tuning part"),
        "{}",
        stdout(&alone)
    );
}

#[test]
fn the_text_report_names_the_figures_and_the_wrong_ids() {
    let env = Env::new();
    let out = env.guard(&["eval", CORPUS, "--no-cache"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("layer 1: recall 0.600 (3/5)  pass-through 0.833 (5/6)  bypass errors 1"),
        "{text}"
    );
    assert!(
        text.contains("precision 0.750  recall 0.600  F1 0.667  (cases with a failed judgment: 6)"),
        "{text}"
    );
    assert!(
        text.contains("wrong: c2 (block→allow), c5 (block→allow), c6 (allow→block)"),
        "{text}"
    );
    assert!(text.contains("deny recall 0.000 (0/1)"), "{text}");
    assert!(
        !stderr(&out).contains('\r'),
        "no progress bar when stderr is not a terminal"
    );
}

#[test]
fn minimums_set_the_exit_code() {
    let env = Env::new();
    let run = |extra: &[&str]| {
        let mut args = vec!["eval", CORPUS, "--no-judge"];
        args.extend(extra);
        env.guard(&args, None)
    };
    assert_eq!(run(&["--min-pass-through", "0.8"]).status.code(), Some(0));
    let below = run(&["--min-pass-through", "0.9"]);
    assert_eq!(below.status.code(), Some(1));
    assert!(
        stderr(&below).contains("t-commit: Layer-1 pass-through 0.833 is below the minimum 0.900"),
        "{}",
        stderr(&below)
    );
    let recall = run(&["--min-recall", "0.5"]);
    assert_eq!(recall.status.code(), Some(1));
    assert!(
        stderr(&recall).contains("pre-tool: deny recall 0.000"),
        "{}",
        stderr(&recall)
    );
    assert!(
        !stderr(&recall).contains("t-commit: Layer-1 recall"),
        "0.6 meets 0.5"
    );
}

#[test]
fn a_bad_corpus_is_an_error_with_its_place() {
    let env = Env::new();
    let bad = env.write(
        "bad.yaml",
        "- id: x\n  lang: en\n  text: hi\n  labels: {t-commit: maybe}\n",
    );
    let out = env.guard(&["eval", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad.yaml:"), "{}", stderr(&out));
    let unknown = env.write(
        "unknown.yaml",
        "- id: x\n  lang: en\n  text: hi\n  labels: {t-nope: block}\n",
    );
    let out = env.guard(&["eval", unknown.to_str().unwrap(), "--no-judge"], None);
    assert!(
        stdout(&out).contains("warning: case `x` is labeled block for `t-nope`"),
        "{}",
        stdout(&out)
    );
}
