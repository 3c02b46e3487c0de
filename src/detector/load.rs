//! Loading detectors: the built-in files, the user's files, and the config's
//! per-detector settings (enabled, mode, extra keywords and signals).
//!
//! The hook path loads in two steps: [`heads_lenient`] reads only what the
//! keyword pass needs, and [`resolve`] reads the rest once a keyword hit.

use super::{DetectorSpec, PatternSpec, Rule};
use crate::config::{Config, Mode};
use crate::event::{Event, EventKind};
use std::borrow::Cow;
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
    crate::builtin::DETECTORS_JSON
        .iter()
        .map(|(stem, _)| builtin(stem))
        .collect()
}

/// One built-in detector, from its pre-parsed JSON form (see `build.rs`):
/// JSON reads several times faster than YAML, and `guard hook` is a
/// short-lived process. Should the JSON not fit the schema, the YAML is
/// parsed instead, so that the error names the file's line and column.
fn builtin(stem: &str) -> Result<DetectorSpec, DetectorError> {
    let source_name = format!("detectors/{stem}.yaml");
    let json = crate::builtin::DETECTORS_JSON
        .iter()
        .find(|(s, _)| *s == stem)
        .map(|(_, j)| *j);
    if let Some(Ok(spec)) = json.map(serde_json::from_str::<DetectorSpec>) {
        return Ok(spec);
    }
    let yaml = crate::builtin::DETECTORS
        .iter()
        .find(|(s, _)| *s == stem)
        .map(|(_, y)| *y)
        .unwrap_or_default();
    parse(&source_name, yaml)
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
    let (heads, unknown) = heads_lenient(config)?;
    Ok((resolve(heads)?, unknown))
}

/// The part of a detector that Layer 1's keyword pass reads: whether it
/// applies to an event, and its keywords.
#[derive(Debug, Clone)]
pub struct Head {
    /// The detector's name.
    pub name: String,
    /// The event kinds it applies to.
    pub events: Vec<EventKind>,
    /// The canonical tool names it applies to (empty = all).
    pub tools: Vec<String>,
    /// Its Layer-1 keywords, the config's extra keywords included (the
    /// built-in ones borrowed from the binary).
    pub keywords: Vec<Cow<'static, str>>,
}

impl Head {
    /// Whether the detector applies to an event (its kind, and its tools).
    pub fn applies(&self, event: &Event) -> bool {
        crate::engine::applies_to(&self.events, &self.tools, event)
    }
}

/// An enabled detector known by its [`Head`]; [`resolve`] reads the rest.
///
/// `guard hook` is a new process on every event, and most events hit no
/// keyword: for those, reading each built-in detector's whole spec (prompts,
/// patterns) was wasted work. A built-in detector's head is constant data
/// that build.rs cut out of its file ([`crate::builtin::DETECTOR_HEADS`]).
#[derive(Debug, Clone)]
pub struct LoadedHead {
    /// Name, events, tools and keywords (extra keywords included).
    pub head: Head,
    /// Enforce or shadow.
    pub mode: Mode,
    /// Its place in [`crate::builtin::DETECTOR_HEADS`] when it is a built-in
    /// detector whose keywords are the built-in ones (no extra keywords):
    /// Layer 1 then uses the keyword index built ahead of time.
    pub builtin_keywords: Option<usize>,
    /// Signals the config adds.
    extra_signals: Vec<PatternSpec>,
    /// The config's say over its shell rules.
    shell: crate::shell::ShellSettings,
    /// Where the rest of the spec is.
    source: HeadSource,
}

