//! What the evidence tests built on corpus cases share (`evidence_plan`,
//! `evidence_output`): the built-in detectors in enforce mode, a corpus
//! case's event, and one detector's Layer-1 answer on it.

use guard::config::Mode;
use guard::detector::load::{builtins, LoadedDetector};
use guard::engine::{Engine, Layer1Result};
use guard::event::Event;
use guard::shell::ShellContext;

/// The built-in detectors, each in enforce mode.
pub fn engine() -> Engine {
    let detectors = (builtins().unwrap().into_iter())
        .map(|spec| LoadedDetector {
            spec,
            mode: Mode::Enforce,
        })
        .collect();
    Engine::new(detectors).unwrap()
}

/// The event of the one turn-end case `yaml` holds (corpus format), as
/// `guard eval` gives it to Claude Code's adapter.
pub fn corpus_event(yaml: &str) -> Event {
    let cases = guard::eval::corpus::parse("t.yaml", yaml).unwrap();
    guard::eval::case_event(&cases[0], "claude-code")
}

/// `detector`'s Layer-1 result on `event`, under the built-in config.
pub fn layer1_of(detector: &str, event: &Event) -> Layer1Result {
    let engine = engine();
    let config = guard::config::builtin(None);
    let text = Engine::subject(event, &config);
    let hits = engine.layer1(event, &text, &ShellContext::default());
    let index = (engine.detectors())
        .position(|d| d.spec.name == detector)
        .unwrap();
    hits.into_iter().find(|r| r.index == index).unwrap()
}
