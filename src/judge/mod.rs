//! Layer 2: the LLM judge. (Placeholder until the judge module lands.)

use crate::detector::JudgeSpec;
use crate::verdict::JudgeReport;
use serde::Deserialize;
use std::path::Path;
use std::time::Instant;

/// The `judge:` section of the config.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    /// `auto`, `none`, `command`, `codex`, `claude`, `gemini` or `http`.
    pub backend: String,
    /// The argv of the `command` backend.
    pub command: Vec<String>,
    /// Per-judgment timeout in milliseconds.
    pub timeout_ms: u64,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig { backend: "auto".into(), command: Vec::new(), timeout_ms: 15000 }
    }
}

/// One judgment to make.
pub struct JudgeRequest<'a> {
    /// The detector's name.
    pub detector: &'a str,
    /// Its judge spec.
    pub spec: &'a JudgeSpec,
    /// The text, truncated, not yet redacted.
    pub text: &'a str,
}

/// What every judgment of one event shares.
pub struct JudgeContext<'a> {
    /// The hook's deadline.
    pub deadline: Instant,
    /// Where the verdict cache lives.
    pub cache_dir: Option<&'a Path>,
}

/// Judges every request; same order as the requests.
pub fn judge_all(_cfg: &JudgeConfig, requests: &[JudgeRequest], _ctx: &JudgeContext) -> Vec<JudgeReport> {
    requests.iter().map(|_| JudgeReport::failed("no judge backend")).collect()
}

/// What `auto` resolves to.
pub fn resolve_backend(cfg: &JudgeConfig) -> String {
    cfg.backend.clone()
}
