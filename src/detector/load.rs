//! Loading detectors: the built-in files, the user's files, and the config's
//! per-detector settings (enabled, mode, extra keywords and signals).

use super::{DetectorSpec, Rule};
use crate::config::{Config, Mode};
use std::path::Path;

/// A detector ready for the engine.
#[derive(Debug, Clone)]
pub struct LoadedDetector {
    /// Its spec, with the config's extra keywords and signals added.
    pub spec: DetectorSpec,
    /// Enforce or shadow.
    pub mode: Mode,
}

/// A detector file that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DetectorError {
    /// The YAML does not parse or does not fit the detector format.
    #[error("detector file {source_name}{}: {message}", loc(*.line, *.column))]
    Parse {
        /// The file.
        source_name: String,
        /// 1-based line.
        line: Option<u64>,
        /// 1-based column.
        column: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// A pattern or rule in it is invalid.
    #[error("detector `{detector}`: {message}")]
    Invalid {
        /// The detector's name.
        detector: String,
        /// What is wrong.
        message: String,
    },
    /// The config names a detector that does not exist.
    #[error("config: detector `{0}` is neither built in nor given a `file:`")]
    Unknown(String),
}

fn loc(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        _ => String::new(),
    }
}

/// Parses one detector file.
pub fn parse(source_name: &str, text: &str) -> Result<DetectorSpec, DetectorError> {
    let options = crate::config::yaml_options();
    let spec: DetectorSpec = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let l = e.location();
        DetectorError::Parse {
            source_name: source_name.to_string(),
            line: l.map(|l| l.line()),
            column: l.map(|l| l.column()),
            message: e.to_string().lines().next().unwrap_or_default().to_string(),
        }
    })?;
    Ok(spec)
}

/// Checks what parsing cannot: rules parse, patterns compile, judge fields
/// cover the rule. Costly (compiles every regex): for `guard config validate`
/// and tests, not the hook path.
pub fn validate(spec: &DetectorSpec) -> Result<(), DetectorError> {
    let invalid = |message: String| DetectorError::Invalid {
        detector: spec.name.clone(),
        message,
    };
    if let Some(judge) = &spec.judge {
        let rule =
            Rule::parse(&judge.violation).map_err(|e| invalid(format!("violation rule: {e}")))?;
        for field in rule.fields() {
            if !judge.fields.iter().any(|f| f.name == field) {
                return Err(invalid(format!(
                    "the violation rule uses `{field}`, which is not among the judge's fields"
                )));
            }
        }
    }
    for p in spec.signals.iter().chain(&spec.bypasses) {
        crate::engine::compile_pattern(&p.pattern)
            .map_err(|e| invalid(format!("pattern `{}`: {e}", p.id)))?;
    }
    if let Some(shell) = &spec.shell {
        shell.validate().map_err(|e| invalid(e.to_string()))?;
    }
    if spec.keywords.iter().any(|k| k.trim().is_empty()) {
        return Err(invalid("an empty keyword would match everything".into()));
    }
    Ok(())
}

/// The built-in detectors, parsed.
pub fn builtins() -> Result<Vec<DetectorSpec>, DetectorError> {
    crate::builtin::DETECTORS
        .iter()
        .map(|(stem, text)| parse(&format!("detectors/{stem}.yaml"), text))
        .collect()
}

/// The detectors the config enables, in a stable order (built-ins first).
/// A config entry naming no known detector is an error here; the hook path
/// uses [`load_lenient`] so that one typo does not switch every detector off.
pub fn load(config: &Config) -> Result<Vec<LoadedDetector>, DetectorError> {
    let (detectors, unknown) = load_lenient(config)?;
    match unknown.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(detectors),
    }
}

/// Like [`load`], but unknown detector names are returned beside the
/// detectors instead of failing.
pub fn load_lenient(
    config: &Config,
) -> Result<(Vec<LoadedDetector>, Vec<DetectorError>), DetectorError> {
    let mut specs = builtins()?;
    let mut unknown = Vec::new();
    for (name, settings) in &config.detectors {
        if let Some(file) = &settings.file {
            let spec = read_file(file)?;
            specs.retain(|s| s.name != spec.name);
            specs.push(spec);
        } else if !specs.iter().any(|s| &s.name == name) {
            unknown.push(DetectorError::Unknown(name.clone()));
        }
    }
    let mut out = Vec::new();
    for mut spec in specs {
        let settings = config
            .detectors
            .get(&spec.name)
            .cloned()
            .unwrap_or_default();
        if !settings.enabled {
            continue;
        }
        spec.keywords
            .extend(settings.extra_keywords.iter().cloned());
        spec.signals.extend(settings.extra_signals.iter().cloned());
        out.push(LoadedDetector {
            spec,
            mode: settings.mode,
        });
    }
    Ok((out, unknown))
}

fn read_file(path: &Path) -> Result<DetectorSpec, DetectorError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| DetectorError::Parse {
        source_name: name.clone(),
        line: None,
        column: None,
        message: format!("cannot read: {e}"),
    })?;
    parse(&name, &text)
}
