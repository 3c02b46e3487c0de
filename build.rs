//! Embeds every `detectors/*.yaml` and `adapters/*.yaml` file and the default
//! `config.yaml` in the binary, so that adding a built-in detector or a
//! Claude-like agent is adding a file.
//!
//! Each file is embedded twice: as written (YAML, for error messages, `guard
//! config show` and the installer) and pre-parsed into JSON. `guard hook`
//! runs on every event of every agent and is a short-lived process, so
//! parsing YAML on each call was most of its cost; serde_json reads the same
//! data several times faster. A third, tiny form is embedded: the "head"
//! of each detector (name, events, tools, keywords: what Layer 1 needs, so
//! that an event no keyword hits never reads prompts and patterns) and of
//! each adapter (what agent detection needs, so that only the adapter
//! picked is read in full). A
//! built-in file that is not valid YAML fails the build here, not at run
//! time; whether it fits the typed schema is checked by unit tests that
//! compare the JSON form with the YAML form.

// The literal gates and the ASCII builds' HIRs of the built-in patterns are
// computed here, with the engine's own code (see `src/engine/gate.rs` and
// `src/engine/ascii_hir.rs`).
#[allow(dead_code)]
#[path = "src/engine/ascii_hir.rs"]
mod ascii_hir;
#[allow(dead_code)]
#[path = "src/engine/gate.rs"]
mod gate;

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The keys of a detector that Layer 1 reads (see `detector::load::Head`).
const DETECTOR_HEAD_KEYS: &[&str] = &["name", "events", "tools", "keywords"];
/// The keys of an adapter that agent detection reads (see `adapter::AdapterHead`).
const ADAPTER_HEAD_KEYS: &[&str] = &[
    "name",
    "aliases",
    "detect",
    "priority",
    "event_field",
    "event_rules",
    "default_event",
];

fn main() {
    link_without_pie();
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut code = String::new();
    let mut gates: BTreeMap<String, (String, String)> = BTreeMap::new();
    for dir in ["detectors", "adapters"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut files: Vec<_> = fs::read_dir(dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
        files.sort();
        let upper = dir.to_uppercase();
        let mut yaml = format!(
            "/// Built-in `{dir}/*.yaml` files: (file stem, contents).\npub const {upper}: &[(&str, &str)] = &[\n"
        );
        let mut json = format!(
            "/// Built-in `{dir}/*.yaml` files pre-parsed into JSON: (file stem, JSON).\npub const {upper}_JSON: &[(&str, &str)] = &[\n"
        );
        let (head_keys, heads_doc, heads_name) = if dir == "detectors" {
            (
                DETECTOR_HEAD_KEYS,
                "The Layer-1 part of each built-in detector",
                "DETECTOR_HEADS_JSON",
            )
        } else {
            (
                ADAPTER_HEAD_KEYS,
                "The detection part of each built-in adapter",
                "ADAPTER_HEADS_JSON",
            )
        };
        let mut heads = format!(
            "/// {heads_doc}, as JSON: (file stem, JSON).\npub const {heads_name}: &[(&str, &str)] = &[\n"
        );
        for path in files {
            println!("cargo:rerun-if-changed={}", path.display());
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let abs = manifest.join(&path);
            yaml.push_str(&format!(
                "    ({stem:?}, include_str!({:?})),\n",
                abs.display().to_string()
            ));
            let value = yaml_to_json(&abs);
            json.push_str(&format!("    ({stem:?}, {:?}),\n", value.to_string()));
            if dir == "detectors" {
                for key in ["signals", "bypasses"] {
                    let patterns = value.get(key).and_then(|v| v.as_array());
                    for p in patterns.into_iter().flatten() {
                        if let Some(p) = p.get("pattern").and_then(|p| p.as_str()) {
                            let gate = gate::Gate::of_pattern(p).encode();
                            let hir = ascii_hir::translate(p)
                                .and_then(|h| ascii_hir::encode(&h))
                                .unwrap_or_default();
                            gates.insert(p.to_string(), (gate, hir));
                        }
                    }
                }
            }
            let mut head = serde_json::Map::new();
            for key in head_keys {
                if let Some(v) = value.get(key) {
                    head.insert((*key).to_string(), v.clone());
                }
            }
            heads.push_str(&format!(
                "    ({stem:?}, {:?}),\n",
                serde_json::Value::Object(head).to_string()
            ));
        }
        for part in [&mut yaml, &mut json, &mut heads] {
            part.push_str("];\n");
        }
        code.push_str(&yaml);
        code.push_str(&json);
        code.push_str(&heads);
    }
    code.push_str(
        "/// Each built-in signal and bypass pattern, prepared, sorted by pattern:\n/// (pattern, encoded literal gate (see `engine::gate`), encoded HIR of its\n/// ASCII build or \"\" (see `engine::ascii_hir`)).\npub const PATTERN_PREP: &[(&str, &str, &str)] = &[\n",
    );
    for (pattern, (gate, hir)) in &gates {
        code.push_str(&format!("    ({pattern:?}, {gate:?}, {hir:?}),\n"));
    }
    code.push_str("];\n");
    println!("cargo:rerun-if-changed=src/engine/gate.rs");
    println!("cargo:rerun-if-changed=src/engine/ascii_hir.rs");
    println!("cargo:rerun-if-changed=config.yaml");
    let config = yaml_to_json(&manifest.join("config.yaml"));
    code.push_str(&format!(
        "/// The default config (`config.yaml`) pre-parsed into JSON.\npub const DEFAULT_CONFIG_JSON: &str = {:?};\n",
        config.to_string()
    ));
    fs::write(Path::new(&out).join("builtin.rs"), code).expect("write builtin.rs");
}

/// Parses a built-in YAML file into JSON; a file that does not parse stops
/// the build with its location.
fn yaml_to_json(path: &Path) -> serde_json::Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    if text.trim().is_empty() {
        return serde_json::Value::Object(serde_json::Map::new());
    }
    serde_saphyr::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not valid YAML: {e}", path.display()))
}

/// Links the `guard` executable at a fixed address (not position-independent)
/// on Linux: a position-independent executable is relocated by the dynamic
/// loader at every start, which touched ~70 pages and cost a third of a
/// Layer-1 miss (see docs/adr/0004-non-pie-executable.md). Libraries, heap
/// and stack stay randomized.
fn link_without_pie() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env_ = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env::var_os("GUARD_PIE").is_none() && (env_ == "gnu" || env_ == "musl") {
        println!("cargo:rustc-link-arg-bin=guard=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=GUARD_PIE");
}
