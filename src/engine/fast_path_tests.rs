//! The hook's fast path (heads only, no patterns read) must give the verdict
//! the full engine gives when no keyword hits.

use super::*;
use crate::config::{self, LoadOptions};
use crate::detector::load;

fn config() -> Config {
    let opts = LoadOptions {
        only_explicit: true,
        ..LoadOptions::default()
    };
    let mut cfg = config::load(&opts).unwrap().config;
    // One detector in shadow mode, so that the mode is carried over too.
    if let Some(first) = load::heads_lenient(&cfg).unwrap().0.first() {
        let name = first.head.name.clone();
        cfg.detectors.entry(name).or_default().mode = Mode::Shadow;
    }
    cfg
}

#[test]
fn the_all_miss_verdict_is_the_engines_verdict_on_a_quiet_turn() {
    let cfg = config();
    let mut event = Event::new("claude-code", EventKind::Stop);
    event.text = Some("The parser reads each record once and keeps offsets in a table.".into());
    let (heads, _) = load::heads_lenient(&cfg).unwrap();
    let index = Layer1Index::for_event(&heads, &event);
    let hits = index.keyword_hits(&Engine::subject(&event, &cfg), heads.len());
    let applicable_hits: Vec<_> = heads
        .iter()
        .zip(&hits)
        .filter(|(h, _)| h.head.applies(&event))
        .collect();
    assert!(applicable_hits.len() > 1);
    assert!(
        applicable_hits.iter().all(|(_, k)| k.is_empty()),
        "the text must be quiet: {hits:?}"
    );
    let fast = all_miss_verdict(
        heads
            .iter()
            .filter(|h| h.head.applies(&event))
            .map(|h| (h.head.name.as_str(), h.mode)),
    );
    let engine = Engine::new(load::resolve(heads).unwrap()).unwrap();
    let opts = EvalOptions {
        use_judge: false,
        deadline: Instant::now() + std::time::Duration::from_secs(5),
        cache_dir: None,
        shell: ShellContext {
            cwd: None,
            repo_root: None,
            home: None,
        },
    };
    let full = engine.evaluate(&event, &cfg, &opts);
    assert_eq!(
        serde_json::to_value(&fast).unwrap(),
        serde_json::to_value(&full).unwrap()
    );
}

#[test]
fn heads_then_resolve_is_load_lenient() {
    let cfg = config();
    let (heads, _) = load::heads_lenient(&cfg).unwrap();
    let resolved = load::resolve(heads).unwrap();
    let (loaded, _) = load::load_lenient(&cfg).unwrap();
    assert_eq!(format!("{resolved:?}"), format!("{loaded:?}"));
}
