//! Loading detectors: the built-in files, the user's files, and the config's
//! per-detector settings (enabled, mode, extra keywords and signals).
//!
//! The hook path loads in two steps: [`heads_lenient`] reads only what the
//! keyword pass needs, and [`LoadedHead::read`] reads the rest of the
//! detectors whose keywords hit.

pub use super::error::DetectorError;
use super::{DetectorSpec, Head, PatternSpec, Rule, RuleKeywords};
use crate::config::{Config, Mode};
use crate::event::Event;
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
            let computed = judge.computed.iter().any(|c| c.name() == field);
            if !computed && !judge.fields.iter().any(|f| f.name == field) {
                return Err(invalid(format!(
                    "the violation rule uses `{field}`, which is neither among the judge's fields nor computed"
                )));
            }
        }
    }
    super::evidence::validate(spec).map_err(invalid)?;
    for p in spec
        .signals
        .iter()
        .chain(&spec.bypasses)
        .chain(&spec.request_bypasses)
    {
        crate::pattern::compile(&p.pattern)
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
    crate::builtin::detectors()
        .map(|(stem, json)| read_builtin(stem, json))
        .collect()
}

/// A built-in detector from its embedded JSON, with the literal gates
/// build.rs computed for its patterns.
fn read_builtin(stem: &'static str, json: &str) -> Result<DetectorSpec, DetectorError> {
    #[derive(serde::Deserialize)]
    struct Gates {
        signals: Vec<Cow<'static, str>>,
        bypasses: Vec<Cow<'static, str>>,
        request_bypasses: Vec<Cow<'static, str>>,
    }
    let mut spec: DetectorSpec = from_json(stem, json)?;
    if let Some((_, gates)) = crate::builtin::pattern_gates().find(|(s, _)| *s == stem) {
        let gates: Gates = from_json(stem, gates)?;
        for (p, g) in spec.signals.iter_mut().zip(gates.signals) {
            p.builtin_gate = Some(g);
        }
        for (p, g) in spec.bypasses.iter_mut().zip(gates.bypasses) {
            p.builtin_gate = Some(g);
        }
        for (p, g) in spec.request_bypasses.iter_mut().zip(gates.request_bypasses) {
            p.builtin_gate = Some(g);
        }
    }
    Ok(spec)
}

/// Reads one embedded form (a built-in detector's JSON, or its head) into
/// its type. The JSON was written by build.rs from the detector's file, and
/// the unit tests read every one: an error here is a bug, reported with the
/// file's name rather than a panic.
fn from_json<T: serde::de::DeserializeOwned>(stem: &str, json: &str) -> Result<T, DetectorError> {
    serde_json::from_str(json).map_err(|e| embedded_error(stem, e))
}

