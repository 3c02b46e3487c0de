//! Pre-parses the built-in YAML files into JSON (`guard hook` is a new
//! process on every event; serde_json reads the data several times faster
//! than YAML), so that adding a built-in detector or agent is adding a file.
//! Into `OUT_DIR`: `config.json`, `command_kinds.json` (as shell rules:
//! `src/actions/kinds/table.rs`); `detectors.jsonl` and `adapters.jsonl`, a
//! line `["<stem>",<content>]` per file in name order; `*-heads.jsonl`, the
//! part of each that a hook reads of all (Layer 1's keyword pass, with the
//! keywords case-folded in one string; the conditions of the action rules;
//! agent detection); `*-gates.jsonl`,
//! the literal gates of the signals and bypasses (the text's and the
//! request's), encoded by the engine's own `src/pattern/gate.rs`;
//! `detectors-judgments.jsonl`, the part of each detector a judgment reads
//! (for a detector that joins a whole-turn judgment without its patterns);
//! `detectors-actions.jsonl`, the keyword lists of each detector's action
//! rules, case-folded as a head's keywords (read when a rule's conditions
//! hold, to learn whether it hits before the whole detector is read).
//! A built-in pattern or action rule may be `{id, same_as: <file stem>}`:
//! the entry of the same id in that file, copied here
//! (`src/detector/same_as.rs`).
//! The built-in shell rules (a detector's `shell:`, the command kinds) get
//! the literal gates of their regexes (`shell::ShellRule::literal_gates`).
//! `src/builtin.rs` embeds them; bad YAML fails.

#[allow(dead_code)] // Only `Gate::of_pattern` and `fold_text` are used here.
#[path = "src/pattern/gate.rs"]
mod gate;

#[path = "src/detector/same_as.rs"]
mod same_as;

#[path = "src/actions/kinds/table.rs"]
mod kinds_table;

#[path = "src/shell/fragments.rs"]
mod fragments;

use serde_json::{json, Map, Value};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// The keys of a file that a hook reads of every file of its folder: what
/// Layer 1's keyword pass reads (`detector::Head`), what agent detection
/// reads (`adapter::Detection`).
const HEADS: [(&str, &str); 2] = [("detectors", DETECTOR), ("adapters", ADAPTER)];
const DETECTOR: &str = "name events tools keywords actions";
const ADAPTER: &str = "name aliases detect priority event_field event_rules default_event";
/// The keys of a detector a judgment reads (`LoadedHead::judgment_part`).
const JUDGMENT: &str = "name events judge on_violation reason";
const SEPARATOR: char = '\x7F'; // Between a head's keywords: builtin::KEYWORD_SEPARATOR.

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (dir, head_keys) in HEADS {
        println!("cargo:rerun-if-changed={dir}");
        let (mut entries, mut heads, mut gates) = (String::new(), String::new(), String::new());
        let (mut judgments, mut actions) = (String::new(), String::new());
        let files: Vec<(String, Value)> = yaml_files(Path::new(dir))
            .into_iter()
            .map(|path| {
                println!("cargo:rerun-if-changed={}", path.display());
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
                assert!(stem.chars().all(plain), "{stem}: use letters, digits, -_.");
                (stem.to_string(), yaml_to_json(&path))
            })
            .collect();
        for (stem, mut value) in same_as::resolve(&files).unwrap_or_else(|e| panic!("{e}")) {
            let stem = stem.as_str();
            if let Some(shell) = value.get_mut("shell") {
                add_literal_gates(shell);
            }
            let mut head: Map<String, Value> = (head_keys.split(' '))
                .filter_map(|k| Some((k.to_string(), value.get(k)?.clone())))
                .collect();
            // A head's action rules decide only whether to read the detector
            // (their conditions): their keyword lists are left to the full read.
            if let Some(Value::Array(rules)) = head.get_mut("actions") {
                for rule in rules.iter_mut().filter_map(Value::as_object_mut) {
                    rule.remove("keywords");
                    rule.remove("request_keywords");
                    rule.remove("request_ignores");
                }
            }
            if let Some(Value::Array(list)) = head.get("keywords") {
                let words: Vec<_> = list.iter().filter_map(Value::as_str).collect();
                let words = gate::fold_text(&words.join(&SEPARATOR.to_string()));
                let n = words.split(SEPARATOR).filter(|k| !k.is_empty()).count();
                assert!(n == list.len(), "{stem}: a keyword is empty or has DEL");
                head.insert("keywords".into(), words.into());
            }
            heads.push_str(&format!("{}\n", json!([stem, head])));
            let gates_of = |list: &str| -> Vec<String> {
                let patterns = value
                    .get(list)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                let patterns = patterns.map(|p| p["pattern"].as_str().unwrap_or(""));
                patterns
                    .map(|p| gate::Gate::of_pattern(p).encode())
                    .collect()
            };
            let lists = json!({
                "signals": gates_of("signals"),
                "bypasses": gates_of("bypasses"),
                "request_bypasses": gates_of("request_bypasses"),
            });
            gates.push_str(&format!("{}\n", json!([stem, lists])));
            let mut judgment: Map<String, Value> = (JUDGMENT.split(' '))
                .filter_map(|k| Some((k.to_string(), value.get(k)?.clone())))
                .collect();
            judgment.insert("keywords".into(), json!([]));
            judgments.push_str(&format!("{}\n", json!([stem, judgment])));
            actions.push_str(&format!("{}\n", json!([stem, rule_keywords(&value)])));
            entries.push_str(&format!("{}\n", json!([stem, value])));
        }
        write(&out.join(format!("{dir}.jsonl")), &entries);
        write(&out.join(format!("{dir}-heads.jsonl")), &heads);
        write(&out.join(format!("{dir}-gates.jsonl")), &gates);
        if dir == "detectors" {
            write(&out.join("detectors-judgments.jsonl"), &judgments);
            write(&out.join("detectors-actions.jsonl"), &actions);
        }
    }
    println!("cargo:rerun-if-changed=src/pattern/gate.rs");
    println!("cargo:rerun-if-changed=src/detector/same_as.rs");
    println!("cargo:rerun-if-changed=config.yaml");
    let config = yaml_to_json(Path::new("config.yaml")).to_string();
    write(&out.join("config.json"), &config);
    // The command kinds (src/actions/kinds.rs), read on every turn end whose
    // transcript shows a command.
    let kinds = Path::new("src/actions/command_kinds.yaml");
    println!("cargo:rerun-if-changed={}", kinds.display());
    let mut rules = kinds_table::rules_of(&yaml_to_json(kinds)).unwrap_or_else(|e| panic!("{e}"));
    add_literal_gates(&mut rules);
    write(&out.join("command_kinds.json"), &rules.to_string());
    link_without_pie_when_asked();
}

