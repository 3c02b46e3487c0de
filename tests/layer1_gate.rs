//! Layer 1 compiles a pattern only when its required prefix literals occur
//! in the text. This must never change a result: on every text of the
//! turn-end corpus, each built-in detector's matched signals and bypasses
//! equal those of its patterns compiled in full as one set.

use guard::config::Mode;
use guard::detector::load::{builtins, LoadedDetector};
use guard::engine::Engine;
use guard::eval::corpus::{self, Case};
use guard::event::{Event, EventKind};
use guard::shell::ShellContext;
use regex::RegexSetBuilder;

#[test]
fn gated_patterns_match_exactly_like_the_full_set() {
    let specs: Vec<_> = builtins()
        .unwrap()
        .into_iter()
        .filter(|s| s.shell.is_none())
        .collect();
    let engine = Engine::new(
        specs
            .iter()
            .cloned()
            .map(|spec| LoadedDetector {
                spec,
                mode: Mode::Enforce,
            })
            .collect(),
    )
    .unwrap();
    let sets: Vec<_> = specs
        .iter()
        .map(|s| {
            let build = |ps: &[guard::detector::PatternSpec]| {
                RegexSetBuilder::new(ps.iter().map(|p| p.pattern.as_str()))
                    .case_insensitive(true)
                    .build()
                    .unwrap()
            };
            (build(&s.signals), build(&s.bypasses))
        })
        .collect();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/turn-end.yaml");
    let cases = corpus::parse(path, &std::fs::read_to_string(path).unwrap()).unwrap();
    let mut compared = 0;
    for case in cases {
        let Case::TurnEnd(c) = case else { continue };
        let text = guard::engine::tail(&c.text, 4000);
        let event = Event::new("test", EventKind::Stop);
        for r in engine.layer1(&event, text, &ShellContext::default()) {
            if r.keywords.is_empty() {
                continue;
            }
            let spec = &specs[r.index];
            let (signals, bypasses) = &sets[r.index];
            let want: Vec<String> = signals
                .matches(text)
                .iter()
                .map(|i| spec.signals[i].id.clone())
                .collect();
            assert_eq!(r.signals, want, "{} signals on {}", spec.name, c.id);
            if !want.is_empty() {
                let want: Vec<String> = bypasses
                    .matches(text)
                    .iter()
                    .map(|i| spec.bypasses[i].id.clone())
                    .collect();
                assert_eq!(r.bypasses, want, "{} bypasses on {}", spec.name, c.id);
            }
            compared += 1;
        }
    }
    assert!(compared > 500, "compared {compared} detector runs");
}
