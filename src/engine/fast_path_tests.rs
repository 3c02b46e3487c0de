//! The hook's two-step path (heads, then only the detectors whose keywords
//! hit read in full) must give the verdict the engine gives over every
//! detector read in full.

use super::*;
use crate::actions::{Action, CommandRun, FileEdit, Outcome, TurnActions};
use crate::config::{self, LoadOptions};
use crate::detector::load;
use crate::event::EventKind;

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
fn the_two_step_path_gives_the_full_engines_verdict() {
    let cfg = config();
    let opts = EvalOptions {
        use_judge: false,
        deadline: Instant::now() + std::time::Duration::from_secs(5),
        cache_dir: None,
        shell: ShellContext::default(),
    };
    let full = Engine::new(load::load(&cfg).unwrap()).unwrap();
    let quiet = "The parser reads each record once and keeps offsets in a table.";
    let ls = Action::Command(CommandRun::new(
        "ls -la",
        "Bash",
        Outcome::Succeeded,
        Some(0),
    ));
    let edit = Action::Edit(FileEdit {
        path: "src/parser.rs".into(),
        tool: "Edit".into(),
        outcome: Outcome::Succeeded,
    });
    // (text, the turn's actions, how many detectors the hook reads in full)
    let cases: [(&str, Option<Vec<Action>>, fn(usize) -> bool); 6] = [
        (quiet, None, |n| n == 0),
        (
            "All tests pass. Shall I commit and push this now?",
            None,
            |n| n > 0,
        ),
        // Actions that meet no action rule's conditions: nothing more read.
        (quiet, Some(vec![]), |n| n == 0),
        (quiet, Some(vec![ls]), |n| n == 0),
        // An edit meets `edited`, but the text has none of its rules'
        // keywords: no rule hits, nothing more read.
        (quiet, Some(vec![edit.clone()]), |n| n == 0),
        // The text talks about a defect: the detectors whose rule hits are read.
        (
            "The parser no longer crashes on an empty record.",
            Some(vec![edit]),
            |n| n > 0,
        ),
    ];
    for (text, actions, expected_reads) in cases {
        let mut event = Event::new("claude-code", EventKind::Stop);
        event.text = Some(text.into());
        event.actions = actions.map(|actions| TurnActions {
            actions,
            dropped: 0,
            complete: true,
            plan: None,
        });
        let (heads, _) = load::heads_lenient(&cfg).unwrap();
        let lazy = Engine::of_heads(heads, &event);
        let subject = Engine::subject(&event, &cfg);
        let hits = lazy.keyword_hits(&subject);
        let lazy = lazy.read_hits(&event, &subject, &hits).unwrap();
        let read = lazy.detectors().count();
        assert!(read < full.detectors().count(), "{read} read for {text:?}");
        assert!(
            expected_reads(read),
            "{read} read for {text:?}, {:?}",
            event.actions
        );
        let two_step = lazy.evaluate_hits(&event, &cfg, &opts, &subject, hits);
        assert_eq!(
            serde_json::to_value(&two_step).unwrap(),
            serde_json::to_value(full.evaluate(&event, &cfg, &opts)).unwrap(),
            "{text}"
        );
    }
}

#[test]
fn heads_then_resolve_is_load_lenient() {
    let cfg = config();
    let (heads, _) = load::heads_lenient(&cfg).unwrap();
    let resolved = load::resolve(heads).unwrap();
    let (loaded, _) = load::load_lenient(&cfg).unwrap();
    assert_eq!(format!("{resolved:?}"), format!("{loaded:?}"));
}

/// The keyword index folds only ASCII case: a keyword is lowercased where
/// heads are made, so an extra keyword written with non-ASCII capitals
/// still finds its lowercase form in the text.
#[test]
fn an_extra_keyword_in_capitals_finds_its_lowercase_form() {
    let mut cfg = config();
    let name = "scope-change";
    cfg.detectors.entry(name.into()).or_default().extra_keywords = vec!["ÜBERPRÜFUNG".into()];
    let mut event = Event::new("claude-code", EventKind::Stop);
    event.text = Some("Die überprüfung ist fertig.".into());
    let (heads, _) = load::heads_lenient(&cfg).unwrap();
    let engine = Engine::of_heads(heads, &event);
    let hits = engine.keyword_hits(&Engine::subject(&event, &cfg));
    let at = engine
        .detectors
        .iter()
        .position(|d| d.name() == name)
        .unwrap();
    assert!(
        hits[at].iter().any(|k| k == "überprüfung"),
        "{:?}",
        hits[at]
    );
}