#[derive(Debug, Clone)]
enum HeadSource {
    /// A built-in detector, by file stem: parsed on demand.
    Builtin(&'static str),
    /// A user's detector file, already parsed.
    Parsed(Box<DetectorSpec>),
}

fn builtin_head(head: &crate::builtin::BuiltinHead) -> Head {
    Head {
        name: head.name.to_string(),
        events: head.events.to_vec(),
        tools: head.tools.iter().map(|t| t.to_string()).collect(),
        keywords: head.keywords.iter().map(|k| Cow::Borrowed(*k)).collect(),
    }
}

/// The heads of the detectors the config enables, in [`load`]'s order, and
/// the config's unknown detector names (as [`load_lenient`]).
pub fn heads_lenient(
    config: &Config,
) -> Result<(Vec<LoadedHead>, Vec<DetectorError>), DetectorError> {
    let mut entries: Vec<(Head, HeadSource, Option<usize>)> = Vec::new();
    for (position, head) in crate::builtin::DETECTOR_HEADS.iter().enumerate() {
        entries.push((
            builtin_head(head),
            HeadSource::Builtin(head.stem),
            Some(position),
        ));
    }
    let mut unknown = Vec::new();
    for (name, settings) in &config.detectors {
        if let Some(file) = &settings.file {
            let spec = read_file(file)?;
            entries.retain(|(h, _, _)| h.name != spec.name);
            let head = Head {
                name: spec.name.clone(),
                events: spec.events.clone(),
                tools: spec.tools.clone(),
                keywords: spec.keywords.iter().cloned().map(Cow::Owned).collect(),
            };
            entries.push((head, HeadSource::Parsed(Box::new(spec)), None));
        } else if !entries.iter().any(|(h, _, _)| &h.name == name) {
            unknown.push(DetectorError::Unknown(name.clone()));
        }
    }
    let mut out = Vec::new();
    for (mut head, source, mut builtin_keywords) in entries {
        let settings = config
            .detectors
            .get(&head.name)
            .cloned()
            .unwrap_or_default();
        if !settings.enabled {
            continue;
        }
        if !settings.extra_keywords.is_empty() {
            builtin_keywords = None;
            head.keywords
                .extend(settings.extra_keywords.iter().cloned().map(Cow::Owned));
        }
        out.push(LoadedHead {
            head,
            mode: settings.mode,
            builtin_keywords,
            extra_signals: settings.extra_signals,
            shell: settings.shell,
            source,
        });
    }
    Ok((out, unknown))
}

/// Reads the whole spec of each detector, with the config's additions.
pub fn resolve(heads: Vec<LoadedHead>) -> Result<Vec<LoadedDetector>, DetectorError> {
    resolve_where(heads, |_| true)
}

/// Like [`resolve`], but reads the whole spec only of the detectors for
/// which `wanted(index)` holds; the others get their head alone (no
/// patterns, no judge, no message), which is all Layer 1 reads of a
/// detector whose keywords did not hit. `guard hook` spares itself the
/// parsing of specs it would not use.
pub fn resolve_where(
    heads: Vec<LoadedHead>,
    wanted: impl Fn(usize) -> bool,
) -> Result<Vec<LoadedDetector>, DetectorError> {
    heads
        .into_iter()
        .enumerate()
        .map(|(i, h)| {
            if !wanted(i) {
                let spec = DetectorSpec {
                    name: h.head.name,
                    description: String::new(),
                    events: h.head.events,
                    tools: h.head.tools,
                    keywords: owned(h.head.keywords),
                    signals: Vec::new(),
                    bypasses: Vec::new(),
                    shell: None,
                    judge: None,
                    on_violation: None,
                    reason: String::new(),
                };
                return Ok(LoadedDetector { spec, mode: h.mode });
            }
            let mut spec = match h.source {
                HeadSource::Builtin(stem) => builtin(stem)?,
                HeadSource::Parsed(spec) => *spec,
            };
            spec.keywords = owned(h.head.keywords);
            spec.signals.extend(h.extra_signals);
            if let Some(rules) = spec.shell.as_mut() {
                h.shell.apply(rules).map_err(|e| DetectorError::Invalid {
                    detector: spec.name.clone(),
                    message: format!("config `detectors.{}.shell`: {e}", spec.name),
                })?;
            }
            Ok(LoadedDetector { spec, mode: h.mode })
        })
        .collect()
}

fn owned(keywords: Vec<Cow<'static, str>>) -> Vec<String> {
    keywords.into_iter().map(Cow::into_owned).collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `guard hook` reads built-in detectors from the JSON that build.rs
    /// pre-parsed; it must be the same spec as the YAML file says.
    #[test]
    fn every_pre_parsed_builtin_detector_is_its_yaml_file() {
        let pairs = crate::builtin::DETECTORS
            .iter()
            .zip(crate::builtin::DETECTORS_JSON);
        assert_eq!(
            crate::builtin::DETECTORS.len(),
            crate::builtin::DETECTORS_JSON.len()
        );
        for ((stem, yaml), (json_stem, json)) in pairs {
            assert_eq!(stem, json_stem);
            let from_yaml = parse(stem, yaml).unwrap();
            let from_json: DetectorSpec = serde_json::from_str(json).unwrap();
            assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"), "{stem}");
        }
    }

    /// The embedded heads are the heads of the detector files.
    #[test]
    fn every_embedded_head_is_its_detector_file() {
        let specs = builtins().unwrap();
        assert_eq!(specs.len(), crate::builtin::DETECTOR_HEADS.len());
        for (spec, head) in specs.iter().zip(crate::builtin::DETECTOR_HEADS) {
            let head = builtin_head(head);
            assert_eq!(head.name, spec.name);
            assert_eq!(head.events, spec.events);
            assert_eq!(head.tools, spec.tools);
            assert_eq!(owned(head.keywords), spec.keywords);
        }
    }
}
