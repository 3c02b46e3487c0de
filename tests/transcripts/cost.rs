//! What a read costs on large files, and the UTF-8-safe cut of the result.

use super::*;
use guard::transcript::{CHUNK_BYTES, SCAN_CAP_BYTES};
use std::fs::File;
use std::io::{BufWriter, Write};

/// Writes about `target_bytes` of earlier Claude turns (prompt, text, tool result).
fn write_claude_history(out: &mut impl Write, target_bytes: u64) {
    let filler_text = "Earlier reasoning about the module layout. ".repeat(20);
    let filler_output = "line of tool output that is long enough\n".repeat(50);
    let mut written = 0u64;
    let mut turn = 0u64;
    while written < target_bytes {
        for line in [
            claude_user(&format!("Earlier prompt {turn}")),
            claude_assistant(&format!("msg_old_{turn}"), &filler_text),
            claude_tool_result(&filler_output),
        ] {
            writeln!(out, "{line}").unwrap();
            written += line.len() as u64 + 1;
        }
        turn += 1;
    }
}

#[test]
fn hundred_megabyte_transcript_costs_only_its_last_turn() {
    let dir = ScratchDir::new();
    let path = dir.path("big.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    write_claude_history(&mut out, 100 * 1024 * 1024);
    writeln!(out, "{}", claude_user("Ship it")).unwrap();
    writeln!(
        out,
        "{}",
        claude_assistant("msg_last", "All tests pass. Pushing to main now.")
    )
    .unwrap();
    out.flush().unwrap();
    drop(out);
    assert!(fs::metadata(&path).unwrap().len() >= 100 * 1024 * 1024);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 16 * 1024).unwrap();
    assert_eq!(
        text.as_deref(),
        Some("All tests pass. Pushing to main now.")
    );
    assert!(stats.found_turn_start);
    assert!(
        stats.bytes_read <= CHUNK_BYTES as u64,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn turn_without_a_start_stops_at_the_scan_cap() {
    let dir = ScratchDir::new();
    let path = dir.path("endless-turn.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    writeln!(out, "{}", claude_user("Start of a very long turn")).unwrap();
    let output = "tool output\n".repeat(400);
    let mut written = 0u64;
    let mut step = 0u64;
    while written < SCAN_CAP_BYTES + 8 * 1024 * 1024 {
        let line = claude_tool_result(&output);
        writeln!(out, "{line}").unwrap();
        written += line.len() as u64 + 1;
        step += 1;
        if step % 100 == 0 {
            let note = claude_assistant(&format!("msg_{step}"), &format!("Progress note {step}."));
            writeln!(out, "{note}").unwrap();
            written += note.len() as u64 + 1;
        }
    }
    writeln!(out, "{}", claude_assistant("msg_end", "Finished.")).unwrap();
    out.flush().unwrap();
    drop(out);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 1024 * 1024).unwrap();
    let text = text.unwrap();
    assert!(
        text.ends_with("Finished."),
        "{}",
        &text[text.len().saturating_sub(100)..]
    );
    assert!(!stats.found_turn_start);
    assert!(
        stats.bytes_read <= SCAN_CAP_BYTES,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn reading_stops_once_enough_text_is_gathered() {
    let dir = ScratchDir::new();
    let path = dir.path("chatty.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    writeln!(out, "{}", claude_user("Go")).unwrap();
    for i in 0..20_000 {
        writeln!(
            out,
            "{}",
            claude_assistant(&format!("msg_{i}"), &format!("Step {i} done, moving on."))
        )
        .unwrap();
    }
    out.flush().unwrap();
    drop(out);

    let (text, stats) = last_turn_text_with_stats(ClaudeCode, &path, 200).unwrap();
    let text = text.unwrap();
    assert!(text.len() <= 200);
    assert!(text.ends_with("Step 19999 done, moving on."), "{text}");
    assert!(!stats.found_turn_start);
    assert!(
        stats.bytes_read <= CHUNK_BYTES as u64,
        "read {} bytes",
        stats.bytes_read
    );
}

#[test]
fn japanese_text_is_cut_at_a_char_boundary_keeping_the_end() {
    let dir = ScratchDir::new();
    let path = dir.path("japanese.jsonl");
    let first = "テストはすべて成功しました。";
    let last = "変更をコミットしてプッシュしますか？";
    let lines = [
        claude_user("直して"),
        claude_assistant("m1", first),
        claude_assistant("m2", last),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();

    let full = format!("{first}\n\n{last}");
    for max_bytes in [
        1,
        2,
        3,
        4,
        10,
        50,
        55,
        56,
        57,
        full.len() - 1,
        full.len(),
        full.len() + 5,
    ] {
        let text = last_turn_text(ClaudeCode, &path, max_bytes)
            .unwrap()
            .unwrap_or_default();
        // The longest suffix of whole characters that fits in `max_bytes`.
        let expected = full
            .char_indices()
            .map(|(start, _)| &full[start..])
            .find(|suffix| suffix.len() <= max_bytes)
            .unwrap_or("");
        assert_eq!(text, expected, "max {max_bytes}");
    }
    assert_eq!(
        last_turn_text(ClaudeCode, &path, 9).unwrap().as_deref(),
        Some("すか？")
    );
}
