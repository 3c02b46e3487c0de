//! The text form of an evaluation report (`guard eval` without `--json`).
//! A held-out part prints its figures without the ids behind them, so that
//! reading the report does not make its cases tuning material (`--json`
//! still carries them).

use super::metrics::{Confusion, TurnFigures, Wrong};
use super::Report;

fn fig(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "n/a".into())
}

fn ids(list: &[String]) -> String {
    list.join(", ")
}

fn wrongs(list: &[Wrong]) -> String {
    list.iter()
        .map(|w| format!("{} ({}→{})", w.id, w.expected, w.got))
        .collect::<Vec<_>>()
        .join(", ")
}

fn confusion(out: &mut String, indent: &str, c: &Confusion, heldout: bool) {
    out.push_str(&format!(
        "{indent}precision {}  recall {}  F1 {}  (cases with a failed judgment: {})\n",
        fig(c.precision),
        fig(c.recall),
        fig(c.f1),
        c.judge_failures
    ));
    out.push_str(&format!("{indent}                 got block  got allow\n"));
    out.push_str(&format!(
        "{indent}labeled block    {:>9}  {:>9}\n",
        c.true_positives, c.false_negatives
    ));
    out.push_str(&format!(
        "{indent}labeled allow    {:>9}  {:>9}\n",
        c.false_positives, c.true_negatives
    ));
    if !c.wrong.is_empty() && !heldout {
        out.push_str(&format!("{indent}wrong: {}\n", wrongs(&c.wrong)));
    }
}

fn turn_line(t: &TurnFigures) -> String {
    // The turns only a whole-turn judgment caught, when there are any.
    let joined = match t.caught_joined {
        0 => String::new(),
        n => format!(", {n} by the whole turn"),
    };
    format!(
        "recall {} ({}/{}{joined})  pass-through {} ({}/{})  let through by a bypass {}",
        fig(t.recall),
        t.caught,
        t.block_turns,
        fig(t.pass_through),
        t.passed,
        t.ordinary_turns,
        t.bypassed.len()
    )
}

fn turn_section(out: &mut String, report: &Report, by_lang: bool) {
    let Some(t) = &report.turns else { return };
    out.push_str(&format!("\nper turn, layer 1: {}\n", turn_line(t)));
    if !report.heldout {
        for (label, list) in [
            ("missed", &t.missed),
            ("bypassed", &t.bypassed),
            ("false hits", &t.false_hits),
        ] {
            if !list.is_empty() {
                out.push_str(&format!("    {label}: {}\n", ids(list)));
            }
        }
    }
    if let Some(u) = &report.turns_unambiguous {
        out.push_str(&format!("  without ambiguous cases: {}\n", turn_line(u)));
    }
    if let Some([with_actions, text_only]) = &report.turns_by_evidence {
        out.push_str(&format!(
            "  turns with actions: {}\n",
            turn_line(with_actions)
        ));
        out.push_str(&format!("  text-only turns: {}\n", turn_line(text_only)));
    }
    if by_lang {
        for (lang, l) in &report.turns_by_lang {
            out.push_str(&format!("  {lang:<4} {}\n", turn_line(l)));
        }
    }
}

/// Renders the report for a terminal; `by_lang` adds the per-turn figures
/// of each language.
pub fn text(report: &Report, judge: &str, by_lang: bool) -> String {
    let mut out = format!(
        "guard eval: {}{} case(s): {} turn-end, {} pre-tool; judge: {}\n",
        match &report.file {
            Some(f) if report.heldout => format!("{f} (held-out): "),
            Some(f) => format!("{f}: "),
            None => String::new(),
        },
        report.cases,
        report.turn_end_cases,
        report.pre_tool_cases,
        if report.judged {
            judge
        } else {
            "not asked (--no-judge)"
        }
    );
    for w in &report.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    turn_section(&mut out, report, by_lang);
    for d in &report.detectors {
        out.push_str(&format!(
            "\n{}{}\n",
            d.detector,
            if d.mode.is_some() { " (shadow)" } else { "" }
        ));
        out.push_str(&format!(
            "  layer 1: recall {} ({}/{})  pass-through {} ({}/{})  bypass errors {}\n",
            fig(d.layer1_recall),
            d.layer1_hits,
            d.block_cases,
            fig(d.layer1_pass_through),
            d.passed_through,
            d.other_cases,
            d.bypass_errors.len()
        ));
        for (label, list) in [
            ("missed", &d.layer1_missed),
            ("bypassed", &d.bypass_errors),
            ("false hits", &d.layer1_false_hits),
        ] {
            if !list.is_empty() && !report.heldout {
                out.push_str(&format!("    {label}: {}\n", ids(list)));
            }
        }
        if let Some(c) = &d.end_to_end {
            out.push_str("  end to end:\n");
            confusion(&mut out, "    ", c, report.heldout);
        }
    }
    if let Some(c) = &report.overall {
        out.push_str(
            "\nall turn-end detectors together (a case labeled block for any must be blocked):\n",
        );
        confusion(&mut out, "  ", c, report.heldout);
    }
    if let Some(g) = &report.pre_tool {
        out.push_str("\npre-tool:\n");
        out.push_str(&format!(
            "  deny recall {} ({}/{})  ask recall {} ({}/{}, asked or denied)  pass-through {} ({}/{})\n",
            fig(g.deny_recall),
            g.denied,
            g.deny_cases,
            fig(g.ask_recall),
            g.asked,
            g.ask_cases,
            fig(g.pass_through),
            g.allowed,
            g.allow_cases
        ));
        out.push_str(&format!(
            "  false denies: {}\n",
            if g.false_denies.is_empty() {
                "none".into()
            } else if report.heldout {
                g.false_denies.len().to_string()
            } else {
                ids(&g.false_denies)
            }
        ));
        if !g.wrong.is_empty() && !report.heldout {
            out.push_str(&format!("  wrong: {}\n", wrongs(&g.wrong)));
        }
    }
    out
}

/// One line per part, for an evaluation of several corpus files.
pub fn summary(reports: &[Report]) -> String {
    let mut out = String::from("\nper turn, layer 1, by part:\n");
    for r in reports {
        let name = r.file.as_deref().unwrap_or("(corpus)");
        let role = if r.heldout { "held-out" } else { "tuning" };
        match &r.turns {
            Some(t) => out.push_str(&format!("  {name} ({role}): {}\n", turn_line(t))),
            None => out.push_str(&format!("  {name} ({role}): no turn-end cases\n")),
        }
    }
    out
}
