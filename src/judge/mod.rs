//! Layer 2, the LLM judge: asks a model whether a Layer-1 hit is a real
//! violation.
//!
//! Only detectors whose keywords and signals hit reach this module. For each
//! one the text is redacted of secrets, fenced in a nonce envelope
//! ([`envelope`]), and sent to the configured backend ([`backends`], [`http`]);
//! the last JSON object of the answer is checked and turned into a violation
//! or an allow by the detector's decision rule ([`answer`]). Anything else
//! (timeout, crash, bad answer, no backend) is a `Fail`, and the engine's
//! failure policy decides what a failure means. Detectors that hit on the
//! same text share one call ([`combined`], `judge.combine`); separate calls
//! run in parallel under one deadline, and verdicts are cached per detector
//! ([`cache`]).

pub mod answer;
pub mod backends;
pub mod cache;
pub mod canary;
pub mod combined;
pub mod envelope;
pub mod http;
#[allow(unsafe_code)] // waitid, pidfd_open, poll and killpg on the judge's process group
pub mod process;

pub use crate::config::JudgeConfig;

use crate::detector::JudgeSpec;
use crate::redact::{redact, Redacted};
use crate::verdict::{JudgeOutcome, JudgeReport};
use backends::RawAnswer;
use std::path::Path;
use std::time::Instant;

/// How much of a judge's raw answer the report keeps (after redaction).
const ANSWER_KEEP: usize = 4000;

/// One judgment to make.
pub struct JudgeRequest<'a> {
    /// The detector's name.
    pub detector: &'a str,
    /// The detector's judge section.
    pub spec: &'a JudgeSpec,
    /// The text to judge, already truncated, not yet redacted.
    pub text: &'a str,
    /// guard's facts block of the turn (`actions::facts`), already redacted:
    /// placed outside the fenced text (`None`: no transcript, the text alone).
    pub facts: Option<&'a str>,
}

/// What all judgments of one hook call share.
pub struct JudgeContext<'a> {
    /// The hook's deadline: every judge child is killed by then.
    pub deadline: Instant,
    /// Where verdicts are cached (`None`: no cache).
    pub cache_dir: Option<&'a Path>,
}

/// The CLI backends `auto` looks for, in order.
const AUTO_ORDER: [&str; 3] = ["codex", "claude", "gemini"];

/// The backend `cfg` names; for `auto`, the first of codex, claude, gemini
/// found on `PATH`, else `none`.
pub fn resolve_backend(cfg: &JudgeConfig) -> String {
    let name = cfg.backend.trim().to_ascii_lowercase();
    if name != "auto" {
        return name;
    }
    AUTO_ORDER
        .iter()
        .find(|p| crate::paths::find_program(&[p]).is_some())
        .map(|p| p.to_string())
        .unwrap_or_else(|| "none".into())
}

