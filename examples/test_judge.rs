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
//! `GUARD_TEST_JUDGE_LOG=FILE` appends everything received on stdin to FILE;
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
    let nonce = find_nonce(&prompt).unwrap_or_default();
    let text = fenced_text(&prompt, &nonce).unwrap_or_default();
    let detector = std::env::var("GUARD_DETECTOR").unwrap_or_default();
    let declared = declared_fields(&prompt);

    let mut answer = neutral_answer(&declared);
    answer.insert("nonce".into(), json!(nonce));
    answer.insert("reason".into(), json!("test judge"));
    match mode.as_str() {
        m if m.starts_with("answers") && m.contains('=') => {
            let (style, file) = m.split_once('=').unwrap_or(("answers", ""));
            let fields = answer_from_file(file, &detector, &text).unwrap_or_default();
            let mut out = fields;
            out.insert("nonce".into(), json!(nonce));
            out.entry("reason").or_insert(json!("test judge rule"));
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
        "omit" => println!("{}", json!({"nonce": nonce, "reason": "fields left out"})),
        "wrongtypes" => {
            for (name, _) in &declared {
                let wrong = match answer.get(name) {
                    Some(Value::Bool(_)) => json!("yes"),
                    Some(Value::String(_)) => json!(42),
                    _ => json!(true),
                };
                answer.insert(name.clone(), wrong);
            }
            println!("{}", Value::Object(answer));
        }
        "wrongnonce" => {
            answer.insert("nonce".into(), json!(format!("{nonce}x")));
            println!("{}", Value::Object(answer));
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
