//! Layer 1 compiles a pattern only when its required literals occur in the
//! text, and compiles a cheaper build where the text allows (ASCII text; no
//! word character beyond ASCII). None of this may ever change a result: on every text of the turn-end corpus, each
//! built-in detector's matched signals and bypasses equal those of its
//! patterns compiled in full (Unicode, case-insensitive) as one set.

use guard::config::Mode;
use guard::detector::load::{builtins, LoadedDetector};
use guard::engine::Engine;
use guard::eval::corpus::{self, Case};
use guard::event::{Event, EventKind};
use guard::pattern::TextClass;
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
                // One set holds all of a detector's patterns, each under the
                // engine's own 1 MB limit; together they pass regex's 10 MB default.
                RegexSetBuilder::new(ps.iter().map(|p| p.pattern.as_str()))
                    .case_insensitive(true)
                    .size_limit(64 << 20)
                    .build()
                    .unwrap()
            };
            (build(&s.signals), build(&s.bypasses))
        })
        .collect();
    let mut compared = 0;
    let mut classes = std::collections::HashMap::new();
    for c in turn_ends() {
        let text = guard::engine::tail(&c.text, 4000);
        *classes.entry(TextClass::of(text)).or_insert(0) += 1;
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
    // Each build is exercised: ASCII, Unicode with ASCII word boundaries,
    // Unicode.
    for class in [
        TextClass::Ascii,
        TextClass::NoWordCharBeyondAscii,
        TextClass::Unicode,
    ] {
        assert!(classes.get(&class).is_some_and(|&n| n >= 40), "{classes:?}");
    }
}

/// The turn ends of the corpus, in every language it has.
fn turn_ends() -> Vec<guard::eval::corpus::TurnEndCase> {
    ["turn-end.yaml", "turn-end-langs.yaml"]
        .iter()
        .flat_map(|file| {
            let path = format!("{}/tests/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
            corpus::parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap()
        })
        .filter_map(|case| match case {
            Case::TurnEnd(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// `guard hook` looks for the first matching signal and bypass only
/// (`Engine::first_matches`): on every corpus text, each detector's Layer-1
/// answer is the one of the engine that looks for all, and the ids it
/// reports are some of those.
#[test]
fn looking_for_the_first_match_gives_the_same_answers() {
    let detectors = || {
        builtins()
            .unwrap()
            .into_iter()
            .map(|spec| LoadedDetector {
                spec,
                mode: Mode::Enforce,
            })
            .collect()
    };
    let all = Engine::new(detectors()).unwrap();
    let first = Engine::new(detectors()).unwrap().first_matches();
    let event = Event::new("test", EventKind::Stop);
    let mut fewer = 0;
    for c in turn_ends() {
        let text = guard::engine::tail(&c.text, 4000);
        let ctx = ShellContext::default();
        for (a, f) in all
            .layer1(&event, text, &ctx)
            .iter()
            .zip(first.layer1(&event, text, &ctx))
        {
            assert_eq!((a.index, a.layer1), (f.index, f.layer1), "{}", c.id);
            assert_eq!(a.signals.is_empty(), f.signals.is_empty(), "{}", c.id);
            assert!(f.signals.iter().all(|s| a.signals.contains(s)), "{}", c.id);
            assert!(
                f.bypasses.iter().all(|b| a.bypasses.contains(b)),
                "{}",
                c.id
            );
            fewer += usize::from(
                f.signals.len() + f.bypasses.len() < a.signals.len() + a.bypasses.len(),
            );
        }
    }
    assert!(fewer > 50, "only {fewer} runs stopped early");
}

#[test]
fn the_ascii_build_of_every_builtin_pattern_agrees_on_ascii_text() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/turn-end.yaml");
    let texts: Vec<String> = corpus::parse(path, &std::fs::read_to_string(path).unwrap())
        .unwrap()
        .into_iter()
        .filter_map(|case| match case {
            Case::TurnEnd(c) if c.text.is_ascii() => Some(c.text),
            _ => None,
        })
        .collect();
    assert!(texts.len() > 300, "{} ASCII texts", texts.len());
    let mut built = 0;
    for spec in builtins().unwrap() {
        for p in spec.signals.iter().chain(&spec.bypasses) {
            let Some(ascii) = guard::pattern::Matcher::for_ascii_text(&p.pattern) else {
                continue;
            };
            built += 1;
            let full = regex::RegexBuilder::new(&p.pattern)
                .case_insensitive(true)
                .build()
                .unwrap();
            for text in &texts {
                assert_eq!(
                    ascii.is_match(text),
                    full.is_match(text),
                    "{} pattern {} on {text:?}",
                    spec.name,
                    p.id
                );
            }
        }
    }
    assert!(built > 150, "only {built} patterns have an ASCII build");
}
