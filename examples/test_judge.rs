//! A scriptable fake judge for guard's tests (the `command` backend).
//!
//! It reads guard's envelope on stdin, finds the nonce (from the last
//! `--- text-end <nonce> ---` line) and the text between the markers, and
//! then behaves as its mode says. The mode comes from `GUARD_TEST_JUDGE`, or
//! else from the first argument:
//!
//! - `answers=FILE`: FILE is JSON `{"rules": [{"detector": "name or *",
//!   "contains": "substring", "fields": {...}}], "default": {...}}`; prints
//!   the first matching rule's fields (else the default) plus the nonce, as a
//!   fenced JSON block after a line of prose;
//! - `ok`: answers with every field the envelope lists set to false / "" / 0;
//! - `hang`, `crash` (abort), `exit1`, `garbage`, `partial` (truncated JSON),
//!   `omit` (no declared fields), `wrongtypes`, `wrongnonce`, `flood` (writes
//!   without end), `sleep=MS` (then answers like `ok`), `fork-hang` (starts a
//!   helper process, then hangs), `fork-exit` (starts a helper, answers like
//!   `ok` and exits), `barrier=DIR:N` (waits until N judges
//!   have checked in under DIR, then answers like `ok`).
//!
//! When `GUARD_DETECTOR` lists several detectors (comma-separated: a combined
//! envelope), the answer is one object with `nonce` and, per detector, its
//! fields and `reason`; the modes apply to every section (`wrongnonce` to
//! the top level), and an `answers` rule whose fields hold `"__omit": true`
//! leaves that detector's section out (for one detector: its fields).
//!
//! `GUARD_TEST_JUDGE_LOG=FILE` appends everything received on stdin to FILE;
//! `GUARD_TEST_JUDGE_CALLS=FILE` appends one line per call: `GUARD_DETECTOR`;
//! `GUARD_TEST_JUDGE_PIDS=FILE` appends this process's pid (and a helper's).

use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::time::Duration;

