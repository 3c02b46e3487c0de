//! `guard check`: explains a decision — which keywords hit, which signal and
//! bypass patterns matched, what the judge was asked and answered, and the
//! verdict — for a text, a command or a whole event payload. A turn-end
//! payload's transcript is read as the hook reads it (the turn's text, its
//! actions and the user's request), so the explanation is the hook's own.

use clap::Args;
use guard::adapter;
use guard::config::{self, LoadOptions};
use guard::detector::load;
use guard::engine::{Engine, EvalOptions};
use guard::event::{Event, EventKind, Tool};
use guard::judge::JudgeRequest;
use guard::shell::ShellContext;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `guard check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The event kind (default: stop with a text, pre_tool with a command).
    #[arg(long)]
    event: Option<String>,
    /// The agent whose config overrides apply (and whose payload --input is).
    #[arg(long)]
    agent: Option<String>,
    /// The assistant's text.
    #[arg(long, group = "subject")]
    text: Option<String>,
    /// A file holding the assistant's text.
    #[arg(long, group = "subject")]
    text_file: Option<PathBuf>,
    /// A shell command.
    #[arg(long, group = "subject")]
    command: Option<String>,
    /// An agent's hook payload.
    #[arg(long, group = "subject")]
    input: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Stop after Layer 1.
    #[arg(long)]
    no_judge: bool,
}

fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("guard check: {msg}");
    2
}

/// Runs `guard check`; returns the exit code (0 = explained, 2 = error).
pub fn run(args: CheckArgs, config_path: Option<PathBuf>) -> u8 {
    let (mut event, adapter) = match build_event(&args) {
        Ok(e) => e,
        Err(msg) => return fail(msg),
    };
    let opts = LoadOptions {
        explicit: config_path,
        cwd: event.cwd.clone().or_else(|| std::env::current_dir().ok()),
        agent: Some(event.agent.clone()),
        only_explicit: false,
    };
    let loaded = match config::load(&opts) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let cfg = loaded.config;
    if let Some(spec) = adapter.filter(|_| event.kind.is_turn_end()) {
        if let Some(problem) = guard::hook::turn_text::fill(&spec, &mut event, cfg.text.max_bytes) {
            eprintln!("warning: {problem}");
        }
    }
    let facts = guard::engine::turn_facts(&event);
    let detectors = match load::load_lenient(&cfg) {
        Ok((d, unknown)) => {
            unknown.iter().for_each(|e| eprintln!("warning: {e}"));
            d
        }
        Err(e) => return fail(e),
    };
    let engine = match Engine::new(detectors) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let cwd = event.cwd.clone().or_else(|| std::env::current_dir().ok());
    let shell = ShellContext::for_cwd(cwd);
    let deadline = Instant::now() + cfg.deadline.for_kind(event.kind);
    let cache = guard::paths::state_dir().join("cache");
    let eval = EvalOptions {
        use_judge: !args.no_judge,
        deadline,
        cache_dir: Some(&cache),
        shell,
    };
    let verdict = engine.evaluate(&event, &cfg, &eval);
    if args.json {
        let out = json!({
            "verdict": verdict.decision,
            "event": event.kind,
            "reason": verdict.reason,
            "detectors": verdict.detectors,
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return 0;
    }
    println!("event: {} (agent {})", event.kind, event.agent);
    if verdict.detectors.is_empty() {
        println!("no enabled detector applies to this event");
    }
    let text = guard::redact::redact(&Engine::subject(&event, &cfg)).text;
    // Detectors judged in one call: their combined prompt is shown once.
    let mut shared = Vec::new();
    for d in &verdict.detectors {
        println!("\n[{}] layer 1: {:?}", d.name, d.layer1);
        if d.joined {
            println!("  judged with the turn: another detector hit (judge.whole_turn)");
        }
        if !d.keywords.is_empty() {
            println!("  keywords: {}", d.keywords.join(", "));
        }
        if !d.signals.is_empty() {
            println!("  signals: {}", d.signals.join(", "));
        }
        if !d.bypasses.is_empty() {
            println!("  bypasses: {}", d.bypasses.join(", "));
        }
        if let Some(spec) = engine
            .detectors()
            .find(|l| l.spec.name == d.name)
            .and_then(|l| l.spec.judge.as_ref())
        {
            if (d.layer1 == guard::verdict::Layer1::Hit || d.joined) && !args.no_judge {
                if !d.judge.shared_with.is_empty() {
                    println!(
                        "  judge prompt: one call with {} (shown below)",
                        d.judge.shared_with.join(", ")
                    );
                    shared.push((d.name.as_str(), spec));
                } else {
                    let prompt =
                        guard::judge::envelope::build(spec, "<nonce>", &text, facts.as_deref());
                    println!(
                        "  judge prompt (a fresh nonce each call):\n    {}",
                        prompt.trim().replace('\n', "\n    ")
                    );
                }
            }
        }
        println!("  judge: {:?}", d.judge.outcome);
        if !d.judge.fields.is_empty() {
            println!(
                "  fields: {}",
                serde_json::Value::Object(d.judge.fields.clone())
            );
        }
        if let Some(e) = &d.judge.error {
            println!("  judge error: {e}");
        }
        println!(
            "  decision: {}{}",
            d.verdict.as_str(),
            if d.mode.is_some() {
                " (shadow: not enforced)"
            } else {
                ""
            }
        );
    }
    if shared.len() > 1 {
        let requests: Vec<JudgeRequest> = shared
            .iter()
            .map(|(detector, spec)| JudgeRequest {
                detector,
                spec,
                text: &text,
                facts: facts.as_deref(),
            })
            .collect();
        let refs: Vec<&JudgeRequest> = requests.iter().collect();
        let prompt = guard::judge::combined::build(&refs, "<nonce>", &text, facts.as_deref());
        println!(
            "\njudge prompt of the shared call (a fresh nonce each call):\n    {}",
            prompt.trim().replace('\n', "\n    ")
        );
    }
    println!("\nverdict: {}", verdict.decision.as_str());
    if let Some(r) = &verdict.reason {
        println!("reason: {r}");
    }
    0
}

/// The event to explain, with the adapter that parsed it when it came from
/// a payload.
fn build_event(args: &CheckArgs) -> Result<(Event, Option<adapter::AdapterSpec>), String> {
    let agent = args.agent.clone().unwrap_or_else(|| "generic".into());
    if let Some(path) = &args.input {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let payload: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        let (adapters, _) = adapter::builtins();
        let spec = match &args.agent {
            Some(a) => adapter::find(a).ok_or_else(|| format!("unknown agent `{a}`"))?,
            None => adapter::detect_agent(&adapters, &payload)
                .cloned()
                .ok_or("no adapter")?,
        };
        let event = spec.parse_payload(payload).map_err(|e| e.to_string())?;
        return Ok((event, Some(spec)));
    }
    let default_kind = if args.command.is_some() {
        EventKind::PreTool
    } else {
        EventKind::Stop
    };
    let kind = match &args.event {
        Some(k) => EventKind::parse(k).ok_or_else(|| {
            format!(
                "unknown event kind `{k}` (one of: {})",
                EventKind::ALL.map(|k| k.as_str()).join(", ")
            )
        })?,
        None => default_kind,
    };
    let mut event = Event::new(&agent, kind);
    if let Some(t) = &args.text {
        event.text = Some(t.clone());
    } else if let Some(f) = &args.text_file {
        event.text = Some(
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?,
        );
    } else if let Some(c) = &args.command {
        event.tool = Some(Tool {
            native_name: "Bash".into(),
            canonical: "shell".into(),
            input: json!({"command": c}),
            command: Some(c.clone()),
        });
    } else {
        return Err("give one of --text, --text-file, --command or --input".into());
    }
    if !kind.is_turn_end() && event.tool.is_none() {
        event.prompt = event.text.clone();
    }
    Ok((event, None))
}
