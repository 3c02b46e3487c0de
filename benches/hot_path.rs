//! Benchmarks of what `guard hook` does on every call (divan: `cargo bench
//! --bench hot_path`): loading the built-in adapters, config and detectors,
//! building the Layer-1 keyword automaton, the keyword prefilter itself
//! (throughput on text of growing size), Layer 1 per detector on a text that
//! hits it, redaction, payload parsing, verdict rendering, and reading the
//! last turn from transcripts of growing size. docs/performance.md reads the
//! figures; bench/compare.sh measures the whole process.

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use guard::adapter::{self, AdapterSpec};
use guard::config::{self, LoadOptions};
use guard::detector::load::{self, LoadedDetector};
use guard::engine::Engine;
use guard::event::{Event, EventKind};
use guard::shell::ShellContext;
use guard::transcript::{last_turn_text, TranscriptFormat};
use guard::verdict::{Decision, Verdict};
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// Prose that no built-in turn-end detector's keyword matches.
const QUIET: &str = "The parser reads each record once and keeps offsets in a table. The second \
pass over the file was removed, and two helpers were renamed to say what they return. ";

/// A turn end that hits every built-in turn-end detector's keywords and signals.
const LOUD: &str = "I changed the retry loop in the client and the tests pass now. \
Shall I commit and push this to main? I will defer the remaining items to a later session \
and leave the other parts out of scope for now. The bug is fixed: I changed the timeout and \
it works.";

fn repeat_to(text: &str, bytes: usize) -> String {
    text.chars().cycle().take(bytes).collect()
}

fn options() -> LoadOptions {
    LoadOptions {
        only_explicit: true,
        agent: Some("claude-code".into()),
        ..LoadOptions::default()
    }
}

fn detectors() -> Vec<LoadedDetector> {
    let cfg = config::load(&options()).expect("config").config;
    load::load_lenient(&cfg).expect("detectors").0
}

/// The detectors a turn end runs (what the hook indexes for a Stop event).
fn turn_end_detectors() -> Vec<LoadedDetector> {
    detectors()
        .into_iter()
        .filter(|d| d.spec.events.contains(&EventKind::Stop))
        .collect()
}

fn turn_end(text: &str) -> Event {
    let mut e = Event::new("claude-code", EventKind::Stop);
    e.text = Some(text.to_string());
    e
}

fn no_shell() -> ShellContext {
    ShellContext {
        cwd: None,
        repo_root: None,
        home: None,
    }
}

// ---- start-up work of every call -------------------------------------------

#[divan::bench]
fn load_builtin_adapters() -> usize {
    adapter::builtins().0.len()
}

#[divan::bench]
fn load_config() -> usize {
    config::load(&options()).expect("config").layers.len()
}

#[divan::bench]
fn load_detectors() -> usize {
    detectors().len()
}

/// What the hook reads on a Layer-1 miss: the detectors' heads only.
#[divan::bench]
fn load_detector_heads(bencher: Bencher) {
    let cfg = config::load(&options()).expect("config").config;
    bencher.bench(|| load::heads_lenient(&cfg).expect("heads").0.len());
}

/// The keyword index the hook builds for a turn end: over the heads of the
/// detectors that apply to it.
#[divan::bench]
fn build_layer1_index(bencher: Bencher) {
    let cfg = config::load(&options()).expect("config").config;
    let heads = load::heads_lenient(&cfg).expect("heads").0;
    let event = turn_end("");
    bencher
        .with_inputs(|| heads.clone())
        .bench_values(|heads| Engine::of_heads(heads, &event));
}

// ---- Layer 1 ----------------------------------------------------------------

/// The engine the hook builds for a turn end, before any spec is read.
fn turn_end_index() -> Engine {
    let cfg = config::load(&options()).expect("config").config;
    let heads = load::heads_lenient(&cfg).expect("heads").0;
    Engine::of_heads(heads, &turn_end(""))
}