fn main() {
    let mode = std::env::var("GUARD_TEST_JUDGE")
        .ok()
        .or_else(|| std::env::args().nth(1))
        .unwrap_or_else(|| "ok".into());
    let mut prompt = String::new();
    let _ = std::io::stdin().read_to_string(&mut prompt);
    if let Ok(log) = std::env::var("GUARD_TEST_JUDGE_LOG") {
        append(&log, &format!("{prompt}\n=== end of prompt ===\n"));
    }
    if let Ok(pids) = std::env::var("GUARD_TEST_JUDGE_PIDS") {
        append(&pids, &format!("{}\n", std::process::id()));
    }
    let detector = std::env::var("GUARD_DETECTOR").unwrap_or_default();
    if let Ok(calls) = std::env::var("GUARD_TEST_JUDGE_CALLS") {
        append(&calls, &format!("{detector}\n"));
    }
    let nonce = find_nonce(&prompt).unwrap_or_default();
    let text = fenced_text(&prompt, &nonce).unwrap_or_default();
    // A comma-separated GUARD_DETECTOR: a combined call, one section each.
    let combined = detector.contains(',');
    let declared: Vec<(String, Vec<(String, String)>)> = if combined {
        declared_sections(&prompt)
    } else {
        vec![(detector.clone(), declared_fields(&prompt))]
    };
    // Each detector's answer, without the nonce (`None`: section left out).
    let neutral: Vec<(String, Option<Map<String, Value>>)> = declared
        .iter()
        .map(|(name, fields)| {
            let mut answer = neutral_answer(fields);
            answer.insert("reason".into(), json!("test judge"));
            (name.clone(), Some(answer))
        })
        .collect();
    let answer = render(&neutral, &nonce, combined);
    match mode.as_str() {
        m if m.starts_with("answers") && m.contains('=') => {
            let (style, file) = m.split_once('=').unwrap_or(("answers", ""));
            let sections: Vec<(String, Option<Map<String, Value>>)> = declared
                .iter()
                .map(|(name, _)| {
                    let fields = answer_from_file(file, name, &text).unwrap_or_default();
                    let omit = fields.get("__omit") == Some(&json!(true));
                    let mut out = fields;
                    out.entry("reason").or_insert(json!("test judge rule"));
                    (name.clone(), (!omit).then_some(out))
                })
                .collect();
            let out = render(&sections, &nonce, combined);
            let verdict = format!("```json\n{}\n```", Value::Object(out));
            match style {
                // A judge that quotes the text (attacks included) before answering.
                "answers-echo" => println!("The text reads:\n{text}\n\nMy verdict:\n{verdict}"),
                // A judge that quotes it after answering.
                "answers-echo-after" => {
                    println!("My verdict:\n{verdict}\n\nThe text read:\n{text}")
                }
                _ => println!("I read the text and here is my verdict.\n{verdict}"),
            }
        }
        "ok" => println!("{}", Value::Object(answer)),
        m if m.starts_with("sleep=") => {
            let ms = m["sleep=".len()..].parse().unwrap_or(0);
            std::thread::sleep(Duration::from_millis(ms));
            println!("{}", Value::Object(answer));
        }
        m if m.starts_with("barrier=") => {
            // barrier=DIR:N: wait until N judges have arrived in DIR, then answer.
            let (dir, n) = m["barrier=".len()..].rsplit_once(':').unwrap_or(("", "1"));
            let n: usize = n.parse().unwrap_or(1);
            append(&format!("{dir}/{}", std::process::id()), "here\n");
            while std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0) < n {
                std::thread::sleep(Duration::from_millis(10));
            }
            println!("{}", Value::Object(answer));
        }
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(60));
        },
        "fork-hang" => {
            if let Ok(child) = std::process::Command::new("sleep").arg("300").spawn() {
                if let Ok(pids) = std::env::var("GUARD_TEST_JUDGE_PIDS") {
                    append(&pids, &format!("{}\n", child.id()));
                }
            }
            loop {
                std::thread::sleep(Duration::from_secs(60));
            }
        }
        "fork-exit" => {
            // Leaves a helper behind (holding stdout open), then answers and exits.
            if let Ok(child) = std::process::Command::new("sleep").arg("300").spawn() {
                if let Ok(pids) = std::env::var("GUARD_TEST_JUDGE_PIDS") {
                    append(&pids, &format!("{}\n", child.id()));
                }
            }
            println!("{}", Value::Object(answer));
        }
        "crash" => std::process::abort(),
        "exit1" => {
            println!("{}", Value::Object(answer));
            eprintln!("test judge: failing on purpose");
            std::process::exit(1);
        }
        "garbage" => println!("Sure! The agent seems fine. Verdict: allow. (no JSON here) ]]}}"),
        "partial" => {
            let full = Value::Object(answer).to_string();
            print!("{}", &full[..full.len() / 2]);
        }
        "omit" => {
            let sections: Vec<(String, Option<Map<String, Value>>)> = declared
                .iter()
                .map(|(name, _)| {
                    let mut only = Map::new();
                    only.insert("reason".into(), json!("fields left out"));
                    (name.clone(), Some(only))
                })
                .collect();
            println!("{}", Value::Object(render(&sections, &nonce, combined)));
        }
        "wrongtypes" => {
            let sections: Vec<(String, Option<Map<String, Value>>)> = neutral
                .iter()
                .map(|(name, answer)| {
                    let mut answer = answer.clone().unwrap_or_default();
                    for (field, value) in answer.iter_mut() {
                        if field != "reason" {
                            *value = match value {
                                Value::Bool(_) => json!("yes"),
                                Value::String(_) => json!(42),
                                _ => json!(true),
                            };
                        }
                    }
                    (name.clone(), Some(answer))
                })
                .collect();
            println!("{}", Value::Object(render(&sections, &nonce, combined)));
        }
        "wrongnonce" => {
            println!(
                "{}",
                Value::Object(render(&neutral, &format!("{nonce}x"), combined))
            );
        }
        "flood" => {
            let block = vec![b'A'; 64 * 1024];
            let mut out = std::io::stdout().lock();
            while out.write_all(&block).is_ok() {}
        }
        other => {
            eprintln!("test judge: unknown mode `{other}`");
            std::process::exit(2);
        }
    }
}

