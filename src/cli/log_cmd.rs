//! `guard log` and `guard stats`: the decision log, listed or summed up.

use super::setup;
use clap::Args;
use guard::logview::{list, signals, stats, time, Filter, Record};
use std::path::PathBuf;

/// Arguments of `guard log`.
#[derive(Args, Debug)]
pub struct LogArgs {
    /// Only decisions since a date (2026-12-01), an RFC 3339 time or a duration ago (2h, 3d).
    #[arg(long, value_name = "D")]
    since: Option<String>,
    /// Only decisions where this detector fired or did not allow.
    #[arg(long, value_name = "N")]
    detector: Option<String>,
    /// Only decisions with this verdict (allow, block, deny, ask).
    #[arg(long, value_name = "V")]
    verdict: Option<String>,
    /// Print the records as JSON lines.
    #[arg(long)]
    json: bool,
}

/// Arguments of `guard stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Only decisions since a date (2026-12-01), an RFC 3339 time or a duration ago (2h, 3d).
    #[arg(long, value_name = "D")]
    since: Option<String>,
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
    /// One row per Layer-1 signal: its hits, and what the judge found on them.
    #[arg(long)]
    by_signal: bool,
}

/// The log's records, typed and as written, and the `--since` bound.
type Loaded = (Vec<Record>, Vec<serde_json::Value>, Option<i64>);

fn load(config_path: Option<PathBuf>, since: Option<&str>, what: &str) -> Result<Loaded, String> {
    let cfg = setup::config(config_path, None, None)?;
    let since_ms = since
        .map(|s| time::parse_since(s, time::now_millis()))
        .transpose()?;
    let dir = cfg.log.dir();
    let values = guard::log::read_all(&dir);
    let records = values
        .iter()
        .map(|v| serde_json::from_value::<Record>(v.clone()).unwrap_or_default())
        .collect();
    if values.is_empty() {
        eprintln!("guard {what}: no decisions in {}", dir.display());
    }
    Ok((records, values, since_ms))
}

/// Runs `guard log`.
pub fn run_log(args: LogArgs, config_path: Option<PathBuf>) -> u8 {
    let (records, values, since_ms) = match load(config_path, args.since.as_deref(), "log") {
        Ok(x) => x,
        Err(e) => {
            eprintln!("guard log: {e}");
            return 2;
        }
    };
    let filter = Filter {
        since_ms,
        detector: args.detector,
        verdict: args.verdict,
    };
    for (r, v) in records.iter().zip(&values) {
        if !filter.accepts(r) {
            continue;
        }
        if args.json {
            println!("{}", serde_json::to_string(v).unwrap_or_default());
        } else {
            println!("{}", list::line(r));
        }
    }
    0
}

/// Runs `guard stats`.
pub fn run_stats(args: StatsArgs, config_path: Option<PathBuf>) -> u8 {
    let (records, _, since_ms) = match load(config_path, args.since.as_deref(), "stats") {
        Ok(x) => x,
        Err(e) => {
            eprintln!("guard stats: {e}");
            return 2;
        }
    };
    let filter = Filter {
        since_ms,
        ..Filter::default()
    };
    let kept: Vec<Record> = records.into_iter().filter(|r| filter.accepts(r)).collect();
    if args.by_signal {
        let rows = signals::compute(&kept);
        match args.json {
            true => println!(
                "{}",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            ),
            false => print!("{}", signals::table(&rows)),
        }
        return 0;
    }
    let rows = stats::compute(&kept);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
    } else {
        print!("{}", stats::table(&rows));
    }
    0
}
