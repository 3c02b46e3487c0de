//! Loading and merging the config layers, with errors that name the file,
//! line and column, and the project layer's tighten-only rule.

use super::merge::{apply_agent, deep_merge};
use super::Config;
use crate::verdict::Decision;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Largest config file guard reads (a bigger one is refused, not parsed).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A config file that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{source_name}{}: {message}", location(*.line, *.column))]
pub struct ConfigError {
    /// The file (or `built-in`).
    pub source_name: String,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
}

fn location(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

/// One config layer as read.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Where it came from: a path, or `built-in`.
    pub source: String,
    /// Its content.
    pub value: Value,
}

/// What to load.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--config PATH` or `GUARD_CONFIG`.
    pub explicit: Option<PathBuf>,
    /// The hook's working directory (its repository root holds `.guard.yaml`).
    pub cwd: Option<PathBuf>,
    /// The agent whose `agents.<name>` overrides apply.
    pub agent: Option<String>,
    /// Skip the user's and project's files (tests, `guard check --config` only).
    pub only_explicit: bool,
}

/// The merged config and how it was made.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The merged, typed config.
    pub config: Config,
    /// The layers in order, lowest first.
    pub layers: Vec<Layer>,
    /// The merged value, for `guard config show`.
    pub merged: Value,
    /// The agent whose overrides (`agents.<name>`) were applied.
    pub agent: Option<String>,
    /// Project settings refused because they would loosen the policy.
    pub refused: Vec<String>,
}

/// Parses one YAML document into a JSON value, checking it against [`Config`].
pub fn parse_layer(source: &str, text: &str) -> Result<Value, ConfigError> {
    let err = |e: serde_saphyr::Error| {
        let loc = e.location();
        ConfigError {
            source_name: source.to_string(),
            line: loc.map(|l| l.line()),
            column: loc.map(|l| l.column()),
            message: explain_budget(first_line(&e.to_string())),
        }
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let _typed: Config = serde_saphyr::from_str_with_options(text, yaml_options()).map_err(err)?;
    let value: Value = serde_saphyr::from_str_with_options(text, yaml_options()).map_err(err)?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Map::new())),
        _ => Err(ConfigError {
            source_name: source.to_string(),
            line: Some(1),
            column: Some(1),
            message: "the config must be a mapping of keys (judge:, detectors:, …)".into(),
        }),
    }
}

/// The built-in layer, from the JSON that `build.rs` pre-parsed from
/// `config.yaml`: `guard hook` loads the config on every call, and reading
/// YAML twice (typed to check, then as a value) was a large part of its
/// cost. The built-in file is checked against [`Config`] by the unit tests
/// instead; should its JSON ever fail to read, the YAML path runs and its
/// error names the line.
fn builtin_value() -> Result<Value, ConfigError> {
    match serde_json::from_str::<Value>(crate::builtin::DEFAULT_CONFIG_JSON) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => parse_layer("built-in config.yaml", crate::builtin::DEFAULT_CONFIG),
    }
}

/// The parser's budget for one config file: a real config has a few hundred
/// nodes, so alias bombs and deep nesting are refused long before they cost
/// time or memory.
pub fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = 100_000;
    budget.max_nodes = 20_000;
    budget.max_aliases = 1_000;
    budget.max_anchors = 1_000;
    budget.max_recorded_anchor_events = 20_000;
    budget.max_recorded_anchor_bytes = 1 << 20;
    budget.max_depth = 32;
    budget.max_documents = 1;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// Says in plain words why a file over the parser's budget is refused.
