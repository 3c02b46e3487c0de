//! `guard label DECISION_ID LABEL`: records a human label on a logged
//! decision, for `guard eval --from-log`.

use super::setup;
use clap::Args;
use guard::eval::labels;
use std::path::PathBuf;

/// Arguments of `guard label`.
#[derive(Args, Debug)]
pub struct LabelArgs {
    /// The decision id (shown by `guard log`).
    decision_id: String,
    /// What the decision should have been: block or allow (turn ends), deny, ask or allow (pre_tool).
    #[arg(value_parser = ["block", "allow", "deny", "ask"])]
    label: String,
    /// For block: the detector that must block (default: those that blocked, or the only one that fired).
    #[arg(long)]
    detector: Option<String>,
}

/// Runs `guard label`; 0 = recorded, 2 = error.
pub fn run(args: LabelArgs, config_path: Option<PathBuf>) -> u8 {
    let cfg = match setup::config(config_path, None, None) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("guard label: {e}");
            return 2;
        }
    };
    let records = guard::logview::read(&cfg.log.dir()).unwrap_or_default();
    let state_dir = guard::paths::state_dir();
    let result = labels::make(
        &records,
        &args.decision_id,
        &args.label,
        args.detector.as_deref(),
    )
    .and_then(|l| labels::append(&state_dir, &l).map(|_| l));
    match result {
        Ok(l) => {
            let which = if l.detectors.is_empty() {
                String::new()
            } else {
                format!(" ({})", l.detectors.join(", "))
            };
            println!("labeled {} as {}{which}", l.decision_id, l.label);
            if records
                .iter()
                .any(|r| r.id == l.decision_id && r.text.is_none() && r.command.is_none())
            {
                eprintln!("note: this decision's text was not kept (log.keep_text is off), so `guard eval --from-log` will skip it");
            }
            0
        }
        Err(e) => {
            eprintln!("guard label: {e}");
            2
        }
    }
}
