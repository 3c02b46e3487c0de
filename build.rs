//! Embeds every `detectors/*.yaml` and `adapters/*.yaml` file and the default
//! `config.yaml` in the binary, so that adding a built-in detector or a
//! Claude-like agent is adding a file.
//!
//! Each file is embedded twice: as written (YAML, for error messages, `guard
//! config show` and the installer) and pre-parsed into JSON. `guard hook`
//! runs on every event of every agent and is a short-lived process, so
//! parsing YAML on each call was most of its cost; serde_json reads the same
//! data several times faster. What every hook call reads is embedded as
//! Rust data, read without parsing: the "head" of each detector (name,
//! events, tools, keywords: what Layer 1 needs, so that an event no keyword
//! hits never reads prompts and patterns) and the keyword indexes of the
//! built-in detectors (one per set of event kinds). A built-in file that is
//! not valid YAML fails the build here, not at run time; whether it fits the typed schema is checked by unit tests
//! that compare each embedded form with the YAML file.

// The literal gates and the ASCII builds' HIRs of the built-in patterns are
// computed here, with the engine's own code (see `src/engine/gate.rs` and
// `src/engine/ascii_hir.rs`).
#[allow(dead_code)]
#[path = "src/engine/ascii_hir.rs"]
mod ascii_hir;
#[allow(dead_code)]
#[path = "src/engine/gate.rs"]
mod gate;
// The built-in detectors' keyword index is built here with the engine's own
// code (see `src/engine/keywords.rs`).
#[allow(dead_code)]
#[path = "src/engine/keywords.rs"]
mod keywords;
// Each agent's built-in config is merged here with the config's own code.
#[allow(dead_code)]
#[path = "src/config/merge.rs"]
mod merge;

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    link_without_pie();
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut code = String::new();
    let mut gates: BTreeMap<String, (String, String)> = BTreeMap::new();
    // Each built-in detector's event kinds and keywords, in file order, and
    // the detector files' text, lowercased (see `english_four_grams`).
    let mut detector_keywords: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut detector_text: Vec<u8> = Vec::new();
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
        let mut heads = String::from(
            "/// The Layer-1 part of each built-in detector, in file order.\npub static DETECTOR_HEADS: &[BuiltinHead] = &[\n",
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
            if dir == "detectors" {
                detector_text.extend(fs::read(&abs).unwrap_or_default().to_ascii_lowercase());
                let (head, events, keywords) = detector_head(stem, &value);
                heads.push_str(&head);
                detector_keywords.push((events, keywords));
            }
        }
        for part in [&mut yaml, &mut json, &mut heads] {
            part.push_str("];\n");
        }
        code.push_str(&yaml);
        code.push_str(&json);
        if dir == "detectors" {
            code.push_str(&heads);
        }
    }
    code.push_str(
        "/// Each built-in signal and bypass pattern, prepared, sorted by pattern:\n/// (pattern, encoded literal gate (see `engine::gate`), encoded HIR of its\n/// ASCII build or \"\" (see `engine::ascii_hir`)).\npub const PATTERN_PREP: &[(&str, &str, &str)] = &[\n",
    );
    for (pattern, (gate, hir)) in &gates {
        code.push_str(&format!("    ({pattern:?}, {gate:?}, {hir:?}),\n"));
    }
    code.push_str("];\n");
    code.push_str(&keyword_indexes(&detector_keywords, &detector_text));
    println!("cargo:rerun-if-changed=src/engine/gate.rs");
    println!("cargo:rerun-if-changed=src/engine/keywords.rs");
    println!("cargo:rerun-if-changed=src/engine/ascii_hir.rs");
    println!("cargo:rerun-if-changed=config.yaml");
    println!("cargo:rerun-if-changed=src/config/merge.rs");
    let config = yaml_to_json(&manifest.join("config.yaml"));
    code.push_str(&format!(
        "/// The default config (`config.yaml`) pre-parsed into JSON.\npub const DEFAULT_CONFIG_JSON: &str = {:?};\n",
        config.to_string()
    ));
    // `guard hook` reads its agent's built-in config straight into the typed
    // config when no config file exists: for an agent with overrides, the
    // default config with its `agents.<name>` section merged over it.
    code.push_str("/// The default config with each agent's overrides merged over it, as\n/// JSON: (agent, JSON), for the agents that have some.\npub const AGENT_CONFIG_JSON: &[(&str, &str)] = &[\n");
    let agents = config.get("agents").and_then(|a| a.as_object());
    for agent in agents.into_iter().flat_map(|a| a.keys()) {
        let mut merged = config.clone();
        merge::apply_agent(&mut merged, agent);
        code.push_str(&format!("    ({agent:?}, {:?}),\n", merged.to_string()));
    }
    code.push_str("];\n");
    fs::write(Path::new(&out).join("builtin.rs"), code).expect("write builtin.rs");
}

