//! `guard eval CORPUS.yaml…`: the detectors' figures on labeled corpora
//! (see docs/eval.md), each file reported on its own (`--heldout FILE`
//! marks a held-out part); `--from-log` builds the corpus from labeled
//! decisions.

use super::setup;
use clap::Args;
use guard::eval::{self, corpus, labels, EvalSettings};
use guard::shell::ShellContext;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Arguments of `guard eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The corpora (YAML lists of labeled cases): tuning parts, each reported apart.
    #[arg(
        required_unless_present_any = ["from_log", "heldout"],
        conflicts_with = "from_log"
    )]
    corpus: Vec<PathBuf>,
    /// A held-out corpus, reported apart and marked as held out (repeatable).
    #[arg(long, value_name = "FILE", conflicts_with = "from_log")]
    heldout: Vec<PathBuf>,
    /// Also print the per-turn figures of each language.
    #[arg(long)]
    by_lang: bool,
    /// Also print, over the tuning parts, the turns each signal sends to the judge.
    #[arg(long)]
    by_signal: bool,
    /// Layer 1 only: no judge calls, no end-to-end figures for turn ends.
    #[arg(long)]
    no_judge: bool,
    /// Print the figures as one JSON object.
    #[arg(long)]
    json: bool,
    /// Exit 1 when any recall is below this (0..1).
    #[arg(long, value_name = "X")]
    min_recall: Option<f64>,
    /// Exit 1 when any pass-through is below this (0..1).
    #[arg(long, value_name = "Y")]
    min_pass_through: Option<f64>,
    /// Exit 1 when a part's per-turn Layer-1 recall is below this (0..1).
    #[arg(long, value_name = "X")]
    min_turn_recall: Option<f64>,
    /// Exit 1 when a part's per-turn Layer-1 pass-through is below this (0..1).
    #[arg(long, value_name = "Y")]
    min_turn_pass_through: Option<f64>,
    /// Use the labeled decisions of the log (`guard label`) as the corpus.
    #[arg(long)]
    from_log: bool,
    /// With --from-log: print the corpus as YAML instead of evaluating it.
    #[arg(long, requires = "from_log")]
    emit_corpus: bool,
    /// The agent whose config overrides apply.
    #[arg(long)]
    agent: Option<String>,
    /// Ask the judge afresh instead of using the verdict cache.
    #[arg(long)]
    no_cache: bool,
    /// Pre-tool cases: the agent's working directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Pre-tool cases: the repository root (default: the nearest `.git` above --cwd).
    #[arg(long, value_name = "DIR")]
    repo_root: Option<PathBuf>,
    /// Pre-tool cases: the user's home (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("guard eval: {msg}");
    2
}

/// Runs `guard eval`; 0 = figures met, 1 = below a minimum, 2 = error.
pub fn run(args: EvalArgs, config_path: Option<PathBuf>) -> u8 {
    let (cfg, engine) = match setup::engine(config_path, args.agent.as_deref(), None) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let state_dir = guard::paths::state_dir();
    let mut parts: Vec<(Option<String>, bool, Vec<corpus::Case>)> = Vec::new();
    if args.from_log {
        let records = match guard::logview::read(&cfg.log.dir()) {
            Ok(r) => r,
            Err(e) => {
                return fail(format!(
                    "cannot read the decision log in {}: {e}",
                    cfg.log.dir().display()
                ))
            }
        };
        let (cases, skipped) = labels::corpus(&records, &labels::read(&state_dir));
        if skipped > 0 {
            eprintln!("guard eval: {skipped} labeled decision(s) skipped: their text was not kept (log.keep_text) or they are no longer in the log");
        }
        if args.emit_corpus {
            print!("{}", corpus::to_yaml(&cases));
            return 0;
        }
        parts.push((None, false, cases));
    } else {
        let files = args
            .corpus
            .iter()
            .map(|p| (p, false))
            .chain(args.heldout.iter().map(|p| (p, true)));
        for (path, heldout) in files {
            let name = path.display().to_string();
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => return fail(format!("cannot read {name}: {e}")),
            };
            match corpus::parse(&name, &text) {
                Ok(c) if c.is_empty() => return fail(format!("{name}: the corpus has no cases")),
                Ok(c) => parts.push((Some(name), heldout, c)),
                Err(e) => return fail(e),
            }
        }
    }
    if parts.iter().all(|(_, _, c)| c.is_empty()) {
        return fail("the corpus has no cases");
    }
    let cwd = args.cwd.clone().or_else(|| std::env::current_dir().ok());
    let settings = EvalSettings {
        use_judge: !args.no_judge,
        cache_dir: (!args.no_cache).then(|| state_dir.join("cache")),
        agent: args.agent.clone().unwrap_or_else(|| "eval".into()),
        shell: ShellContext {
            repo_root: args
                .repo_root
                .clone()
                .or_else(|| cwd.as_deref().and_then(guard::paths::repo_root)),
            cwd,
            home: args.home.clone().or_else(guard::paths::home),
        },
    };
    let show_progress = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if show_progress {
            let width = 30;
            let filled = done * width / total.max(1);
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r[{}{}] {done}/{total}",
                "#".repeat(filled),
                ".".repeat(width - filled)
            );
            if done == total {
                let _ = write!(err, "\r\x1b[K");
            }
            let _ = err.flush();
        }
    };
    let mut reports = Vec::with_capacity(parts.len());
    for (file, heldout, cases) in &parts {
        let mut report = eval::run(&engine, &cfg, cases, &settings, &mut progress);
        report.file = file.clone();
        report.heldout = *heldout;
        reports.push(report);
    }
    let judge = guard::judge::resolve_backend(&cfg.judge);
    // Per-signal counts of the tuning parts only (see eval::signals).
    let tuning: Vec<&eval::Report> = reports.iter().filter(|r| !r.heldout).collect();
    let by_signal = args.by_signal.then(|| {
        let mut tally = eval::signals::SignalTally::default();
        tuning.iter().for_each(|r| tally.merge(&r.signals));
        tally.figures()
    });
    if args.json {
        let value = match reports.as_slice() {
            [one] => serde_json::to_value(one),
            all => serde_json::to_value(serde_json::json!({ "parts": all })),
        };
        let value = value.map(|mut v| {
            if let (Some(figures), Some(object)) = (&by_signal, v.as_object_mut()) {
                object.insert("signals".into(), serde_json::json!(figures));
            }
            v
        });
        println!(
            "{}",
            value
                .and_then(|v| serde_json::to_string_pretty(&v))
                .unwrap_or_default()
        );
    } else {
        for (i, r) in reports.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print!("{}", eval::report::text(r, &judge, args.by_lang));
        }
        if reports.len() > 1 {
            print!("{}", eval::report::summary(&reports));
        }
        match &by_signal {
            Some(_) if tuning.is_empty() => {
                println!("\nper signal: no tuning part (the counts are kept for tuning parts only)")
            }
            Some(figures) => print!("{}", eval::signals::text(figures, tuning.len())),
            None => {}
        }
    }
    let mut below = Vec::new();
    for r in &reports {
        let turn = eval::below_turn_minimums(r, args.min_turn_recall, args.min_turn_pass_through);
        for b in eval::below_minimums(r, args.min_recall, args.min_pass_through)
            .into_iter()
            .chain(turn)
        {
            below.push(match (&r.file, reports.len()) {
                (Some(f), 2..) => format!("{f}: {b}"),
                _ => b,
            });
        }
    }
    for b in &below {
        eprintln!("guard eval: {b}");
    }
    u8::from(!below.is_empty())
}
