//! `guard hook`: the path every agent event takes. It must never crash, hang
//! or exit with a stray code: every error and panic is caught and turned into
//! the failure policy of the event (allow when the event cannot be known), a
//! watchdog answers per policy if the deadline passes, and the answer is
//! always written in the agent's own dialect.
//!
//! [`steps`] reads top to bottom: pick the adapter, read the payload, parse
//! the event, load the config, arm the watchdog, judge, log, render. A step
//! that ends the hook early returns its answer as the `Err` of its result.

mod failure;
mod fault;
mod loop_guard;
mod record;
mod text_stash;
pub mod turn_text;
mod unknown_shape;
#[allow(unsafe_code)] // sigaction, setitimer, write and _exit in a signal handler
mod watchdog;

use crate::adapter::{self, AdapterSpec, Detection, HookOutput};
use crate::config::{self, Config, LoadOptions};
use crate::detector::load;
use crate::engine::{Engine, EvalOptions};
use crate::event::{Event, EventKind};
use crate::shell::ShellContext;
use crate::verdict::Verdict;
use failure::{failure_output, failure_verdict, fallback_adapter, panic_message};
use fault::Stage;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Largest payload read from stdin.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

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

/// Answers one event, writes the answer and ends the process with its exit
/// code: the one way out of a `guard hook` process. A watchdog answers per
/// policy and exits the process if the deadline passes.
pub fn answer_and_exit(input: HookInput) -> ! {
    finish(&run_guarded(input, Run::OneShot))
}

/// Answers when no payload could be read (stdin never ended, say): the
/// event is unknown, so it is allowed, and the problem goes to stderr.
/// Writes the answer and ends the process.
pub fn answer_without_payload_and_exit(agent: Option<&str>, problem: &str) -> ! {
    let spec = fallback_adapter(agent);
    finish(&failure_output(&spec, EventKind::Other, "", None, problem))
}

/// Runs the hook and returns its answer, without writing it and without a
/// watchdog (tests and fuzzing call it in-process, many times).
pub fn run(input: HookInput) -> HookOutput {
    run_guarded(input, Run::InProcess)
}

/// How the hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// `guard hook`: one event in its own process, which ends once it has
    /// answered. A watchdog is armed; what the hook built is left to the
    /// exit, not freed piece by piece (a tenth of a Layer-1 miss, more on a
    /// hit).
    OneShot,
    /// In-process, many times (tests, fuzzing): no watchdog, and every
    /// value is freed.
    InProcess,
}

/// Set once the answer is written: the watchdog and the normal path race.
static ANSWERED: AtomicBool = AtomicBool::new(false);

/// Writes the answer once per process; `false` when it was written already.
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

