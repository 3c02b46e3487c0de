//! Loading the merged config and its engine for the measuring subcommands
//! (`eval`, `replay`, `label`, `log`, `stats`, `pause`).

use guard::config::{self, Config, LoadOptions};
use guard::engine::Engine;
use std::path::{Path, PathBuf};

/// The merged config for an agent (`None`: no agent overrides) and a
/// working directory (whose repository's `.guard.yaml` applies).
pub fn config(
    explicit: Option<PathBuf>,
    agent: Option<&str>,
    cwd: Option<&Path>,
) -> Result<Config, String> {
    let cwd = cwd
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    let opts = LoadOptions {
        explicit,
        cwd,
        agent: agent.map(str::to_string),
        only_explicit: false,
    };
    let loaded = config::load(&opts).map_err(|e| e.to_string())?;
    for r in &loaded.refused {
        eprintln!("warning: project config refused (it would loosen your policy): {r}");
    }
    Ok(loaded.config)
}

/// The merged config and the engine of its enabled detectors; unknown
/// detector names in the config are reported on stderr and skipped.
pub fn engine(
    explicit: Option<PathBuf>,
    agent: Option<&str>,
    cwd: Option<&Path>,
) -> Result<(Config, Engine), String> {
    let cfg = config(explicit, agent, cwd)?;
    let (detectors, unknown) =
        guard::detector::load::load_lenient(&cfg).map_err(|e| e.to_string())?;
    for e in unknown {
        eprintln!("warning: {e}");
    }
    let engine = Engine::new(detectors)?;
    Ok((cfg, engine))
}