/// The keyword prefilter alone: one pass over the text, the turn-end
/// detectors' keywords at once (the text has no keyword, the common case).
#[divan::bench(args = [4 * 1024, 64 * 1024, 1024 * 1024])]
fn keyword_prefilter_quiet(bencher: Bencher, bytes: usize) {
    let index = turn_end_index();
    let text = repeat_to(QUIET, bytes);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| index.keyword_hits(black_box(&text)));
}

/// The same on agent prose from the test corpus (a bug-fix report: some
/// keywords hit).
#[divan::bench(args = [4 * 1024, 1024 * 1024])]
fn keyword_prefilter_prose(bencher: Bencher, bytes: usize) {
    let index = turn_end_index();
    let text = repeat_to(include_str!("../tests/corpus/agent-prose.txt"), bytes);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| index.keyword_hits(black_box(&text)));
}

/// The prefilter on text full of keywords (every sentence hits).
#[divan::bench(args = [4 * 1024, 1024 * 1024])]
fn keyword_prefilter_loud(bencher: Bencher, bytes: usize) {
    let index = turn_end_index();
    let text = repeat_to(LOUD, bytes);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| index.keyword_hits(black_box(&text)));
}

fn detector_names() -> Vec<String> {
    detectors().into_iter().map(|d| d.spec.name).collect()
}

/// Layer 1 of one detector on a 4 KB text that hits it: keywords, then its
/// signal and bypass patterns (compiled on first use, as in a hook call).
#[divan::bench(args = detector_names())]
fn layer1_per_detector(bencher: Bencher, name: &str) {
    let one: Vec<LoadedDetector> = detectors()
        .into_iter()
        .filter(|d| d.spec.name == name)
        .collect();
    let text = repeat_to(LOUD, 4000);
    let event = turn_end(&text);
    let shell = no_shell();
    bencher
        .with_inputs(|| Engine::new(one.clone()).expect("engine"))
        .bench_values(|engine| engine.layer1(&event, black_box(&text), &shell).len());
}

/// The whole of Layer 1 for a quiet 4 KB turn end, from loaded detectors.
#[divan::bench]
fn layer1_quiet_turn_end(bencher: Bencher) {
    let ds = turn_end_detectors();
    let text = repeat_to(QUIET, 4000);
    let event = turn_end(&text);
    let shell = no_shell();
    bencher.bench(|| {
        let engine = Engine::new(ds.clone()).expect("engine");
        engine.layer1(&event, black_box(&text), &shell).len()
    });
}

// ---- redaction, payloads, verdicts -------------------------------------------

#[divan::bench(args = [4 * 1024, 64 * 1024])]
fn redact_prose(bencher: Bencher, bytes: usize) {
    let text = repeat_to(QUIET, bytes);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| guard::redact::redact(black_box(&text)).text.len());
}

fn claude() -> AdapterSpec {
    adapter::find("claude-code").expect("claude-code adapter")
}

fn stop_payload(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "3c871ebe-92d5-44dd-b157-cb264dac2c11",
        "transcript_path": "/home/user/.claude/projects/p/3c871ebe.jsonl",
        "cwd": "/home/user/project",
        "prompt_id": "9e6ebd1a-9196-41eb-a8af-c4a9f759ad04",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": text,
    }))
    .expect("payload")
}

/// A 4 KB Stop payload: JSON, agent detection, normalization into an Event.
#[divan::bench]
fn parse_payload_4k(bencher: Bencher) {
    let payload = stop_payload(&repeat_to(QUIET, 4000));
    let adapters = adapter::builtins().0;
    let spec = claude();
    bencher.bench(|| {
        let value: serde_json::Value = serde_json::from_slice(black_box(&payload)).expect("json");
        let detected = adapter::detect_agent(&adapters, &value).map(|a| a.name.len());
        (detected, spec.parse_payload(value).expect("event").kind)
    });
}