/// Writes `out` and exits with its code. If the watchdog answered first, it
/// is ending the process: wait for it.
fn finish(out: &HookOutput) -> ! {
    if emit(out) {
        std::process::exit(out.exit);
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// What a panic's answer is rendered with: the agent named, then the
/// adapter, kind and native name of the event once known.
#[derive(Default)]
struct Known {
    agent: Option<String>,
    event: Option<(String, EventKind, String)>,
}

fn run_guarded(input: HookInput, run: Run) -> HookOutput {
    let mut known = Known {
        agent: input.agent.clone(),
        event: None,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| steps(input, run, &mut known)));
    match outcome {
        Ok(Ok(out) | Err(out)) => out,
        Err(panic) => {
            let problem = format!("internal error: {}", panic_message(&panic));
            match known.event {
                Some((name, kind, native)) => failure_output(
                    &fallback_adapter(Some(&name)),
                    kind,
                    &native,
                    None,
                    &problem,
                ),
                None => failure_output(
                    &fallback_adapter(known.agent.as_deref()),
                    EventKind::Other,
                    "",
                    None,
                    &problem,
                ),
            }
        }
    }
}

/// The hook, step by step; `Err` is an answer that ends it early.
fn steps(input: HookInput, run: Run, known: &mut Known) -> Result<HookOutput, HookOutput> {
    let started = Instant::now();
    // Detection reads a small part of every built-in adapter; only the
    // adapters picked are read in full.
    let adapters = adapter::detections();
    let named = named_adapter(&adapters, input.agent.as_deref());
    if std::env::var("GUARD_JUDGE_ACTIVE").is_ok_and(|v| v == "1") {
        // Recursion guard: a judge's own hooks must not judge again.
        return Err(named.render(EventKind::Other, "", &Verdict::allow(), None));
    }
    fault::at(Stage::Parse);
    let payload = read_payload(&input.payload, &named)?;
    let (spec, mismatch) = pick_adapter(&adapters, named, input.agent.is_some(), &payload);
    if let Some(unknown) = unknown_shape::classify(&spec, &payload) {
        // No adapter can read it: the failure policy of what it looks like.
        let native = unknown.native.clone().unwrap_or_default();
        known.event = Some((spec.name.clone(), unknown.kind, native));
        return Err(unknown_shape::answer(
            &spec, unknown, &payload, &input, started,
        ));
    }
    let mut event = spec
        .parse_payload(payload)
        .map_err(|e| failure_output(&spec, EventKind::Other, "", None, &e.to_string()))?;
    known.event = Some((spec.name.clone(), event.kind, event.native_event.clone()));
    let state_dir = crate::paths::state_dir();
    let _ = crate::state::touch_heartbeat(&state_dir, &spec.name);
    text_stash::apply(&spec, &mut event, &state_dir);

    fault::at(Stage::Config);
    let (cfg, refused) = load_config(&input, &spec, &event)?;
    let deadline = started + cfg.deadline.for_kind(event.kind);
    if run == Run::OneShot {
        start_watchdog(&spec, &event, &cfg, deadline);
    }
    let mut ctx = record::Context {
        started,
        mismatch,
        refused,
        errors: Vec::new(),
        paused: crate::state::is_paused(&state_dir),
        unknown_shape: false,
    };
    let verdict = if ctx.paused {
        Verdict::allow()
    } else {
        judge_event(&spec, &mut event, &cfg, deadline, &state_dir, run, &mut ctx)?
    };
    fault::at(Stage::Log);
    record::write(&cfg, &event, &verdict, &ctx);
    fault::at(Stage::Render);
    let out = render(&spec, &event, &cfg, &verdict, &ctx);
    if run == Run::OneShot {
        // The answer, and the end of the process: nothing above is freed.
        finish(&out);
    }
    Ok(out)
}

/// The built-in adapter `guard hook` was named for (Claude Code's when it
/// was named for none, or for one guard does not know).
fn named_adapter(adapters: &[Detection], agent: Option<&str>) -> AdapterSpec {
    let named = |n: &str| {
        let d = (adapters.iter().find(|a| a.name == n))
            .or_else(|| adapters.iter().find(|a| a.answers_to(n)))?;
        adapter::find(&d.name)
    };
    agent
        .and_then(named)
        .or_else(|| named("claude-code"))
        .unwrap_or_else(|| fallback_adapter(agent))
}

/// The payload as JSON; an empty or malformed one is answered as an
/// unknown event.
fn read_payload(payload: &[u8], named: &AdapterSpec) -> Result<serde_json::Value, HookOutput> {
    serde_json::from_slice(payload).map_err(|e| {
        let what = if payload.iter().all(u8::is_ascii_whitespace) {
            "the payload is empty".to_string()
        } else {
            format!("the payload is not JSON ({e})")
        };
        failure_output(named, EventKind::Other, "", None, &what)
    })
}

/// The adapter that reads the payload: the one its shape shows, when guard
/// was named for another agent (Cursor and Copilot run hooks installed for
/// Claude Code) or for none; with the mismatch noted for the log.
fn pick_adapter(
    adapters: &[Detection],
    named: AdapterSpec,
    was_named: bool,
    payload: &serde_json::Value,
) -> (AdapterSpec, Option<String>) {
    let detected = adapter::detect_agent(adapters, payload);
    let other = |d: &Detection| adapter::find(&d.name);
    match detected {
        Some(d) if was_named && !d.detect.is_empty() && !named.answers_to(&d.name) => {
            match other(d) {
                Some(spec) => {
                    let note = format!(
                        "guard hook {} received a {} payload; treated as {}",
                        named.name, d.name, d.name
                    );
                    (spec, Some(note))
                }
                None => (named, None),
            }
        }
        Some(d) if !was_named && d.name != named.name => (other(d).unwrap_or(named), None),
        _ => (named, None),
    }
}

/// The config layers for this event's agent and repository, and the
/// project settings they refused.
fn load_config(
    input: &HookInput,
    spec: &AdapterSpec,
    event: &Event,
) -> Result<(Config, Vec<String>), HookOutput> {
    let opts = LoadOptions {
        explicit: input.config_path.clone(),
        cwd: event.cwd.clone(),
        agent: Some(spec.name.clone()),
        only_explicit: false,
    };
    config::load_typed(&opts).map_err(|e| {
        let problem = format!("config error: {e}");
        failure_output(spec, event.kind, &event.native_event, None, &problem)
    })
}

/// The verdict on the event: the turn's text, Layer 1, the judge where
/// needed, and the loop guard for turn ends. A problem that leaves no
/// verdict is logged and answered with the failure policy.
fn judge_event(
    spec: &AdapterSpec,
    event: &mut Event,
    cfg: &Config,
    deadline: Instant,
    state_dir: &Path,
    run: Run,
    ctx: &mut record::Context,
) -> Result<Verdict, HookOutput> {
    if event.kind.is_turn_end() {
        fault::at(Stage::Transcript);
        if let Some(problem) = turn_text::fill(spec, event, cfg.text.max_bytes) {
            ctx.errors.push(problem);
        }
    }
    fault::at(Stage::Engine);
    let mut verdict = evaluate(event, cfg, deadline, state_dir, run, ctx).map_err(|problem| {
        ctx.errors.push(problem.clone());
        record::write(cfg, event, &Verdict::allow(), ctx);
        failure_output(spec, event.kind, &event.native_event, Some(cfg), &problem)
    })?;
    if event.kind.is_turn_end() {
        if let Err(e) = loop_guard::apply_before(event, &mut verdict, cfg, deadline, state_dir) {
            ctx.errors
                .push(format!("loop guard state unavailable ({e})"));
        }
    }
    Ok(verdict)
}

/// Layer 1 and, on a hit, the judge. Two steps, for speed: most events hit
/// no keyword, and for those only the detectors' heads (events, tools,
/// keywords) are read; the rest of a detector is read only after one of its
/// keywords hit.
fn evaluate(
    event: &Event,
    cfg: &Config,
    deadline: Instant,
    state_dir: &Path,
    run: Run,
    ctx: &mut record::Context,
) -> Result<Verdict, String> {
    let (heads, unknown) = load::heads_lenient(cfg).map_err(|e| e.to_string())?;
    ctx.errors.extend(unknown.iter().map(ToString::to_string));
    fault::at(Stage::Judge);
    let engine = Engine::of_heads(heads, event).first_matches();
    let subject = Engine::subject(event, cfg);
    let hits = engine.keyword_hits(&subject);
    let engine = engine
        .read_hits(event, &subject, &hits)
        .map_err(|e| e.to_string())?;
    let cache_dir = state_dir.join("cache");
    let opts = EvalOptions {
        use_judge: true,
        deadline,
        cache_dir: Some(&cache_dir),
        // Only commands need the repository root (an ancestor walk of stat
        // calls); turn ends and other events skip it.
        shell: match event.tool {
            Some(_) => ShellContext::for_cwd(event.cwd.clone()),
            None => ShellContext::default(),
        },
    };
    let verdict = engine.evaluate_hits(event, cfg, &opts, &subject, hits);
    ctx.errors.extend(engine.pattern_errors());
    if run == Run::OneShot {
        // Left to the exit (see `Run`): its matchers are many allocations.
        std::mem::forget(engine);
    }
    Ok(verdict)
}

/// The verdict in the agent's dialect, with the problems met on stderr
/// (none while guard is paused).
fn render(
    spec: &AdapterSpec,
    event: &Event,
    cfg: &Config,
    verdict: &Verdict,
    ctx: &record::Context,
) -> HookOutput {
    let mut out = spec.render(event.kind, &event.native_event, verdict, cfg.ask_as);
    if ctx.paused {
        return out;
    }
    for r in &ctx.refused {
        let r = crate::redact::redact(r).text;
        out.stderr
            .push_str(&format!("guard: project config refused: {r}\n"));
    }
    for e in &ctx.errors {
        out.stderr
            .push_str(&format!("guard: {}\n", crate::redact::redact(e).text));
    }
    out
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