fn embedded_error(stem: &str, e: serde_json::Error) -> DetectorError {
    DetectorError::Parse {
        source_name: format!("detectors/{stem}.yaml (embedded)"),
        line: None,
        column: None,
        message: e.to_string(),
    }
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

/// An enabled detector known by its [`Head`]; [`LoadedHead::read`] reads
/// the rest.
///
/// `guard hook` is a new process on every event, and most events hit no
/// keyword: for those, reading each built-in detector's whole spec (prompts,
/// patterns) was wasted work.
#[derive(Debug, Clone)]
pub struct LoadedHead {
    /// Name, events, tools and keywords (extra keywords included).
    pub head: Head,
    /// Enforce or shadow.
    pub mode: Mode,
    /// Signals the config adds.
    extra_signals: Vec<PatternSpec>,
    /// The config's say over its shell rules.
    shell: crate::shell::ShellSettings,
    /// The config's `verification`, replacing the detector file's.
    verification: Option<super::VerificationSource>,
    /// The config's `gate`, replacing the detector file's.
    gate: Option<super::Gate>,
    /// Where the rest of the spec is.
    source: HeadSource,
}

#[derive(Debug, Clone)]
enum HeadSource {
    /// A built-in detector, by file stem: read on demand.
    Builtin(&'static str),
    /// A user's detector file, already parsed.
    Parsed(Box<DetectorSpec>),
}

impl LoadedHead {
    /// The whole detector, with the config's additions.
    pub fn read(self) -> Result<LoadedDetector, DetectorError> {
        let mut spec = match self.source {
            HeadSource::Builtin(stem) => {
                let (_, json) = crate::builtin::detectors()
                    .find(|(s, _)| *s == stem)
                    .ok_or_else(|| DetectorError::Unknown(stem.to_string()))?;
                read_builtin(stem, json)?
            }
            HeadSource::Parsed(spec) => *spec,
        };
        spec.keywords = self.head.keywords.iter().map(String::from).collect();
        spec.signals.extend(self.extra_signals);
        spec.gate = self.gate.unwrap_or(spec.gate);
        if let (Some(v), Some(judge)) = (self.verification, spec.judge.as_mut()) {
            judge.verification = v;
        }
        if let Some(rules) = spec.shell.as_mut() {
            self.shell
                .apply(rules)
                .map_err(|e| DetectorError::Invalid {
                    detector: spec.name.clone(),
                    message: format!("config `detectors.{}.shell`: {e}", spec.name),
                })?;
        }
        Ok(LoadedDetector {
            spec,
            mode: self.mode,
        })
    }
}

impl LoadedHead {
    /// The keyword lists of the detector's action rules, in the order of
    /// its head's rules (which are read without them), without the rest of
    /// the detector: whether a rule hits decides whether it is read.
    pub fn action_keywords(&self) -> Result<Vec<RuleKeywords>, DetectorError> {
        match &self.source {
            HeadSource::Builtin(stem) => {
                let (_, json) = crate::builtin::detector_actions()
                    .find(|(s, _)| s == stem)
                    .ok_or_else(|| DetectorError::Unknown(stem.to_string()))?;
                serde_json::from_str(json).map_err(|e| embedded_error(stem, e))
            }
            HeadSource::Parsed(spec) => Ok(spec.actions.iter().map(RuleKeywords::of).collect()),
        }
    }

    /// What a judgment of the detector reads: its name, events, judge
    /// section (with the config's `verification`), `on_violation` and
    /// `reason`, without its keywords, patterns or rules. For a detector
    /// that joins a whole-turn judgment: its Layer 1 does not run, and a
    /// built-in detector's patterns are most of its reading.
    pub fn judgment_part(&self) -> Result<LoadedDetector, DetectorError> {
        let mut spec: DetectorSpec = match &self.source {
            HeadSource::Builtin(stem) => {
                let (_, json) = crate::builtin::detector_judgments()
                    .find(|(s, _)| s == stem)
                    .ok_or_else(|| DetectorError::Unknown(stem.to_string()))?;
                from_json(stem, json)?
            }
            HeadSource::Parsed(spec) => (**spec).clone(),
        };
        if let (Some(v), Some(judge)) = (self.verification, spec.judge.as_mut()) {
            judge.verification = v;
        }
        Ok(LoadedDetector {
            spec,
            mode: self.mode,
        })
    }
}

/// A detector as the engine holds it: by its head until its keywords hit,
/// then by its whole spec.
// A full detector is bigger than a head, but a hook holds only a handful of
// either, and boxing the full one would only move the allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Detector {
    /// Only the head was read.
    Head(LoadedHead),
    /// The whole spec was read.
    Full(LoadedDetector),
}

impl Detector {
    /// The detector's name.
    pub fn name(&self) -> &str {
        match self {
            Detector::Head(h) => &h.head.name,
            Detector::Full(d) => &d.spec.name,
        }
    }

    /// Enforce or shadow.
    pub fn mode(&self) -> Mode {
        match self {
            Detector::Head(h) => h.mode,
            Detector::Full(d) => d.mode,
        }
    }

    /// Whether the detector applies to an event (its kind, and its tools).
    pub fn applies(&self, event: &Event) -> bool {
        match self {
            Detector::Head(h) => h.head.applies(event),
            Detector::Full(d) => d.spec.applies(event),
        }
    }

    /// Its keywords (extra keywords included).
    pub fn keywords(&self) -> Vec<&str> {
        match self {
            Detector::Head(h) => h.head.keywords.iter().collect(),
            Detector::Full(d) => d.spec.keywords.iter().map(String::as_str).collect(),
        }
    }

    /// The whole detector, when it was read.
    pub fn full(&self) -> Option<&LoadedDetector> {
        match self {
            Detector::Head(_) => None,
            Detector::Full(d) => Some(d),
        }
    }

    /// The whole detector: read now if only its head was.
    pub fn read(self) -> Result<Detector, DetectorError> {
        match self {
            Detector::Head(h) => Ok(Detector::Full(h.read()?)),
            full => Ok(full),
        }
    }
}

/// The heads of the detectors the config enables, in [`load`]'s order, and
/// the config's unknown detector names (as [`load_lenient`]).
pub fn heads_lenient(
    config: &Config,
) -> Result<(Vec<LoadedHead>, Vec<DetectorError>), DetectorError> {
    let mut entries: Vec<(Head, HeadSource)> = Vec::new();
    for (stem, head) in crate::builtin::detector_heads() {
        let head: Head = serde_json::from_str(head).map_err(|e| embedded_error(stem, e))?;
        entries.push((head, HeadSource::Builtin(stem)));
    }
    let mut unknown = Vec::new();
    for (name, settings) in &config.detectors {
        if let Some(file) = &settings.file {
            let spec = read_file(file)?;
            entries.retain(|(h, _)| h.name != spec.name);
            entries.push((spec.head(), HeadSource::Parsed(Box::new(spec))));
        } else if !entries.iter().any(|(h, _)| &h.name == name) {
            unknown.push(DetectorError::Unknown(name.clone()));
        }
    }
    let mut out = Vec::new();
    for (mut head, source) in entries {
        let settings = config
            .detectors
            .get(&head.name)
            .cloned()
            .unwrap_or_default();
        if !settings.enabled {
            continue;
        }
        settings
            .extra_keywords
            .iter()
            .for_each(|k| head.keywords.push(k));
        out.push(LoadedHead {
            head,
            mode: settings.mode,
            extra_signals: settings.extra_signals,
            shell: settings.shell,
            verification: settings.verification,
            gate: settings.gate,
            source,
        });
    }
    Ok((out, unknown))
}

/// Reads the whole spec of each detector, with the config's additions.
pub fn resolve(heads: Vec<LoadedHead>) -> Result<Vec<LoadedDetector>, DetectorError> {
    heads.into_iter().map(LoadedHead::read).collect()
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
#[path = "load_tests.rs"]
mod tests;
