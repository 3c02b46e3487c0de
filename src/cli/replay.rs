//! `guard replay LOG.jsonl`: reruns logged decisions against the current
//! config (or `--config F` layered on top) and lists those that flip.

use super::setup;
use clap::Args;
use guard::eval::replay;
use std::path::PathBuf;

/// Arguments of `guard replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A decision log file (or a log directory).
    log: PathBuf,
    /// Layer 1 only: no judge calls (a hit then gets the failure policy).
    #[arg(long)]
    no_judge: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Ask the judge afresh instead of using the verdict cache.
    #[arg(long)]
    no_cache: bool,
}

/// Runs `guard replay`; 0 = done (flips or not), 2 = error.
pub fn run(args: ReplayArgs, config_path: Option<PathBuf>) -> u8 {
    let records = match guard::logview::read(&args.log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("guard replay: cannot read {}: {e}", args.log.display());
            return 2;
        }
    };
    let mut load = |agent: &str, cwd: Option<&std::path::Path>| {
        setup::engine(config_path.clone(), Some(agent), cwd)
    };
    let cache = (!args.no_cache).then(|| guard::paths::state_dir().join("cache"));
    let report = match replay::replay(&records, &mut load, !args.no_judge, cache.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("guard replay: {e}");
            return 2;
        }
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print!("{}", replay::text(&report));
    }
    0
}
