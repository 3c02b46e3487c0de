//! Unit tests of `load`: the embedded built-in detectors, heads and gates
//! are those of the detector files.

use super::*;

/// `guard hook` reads built-in detectors from the JSON that build.rs
/// pre-parsed; it must be the same spec as the YAML file says, its
/// `same_as` patterns taken from the files they name.
#[test]
fn every_pre_parsed_builtin_detector_is_its_yaml_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("detectors");
    let files: Vec<(String, serde_json::Value)> = crate::builtin::detectors()
        .map(|(stem, _)| {
            let yaml = std::fs::read_to_string(dir.join(format!("{stem}.yaml"))).unwrap();
            (stem.to_string(), serde_saphyr::from_str(&yaml).unwrap())
        })
        .collect();
    let files = super::super::same_as::resolve(&files).unwrap();
    for ((stem, json), (_, value)) in crate::builtin::detectors().zip(&files) {
        let from_yaml = parse(stem, &serde_json::to_string(value).unwrap()).unwrap();
        let mut from_json: DetectorSpec = serde_json::from_str(json).unwrap();
        // build.rs adds the literal gates of shell rules (next test).
        for rule in from_json.shell.iter_mut().flat_map(|s| &mut s.rules) {
            rule.literal_gates.clear();
        }
        assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"), "{stem}");
    }
}

/// Each literal gate build.rs wrote into a built-in shell rule is the gate
/// of its field's regex (fragments expanded), and every regex that has a
/// gate got it.
#[test]
fn every_literal_gate_of_a_shell_rule_is_its_regexes() {
    use crate::shell::Field;
    let specs = builtins().unwrap();
    let kinds = crate::actions::kinds::embedded_rules();
    let sections = specs.iter().flat_map(|s| &s.shell).chain([&kinds]);
    let mut gated = 0;
    for (section, rule) in sections.flat_map(|s| s.rules.iter().map(move |r| (s, r))) {
        for field in Field::ALL {
            let gate = rule.literal_gates.get(field.name());
            let expected = (field.pattern(rule).as_deref())
                .filter(|_| !matches!(field, Field::SkipArgs))
                .map(|p| crate::shell::expand_fragments(p, &section.patterns, 0).unwrap())
                .map(|p| crate::pattern::Gate::of_pattern(&p))
                .filter(|g| *g != crate::pattern::Gate::Always)
                .map(|g| g.encode());
            assert_eq!(gate, expected.as_ref(), "{} {}", rule.id, field.name());
            gated += usize::from(gate.is_some());
        }
    }
    assert!(gated > 100, "{gated}");
}

/// The embedded heads are the heads of the detector files.
#[test]
fn every_embedded_head_is_its_detector_file() {
    let specs = builtins().unwrap();
    assert_eq!(specs.len(), crate::builtin::detector_heads().count());
    for (spec, (_, head)) in specs.iter().zip(crate::builtin::detector_heads()) {
        let head: Head = serde_json::from_str(head).unwrap();
        assert_eq!(format!("{head:?}"), format!("{:?}", spec.head()));
    }
}

/// The embedded gates are the ones computed at run time, each on its
/// own pattern.
#[test]
fn every_embedded_gate_is_its_patterns() {
    let mut checked = 0;
    for spec in builtins().unwrap() {
        for p in spec.signals.iter().chain(&spec.bypasses) {
            let embedded = p.builtin_gate.as_deref().expect(&p.id);
            assert_eq!(
                embedded,
                crate::pattern::Gate::of_pattern(&p.pattern).encode()
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

/// A built-in detector's judgment part is its full spec's name, events,
/// judge, `on_violation` and `reason`, the config's `verification` applied.
#[test]
fn every_judgment_part_is_its_detectors_judgment() {
    let mut cfg = crate::config::builtin(None);
    let name = "commit-before-verification";
    cfg.detectors.entry(name.into()).or_default().verification =
        Some(super::super::VerificationSource::Observed);
    let (heads, _) = heads_lenient(&cfg).unwrap();
    assert!(heads.len() >= 5);
    for head in heads {
        let part = head.judgment_part().unwrap();
        let full = head.read().unwrap();
        let (p, f) = (&part.spec, &full.spec);
        assert_eq!(
            (&p.name, &p.events, &p.on_violation, &p.reason, part.mode),
            (&f.name, &f.events, &f.on_violation, &f.reason, full.mode)
        );
        assert_eq!(
            format!("{:?}", p.judge),
            format!("{:?}", f.judge),
            "{}",
            p.name
        );
        assert!(p.signals.is_empty() && p.keywords.is_empty());
    }
}
