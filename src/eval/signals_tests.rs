use super::*;
use crate::verdict::{Decision, DetectorReport, JudgeReport, NO_SIGNAL};

fn case(id: &str, must_block: &[&str]) -> TurnEndCase {
    TurnEndCase {
        id: id.into(),
        lang: "en".into(),
        text: String::new(),
        must_block: must_block.iter().map(|s| s.to_string()).collect(),
        note: None,
        source: None,
        agent: None,
        ambiguous: false,
        actions: Vec::new(),
        prompt: None,
    }
}

/// A verdict where each `(detector, layer1, joined, signals)` is reported.
fn verdict(reports: &[(&str, Layer1, bool, &[&str])]) -> Verdict {
    let mut v = Verdict::allow();
    for (name, layer1, joined, signals) in reports {
        v.detectors.push(DetectorReport {
            name: name.to_string(),
            layer1: *layer1,
            joined: *joined,
            keywords: Vec::new(),
            signals: signals.iter().map(|s| s.to_string()).collect(),
            bypasses: Vec::new(),
            judge: JudgeReport::skipped(),
            verdict: Decision::Allow,
            mode: None,
            reason: None,
        });
    }
    v
}

fn row<'a>(figures: &'a [SignalFigures], signal: &str) -> &'a SignalFigures {
    figures.iter().find(|f| f.signal == signal).expect(signal)
}

#[test]
fn a_signal_is_alone_only_where_no_other_signal_sends_or_catches_the_turn() {
    let cases = [
        case("ord-1", &[]),
        case("ord-2", &[]),
        case("block-1", &["b"]),
        case("block-2", &["b"]),
    ];
    let verdicts = [
        // An ordinary turn only `x` sends, and one `x` and `y` both send.
        verdict(&[
            ("a", Layer1::Hit, false, &["x"]),
            ("b", Layer1::Miss, true, &[]),
        ]),
        verdict(&[
            ("a", Layer1::Hit, false, &["x"]),
            ("b", Layer1::Hit, false, &["y"]),
        ]),
        // A block turn of `b` only `y` catches; another `b` misses and `a`'s
        // hit catches it through the whole-turn judgment.
        verdict(&[
            ("a", Layer1::Miss, true, &[]),
            ("b", Layer1::Hit, false, &["y"]),
        ]),
        verdict(&[
            ("a", Layer1::Hit, false, &["x"]),
            ("b", Layer1::Miss, true, &[]),
        ]),
    ];
    let results: Vec<_> = cases.iter().zip(&verdicts).collect();
    let figures = SignalTally::of(&results).figures();
    let x = row(&figures, "x");
    assert_eq!((x.ordinary_turns, x.ordinary_turns_alone), (2, 1));
    assert_eq!((x.block_turns, x.block_turns_alone), (1, 1));
    let y = row(&figures, "y");
    assert_eq!((y.ordinary_turns, y.ordinary_turns_alone), (1, 0));
    assert_eq!((y.block_turns, y.block_turns_alone), (1, 1));
}

#[test]
fn without_a_whole_turn_judgment_only_the_block_detectors_hits_catch() {
    let cases = [case("block", &["b"])];
    // `a` hit too, but nothing was joined: only `b`'s `y` catches the turn.
    let verdicts = [verdict(&[
        ("a", Layer1::Hit, false, &["x"]),
        ("b", Layer1::Hit, false, &["y"]),
    ])];
    let results: Vec<_> = cases.iter().zip(&verdicts).collect();
    let figures = SignalTally::of(&results).figures();
    assert_eq!(figures.len(), 1, "{figures:?}");
    assert_eq!(
        (figures[0].signal.as_str(), figures[0].block_turns_alone),
        ("y", 1)
    );
}

#[test]
fn a_bypassed_detector_counts_nothing_and_a_hit_with_no_signal_is_counted() {
    let cases = [case("ord", &[])];
    let verdicts = [verdict(&[
        ("a", Layer1::Bypass, false, &["x"]),
        ("b", Layer1::Hit, false, &[]),
    ])];
    let results: Vec<_> = cases.iter().zip(&verdicts).collect();
    let figures = SignalTally::of(&results).figures();
    assert_eq!(figures.len(), 1, "{figures:?}");
    assert_eq!(
        (figures[0].signal.as_str(), figures[0].ordinary_turns_alone),
        (NO_SIGNAL, 1)
    );
}

#[test]
fn tallies_of_parts_add_up_and_the_costliest_signal_comes_first() {
    let cases = [case("ord", &[]), case("block", &["a"])];
    let only = |s: &'static [&'static str]| verdict(&[("a", Layer1::Hit, false, s)]);
    let first = [only(&["cheap"]), only(&["cheap"])];
    let second = [only(&["costly"]), only(&["cheap"])];
    let mut tally = SignalTally::of(&cases.iter().zip(&first).collect::<Vec<_>>());
    tally.merge(&SignalTally::of(
        &cases.iter().zip(&second).collect::<Vec<_>>(),
    ));
    let figures = tally.figures();
    let names: Vec<_> = figures.iter().map(|f| f.signal.as_str()).collect();
    assert_eq!(names, ["costly", "cheap"]);
    let cheap = row(&figures, "cheap");
    assert_eq!((cheap.ordinary_turns, cheap.block_turns_alone), (1, 2));
}
