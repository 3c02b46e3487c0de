//! `guard eval` end to end with a real `command` judge: a small sh script
//! that answers every field `true` except for texts naming `docs/examples`.
//!
//! By hand, on tests/corpus/handcheck.yaml:
//! - t-commit judges its hits c1 c4 b1 (violation, block) and c6 (allow):
//!   TP 3, FP 0, FN 2 (c2 bypassed, c5 missed), TN 6: precision 1,
//!   recall 0.6, F1 0.75.
//! - t-scope: its three hits are violations: precision = recall = 1.
//! - pre-tool: g1 and g2 are violations and deny: deny recall 1/1, ask
//!   recall 1/1 (a deny counts as asked), false denies: g1.

mod ops_support;

use ops_support::{stderr, stdout, Env};
use serde_json::{json, Value};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/handcheck.yaml");

const JUDGE: &str = r#"input=$(cat)
nonce=$(printf '%s\n' "$input" | grep -- '--- text-end ' | tail -n1 | cut -d' ' -f3)
case "$input" in *docs/examples*) v=false;; *) v=true;; esac
printf '{"new_proposal": %s, "shrinks_scope": %s, "destructive": %s, "nonce": "%s", "reason": "the script says so"}' $v $v $v "$nonce"
"#;

#[test]
fn end_to_end_with_a_command_judge_equals_the_hand_count() {
    let env = Env::new();
    let script = env.write("judge.sh", JUDGE);
    let config = env.write(
        "judge.yaml",
        &format!(
            // The script answers one detector per call (a flat object).
            "judge: {{backend: command, command: [sh, {}], combine: false}}\n",
            script.display()
        ),
    );
    let out = env.guard(
        &[
            "--config",
            config.to_str().unwrap(),
            "eval",
            CORPUS,
            "--json",
            "--no-cache",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let det = |n: &str| {
        r["detectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["detector"] == n)
            .unwrap()["end_to_end"]
            .clone()
    };
    let counts = |e: &Value| {
        [
            "true_positives",
            "false_positives",
            "false_negatives",
            "true_negatives",
        ]
        .map(|k| e[k].as_u64().unwrap())
    };
    let c = det("t-commit");
    assert_eq!(counts(&c), [3, 0, 2, 6], "{c}");
    let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-9;
    assert!(
        close(&c["precision"], 1.0) && close(&c["recall"], 0.6) && close(&c["f1"], 0.75),
        "{c}"
    );
    assert_eq!(c["judge_failures"], 0);
    assert_eq!(counts(&det("t-scope")), [3, 0, 0, 8]);
    let g = &r["pre_tool"];
    assert_eq!(
        (g["deny_recall"].as_f64(), g["ask_recall"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(g["false_denies"], json!(["g1"]));
}
