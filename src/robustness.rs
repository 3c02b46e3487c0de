//! The promises guard makes about hostile input, as functions that take
//! arbitrary bytes, drive one input surface and panic only when a promise is
//! broken. The fuzz targets (`fuzz/`) and the property tests
//! (`tests/security_props.rs`) call the same functions, so a libFuzzer run
//! and `cargo test` check one definition of each property.
//!
//! Surfaces: agent payloads (every built-in adapter, and the whole `guard
//! hook` path in-process), transcripts (every format), config and detector
//! files (including user regexes), judge answers, shell commands and the
//! redactor. "No panic" is checked by the harness (a panic fails the run);
//! bounded time and memory by libFuzzer's `-timeout` and `-rss_limit_mb`.

use crate::adapter::{self, HookOutput};
use crate::event::EventKind;
use crate::verdict::{Decision, Verdict};
use std::path::Path;

/// Exit codes an agent reads as an answer: 0, or 2 with a reason.
pub fn assert_agent_readable(out: &HookOutput, what: &str) {
    assert!(
        out.exit == 0 || out.exit == 2,
        "{what}: exit {} is neither 0 nor 2",
        out.exit
    );
    if out.exit == 2 {
        assert!(
            !out.stderr.trim().is_empty() || !out.stdout.trim().is_empty(),
            "{what}: exit 2 without a reason"
        );
    }
    let stdout = out.stdout.trim();
    if stdout.starts_with('{') {
        assert!(
            serde_json::from_str::<serde_json::Value>(stdout).is_ok(),
            "{what}: stdout is broken JSON: {stdout}"
        );
    }
}

/// Payload parsing and rendering by every built-in adapter: parsing never
/// panics, and every decision renders as something the agent reads, even
/// with the payload's own bytes as the reason.
pub fn check_payload(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    static ADAPTERS: std::sync::OnceLock<Vec<adapter::AdapterSpec>> = std::sync::OnceLock::new();
    let adapters = ADAPTERS.get_or_init(|| adapter::builtins().0);
    let _ = adapter::detect_agent(adapters, &value);
    let hostile_reason = String::from_utf8_lossy(data);
    for spec in adapters {
        let Ok(event) = spec.parse_payload(value.clone()) else {
            continue;
        };
        for decision in [
            Decision::Allow,
            Decision::Block,
            Decision::Deny,
            Decision::Ask,
        ] {
            let decision = crate::engine::fit(event.kind, decision);
            let verdict = if decision == Decision::Allow {
                Verdict::allow()
            } else {
                Verdict::with(decision, hostile_reason.clone())
            };
            for ask_as in [None, Some(Decision::Deny)] {
                let out = spec.render(event.kind, &event.native_event, &verdict, ask_as);
                assert_agent_readable(&out, &spec.name);
            }
        }
    }
}

/// The agents `guard hook` may be invoked for: `None` (guard detects it),
/// every built-in adapter's name, and a name no adapter has.
pub fn hook_agents() -> Vec<Option<String>> {
    let mut agents = vec![None, Some("no-such-agent".to_string())];
    agents.extend(crate::builtin::adapters().map(|(name, _)| Some(name.to_string())));
    agents
}

/// The whole hook path in-process (no watchdog): whatever the payload, the
/// answer is one the agent reads. The first byte picks the agent from
/// [`hook_agents`]. Call [`isolate_environment`] first.
pub fn check_hook(data: &[u8]) -> HookOutput {
    static AGENTS: std::sync::OnceLock<Vec<Option<String>>> = std::sync::OnceLock::new();
    let agents = AGENTS.get_or_init(hook_agents);
    let (agent, payload) = match data.split_first() {
        Some((first, rest)) => (agents[usize::from(*first) % agents.len()].clone(), rest),
        None => (None, data),
    };
    let out = crate::hook::run(crate::hook::HookInput {
        agent: agent.clone(),
        payload: payload.to_vec(),
        config_path: None,
    });
    assert_agent_readable(&out, agent.as_deref().unwrap_or("detected"));
    out
}

/// Points HOME and the XDG directories at `dir` and writes a user config
/// with no judge, so [`check_hook`] touches nothing of the real user's.
/// Call once, before any thread is started.
pub fn isolate_environment(dir: &Path) -> std::io::Result<()> {
    let config = dir.join("config/guard");
    std::fs::create_dir_all(&config)?;
    std::fs::write(config.join("config.yaml"), "judge: {backend: none}\n")?;
    // Edition 2021: plain calls; the harness is single-threaded here.
    std::env::set_var("HOME", dir);
    std::env::set_var("XDG_CONFIG_HOME", dir.join("config"));
    std::env::set_var("XDG_STATE_HOME", dir.join("state"));
    std::env::remove_var("GUARD_CONFIG");
    std::env::remove_var("GUARD_JUDGE_ACTIVE");
    std::env::remove_var("GUARD_FAULT");
    Ok(())
}

