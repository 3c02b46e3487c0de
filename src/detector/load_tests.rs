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
        let from_json: DetectorSpec = serde_json::from_str(json).unwrap();
        assert_eq!(format!("{from_yaml:?}"), format!("{from_json:?}"), "{stem}");
    }
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
