//! `guard hook`: the path every agent event takes. It must never crash, hang
//! or exit with a stray code: every error and panic is caught and turned into
//! the failure policy of the event (allow when the event cannot be known), a
//! watchdog answers per policy if the deadline passes, and the answer is
//! always written in the agent's own dialect.

mod loop_guard;
mod record;
mod text_stash;
mod turn_text;
mod watchdog;

use crate::adapter::{self, AdapterSpec, HookOutput};
use crate::config::{self, Config, LoadOptions};
use crate::engine::{Engine, EvalOptions, Layer1Index};
use crate::event::{Event, EventKind};
use crate::shell::ShellContext;
use crate::verdict::{Decision, Verdict};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Largest payload read from stdin.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// Longest wait for the loop-guard lock (a holder only keeps it for one
/// read and write; this covers a holder starved of CPU by many hooks).
const LOOP_LOCK_WAIT: Duration = Duration::from_secs(5);

/// Time the watchdog leaves after the deadline for the normal path to finish.
const WATCHDOG_GRACE: Duration = Duration::from_millis(1500);

/// What `guard hook` was given.
#[derive(Debug, Clone, Default)]
pub struct HookInput {
    /// The agent named on the command line.
    pub agent: Option<String>,
    /// The payload (stdin, or the last argument for argv-style agents).
    pub payload: Vec<u8>,
    /// `--config PATH`.
    pub config_path: Option<PathBuf>,
}

/// Test-only fault injection: panics at `stage` when `GUARD_FAULT` names it,
/// hangs there when it says `stall:<stage>` (for the watchdog), and aborts
/// the process there, answering nothing, when it says `abort:<stage>` (a
/// crash as the agent sees it, for its fail-closed switch).
pub fn fault(stage: &str) {
    if !(cfg!(debug_assertions) || cfg!(feature = "fault-injection")) {
        return;
    }
    let Ok(fault) = std::env::var("GUARD_FAULT") else {
        return;
    };
    if fault == stage {
        panic!("injected fault at {stage}");
    }
    if fault.strip_prefix("abort:") == Some(stage) {
        std::process::abort();
    }
    if fault.strip_prefix("stall:") == Some(stage) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

static ANSWERED: AtomicBool = AtomicBool::new(false);

/// Set when this process answers one event and exits ([`run_and_emit`]):
/// what the engine built is then left for the exit to free, not taken apart
/// piece by piece (a fraction of a millisecond on a hit).
static ONE_SHOT: AtomicBool = AtomicBool::new(false);

/// Writes the answer once per process (the watchdog and the normal path race).
fn emit(out: &HookOutput) -> bool {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        return false;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.stdout.as_bytes());
    let _ = stdout.flush();
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(out.stderr.as_bytes());
    true
}