/// Transcript reading, every format: the bytes are written to files in
/// `dir` (as `.jsonl` and, for Gemini, `.json`), then read, for the text
/// alone and with the actions; the text is never longer than asked for, and
/// the actions never more than their cap. The first byte picks the limit.
pub fn check_transcript(data: &[u8], dir: &Path) {
    use crate::transcript::{last_turn, last_turn_text, TranscriptFormat};
    let (max_bytes, body) = match data.split_first() {
        Some((first, rest)) => (usize::from(*first) * 16 + 1, rest),
        None => (4000, data),
    };
    let lines = dir.join("t.jsonl");
    let whole = dir.join("t.json");
    if std::fs::write(&lines, body).is_err() || std::fs::write(&whole, body).is_err() {
        return;
    }
    let files = TranscriptFormat::ALL
        .into_iter()
        .map(|format| (format, &lines))
        .chain([(TranscriptFormat::Gemini, &whole)]);
    for (format, path) in files {
        let texts = [
            last_turn_text(format, path, max_bytes).ok().flatten(),
            last_turn(format, path, max_bytes).ok().and_then(|turn| {
                assert!(turn.actions.actions.len() <= crate::actions::MAX_ACTIONS);
                turn.text
            }),
        ];
        for text in texts.into_iter().flatten() {
            assert!(
                text.len() <= max_bytes,
                "{format}: {} bytes returned, {max_bytes} asked",
                text.len()
            );
        }
    }
}

/// Config and detector files, user regexes included: parsing never panics,
/// a refusal is an error with a message, and a detector that parses runs
/// Layer 1 on a text (compiling its patterns under their size limits).
pub fn check_config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = crate::config::parse_layer("fuzz.yaml", &text) {
        assert!(!e.message.is_empty(), "a refused config says why");
    }
    let Ok(spec) = crate::detector::load::parse("fuzz.yaml", &text) else {
        return;
    };
    let _ = crate::detector::load::validate(&spec);
    let detector = crate::detector::load::LoadedDetector {
        spec,
        mode: crate::config::Mode::Enforce,
    };
    let Ok(engine) = crate::engine::Engine::new(vec![detector]) else {
        return;
    };
    let probe = format!("{text} git push --force ship it now");
    let mut event = crate::event::Event::new("fuzz", EventKind::Stop);
    event.text = Some(probe.clone());
    let _ = engine.layer1(&event, &probe, &crate::shell::ShellContext::default());
    for e in engine.pattern_errors() {
        assert!(
            e.contains("detector `"),
            "a pattern error names its detector: {e}"
        );
    }
}

/// The detector whose judge answers [`check_judge_answer`] reads.
const ANSWER_DETECTOR: &str = "name: fuzz\nevents: [stop]\nkeywords: [x]\njudge:\n  prompt: p\n  fields:\n    - {name: new_proposal, type: boolean, required: true}\n    - {name: evidence, type: string}\n  violation: new_proposal\nreason: r\n";

/// The nonce the answers are checked against.
pub const ANSWER_NONCE: &str = "n0nce-5f3a";

/// Judge answers: parsing never panics; an answer that does not carry the
/// envelope's nonce never yields a judgment; a judgment keeps only the
/// declared fields (and `reason`).
pub fn check_judge_answer(data: &[u8]) {
    let output = String::from_utf8_lossy(data);
    let _ = crate::judge::answer::last_json_object(&output);
    static SPEC: std::sync::OnceLock<Option<crate::detector::JudgeSpec>> =
        std::sync::OnceLock::new();
    let spec = SPEC.get_or_init(|| {
        crate::detector::load::parse("fuzz", ANSWER_DETECTOR)
            .ok()
            .and_then(|d| d.judge)
    });
    let Some(judge) = spec.as_ref() else {
        panic!("the answer detector parses and has a judge");
    };
    if let Ok(judgment) = crate::judge::answer::judge_output(judge, ANSWER_NONCE, &output) {
        {
            assert!(
                output.contains(ANSWER_NONCE),
                "a judgment without the nonce in the output"
            );
            for key in judgment.fields.keys() {
                assert!(
                    ["new_proposal", "evidence", "reason"].contains(&key.as_str()),
                    "undeclared field {key} kept"
                );
            }
        }
    }
}

/// Shell classification with the built-in shell rules: never panics, and a
/// match names a segment of the command.
pub fn check_shell(data: &[u8]) {
    let command = String::from_utf8_lossy(data);
    let ctx = crate::shell::ShellContext {
        cwd: Some("/home/u/repo/src".into()),
        repo_root: Some("/home/u/repo".into()),
        home: Some("/home/u".into()),
    };
    static RULES: std::sync::OnceLock<Vec<crate::shell::ShellRules>> = std::sync::OnceLock::new();
    let rule_sets = RULES.get_or_init(|| {
        let builtin = crate::detector::load::builtins().unwrap_or_default();
        builtin
            .into_iter()
            .filter_map(|d| d.shell)
            .chain(std::iter::once(crate::shell::ShellRules::default()))
            .collect()
    });
    for rules in rule_sets {
        if let Some(m) = crate::shell::classify(&command, rules, &ctx) {
            assert!(!m.rule_id.is_empty(), "a match names its rule");
        }
    }
}

/// Redaction of hostile text (and of its own output): never panics.
pub fn check_redact(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let once = crate::redact::redact(&text);
    let _ = crate::redact::redact(&once.text);
}