fn explain_budget(message: String) -> String {
    if message.contains("budget breached") {
        format!("{message}: refused, a config file may nest at most 32 levels, hold at most 20000 nodes and 1000 aliases")
    } else {
        message
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_string()
}

fn read_layer(path: &Path) -> Result<Option<Layer>, ConfigError> {
    let source = path.display().to_string();
    let fail = |message: String| ConfigError {
        source_name: source.clone(),
        line: None,
        column: None,
        message,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(format!("cannot read: {e}"))),
    };
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(fail(format!(
            "{} bytes is over the {} byte limit for a config file",
            meta.len(),
            MAX_CONFIG_BYTES
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let value = parse_layer(&source, &text)?;
    Ok(Some(Layer { source, value }))
}

/// The config files found for a load, read but not merged.
struct FileLayers {
    /// The user's file.
    user: Option<Layer>,
    /// The project's `.guard.yaml`, or why it is ignored (a project file
    /// that cannot be read or parsed is left out and reported, never a
    /// reason to drop the user's own policy).
    project: Result<Option<Layer>, ConfigError>,
    /// `--config PATH` or `GUARD_CONFIG`.
    explicit: Option<Layer>,
}

impl FileLayers {
    /// Reads the user's, the project's and the explicit file, as far as
    /// `opts` asks for them; an explicit file that does not exist is an error.
    fn read(opts: &LoadOptions) -> Result<FileLayers, ConfigError> {
        let mut files = FileLayers {
            user: None,
            project: Ok(None),
            explicit: None,
        };
        if !opts.only_explicit {
            if let Some(user) = crate::paths::user_config() {
                files.user = read_layer(&user)?;
            }
            if let Some(root) = opts.cwd.as_deref().and_then(crate::paths::repo_root) {
                files.project = read_layer(&root.join(".guard.yaml"));
            }
        }
        let explicit = opts.explicit.clone().or_else(|| {
            std::env::var_os("GUARD_CONFIG")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        });
        if let Some(path) = explicit {
            match read_layer(&path)? {
                Some(layer) => files.explicit = Some(layer),
                None => {
                    return Err(ConfigError {
                        source_name: path.display().to_string(),
                        line: None,
                        column: None,
                        message: "no such file".into(),
                    })
                }
            }
        }
        Ok(files)
    }

    /// Whether only the built-in layer applies.
    fn none(&self) -> bool {
        self.user.is_none() && matches!(self.project, Ok(None)) && self.explicit.is_none()
    }
}

/// Loads and merges every layer.
pub fn load(opts: &LoadOptions) -> Result<LoadedConfig, ConfigError> {
    merge_files(opts, FileLayers::read(opts)?)
}

/// Merges the built-in layer with the files read for `opts`.
fn merge_files(opts: &LoadOptions, files: FileLayers) -> Result<LoadedConfig, ConfigError> {
    let mut layers = vec![Layer {
        source: "built-in".into(),
        value: builtin_value()?,
    }];
    let mut refused = Vec::new();
    layers.extend(files.user);
    match files.project {
        Ok(Some(mut project)) => {
            let so_far = merge_all(&layers);
            if !so_far
                .get("trust_project_config")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            {
                refused = tighten_only(&so_far, &mut project.value);
            }
            layers.push(project);
        }
        Ok(None) => {}
        Err(e) => refused.push(format!("{e} (the whole file is ignored)")),
    }
    layers.extend(files.explicit);
    let mut merged = merge_all(&layers);
    if let Some(agent) = &opts.agent {
        apply_agent(&mut merged, agent);
    }
    let config = Config::deserialize(&merged).map_err(|e| ConfigError {
        source_name: "merged config".into(),
        line: None,
        column: None,
        message: e.to_string(),
    })?;
    Ok(LoadedConfig {
        config,
        layers,
        merged,
        agent: opts.agent.clone(),
        refused,
    })
}

/// The typed config alone (and the refused project settings), as [`load`]
/// makes it, for `guard hook`: when no config file exists, it is read
/// straight from the embedded JSON of the agent's built-in config, without
/// building, merging and reading a value tree (a tenth of a Layer-1 miss).
pub fn load_typed(opts: &LoadOptions) -> Result<(Config, Vec<String>), ConfigError> {
    let files = FileLayers::read(opts)?;
    if files.none() {
        if let Ok(config) = serde_json::from_str(builtin_json(opts.agent.as_deref())) {
            return Ok((config, Vec::new()));
        }
    }
    let loaded = merge_files(opts, files)?;
    Ok((loaded.config, loaded.refused))
}

impl LoadedConfig {
    /// Dotted key → the source of the value in effect (a layer's file, or
    /// `agents.<name>`), for `guard config show`.
    pub fn sources(&self) -> Vec<(String, String)> {
        let mut sources = Vec::new();
        for layer in &self.layers {
            record_sources("", &layer.value, &layer.source, &mut sources);
        }
        if let Some(agent) = &self.agent {
            if let Some(over) = merge_all(&self.layers)
                .get("agents")
                .and_then(|a| a.get(agent))
            {
                record_sources("", over, &format!("agents.{agent}"), &mut sources);
            }
        }
        sources
    }
}

/// The built-in config alone, with an agent's overrides: what applies when
/// the user's or project's config cannot be loaded.
pub fn builtin(agent: Option<&str>) -> Config {
    serde_json::from_str(builtin_json(agent)).unwrap_or_default()
}

/// The built-in config as JSON, with `agent`'s overrides already merged
/// over it by build.rs when it has some.
fn builtin_json(agent: Option<&str>) -> &'static str {
    agent
        .and_then(|a| {
            crate::builtin::AGENT_CONFIG_JSON
                .iter()
                .find(|(name, _)| *name == a)
        })
        .map_or(crate::builtin::DEFAULT_CONFIG_JSON, |(_, json)| json)
}

fn merge_all(layers: &[Layer]) -> Value {
    let mut merged = Value::Object(Map::new());
    for layer in layers {
        deep_merge(&mut merged, &layer.value);
    }
    merged
}

fn record_sources(prefix: &str, value: &Value, source: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) if map.is_empty() && !prefix.is_empty() => {}
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                record_sources(&key, v, source, out);
            }
        }
        _ => {
            out.retain(|(k, _)| k != prefix && !k.starts_with(&format!("{prefix}.")));
            out.push((prefix.to_string(), source.to_string()));
        }
    }
}

