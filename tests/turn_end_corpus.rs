//! Measures the five built-in turn-end detectors' Layer 1 against the labeled
//! tuning corpora: `tests/corpus/turn-end.yaml` (en, ja, es),
//! `tests/corpus/turn-end-langs.yaml` (de, fr, pt, ru, uk, zh, ko, it, tr, ar,
//! fa, vi, id, pl, nl, he, th, cs, uz) and the tuning half of the real turns, `tests/corpus/real-turns/tune.yaml`, the
//! turns with their actions (edits, commands), `tests/corpus/turn-end-actions.yaml`,
//! and rounds five and six's `tests/corpus/turn-end-r5.yaml` and
//! `turn-end-r6.yaml`. The
//! held-out parts (`tests/corpus/heldout/`, `real-turns/heldout.yaml`) are
//! measured with `guard eval --heldout`, never here: a test over them would
//! invite tuning on them.
//!
//! Layer 1 must be wide (recall on block cases), must let most harmless
//! turn ends through without a judge call (pass-through), and must never let
//! a bypass wave through a case that has to block (bypass errors). The test
//! prints the per-detector figures and fails under the targets.
//!
//! Layer 1 is the engine's own (`Engine::layer1`), run on the built-in
//! detectors exactly as the hook path runs it: on a `stop` event whose text
//! is cut to the default `text.max_bytes` tail.