/// Judges every request, concurrently, and returns one report per request in
/// the same order. Never panics; each outcome is Violation, Allow or Fail.
///
/// Requests served from the cache make no call. With `judge.combine`, the
/// others that share the same (redacted) text are judged in one call
/// ([`combined`]); a request alone keeps the single-detector envelope.
pub fn judge_all(
    cfg: &JudgeConfig,
    requests: &[JudgeRequest],
    ctx: &JudgeContext,
) -> Vec<JudgeReport> {
    let backend = resolve_backend(cfg);
    // Each distinct text redacted once (the detectors of a turn share it).
    let mut redacted: Vec<Redacted> = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        let same = requests[..i].iter().position(|p| p.text == r.text);
        redacted.push(same.map_or_else(|| redact(r.text), |j| redacted[j].clone()));
    }
    let keys: Vec<String> = requests
        .iter()
        .zip(&redacted)
        .map(|(r, red)| match r.facts {
            // The facts change the question: they are part of the key.
            Some(facts) => {
                let keyed = format!("{}\n\u{0}facts\n{facts}", red.text);
                cache::key(r.detector, r.spec, cfg, &backend, &keyed)
            }
            None => cache::key(r.detector, r.spec, cfg, &backend, &red.text),
        })
        .collect();
    let mut reports: Vec<Option<JudgeReport>> = requests
        .iter()
        .zip(&keys)
        .map(|(_, key)| {
            ctx.cache_dir
                .and_then(|dir| cache::lookup(dir, key, cfg.cache_ttl_s))
                .map(cached_report)
        })
        .collect();
    let pending: Vec<usize> = (0..requests.len())
        .filter(|&i| reports[i].is_none())
        .collect();
    let calls = group(cfg.combine, requests, &redacted, &pending);

    std::thread::scope(|scope| {
        let handles: Vec<_> = calls
            .iter()
            .map(|call| {
                let backend = backend.as_str();
                let red = &redacted[call[0]];
                let group: Vec<&JudgeRequest> = call.iter().map(|&i| &requests[i]).collect();
                let spawned = std::thread::Builder::new()
                    .name(format!("judge-{}", combined::detector_list(&group)))
                    .spawn_scoped(scope, move || match group.as_slice() {
                        [one] => vec![judge_one(cfg, backend, one, red, ctx.deadline)],
                        many => combined::judge_group(cfg, backend, many, red, ctx.deadline),
                    });
                (call, spawned)
            })
            .collect();
        for (call, handle) in handles {
            let failed = |why: &str| vec![JudgeReport::failed(why); call.len()];
            let group_reports = match handle {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|_| failed("the judge thread panicked")),
                Err(e) => failed(&format!("cannot start a judge thread: {e}")),
            };
            for (&i, report) in call.iter().zip(group_reports) {
                reports[i] = Some(report);
            }
        }
    });

    let mut out = Vec::with_capacity(requests.len());
    for (i, report) in reports.into_iter().enumerate() {
        let mut report = report.unwrap_or_else(|| JudgeReport::failed("no judgment"));
        if let (Some(dir), false) = (ctx.cache_dir, report.cache_hit) {
            let verdict = cache::Cached {
                outcome: report.outcome,
                fields: report.fields.clone(),
                backend: report.backend.clone(),
                model: report.model.clone(),
            };
            cache::store(dir, &keys[i], cfg.cache_ttl_s, &verdict);
        }
        report.redactions = redacted[i]
            .counts
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        out.push(report);
    }
    out
}

/// The calls to make for the `pending` requests: each a list of request
/// indices. With `combine`, requests on the same redacted text and facts share a call
/// (one per detector name); otherwise, and for names that cannot be a key of
/// a combined answer, one call each.
fn group(
    combine: bool,
    requests: &[JudgeRequest],
    redacted: &[Redacted],
    pending: &[usize],
) -> Vec<Vec<usize>> {
    let joinable = |i: usize| combine && combined::can_combine(requests[i].detector);
    let mut calls: Vec<Vec<usize>> = Vec::new();
    for &i in pending {
        let shared = joinable(i)
            .then(|| {
                calls.iter_mut().find(|call| {
                    joinable(call[0])
                        && redacted[call[0]].text == redacted[i].text
                        && requests[call[0]].facts == requests[i].facts
                        && call
                            .iter()
                            .all(|&j| requests[j].detector != requests[i].detector)
                })
            })
            .flatten();
        match shared {
            Some(call) => call.push(i),
            None => calls.push(vec![i]),
        }
    }
    calls
}

fn cached_report(cached: cache::Cached) -> JudgeReport {
    JudgeReport {
        outcome: cached.outcome,
        fields: cached.fields,
        backend: cached.backend,
        model: cached.model,
        latency_ms: Some(0),
        cache_hit: true,
        ..JudgeReport::skipped()
    }
}

/// One judgment: envelope, backend call, answer check.
fn judge_one(
    cfg: &JudgeConfig,
    backend: &str,
    request: &JudgeRequest,
    red: &Redacted,
    hook_deadline: Instant,
) -> JudgeReport {
    let started = Instant::now();
    let nonce = envelope::fresh_nonce();
    let prompt = envelope::build(request.spec, &nonce, &red.text, request.facts);
    let schema = request.spec.answer_schema();
    let deadline = call_deadline(cfg, hook_deadline, started);
    let (raw, model) = ask(
        cfg,
        backend,
        request.detector,
        &prompt,
        &schema,
        &nonce,
        deadline,
    );
    let report = match raw {
        Err(error) => JudgeReport::failed(redact(&error).text),
        Ok(answer) => {
            let checked = match &answer {
                RawAnswer::Text(text) => answer::judge_output(request.spec, &nonce, text),
                RawAnswer::Object(object) => {
                    answer::judge_object(request.spec, &nonce, object.clone())
                }
            };
            checked_report(checked, Some(kept_answer(&answer)))
        }
    };
    finish(report, backend, model, started)
}