#[divan::bench(args = ["allow", "block"])]
fn render_verdict(bencher: Bencher, decision: &str) {
    let spec = claude();
    let verdict = match decision {
        "allow" => Verdict::allow(),
        _ => Verdict::with(
            Decision::Block,
            "guard [commit-before-verification]: verify first",
        ),
    };
    bencher.bench(|| spec.render(EventKind::Stop, "Stop", black_box(&verdict), None));
}

// ---- transcripts ---------------------------------------------------------------

/// Claude Code transcripts of 1 KB, 1 MB and 100 MB whose last turn is the
/// same; the reader starts from the end, so the cost should not grow.
fn transcripts() -> &'static Vec<(usize, PathBuf)> {
    static FILES: OnceLock<Vec<(usize, PathBuf)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("guard-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        [1024usize, 1 << 20, 100 << 20]
            .into_iter()
            .map(|size| {
                let path = dir.join(format!("{size}.jsonl"));
                write_transcript(&path, size);
                (size, path)
            })
            .collect()
    })
}

fn line(kind: &str, text: &str, id: usize) -> String {
    let content = if kind == "user" {
        serde_json::json!(text)
    } else {
        serde_json::json!([{"type": "text", "text": text}])
    };
    let record = serde_json::json!({
        "type": kind,
        "uuid": format!("u{id}"),
        "message": {"id": format!("m{id}"), "role": kind, "content": content},
    });
    format!("{record}\n")
}

fn write_transcript(path: &PathBuf, size: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let mut written = 0;
    let mut id = 0;
    let filler = repeat_to(QUIET, 900);
    while written + 2000 < size {
        let l = line(if id % 2 == 0 { "user" } else { "assistant" }, &filler, id);
        written += l.len();
        f.write_all(l.as_bytes()).expect("write");
        id += 1;
    }
    f.write_all(line("user", "Please tidy the parser.", id).as_bytes())
        .expect("write");
    f.write_all(line("assistant", &repeat_to(QUIET, 400), id + 1).as_bytes())
        .expect("write");
}

#[divan::bench(args = [1024, 1 << 20, 100 << 20])]
fn transcript_last_turn(bencher: Bencher, size: usize) {
    let path = transcripts()
        .iter()
        .find(|(s, _)| *s == size)
        .map(|(_, p)| p.clone())
        .expect("transcript");
    bencher.bench(|| {
        last_turn_text(TranscriptFormat::ClaudeCode, black_box(&path), 4000)
            .expect("read")
            .map(|t| t.len())
    });
}

// ---- the automaton kinds (why Layer 1 uses the one it does) ----------------

fn all_keywords() -> Vec<String> {
    let mut kws: Vec<String> = detectors()
        .iter()
        .flat_map(|d| d.spec.keywords.iter().map(|k| k.to_lowercase()))
        .collect();
    kws.sort();
    kws.dedup();
    kws
}

fn automaton(kind: &str) -> aho_corasick::AhoCorasick {
    use aho_corasick::AhoCorasickKind as K;
    let kind = match kind {
        "nfa-noncontiguous" => Some(K::NoncontiguousNFA),
        "nfa-contiguous" => Some(K::ContiguousNFA),
        "dfa" => Some(K::DFA),
        _ => None,
    };
    aho_corasick::AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .kind(kind)
        .build(all_keywords())
        .expect("automaton")
}

const KINDS: [&str; 4] = ["auto", "nfa-noncontiguous", "nfa-contiguous", "dfa"];

#[divan::bench(args = KINDS)]
fn automaton_build(bencher: Bencher, kind: &str) {
    bencher.bench(|| automaton(kind));
}

#[divan::bench(args = KINDS)]
fn automaton_scan_quiet_1m(bencher: Bencher, kind: &str) {
    let ac = automaton(kind);
    let text = repeat_to(QUIET, 1 << 20);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| ac.find_overlapping_iter(black_box(&text)).count());
}
