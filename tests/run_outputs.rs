//! Reading a check's own failure from the end of its output
//! (`guard::actions::run_output`), measured on real runner outputs: a tuning
//! set produced by running each tool here, and a held-out set of outputs
//! quoted in public issues, labeled before the summary formats were tuned
//! and never tuned on (tests/fixtures/run-outputs/README.md).
//!
//! `cargo test --test run_outputs -- --nocapture` prints the figures per
//! runner.

use guard::actions::run_output::failure_reported;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Set {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    runner: String,
    expect: String,
    output: String,
}

/// Per runner: (failed runs read as failed, failed runs), (other outputs
/// read as failed, other outputs).
type Tally = BTreeMap<String, ((usize, usize), (usize, usize))>;

fn measure(file: &str) -> (Tally, Vec<String>) {
    let path = format!(
        "{}/tests/fixtures/run-outputs/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture");
    let set: Set = serde_saphyr::from_str(&text).expect("fixture parses");
    let mut tally = Tally::new();
    let mut wrong = Vec::new();
    for case in &set.cases {
        let read = failure_reported(&case.output);
        let entry = tally.entry(case.runner.clone()).or_default();
        let failed = case.expect == "failed";
        let cell = if failed { &mut entry.0 } else { &mut entry.1 };
        cell.1 += 1;
        cell.0 += usize::from(read.is_some());
        if read.is_some() != failed {
            wrong.push(format!("{} ({}): read {:?}", case.id, case.expect, read));
        }
    }
    (tally, wrong)
}

fn report(name: &str, tally: &Tally, wrong: &[String]) -> (f64, f64) {
    let (mut caught, mut failed, mut false_reads, mut others) = (0, 0, 0, 0);
    println!("{name}: runner, failed runs read as failed, other outputs read as failed");
    for (runner, ((c, f), (fr, o))) in tally {
        println!("  {runner:<14} {c}/{f}  {fr}/{o}");
        (caught, failed, false_reads, others) =
            (caught + c, failed + f, false_reads + fr, others + o);
    }
    let recall = caught as f64 / failed.max(1) as f64;
    let false_rate = false_reads as f64 / others.max(1) as f64;
    println!(
        "  all: {caught}/{failed} = {recall:.3}, false {false_reads}/{others} = {false_rate:.3}"
    );
    for line in wrong {
        println!("  wrong: {line}");
    }
    (recall, false_rate)
}

#[test]
fn tuning_outputs_are_read() {
    let (tally, wrong) = measure("tune.yaml");
    let (recall, false_rate) = report("tuning", &tally, &wrong);
    assert!(recall >= 0.95, "recall {recall:.3}: {wrong:#?}");
    assert_eq!(false_rate, 0.0, "{wrong:#?}");
}

#[test]
fn held_out_outputs_are_read() {
    let (tally, wrong) = measure("heldout.yaml");
    let (recall, false_rate) = report("held-out", &tally, &wrong);
    assert!(recall >= 0.60, "recall {recall:.3}");
    assert!(false_rate <= 0.02, "false reads {false_rate:.3}");
}