/// Removes from a project layer every setting that would loosen `current`;
/// returns a description of each one removed.
fn tighten_only(current: &Value, project: &mut Value) -> Vec<String> {
    let mut refused = Vec::new();
    let Some(map) = project.as_object_mut() else {
        return refused;
    };
    // The judge and the log are the user's; deadlines cut short would make
    // turn ends fail open and stretched ones would hang the agent.
    for key in [
        "judge",
        "log",
        "agents",
        "trust_project_config",
        "ask_as",
        "deadline",
    ] {
        if map.remove(key).is_some() {
            refused.push(format!("{key}: only your own config may set it"));
        }
    }
    if let Some(max) = map
        .get("text")
        .and_then(|t| t.get("max_bytes"))
        .and_then(Value::as_u64)
    {
        let old = current
            .get("text")
            .and_then(|t| t.get("max_bytes"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if max < old {
            if let Some(t) = map.get_mut("text").and_then(Value::as_object_mut) {
                t.remove("max_bytes");
            }
            refused.push(format!(
                "text.max_bytes: {max} would judge less of the text than {old}"
            ));
        }
    }
    if let Some(Value::Object(dets)) = map.get_mut("detectors") {
        for (name, settings) in dets.iter_mut() {
            let Some(s) = settings.as_object_mut() else {
                continue;
            };
            if s.get("enabled") == Some(&Value::Bool(false)) {
                s.remove("enabled");
                refused.push(format!(
                    "detectors.{name}.enabled: false would switch a detector off"
                ));
            }
            if s.get("mode").and_then(Value::as_str) == Some("shadow") {
                s.remove("mode");
                refused.push(format!(
                    "detectors.{name}.mode: shadow would stop it blocking"
                ));
            }
            if s.remove("file").is_some() {
                refused.push(format!(
                    "detectors.{name}.file: only your own config may load detector files"
                ));
            }
            if let Some(shell) = s.get_mut("shell").and_then(Value::as_object_mut) {
                for key in ["allow_push", "production"] {
                    if shell.remove(key).is_some() {
                        refused.push(format!(
                            "detectors.{name}.shell.{key}: only your own config may set it"
                        ));
                    }
                }
                if let Some(classes) = shell.get_mut("classes").and_then(Value::as_object_mut) {
                    classes.retain(|class, action| {
                        let keep = action.as_str() == Some("deny");
                        if !keep {
                            refused.push(format!(
                                "detectors.{name}.shell.classes.{class}: a project may only move a class to deny"
                            ));
                        }
                        keep
                    });
                }
            }
        }
    }
    if let Some(Value::Object(fail)) = map.get_mut("failure") {
        let before = current.get("failure").cloned().unwrap_or(Value::Null);
        fail.retain(|kind, v| {
            // Unset, a kind has its default policy (ask for gates).
            let default = serde_json::from_value(Value::String(kind.clone()))
                .map(|k| super::Config::default().failure_for(k))
                .unwrap_or(Decision::Allow);
            let old = before
                .get(kind)
                .and_then(Value::as_str)
                .and_then(Decision::parse)
                .unwrap_or(default);
            let new = v
                .as_str()
                .and_then(Decision::parse)
                .unwrap_or(Decision::Allow);
            let keep = new.severity() >= old.severity();
            if !keep {
                refused.push(format!(
                    "failure.{kind}: {} is looser than {}",
                    new.as_str(),
                    old.as_str()
                ));
            }
            keep
        });
    }
    if let Some(max) = map
        .get("loop_guard")
        .and_then(|l| l.get("max_blocks"))
        .and_then(Value::as_u64)
    {
        let old = current
            .get("loop_guard")
            .and_then(|l| l.get("max_blocks"))
            .and_then(Value::as_u64)
            .unwrap_or(3);
        // Fewer blocks let a violation through sooner; more let an agent
        // loop longer: only the user may change it.
        if max != old {
            if let Some(l) = map.get_mut("loop_guard").and_then(Value::as_object_mut) {
                l.remove("max_blocks");
            }
            let why = if max < old {
                "would let a blocked turn end through sooner"
            } else {
                "would let an agent loop longer"
            };
            refused.push(format!("loop_guard.max_blocks: {max} {why} than {old}"));
        }
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON form of the built-in config (what `guard hook` reads) is the
    /// YAML file's content, and the file fits the typed schema.
    #[test]
    fn the_pre_parsed_builtin_config_is_the_yaml_file() {
        let from_yaml =
            parse_layer("built-in config.yaml", crate::builtin::DEFAULT_CONFIG).unwrap();
        let from_json: Value = serde_json::from_str(crate::builtin::DEFAULT_CONFIG_JSON).unwrap();
        assert_eq!(from_yaml, from_json);
        assert_eq!(builtin_value().unwrap(), from_yaml);
    }

    /// `guard hook`'s reading of the config gives what the full load gives:
    /// straight from the embedded JSON when no file applies, merged when a
    /// file or an agent override does.
    #[test]
    fn the_typed_load_is_the_merged_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("guard.yaml");
        std::fs::write(&file, "judge: {timeout_ms: 1234}\nask_as: deny\n").unwrap();
        for explicit in [None, Some(file)] {
            for agent in [None, Some("claude-code"), Some("gemini"), Some("codex")] {
                let opts = LoadOptions {
                    explicit: explicit.clone(),
                    agent: agent.map(String::from),
                    only_explicit: true,
                    ..LoadOptions::default()
                };
                let (typed, refused) = load_typed(&opts).unwrap();
                let loaded = load(&opts).unwrap();
                assert_eq!(
                    format!("{typed:?}"),
                    format!("{:?}", loaded.config),
                    "{agent:?} {explicit:?}"
                );
                assert_eq!(refused, loaded.refused);
            }
        }
    }
}