/// The keyword lists of a detector's action rules, `[keywords,
/// request_keywords, request_ignores]` per rule, each case-folded in one
/// string as a head's keywords are (`detector::RuleKeywords`).
fn rule_keywords(detector: &Value) -> Value {
    let rules = detector.get("actions").and_then(Value::as_array);
    let lists = rules.into_iter().flatten().map(|rule| {
        let folded = |list: &str| {
            let words = rule
                .get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            let words: Vec<&str> = words.filter_map(Value::as_str).collect();
            let text = gate::fold_text(&words.join(&SEPARATOR.to_string()));
            assert!(words
                .iter()
                .all(|w| !w.is_empty() && !w.contains(SEPARATOR)));
            Value::from(text)
        };
        json!([
            folded("keywords"),
            folded("request_keywords"),
            folded("request_ignores")
        ])
    });
    Value::Array(lists.collect())
}

/// Writes into each rule of a `shell:` section the literal gates of its
/// regex fields (`shell::ShellRule::literal_gates`), computed on the regex
/// with the section's `{{name}}` fragments expanded (a config that replaces
/// a fragment drops the gates of the rules that use one:
/// `ShellRule::recompile`), but for a regex that every string may match.
fn add_literal_gates(shell: &mut Value) {
    const FIELDS: [&str; 8] = [
        "args_match",
        "last_operand_match",
        "redirect_match",
        "stdin_match",
        "code_match",
        "context_match",
        "no_context_match",
        "text_match",
    ];
    let fragments: std::collections::BTreeMap<String, String> = (shell.get("patterns"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, p)| Some((name.clone(), p.as_str()?.to_string())))
        .collect();
    let rules = shell.get_mut("rules").and_then(Value::as_array_mut);
    for rule in rules.into_iter().flatten() {
        let gates: Map<String, Value> = (FIELDS.iter())
            .filter_map(|field| Some((field, rule.get(field)?.as_str()?)))
            .map(|(field, pattern)| {
                let pattern = fragments::expand(pattern, &fragments, 0)
                    .unwrap_or_else(|e| panic!("shell rule {}: {e}", rule["id"]));
                (field.to_string(), gate::Gate::of_pattern(&pattern))
            })
            .filter(|(_, gate)| *gate != gate::Gate::Always)
            .map(|(field, gate)| (field, Value::from(gate.encode())))
            .collect();
        if !gates.is_empty() {
            rule["literal_gates"] = Value::Object(gates);
        }
    }
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