/// When a call started at `started` must have answered: the earlier of the
/// judge's own timeout and the hook's deadline.
fn call_deadline(cfg: &JudgeConfig, hook_deadline: Instant, started: Instant) -> Instant {
    hook_deadline.min(started + std::time::Duration::from_millis(cfg.timeout_ms))
}

/// Sends one prompt to the backend; returns its raw answer and the model
/// asked (where the backend takes one). `detectors` is `GUARD_DETECTOR`.
fn ask(
    cfg: &JudgeConfig,
    backend: &str,
    detectors: &str,
    prompt: &str,
    schema: &serde_json::Value,
    nonce: &str,
    deadline: Instant,
) -> (Result<RawAnswer, String>, Option<String>) {
    let model = match backend {
        "codex" | "claude" | "gemini" | "http" => cfg.model.clone(),
        _ => None,
    };
    let raw = if Instant::now() >= deadline {
        Err("no time left for the judge".into())
    } else {
        match backend {
            "none" => {
                Err("no judge backend (judge.backend is none, or auto found no judge CLI)".into())
            }
            "http" => ask_http(cfg, prompt, schema, deadline),
            "command" if cfg.command.is_empty() => Err("judge.command is empty".into()),
            other => backends::ask(&backends::Call {
                backend: other,
                command: &cfg.command,
                model: model.as_deref(),
                detector: detectors,
                prompt,
                schema,
                deadline,
                max_output_bytes: cfg.max_output_bytes,
                tag: nonce,
            }),
        }
    };
    (raw, model)
}

/// The raw answer as the report keeps it: redacted, cut to a few kilobytes.
fn kept_answer(answer: &RawAnswer) -> String {
    truncate(&redact(&answer.as_text()).text, ANSWER_KEEP)
}

/// The report of one checked answer (or section of one).
fn checked_report(
    checked: Result<answer::Judgment, answer::AnswerError>,
    kept: Option<String>,
) -> JudgeReport {
    let mut report = match checked {
        Ok(judgment) => JudgeReport {
            outcome: judgment.outcome,
            fields: redact_fields(judgment.fields),
            nonce_ok: Some(true),
            ..JudgeReport::skipped()
        },
        Err(error) => JudgeReport {
            nonce_ok: error.nonce_ok(),
            ..JudgeReport::failed(error.to_string())
        },
    };
    report.answer = kept;
    report
}

/// Stamps what every judged report carries: backend, model, latency; a
/// report that is still Skipped is a Fail.
fn finish(
    mut report: JudgeReport,
    backend: &str,
    model: Option<String>,
    started: Instant,
) -> JudgeReport {
    if report.outcome == JudgeOutcome::Skipped {
        report.outcome = JudgeOutcome::Fail;
    }
    report.backend = Some(backend.to_string());
    report.model = model;
    report.latency_ms = Some(started.elapsed().as_millis() as u64);
    report
}

fn ask_http(
    cfg: &JudgeConfig,
    prompt: &str,
    schema: &serde_json::Value,
    deadline: Instant,
) -> Result<RawAnswer, String> {
    let url = cfg
        .url
        .as_deref()
        .ok_or("judge.url is not set for the http backend")?;
    let model = cfg
        .model
        .as_deref()
        .ok_or("judge.model is not set for the http backend")?;
    let api_key = match &cfg.api_key_env {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            format!("the environment variable {var} (judge.api_key_env) is not set")
        })?),
        None => None,
    };
    http::ask(&http::HttpCall {
        url,
        model,
        api_key,
        prompt,
        schema,
        deadline,
        max_output_bytes: cfg.max_output_bytes,
    })
}

/// String fields (e.g. the judge's `reason`) may quote the text: redact them.
fn redact_fields(
    fields: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    fields
        .into_iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, serde_json::Value::String(redact(&s).text)),
            other => (k, other),
        })
        .collect()
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests;