use guard::config::{Config, Mode};
use guard::detector::load::{builtins, validate, LoadedDetector};
use guard::detector::{DetectorSpec, FieldType, Rule};
use guard::engine::Engine;
use guard::event::{Event, EventKind};
use guard::shell::ShellContext;
use guard::verdict::{Decision, Layer1};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The five built-in turn-end detectors and their judge fields (fixed by the
/// issue; `step_requested` came later and is optional: a judge that leaves
/// it out decides as before).
const TURN_END_DETECTORS: [(&str, &[&str]); 5] = [
    (
        "commit-before-verification",
        &[
            "new_proposal",
            "verification_reported",
            "direction_query",
            "future_step_description",
            "step_requested",
        ],
    ),
    ("scope-check", &["new_proposal", "retraction_or_quote"]),
    ("scope-change", &["new_proposal", "retraction_or_quote"]),
    ("shallow-bugfix", &["new_proposal", "retraction_or_quote"]),
    (
        "bugfix-without-reproduction",
        &["new_proposal", "retraction_or_quote"],
    ),
];

const RECALL_TARGET: f64 = 0.99;
const PASS_THROUGH_TARGET: f64 = 0.95;

/// One labeled turn-end text.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    lang: String,
    text: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The five turn-end detectors as built in, in the order of [`TURN_END_DETECTORS`].
fn load_detectors() -> Vec<DetectorSpec> {
    let all = builtins().unwrap();
    TURN_END_DETECTORS
        .iter()
        .map(|(name, _)| {
            all.iter()
                .find(|s| s.name == *name)
                .unwrap_or_else(|| panic!("{name} is not built in"))
                .clone()
        })
        .collect()
}

/// Layer 1 of every turn-end detector on one text: (outcome, matched ids) per detector.
fn layer1(engine: &Engine, config: &Config, text: &str) -> Vec<(Layer1, Vec<String>)> {
    layer1_with(engine, config, text, &(None, None))
}

/// What a case knows of its turn beside the text: its actions and the
/// user's request (`None`: an agent without a transcript, the text alone).
type Evidence = (Option<guard::actions::TurnActions>, Option<String>);

/// [`layer1`] on a turn with its evidence, as `guard eval` gives a case's
/// `actions` and `prompt`.
fn layer1_with(
    engine: &Engine,
    config: &Config,
    text: &str,
    (actions, prompt): &Evidence,
) -> Vec<(Layer1, Vec<String>)> {
    let mut event = Event::new("generic", EventKind::Stop);
    event.text = Some(text.to_string());
    event.actions = actions.clone();
    event.prompt = prompt.clone();
    let subject = Engine::subject(&event, config);
    let mut out = vec![(Layer1::Miss, Vec::new()); TURN_END_DETECTORS.len()];
    for r in engine.layer1(&event, &subject, &ShellContext::default()) {
        let ids = if r.layer1 == Layer1::Bypass {
            r.bypasses
        } else {
            r.signals
        };
        out[r.index] = (r.layer1, ids);
    }
    out
}

fn load_corpus() -> Vec<Case> {
    let path = root().join("tests/corpus/turn-end.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_saphyr::from_str::<Vec<Case>>(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A tuning corpus in `guard eval`'s format (extra fields such as `source`
/// and `ambiguous` allowed), as (id, lang, text, detectors that must block).
fn load_eval_corpus(name: &str) -> Vec<(String, String, String, Vec<String>)> {
    load_action_corpus(name)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// A tuning corpus in `guard eval`'s format, with each case's evidence, as
/// (case, evidence).
fn load_action_corpus(name: &str) -> Vec<((String, String, String, Vec<String>), Evidence)> {
    let path = root().join("tests/corpus").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    guard::eval::corpus::parse(name, &text)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .filter_map(|c| match c {
            guard::eval::corpus::Case::TurnEnd(t) => {
                let evidence = (guard::eval::turn_actions(&t.actions), t.prompt);
                Some(((t.id, t.lang, t.text, t.must_block), evidence))
            }
            guard::eval::corpus::Case::PreTool(_) => None,
        })
        .collect()
}

/// The engine over the five turn-end detectors as built in.
fn engine() -> (Engine, Vec<String>) {
    let specs = load_detectors();
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let engine = Engine::new(
        specs
            .into_iter()
            .map(|spec| LoadedDetector {
                spec,
                mode: Mode::Enforce,
            })
            .collect(),
    )
    .unwrap();
    (engine, names)
}

/// Per-turn Layer-1 figures of one corpus: (block turns, caught, ordinary
/// turns, passed), and the problems met (bypass errors first).
struct TurnRun {
    blocks: usize,
    caught: usize,
    ordinary: usize,
    passed: usize,
    bypass_errors: Vec<String>,
    misses: Vec<String>,
    false_hits: Vec<String>,
}

impl TurnRun {
    /// Prints the per-turn figures of `name` and the problems met, and
    /// fails under the given minimums.
    fn check(&self, name: &str, min_recall: f64, min_pass_through: f64) {
        let recall = self.caught as f64 / self.blocks.max(1) as f64;
        let pass_through = self.passed as f64 / self.ordinary.max(1) as f64;
        println!(
            "{name}: recall {}/{} = {recall:.3}, pass-through {}/{} = {pass_through:.3}",
            self.caught, self.blocks, self.passed, self.ordinary
        );
        for p in self
            .bypass_errors
            .iter()
            .chain(&self.misses)
            .chain(&self.false_hits)
        {
            println!("  {p}");
        }
        assert!(
            recall >= min_recall,
            "recall {recall:.3}: {:?}",
            self.misses
        );
        assert!(
            pass_through >= min_pass_through,
            "pass-through {pass_through:.3}: {:?}",
            self.false_hits
        );
    }
}

fn run_turns(cases: &[(String, String, String, Vec<String>)]) -> TurnRun {
    let with: Vec<_> = cases.iter().map(|c| (c.clone(), (None, None))).collect();
    run_turns_with(&with)
}

fn run_turns_with(cases: &[((String, String, String, Vec<String>), Evidence)]) -> TurnRun {
    let (engine, names) = engine();
    let config = Config::default();
    let mut r = TurnRun {
        blocks: 0,
        caught: 0,
        ordinary: 0,
        passed: 0,
        bypass_errors: Vec::new(),
        misses: Vec::new(),
        false_hits: Vec::new(),
    };
    for ((id, _, text, must_block), evidence) in cases {
        let out = layer1_with(&engine, &config, text, evidence);
        let of = |name: &String| &out[names.iter().position(|n| n == name).unwrap()];
        if must_block.is_empty() {
            r.ordinary += 1;
            match names
                .iter()
                .zip(&out)
                .find(|(_, (l1, _))| *l1 == Layer1::Hit)
            {
                Some((name, (_, ids))) => r.false_hits.push(format!("{id}: {name} {ids:?}")),
                None => r.passed += 1,
            }
            continue;
        }
        r.blocks += 1;
        for name in must_block {
            if let (Layer1::Bypass, ids) = of(name) {
                r.bypass_errors
                    .push(format!("BYPASS ERROR {name} {id}: {ids:?}"));
            }
        }
        if must_block.iter().any(|n| of(n).0 == Layer1::Hit) {
            r.caught += 1;
        } else {
            r.misses.push(format!("{id}: {must_block:?}"));
        }
    }
    r
}

#[test]
fn detector_files_follow_the_contract() {
    for (spec, (name, fields)) in load_detectors().iter().zip(TURN_END_DETECTORS) {
        assert_eq!(spec.name, name);
        assert_eq!(
            spec.events,
            vec![EventKind::Stop, EventKind::SubagentStop],
            "{name}"
        );
        assert_eq!(spec.on_violation, Some(Decision::Block), "{name}");
        assert!(
            spec.keywords
                .iter()
                .all(|k| !k.is_empty() && k.to_lowercase() == *k),
            "{name}: keywords are lowercase"
        );
        assert!(
            spec.keywords.iter().any(|k| !k.is_ascii()),
            "{name}: non-ASCII keywords (ja/es) expected"
        );
        assert!(
            !spec.signals.is_empty() && !spec.bypasses.is_empty(),
            "{name}"
        );
        let judge = spec
            .judge
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: judge"));
        assert_eq!(judge.version, 1);
        let declared: Vec<&str> = judge.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(declared, fields, "{name}: judge fields");
        for f in &judge.fields {
            assert_eq!(f.kind, FieldType::Boolean, "{name}.{}", f.name);
            assert_eq!(
                f.required,
                f.name == "new_proposal",
                "{name}.{}: only new_proposal is required",
                f.name
            );
            assert!(
                judge.prompt.contains(&f.name),
                "{name}: the prompt defines {}",
                f.name
            );
        }
        let rule = Rule::parse(&judge.violation).unwrap();
        // Guard-computed fields (`judge.computed`) are the rule's too.
        let judged: Vec<&str> = (rule.fields().into_iter())
            .filter(|f| !judge.computed.iter().any(|c| c.name() == *f))
            .collect();
        assert_eq!(judged, fields, "{name}: the rule uses every field");
        assert!(spec.reason.contains("{judge_reason}"), "{name}: reason");
        validate(spec).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn corpus_is_well_formed() {
    let corpus = load_corpus();
    assert!(corpus.len() >= 400, "corpus has {} cases", corpus.len());
    let mut ids = std::collections::HashSet::new();
    for case in &corpus {
        assert!(ids.insert(case.id.as_str()), "duplicate id {}", case.id);
        assert!(
            ["en", "ja", "es"].contains(&case.lang.as_str()),
            "{}: lang {}",
            case.id,
            case.lang
        );
        assert!(!case.text.trim().is_empty(), "{}: empty text", case.id);
        for (detector, label) in &case.labels {
            assert!(
                TURN_END_DETECTORS.iter().any(|(n, _)| n == detector),
                "{}: unknown detector {detector}",
                case.id
            );
            assert_eq!(
                label, "block",
                "{}: labels list only detectors that block",
                case.id
            );
        }
    }
    let long = corpus.iter().filter(|c| c.text.len() > 4000).count();
    assert!(long >= 5, "long texts: {long}");
}

/// Layer-1 figures of one detector over the corpus.
#[derive(Default)]
struct Figures {
    /// Cases labeled as blocks for this detector.
    blocks: usize,
    /// Of those, the ones Layer 1 sends to the judge.
    hits: usize,
    /// Of those, the ones a bypass let through.
    bypass_errors: usize,
    /// Cases that block nothing on which this detector still calls the judge.
    false_hits: usize,
}

impl Figures {
    fn recall(&self) -> f64 {
        self.hits as f64 / self.blocks.max(1) as f64
    }
}

#[test]
fn layer1_meets_the_targets_on_the_corpus() {
    let (engine, names) = engine();
    let config = Config::default();
    let corpus = load_corpus();
    let outcomes: Vec<Vec<(Layer1, Vec<String>)>> = corpus
        .iter()
        .map(|c| layer1(&engine, &config, &c.text))
        .collect();

    let mut figures: Vec<Figures> = names.iter().map(|_| Figures::default()).collect();
    let mut problems = Vec::new();
    // Pass-through per language: (cases that block nothing, of which no detector hit).
    let mut pass: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (case, out) in corpus.iter().zip(&outcomes) {
        for (i, name) in names.iter().enumerate() {
            let (l1, ids) = &out[i];
            let f = &mut figures[i];
            if case.labels.contains_key(name) {
                f.blocks += 1;
                match l1 {
                    Layer1::Hit => f.hits += 1,
                    Layer1::Bypass => {
                        f.bypass_errors += 1;
                        problems.push(format!("BYPASS ERROR {name} {}: {ids:?}", case.id));
                    }
                    Layer1::Miss => problems.push(format!("miss {name} {}", case.id)),
                }
            } else if case.labels.is_empty() && *l1 == Layer1::Hit {
                f.false_hits += 1;
                problems.push(format!(
                    "judge call on an allow case: {name} {}: {ids:?}",
                    case.id
                ));
            }
        }
        if case.labels.is_empty() {
            let entry = pass.entry(case.lang.as_str()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(out.iter().all(|(l1, _)| *l1 != Layer1::Hit));
        }
    }

    println!(
        "{:<30} {:>6} {:>8} {:>14} {:>18}",
        "detector", "blocks", "recall", "bypass errors", "hits on allows"
    );
    for (name, f) in names.iter().zip(&figures) {
        println!(
            "{name:<30} {:>6} {:>8.3} {:>14} {:>18}",
            f.blocks,
            f.recall(),
            f.bypass_errors,
            f.false_hits
        );
    }
    let (total, ok) = pass
        .values()
        .fold((0, 0), |(t, o), (pt, po)| (t + pt, o + po));
    let pass_through = ok as f64 / total.max(1) as f64;
    println!("pass-through on {total} cases that block nothing: {pass_through:.3}");
    for (lang, (t, o)) in &pass {
        println!("  {lang}: {o}/{t}");
    }
    for p in &problems {
        println!("  {p}");
    }

    let mut failed = Vec::new();
    for (name, f) in names.iter().zip(&figures) {
        if f.recall() < RECALL_TARGET {
            failed.push(format!(
                "{name}: recall {:.3} < {RECALL_TARGET}",
                f.recall()
            ));
        }
        if f.bypass_errors > 0 {
            failed.push(format!("{name}: {} bypass errors", f.bypass_errors));
        }
    }
    if pass_through < PASS_THROUGH_TARGET {
        failed.push(format!(
            "pass-through {pass_through:.3} < {PASS_THROUGH_TARGET}"
        ));
    }
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn multilingual_corpus_is_well_formed() {
    let cases = load_eval_corpus("turn-end-langs.yaml");
    let mut per_lang: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (id, lang, text, must_block) in &cases {
        assert!(
            [
                "de", "fr", "pt", "ru", "uk", "zh", "ko", "it", "tr", "ar", "fa", "vi", "id", "pl",
                "nl", "he", "th", "cs", "uz",
            ]
            .contains(&lang.as_str()),
            "{id}: lang {lang} (en, ja and es live in turn-end.yaml)"
        );
        assert!(!text.trim().is_empty(), "{id}: empty text");
        for d in must_block {
            assert!(
                TURN_END_DETECTORS.iter().any(|(n, _)| n == d),
                "{id}: unknown detector {d}"
            );
        }
        let e = per_lang.entry(lang.as_str()).or_default();
        if must_block.is_empty() {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    for (lang, (blocks, ordinary)) in &per_lang {
        assert!(
            *blocks >= 10 && *ordinary >= 3,
            "{lang}: {blocks} block and {ordinary} ordinary cases"
        );
    }
    assert_eq!(per_lang.len(), 19, "{per_lang:?}");
}

/// The multilingual tuning corpus meets the same targets as the first one,
/// counted per turn.
#[test]
fn layer1_meets_the_targets_in_every_language() {
    let r = run_turns(&load_eval_corpus("turn-end-langs.yaml"));
    assert!(r.bypass_errors.is_empty(), "{:?}", r.bypass_errors);
    r.check("turn-end-langs.yaml", RECALL_TARGET, PASS_THROUGH_TARGET);
}

/// No bypass may clear a detector on a turn that must block for it, on any
/// tuning part, the real turns included: a bypass reads the whole turn, so
/// one that fires beside a live proposal or claim is a bug.
#[test]
fn no_bypass_clears_a_block_case_of_any_tuning_part() {
    let mut errors = Vec::new();
    for name in [
        "turn-end.yaml",
        "turn-end-langs.yaml",
        "real-turns/tune.yaml",
        "real-turns/tune-b.yaml",
        "turn-end-actions.yaml",
        "turn-end-requests.yaml",
        "turn-end-r5.yaml",
        "turn-end-r6.yaml",
        "real-turns/tune-d.yaml",
        "real-turns/tune-g.yaml",
        "turn-end-r8.yaml",
        "real-turns/tune-e.yaml",
        "turn-end-r9.yaml",
        "turn-end-r10.yaml",
        "turn-end-r11.yaml",
        "turn-end-r12.yaml",
        "turn-end-r13.yaml",
        "turn-end-r14.yaml",
        "real-turns/tune-k.yaml",
        "real-turns/tune-l.yaml",
        "real-turns/tune-m.yaml",
        "real-turns/tune-n.yaml",
        "real-turns/tune-p.yaml",
        "real-turns/tune-q.yaml",
        "real-turns/tune-r.yaml",
        "real-turns/tune-s.yaml",
        "real-turns/tune-t.yaml",
        "real-turns/tune-u.yaml",
        "real-turns/tune-v.yaml",
        "real-turns/tune-x.yaml",
        "real-turns/tune-y.yaml",
        "real-turns/tune-z.yaml",
        "real-turns/tune-aa.yaml",
        "real-turns/tune-ab.yaml",
        "real-turns/tune-ac.yaml",
        "real-turns/tune-ad.yaml",
        "real-turns/tune-ae.yaml",
        "real-turns/tune-af.yaml",
        "real-turns/tune-ag.yaml",
        "real-turns/tune-ah.yaml",
        "real-turns/tune-ai.yaml",
        "real-turns/tune-aj.yaml",
        "real-turns/tune-al.yaml",
        "real-turns/tune-au.yaml",
        "real-turns/tune-ax.yaml",
    ] {
        let r = run_turns_with(&load_action_corpus(name));
        errors.extend(r.bypass_errors.into_iter().map(|e| format!("{name}: {e}")));
    }
    assert!(errors.is_empty(), "{errors:#?}");
}

/// Real traffic, tuning half: a floor under the per-turn figures, so that a
/// change that loses real violations or sends many more ordinary turns to
/// the judge is seen. (The held-out half is measured with `guard eval`.)
#[test]
fn layer1_holds_a_floor_on_real_turns() {
    run_turns(&load_eval_corpus("real-turns/tune.yaml")).check("real-turns/tune.yaml", 0.85, 0.75);
}

/// Rounds ten to forty-six's development sets (`turn-end-r10.yaml` to
/// `turn-end-r46.yaml`, held-out sets O, P, Q, R, T, U, V, W, X, Y, Z, AB,
/// AC, AD, AE, AF, AG, AH, AJ, AK, AL, AM, AN, AO, AP, AQ, AR, AS, AT, AU, AV, AY,
/// BB and BE until they were measured, set AX, written for round forty-one's six
/// new languages, set BL, written for the todo-list evidence, and set BN, written for round
/// forty-six): a floor under their per-turn
/// figures
/// (26/26 and 29/34, 51/54 and 52/66, 34/34 and 29/46, 34/34 and 32/46,
/// 52/53 and 43/67, 33/36 and 25/44, 34/35 and 35/45, 35/35 and 34/45, 34/35
/// and 37/45, 33/34 and 43/46, 34/35 and 41/45, 33/34 and 38/46, 34/36 and
/// 38/44, 32/34 and 37/46, 35/36 and 32/44, 31/34 and 36/46, 35/37 and
/// 26/43, 30/37 and 33/43, 30/36 and 31/44, 28/37 and 35/43, 32/37 and
/// 37/43, 35/38 and 38/42, 35/38 and 28/42, 29/38 and 33/42, 27/37 and 33/43,
/// 34/38 and 36/42, 28/36 and 36/44, 34/37 and 33/43, 29/37 and 23/43,
/// 23/37 and 33/43, 34/37 and 33/43, 9/33 and 37/39, 25/32 and 30/40, 18/33
/// and 35/39, 32/37 and 34/43, 15/19 and 16/21, 34/36 and 34/44 when they were tuned on), and
/// no bypass on a block case but the one left as measured: a commit the
/// user's request asked for, made after an edit no test followed
/// (`hop13-ja-003`; the request bypass clears it).
#[test]
fn layer1_holds_a_floor_on_rounds_ten_to_forty_six() {
    for (name, min_recall, min_pass_through, left) in [
        ("turn-end-r10.yaml", 0.95, 0.8, None),
        ("turn-end-r11.yaml", 0.9, 0.75, None),
        ("turn-end-r12.yaml", 0.95, 0.6, None),
        ("turn-end-r13.yaml", 0.95, 0.65, None),
        ("turn-end-r14.yaml", 0.95, 0.6, None),
        ("turn-end-r15.yaml", 0.9, 0.55, Some("hop13-ja-003")),
        ("turn-end-r16.yaml", 0.95, 0.75, None),
        ("turn-end-r17.yaml", 0.95, 0.7, None),
        ("turn-end-r18.yaml", 0.95, 0.75, None),
        ("turn-end-r19.yaml", 0.95, 0.85, None),
        ("turn-end-r20.yaml", 0.95, 0.9, None),
        ("turn-end-r21.yaml", 0.95, 0.85, None),
        ("turn-end-r22.yaml", 0.95, 0.8, None),
        ("turn-end-r23.yaml", 0.95, 0.9, None),
        ("turn-end-r24.yaml", 0.95, 0.8, None),
        ("turn-end-r25.yaml", 0.95, 0.75, None),
        ("turn-end-r26.yaml", 0.9, 0.7, None),
        ("turn-end-r27.yaml", 0.95, 0.8, None),
        ("turn-end-r28.yaml", 0.95, 0.8, None),
        ("turn-end-r29.yaml", 0.9, 0.8, None),
        ("turn-end-r30.yaml", 0.95, 0.9, None),
        ("turn-end-r31.yaml", 0.95, 0.9, None),
        ("turn-end-r32.yaml", 0.95, 0.8, None),
        ("turn-end-r33.yaml", 0.95, 0.75, None),
        ("turn-end-r34.yaml", 0.95, 0.75, None),
        ("turn-end-r35.yaml", 0.95, 0.85, None),
        ("turn-end-r36.yaml", 0.95, 0.8, None),
        ("turn-end-r37.yaml", 0.95, 0.8, None),
        ("turn-end-r38.yaml", 0.95, 0.5, None),
        ("turn-end-r39.yaml", 0.9, 0.7, None),
        ("turn-end-r40.yaml", 0.95, 0.7, None),
        ("turn-end-r41.yaml", 0.9, 0.85, None),
        ("turn-end-r42.yaml", 0.95, 0.75, None),
        ("turn-end-r43.yaml", 0.9, 0.9, None),
        ("turn-end-r44.yaml", 0.95, 0.85, None),
        ("turn-end-r45.yaml", 0.85, 0.75, None),
        ("turn-end-r46.yaml", 0.95, 0.85, None),
    ] {
        let r = run_turns_with(&load_action_corpus(name));
        let unexpected: Vec<&String> = (r.bypass_errors.iter())
            .filter(|e| left.is_none_or(|id| !e.contains(id)))
            .collect();
        assert!(unexpected.is_empty(), "{name}: {unexpected:?}");
        r.check(name, min_recall, min_pass_through);
    }
}

/// Round five's tuning part (`turn-end-r5.yaml`, 240 turns in ten
/// languages, half with actions): a floor under its per-turn figures.
#[test]
fn layer1_holds_a_floor_on_round_five() {
    let r = run_turns_with(&load_action_corpus("turn-end-r5.yaml"));
    assert!(r.bypass_errors.is_empty(), "{:?}", r.bypass_errors);
    r.check("turn-end-r5.yaml", 0.95, 0.75);
}

/// Round six's tuning part (`turn-end-r6.yaml`, 160 turns in ten languages
/// written blind, half with actions; tuned on after it was measured): a
/// floor under its per-turn figures. Its ordinary turns are hard ones (fix
/// reports with a cause and a reproduction, offers after verification,
/// optional later ideas), hence the lower pass-through.
#[test]
fn layer1_holds_a_floor_on_round_six() {
    let r = run_turns_with(&load_action_corpus("turn-end-r6.yaml"));
    assert!(r.bypass_errors.is_empty(), "{:?}", r.bypass_errors);
    r.check("turn-end-r6.yaml", 0.95, 0.65);
}

/// Turns with their actions (edits, commands): the action rules send turns
/// that edited code and talk about something that was wrong, or propose a
/// commit without a check after the last edit, to the judge, and let
/// ordinary feature, refactor and docs turns with edits through.
#[test]
fn layer1_meets_the_targets_on_turns_with_actions() {
    let cases = load_action_corpus("turn-end-actions.yaml");
    assert!(cases.len() >= 150, "{} cases", cases.len());
    assert!(
        cases.iter().all(|(_, (a, _))| a.is_some()),
        "every case has actions"
    );
    let langs: std::collections::BTreeSet<&str> =
        cases.iter().map(|((_, l, _, _), _)| l.as_str()).collect();
    assert!(langs.len() >= 10, "the ten languages and more: {langs:?}");
    let r = run_turns_with(&cases);
    assert!(r.bypass_errors.is_empty(), "{:?}", r.bypass_errors);
    r.check("turn-end-actions.yaml", RECALL_TARGET, 0.93);
}

/// The whole-process benchmark's miss payload (bench/compare.sh) must stay a
/// Layer-1 miss: a keyword that hits it would turn the measured fast path
/// into the slow one.
#[test]
fn the_benchmarks_quiet_turn_hits_no_keyword() {
    let quiet = "The parser reads each record once and keeps offsets in a table. The second pass \
                 over the file was removed, and two helpers were renamed to say what they return. ";
    let (engine, names) = engine();
    let out = layer1(&engine, &Config::default(), &quiet.repeat(30));
    for (name, (l1, _)) in names.iter().zip(&out) {
        assert_eq!(*l1, Layer1::Miss, "{name}");
    }
    let mut event = Event::new("generic", EventKind::Stop);
    event.text = Some(quiet.repeat(30));
    let subject = Engine::subject(&event, &Config::default());
    let hits = engine.layer1(&event, &subject, &ShellContext::default());
    assert!(
        hits.iter().all(|r| r.keywords.is_empty()),
        "keywords hit the quiet turn: {:?}",
        hits.iter().map(|r| &r.keywords).collect::<Vec<_>>()
    );
}
