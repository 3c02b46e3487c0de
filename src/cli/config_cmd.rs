//! `guard config show` and `guard config validate`.

use clap::Subcommand;
use guard::config::{self, LoadOptions};
use std::path::PathBuf;

/// What to do with the config.
#[derive(Subcommand, Debug)]
pub enum ConfigAction {
    /// Print the merged config and which file each value came from.
    Show {
        /// Apply this agent's overrides.
        #[arg(long)]
        agent: Option<String>,
    },
    /// Check every layer and the detectors; exit non-zero on an error.
    Validate,
}

/// Runs the action; returns the exit code.
pub fn run(action: ConfigAction, config_path: Option<PathBuf>) -> u8 {
    let agent = match &action {
        ConfigAction::Show { agent } => agent.clone(),
        ConfigAction::Validate => None,
    };
    let opts = LoadOptions {
        explicit: config_path,
        cwd: std::env::current_dir().ok(),
        agent,
        only_explicit: false,
    };
    let loaded = match config::load(&opts) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    for r in &loaded.refused {
        eprintln!("warning: project config refused (it would loosen your policy): {r}");
    }
    match action {
        ConfigAction::Show { .. } => {
            println!(
                "# layers, lowest first: {}",
                loaded
                    .layers
                    .iter()
                    .map(|l| l.source.as_str())
                    .collect::<Vec<_>>()
                    .join(" < ")
            );
            let sources = loaded.sources();
            let width = sources.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (key, source) in &sources {
                let value = key
                    .split('.')
                    .try_fold(&loaded.merged, |v, k| v.get(k))
                    .cloned()
                    .unwrap_or_default();
                println!("{key:width$} = {value}    # {source}");
            }
            0
        }
        ConfigAction::Validate => {
            let detectors = match guard::detector::load::load(&loaded.config) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{e}");
                    return 1;
                }
            };
            for d in &detectors {
                if let Err(e) = guard::detector::load::validate(&d.spec) {
                    eprintln!("{e}");
                    return 1;
                }
            }
            println!(
                "config OK: {} layer(s), {} detector(s) enabled",
                loaded.layers.len(),
                detectors.len()
            );
            0
        }
    }
}
