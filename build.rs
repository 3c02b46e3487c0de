//! Pre-parses the built-in YAML files into JSON, so that adding a built-in
//! detector or a Claude-like agent is adding a file.
//!
//! `guard hook` is a new process on every event of every agent, and parsing
//! YAML on each call was most of its cost; serde_json reads the same data
//! several times faster. This writes, into `OUT_DIR`:
//! - `config.json`: `config.yaml`;
//! - `detectors.jsonl`, `adapters.jsonl`: each `detectors/*.yaml` and
//!   `adapters/*.yaml` file as one line `["<stem>",<content>]`, in file-name
//!   order (a line is found by its stem without reading the others);
//! - `detector-heads.jsonl`: the same for the part of each detector that
//!   Layer 1's keyword pass reads (name, events, tools, keywords), so that
//!   an event no keyword hits never reads prompts and patterns;
//! - `pattern-gates.jsonl`: the literal gates of each detector's signals and
//!   bypasses, encoded, computed with the engine's own code
//!   (`src/pattern/gate.rs`): at run time they would cost a hit 20 M
//!   instructions for one detector.
//!
//! `src/builtin.rs` embeds them. A file that is not valid YAML fails the
//! build; unit tests read each embedded form into its type.

#[allow(dead_code)] // Only `Gate::of_pattern` is used here.
#[path = "src/pattern/gate.rs"]
mod gate;

use serde_json::{json, Map, Value};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The keys of a detector that Layer 1's keyword pass reads (`detector::Head`),
/// besides `has_actions`.
const HEAD_KEYS: [&str; 4] = ["name", "events", "tools", "keywords"];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in ["detectors", "adapters"] {
        println!("cargo:rerun-if-changed={dir}");
        let (mut entries, mut heads, mut gates) = (String::new(), String::new(), String::new());
        for path in yaml_files(Path::new(dir)) {
            println!("cargo:rerun-if-changed={}", path.display());
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
            assert!(
                stem.chars().all(plain),
                "{}: use letters, digits, -_.",
                path.display()
            );
            let value = yaml_to_json(&path);
            let mut head: Map<String, Value> = HEAD_KEYS
                .iter()
                .filter_map(|k| Some((k.to_string(), value.get(k)?.clone())))
                .collect();
            // Only whether there are action rules (`detector::Head::has_actions`).
            let has_actions = value
                .get("actions")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
            if has_actions {
                head.insert("has_actions".into(), Value::Bool(true));
            }
            heads.push_str(&format!("{}\n", json!([stem, head])));
            let gates_of = |list: &str| -> Vec<String> {
                let patterns = value.get(list).and_then(Value::as_array).into_iter();
                let patterns = patterns
                    .flatten()
                    .map(|p| p["pattern"].as_str().unwrap_or(""));
                patterns
                    .map(|p| gate::Gate::of_pattern(p).encode())
                    .collect()
            };
            let lists = json!({"signals": gates_of("signals"), "bypasses": gates_of("bypasses")});
            gates.push_str(&format!("{}\n", json!([stem, lists])));
            entries.push_str(&format!("{}\n", json!([stem, value])));
        }
        write(&out.join(format!("{dir}.jsonl")), &entries);
        if dir == "detectors" {
            write(&out.join("detector-heads.jsonl"), &heads);
            write(&out.join("pattern-gates.jsonl"), &gates);
        }
    }
    println!("cargo:rerun-if-changed=src/pattern/gate.rs");
    println!("cargo:rerun-if-changed=config.yaml");
    let config = yaml_to_json(Path::new("config.yaml")).to_string();
    write(&out.join("config.json"), &config);
    link_without_pie_when_asked();
}

/// The `*.yaml` files of `dir`, sorted by name.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// Parses a built-in YAML file into JSON; a file that does not parse stops
/// the build with its location.
fn yaml_to_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_saphyr::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not valid YAML: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// `guard` is position-independent (ASLR of its image: it reads hostile
/// text). `GUARD_NO_PIE=1` links it at a fixed address on Linux, for anyone
/// measuring: fewer relocations at start (docs/performance.md).
fn link_without_pie_when_asked() {
    println!("cargo:rerun-if-env-changed=GUARD_NO_PIE");
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let libc = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let asked = env::var("GUARD_NO_PIE").is_ok_and(|v| v == "1");
    if asked && os == "linux" && (libc == "gnu" || libc == "musl") {
        println!("cargo:rustc-link-arg-bin=guard=-no-pie");
    }
}