/// Runs the hook and writes its answer; returns the exit code. A watchdog
/// answers per policy and exits the process if the deadline passes.
pub fn run_and_emit(input: HookInput) -> i32 {
    ONE_SHOT.store(true, Ordering::Relaxed);
    let out = run_guarded(input, true);
    if emit(&out) {
        out.exit
    } else {
        // The watchdog answered first and is exiting the process.
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// Answers when no payload could be read (stdin never ended, say): the
/// event is unknown, so it is allowed, and the problem goes to stderr.
/// Writes the answer and returns the exit code.
pub fn answer_without_payload(agent: Option<&str>, problem: &str) -> i32 {
    let out = failure_output(
        &fallback_adapter(agent),
        EventKind::Other,
        "",
        None,
        problem,
    );
    emit(&out);
    out.exit
}

/// Runs the hook and returns its answer, without writing it and without a
/// watchdog (tests and fuzzing call it in-process, many times).
pub fn run(input: HookInput) -> HookOutput {
    run_guarded(input, false)
}

fn run_guarded(input: HookInput, watchdog: bool) -> HookOutput {
    let agent_arg = input.agent.clone();
    LAST_KNOWN.with(|k| *k.borrow_mut() = None);
    match catch_unwind(AssertUnwindSafe(|| run_inner(input, watchdog))) {
        Ok(out) => out,
        Err(panic) => {
            let msg = panic_message(&panic);
            let (spec, kind, native) = match LAST_KNOWN.with(|k| k.borrow().clone()) {
                Some((name, kind, native)) => (fallback_adapter(Some(&name)), kind, native),
                None => (
                    fallback_adapter(agent_arg.as_deref()),
                    EventKind::Other,
                    String::new(),
                ),
            };
            failure_output(
                &spec,
                kind,
                &native,
                None,
                &format!("internal error: {msg}"),
            )
        }
    }
}

thread_local! {
    /// What a panic's answer is rendered with: the adapter's name, the
    /// event's kind and native name, once known.
    static LAST_KNOWN: std::cell::RefCell<Option<(String, EventKind, String)>> = const { std::cell::RefCell::new(None) };
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

fn fallback_adapter(name: Option<&str>) -> AdapterSpec {
    name.and_then(adapter::find)
        .or_else(|| adapter::find("claude-code"))
        .unwrap_or_else(|| {
            // Only reachable if the built-in adapter files are broken.
            AdapterSpec::parse(
                "minimal",
                "name: minimal\nevents: {}\nrender: {allow: {}}\n",
            )
            .expect("minimal adapter parses")
        })
}

/// The answer when guard cannot judge: the failure policy of the kind (from
/// the config when loaded, else the defaults), with the problem on stderr.
fn failure_output(
    spec: &AdapterSpec,
    kind: EventKind,
    native: &str,
    config: Option<&Config>,
    problem: &str,
) -> HookOutput {
    let builtin_config;
    let cfg = match config {
        Some(c) => c,
        None => {
            builtin_config = config::builtin(Some(&spec.name));
            &builtin_config
        }
    };
    let decision = if kind == EventKind::Other {
        Decision::Allow
    } else {
        crate::engine::fit(kind, cfg.failure_for(kind))
    };
    let verdict = if decision == Decision::Allow {
        Verdict::allow()
    } else {
        Verdict::with(decision, format!("guard could not check this {kind} event ({problem}), so its failure policy applies: {}.", decision.as_str()))
    };
    let mut out = spec.render(kind, native, &verdict, cfg.ask_as);
    out.stderr.push_str(&format!("guard: {problem}\n"));
    out
}

fn run_inner(input: HookInput, watchdog: bool) -> HookOutput {
    let started = Instant::now();
    // Detection reads the small heads of every built-in adapter; only the
    // adapters picked (the named one, and the detected one when it differs)
    // are parsed in full.
    let heads = adapter::builtin_heads();
    let named = |n: &str| {
        heads
            .iter()
            .find(|h| h.name == n)
            .or_else(|| heads.iter().find(|h| h.answers_to(n)))
            .and_then(|h| adapter::find(h.name))
    };
    let arg_spec = input
        .agent
        .as_deref()
        .and_then(named)
        .or_else(|| named("claude-code"))
        .unwrap_or_else(|| fallback_adapter(input.agent.as_deref()));
    if std::env::var("GUARD_JUDGE_ACTIVE").is_ok_and(|v| v == "1") {
        // Recursion guard: a judge's own hooks must not judge again.
        return arg_spec.render(EventKind::Other, "", &Verdict::allow(), None);
    }
    fault("parse");
    let payload: serde_json::Value = match serde_json::from_slice(&input.payload) {
        Ok(v) => v,
        Err(e) => {
            let what = if input.payload.iter().all(u8::is_ascii_whitespace) {
                "the payload is empty".to_string()
            } else {
                format!("the payload is not JSON ({e})")
            };
            return failure_output(&arg_spec, EventKind::Other, "", None, &what);
        }
    };
    let detected = adapter::detect_agent(heads, &payload);
    let mut mismatch = None;
    let spec = match (&input.agent, detected) {
        (Some(_), Some(d)) if !d.detect.is_empty() && !arg_spec.answers_to(d.name) => {
            match adapter::find(d.name) {
                Some(d) => {
                    mismatch = Some(format!(
                        "guard hook {} received a {} payload; treated as {}",
                        arg_spec.name, d.name, d.name
                    ));
                    d
                }
                None => arg_spec,
            }
        }
        (Some(_), _) => arg_spec,
        (None, Some(d)) if d.name != arg_spec.name => adapter::find(d.name).unwrap_or(arg_spec),
        (None, _) => arg_spec,
    };
    let mut event = match spec.parse_payload(payload) {
        Ok(e) => e,
        Err(e) => return failure_output(&spec, EventKind::Other, "", None, &e.to_string()),
    };
    LAST_KNOWN.with(|k| {
        *k.borrow_mut() = Some((spec.name.clone(), event.kind, event.native_event.clone()))
    });
    let state_dir = crate::paths::state_dir();
    let _ = crate::state::touch_heartbeat(&state_dir, &spec.name);
    text_stash::apply(&spec, &mut event, &state_dir);

    fault("config");
    let opts = LoadOptions {
        explicit: input.config_path.clone(),
        cwd: event.cwd.clone(),
        agent: Some(spec.name.clone()),
        only_explicit: false,
    };
    let (cfg, refused) = match config::load_typed(&opts) {
        Ok(l) => l,
        Err(e) => {
            return failure_output(
                &spec,
                event.kind,
                &event.native_event,
                None,
                &format!("config error: {e}"),
            )
        }
    };
    let deadline = started + cfg.deadline.for_kind(event.kind);
    if watchdog {
        start_watchdog(&spec, &event, &cfg, deadline);
    }

    let mut ctx = record::Context {
        started,
        mismatch,
        refused,
        errors: Vec::new(),
        paused: false,
    };
    if crate::state::is_paused(&state_dir) {
        ctx.paused = true;
        let verdict = Verdict::allow();
        record::write(&cfg, &event, &verdict, &ctx);
        let out = spec.render(event.kind, &event.native_event, &verdict, cfg.ask_as);
        leave_to_exit((input, spec, event, cfg, ctx));
        return out;
    }
    if event.kind.is_turn_end() {
        fault("transcript");
        if let Some(problem) = turn_text::fill(&spec, &mut event, cfg.text.max_bytes) {
            ctx.errors.push(problem);
        }
    }
    let verdict = match evaluate(&event, &cfg, deadline, &state_dir, &mut ctx) {
        Ok(v) => v,
        Err(problem) => {
            ctx.errors.push(problem.clone());
            record::write(&cfg, &event, &Verdict::allow(), &ctx);
            return failure_output(&spec, event.kind, &event.native_event, Some(&cfg), &problem);
        }
    };
    fault("log");
    record::write(&cfg, &event, &verdict, &ctx);
    fault("render");
    let mut out = spec.render(event.kind, &event.native_event, &verdict, cfg.ask_as);
    for r in &ctx.refused {
        out.stderr.push_str(&format!(
            "guard: project config refused: {}\n",
            crate::redact::redact(r).text
        ));
    }
    for e in &ctx.errors {
        out.stderr
            .push_str(&format!("guard: {}\n", crate::redact::redact(e).text));
    }
    leave_to_exit((input, spec, event, cfg, ctx));
    out
}

/// Drops `value`, unless this process answers one event and exits: freeing
/// the payload, event, adapter and config piece by piece was a tenth of a
/// Layer-1 miss, and the exit frees them at once.
fn leave_to_exit<T>(value: T) {
    if ONE_SHOT.load(Ordering::Relaxed) {
        std::mem::forget(value);
    }
}

fn evaluate(
    event: &Event,
    cfg: &Config,
    deadline: Instant,
    state_dir: &std::path::Path,
    ctx: &mut record::Context,
) -> Result<Verdict, String> {
    fault("engine");
    // Two steps, for speed: most events hit no keyword, and for those only
    // the detectors' heads (events, tools, keywords) are read; the rest of
    // each spec is read only after a keyword hit (see detector::load).
    let (heads, unknown) = crate::detector::load::heads_lenient(cfg).map_err(|e| e.to_string())?;
    ctx.errors.extend(unknown.iter().map(ToString::to_string));
    if !heads.iter().any(|h| h.head.applies(event)) {
        return Ok(Verdict::allow());
    }
    fault("judge");
    // The built-in detectors' keyword indexes are embedded; another is
    // built where a detector that applies is not one of them.
    let index = Layer1Index::for_event(&heads, event);
    let subject = Engine::subject(event, cfg);
    // Only the detectors that apply to the event find hits.
    let hits = index.keyword_hits(&subject, heads.len());
    let mut verdict = if hits.iter().all(Vec::is_empty) {
        let verdict = crate::engine::all_miss_verdict(
            heads
                .iter()
                .filter(|h| h.head.applies(event))
                .map(|h| (h.head.name.as_str(), h.mode)),
        );
        leave_to_exit((heads, index));
        verdict
    } else {
        // Only the detectors whose keywords hit are read in full.
        let detectors = crate::detector::load::resolve_where(heads, |i| {
            hits.get(i).is_some_and(|h| !h.is_empty())
        })
        .map_err(|e| e.to_string())?;
        full_evaluate(
            Engine::with_index(detectors, index),
            (&subject, hits),
            event,
            cfg,
            deadline,
            state_dir,
            ctx,
        )
    };
    if event.kind.is_turn_end() {
        // Wait for the lock at most LOOP_LOCK_WAIT and never past the
        // deadline: a holder that died released it; one that is stuck
        // cannot hold us.
        let lock_wait = deadline
            .saturating_duration_since(Instant::now())
            .clamp(Duration::from_millis(50), LOOP_LOCK_WAIT);
        if let Err(e) = loop_guard::apply(
            event,
            &mut verdict,
            cfg.loop_guard.max_blocks,
            state_dir,
            lock_wait,
        ) {
            ctx.errors
                .push(format!("loop guard state unavailable ({e})"));
        }
    }
    Ok(verdict)
}

/// Layer 1's patterns and the judge, after a keyword hit: `keyword_pass`
/// is the subject and the keyword hits already found on it, which the
/// engine takes as they are rather than scanning again.
fn full_evaluate(
    engine: Engine,
    keyword_pass: (&str, Vec<Vec<String>>),
    event: &Event,
    cfg: &Config,
    deadline: Instant,
    state_dir: &std::path::Path,
    ctx: &mut record::Context,
) -> Verdict {
    // Only commands need the repository root (an ancestor walk of stat
    // calls); turn ends and other events skip it.
    let shell = if event.tool.is_some() {
        ShellContext::for_cwd(event.cwd.clone())
    } else {
        ShellContext::default()
    };
    let cache_dir = state_dir.join("cache");
    let opts = EvalOptions {
        use_judge: true,
        deadline,
        cache_dir: Some(&cache_dir),
        shell,
    };
    let (subject, hits) = keyword_pass;
    let verdict = engine.evaluate_hits(event, cfg, &opts, subject, hits);
    ctx.errors.extend(engine.pattern_errors());
    leave_to_exit(engine);
    verdict
}

fn start_watchdog(spec: &AdapterSpec, event: &Event, cfg: &Config, deadline: Instant) {
    let out = failure_output(
        spec,
        event.kind,
        &event.native_event,
        Some(cfg),
        "the deadline passed",
    );
    watchdog::arm(out, deadline + WATCHDOG_GRACE);
}