/// The strings listed at `key` of `value` (none when absent); a value of
/// another shape stops the build, naming `file`.
fn string_list(file: &str, value: &serde_json::Value, key: &str) -> Vec<String> {
    let Some(list) = value.get(key) else {
        return Vec::new();
    };
    list.as_array()
        .unwrap_or_else(|| panic!("{file}: `{key}` must be a list"))
        .iter()
        .map(|x| {
            x.as_str()
                .unwrap_or_else(|| panic!("{file}: `{key}` must list strings"))
                .to_string()
        })
        .collect()
}

/// The event kinds a detector may name, and their `EventKind` variants.
const EVENT_KINDS: &[(&str, &str)] = &[
    ("stop", "Stop"),
    ("subagent_stop", "SubagentStop"),
    ("pre_tool", "PreTool"),
    ("post_tool", "PostTool"),
    ("prompt_submit", "PromptSubmit"),
    ("permission_request", "PermissionRequest"),
    ("session_start", "SessionStart"),
    ("session_end", "SessionEnd"),
    ("other", "Other"),
];

/// One `BuiltinHead` of `detectors/{stem}.yaml` (Rust source), and the
/// detector's event kinds and keywords.
fn detector_head(stem: &str, value: &serde_json::Value) -> (String, Vec<String>, Vec<String>) {
    let file = format!("detectors/{stem}.yaml");
    let strings = |key: &str| string_list(&file, value, key);
    let name = value
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or_else(|| panic!("{file}: `name` is missing"));
    let events = strings("events");
    for e in &events {
        if !EVENT_KINDS.iter().any(|(k, _)| k == e) {
            panic!("{file}: unknown event kind `{e}`");
        }
    }
    let keywords = strings("keywords");
    let head = format!(
        "    BuiltinHead {{ stem: {stem:?}, name: {name:?}, events: &[{}], tools: &{:?}, keywords: &{:?} }},\n",
        event_variants(&events),
        strings("tools"),
        keywords
    );
    (head, events, keywords)
}

/// `EventKind::Stop, EventKind::PreTool, ...` for snake-case kind names.
fn event_variants(kinds: &[String]) -> String {
    kinds
        .iter()
        .filter_map(|e| EVENT_KINDS.iter().find(|(k, _)| k == e))
        .map(|(_, variant)| format!("EventKind::{variant}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The built-in detectors' keyword indexes (Rust source): one per set of
/// detectors that apply to the same event kinds, so that an event's scan
/// looks only for the keywords of detectors that may apply to it.
fn keyword_indexes(detectors: &[(Vec<String>, Vec<String>)], sample: &[u8]) -> String {
    assert!(detectors.len() < usize::from(u16::MAX));
    let english = english_four_grams(sample);
    // (detector positions, event kinds they share).
    let mut groups: Vec<(Vec<usize>, Vec<String>)> = Vec::new();
    for (kind, _) in EVENT_KINDS {
        let positions: Vec<usize> = (0..detectors.len())
            .filter(|&p| detectors[p].0.iter().any(|e| e == kind))
            .collect();
        if positions.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(ps, _)| *ps == positions) {
            Some((_, kinds)) => kinds.push(kind.to_string()),
            None => groups.push((positions, vec![kind.to_string()])),
        }
    }
    let mut code = String::from(
        "/// The built-in detectors' keywords, indexed per set of event kinds (see\n/// `engine::keyword_index`).\npub static BUILTIN_KEYWORD_INDEXES: &[BuiltinKeywordIndex] = &[\n",
    );
    for (positions, kinds) in groups {
        // Owners are positions in DETECTOR_HEADS.
        let owners =
            keywords::keyword_owners(positions.iter().map(|&p| (p, detectors[p].1.as_slice())));
        let set =
            keywords::KeywordSet::with_anchor_cost(owners.iter().map(|(k, _)| k.as_str()), |w| {
                // Rarest in English prose first, then by letter frequency.
                english.get(w).map_or(0, |&n| u64::from(n)) * 1024 + keywords::letter_cost(w)
            });
        code.push_str(&format!(
            "    BuiltinKeywordIndex {{\n        kinds: &[{}],\n        set: crate::engine::{},\n        owners: &[\n",
            event_variants(&kinds),
            set.to_rust()
        ));
        for (k, ds) in owners {
            code.push_str(&format!("            ({k:?}, &{ds:?}),\n"));
        }
        code.push_str("        ],\n    },\n");
    }
    code.push_str("];\n");
    code
}

/// How often each four-byte window occurs (lowercased) in a sample of
/// English prose: the detector files themselves (their descriptions, judge
/// prompts and comments). The built-in keyword indexes anchor each keyword
/// on its rarest window by this count: on agent prose a scan then stops at
/// a third to a half as many places as with letter frequencies alone (and
/// a window frequent in the detectors' own prose, such as `comm` of
/// `commit`, is avoided). Only speed depends on it: a keyword is found
/// whichever window anchors it.
fn english_four_grams(sample: &[u8]) -> std::collections::HashMap<&[u8], u32> {
    let mut counts = std::collections::HashMap::new();
    for window in sample.windows(4) {
        *counts.entry(window).or_insert(0u32) += 1;
    }
    counts
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