/// The answer object: for one detector its fields plus `nonce`; for a
/// combined call `nonce` and one object per detector (left out when `None`).
fn render(
    sections: &[(String, Option<Map<String, Value>>)],
    nonce: &str,
    combined: bool,
) -> Map<String, Value> {
    let mut out = Map::new();
    if combined {
        for (name, section) in sections {
            if let Some(section) = section {
                out.insert(name.clone(), Value::Object(section.clone()));
            }
        }
    } else if let Some((_, Some(section))) = sections.first() {
        out = section.clone();
    }
    out.insert("nonce".into(), json!(nonce));
    out
}

fn append(path: &str, text: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

/// The nonce of the last `--- text-end <nonce> ---` line (the envelope ends with it).
fn find_nonce(prompt: &str) -> Option<String> {
    let line = prompt
        .lines()
        .rev()
        .find(|l| l.starts_with("--- text-end ") && l.ends_with(" ---"))?;
    Some(line["--- text-end ".len()..line.len() - " ---".len()].to_string())
}

/// The text between the first start marker and the last end marker of `nonce`.
fn fenced_text(prompt: &str, nonce: &str) -> Option<String> {
    let start = format!("--- text-start {nonce} ---\n");
    let end = format!("\n--- text-end {nonce} ---");
    let from = prompt.find(&start)? + start.len();
    let to = prompt.rfind(&end)?;
    (to >= from).then(|| prompt[from..to].to_string())
}

/// The fields the envelope lists, as lines `- "name" (type, required|optional): ...`.
fn declared_fields(prompt: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in prompt.lines() {
        let Some(rest) = line.strip_prefix("- \"") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once("\" (") else {
            continue;
        };
        let Some((kind, _)) = rest.split_once(',') else {
            continue;
        };
        if name != "nonce" && name != "reason" {
            out.push((name.to_string(), kind.to_string()));
        }
    }
    out
}

/// The fields of each detector section of a combined envelope: a heading
/// line `## Detector "name"`, then field lines, up to the answer
/// instructions (`Answer with exactly one JSON object ...`).
fn declared_sections(prompt: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in prompt.lines() {
        if let Some(name) = line
            .strip_prefix("## Detector \"")
            .and_then(|r| r.strip_suffix('"'))
        {
            sections.push((name.to_string(), Vec::new()));
        } else if line.starts_with("Answer with exactly one JSON object") {
            break;
        } else if let Some((_, fields)) = sections.last_mut() {
            fields.extend(declared_fields(line));
        }
    }
    sections
}

/// An answer with every declared field at its "nothing found" value.
fn neutral_answer(declared: &[(String, String)]) -> Map<String, Value> {
    declared
        .iter()
        .map(|(name, kind)| {
            let v = match kind.as_str() {
                "boolean" => json!(false),
                "number" => json!(0),
                _ => json!(""),
            };
            (name.clone(), v)
        })
        .collect()
}

fn answer_from_file(file: &str, detector: &str, text: &str) -> Option<Map<String, Value>> {
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    for rule in spec
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let det = rule.get("detector").and_then(Value::as_str).unwrap_or("*");
        let contains = rule.get("contains").and_then(Value::as_str).unwrap_or("");
        if (det == "*" || det == detector) && text.contains(contains) {
            return rule.get("fields").and_then(Value::as_object).cloned();
        }
    }
    spec.get("default").and_then(Value::as_object).cloned()
}
