//! Issue 9, part 1 as properties in `cargo test`: the same checks the fuzz
//! targets run (`guard::robustness`), fed by proptest with arbitrary bytes
//! and with hostile inputs shaped like the real ones. A short run here, the
//! long libFuzzer run is documented in docs/security.md.

#[path = "security/gen.rs"]
mod gen;
mod support;

use guard::robustness;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::Sandbox;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn payload_bytes_never_break_an_adapter(data in prop::collection::vec(any::<u8>(), 0..512)) {
        robustness::check_payload(&data);
    }

    #[test]
    fn hostile_payloads_parse_and_render_for_every_adapter(payload in gen::hook_payload()) {
        robustness::check_payload(payload.to_string().as_bytes());
    }

    #[test]
    fn judge_answers_without_the_nonce_never_judge(
        prefix in ".{0,200}",
        fields in gen::any_json(),
        nonce in prop::option::of(prop_oneof![Just(robustness::ANSWER_NONCE.to_string()), "[a-z0-9-]{0,12}"]),
        proposal in any::<bool>(),
    ) {
        let mut answer = json!({"new_proposal": proposal, "reason": "r", "extra": fields});
        if let Some(n) = nonce {
            answer["nonce"] = json!(n);
        }
        let output = format!("{prefix}\n```json\n{answer}\n```\n");
        robustness::check_judge_answer(output.as_bytes());
        robustness::check_judge_answer(prefix.as_bytes());
    }

    #[test]
    fn config_and_detector_files_never_panic(text in config_text()) {
        robustness::check_config(text.as_bytes());
    }

    #[test]
    fn shell_commands_never_panic(command in shell_command()) {
        robustness::check_shell(command.as_bytes());
    }

    #[test]
    fn redaction_never_panics(text in prop_oneof![".{0,300}".boxed(), gen::hostile_string().boxed()]) {
        robustness::check_redact(text.as_bytes());
    }
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn transcripts_of_any_shape_are_read_within_their_limit(
        lines in prop::collection::vec(transcript_line(), 0..24),
        cut in any::<prop::sample::Index>(),
        limit in any::<u8>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut body: Vec<u8> = Vec::new();
        for l in &lines {
            body.extend_from_slice(l);
            body.push(b'\n');
        }
        // Cut mid-line, as a transcript being written is.
        let cut_at = if body.is_empty() { 0 } else { cut.index(body.len() + 1) };
        let mut data = vec![limit];
        data.extend_from_slice(&body[..cut_at]);
        robustness::check_transcript(&data, dir.path());
    }
}

proptest! {
    // Each case runs the real binary: few cases, hostile ones.
    #![proptest_config(config(24))]

    #[test]
    fn guard_hook_answers_any_payload_with_0_or_2(
        payload in gen::hook_payload(),
        agent in prop::sample::select(robustness::hook_agents()),
        raw in prop::collection::vec(any::<u8>(), 0..64),
        use_raw in any::<bool>(),
    ) {
        let sb = Sandbox::new();
        sb.write("config/guard/config.yaml", "judge: {backend: none}\n");
        let stdin = if use_raw { raw } else { payload.to_string().into_bytes() };
        let mut args = vec!["hook"];
        args.extend(agent.as_deref());
        let out = sb.run(&args, &stdin);
        let code = out.status.code();
        prop_assert!(
            code == Some(0) || code == Some(2),
            "exit {:?} (signal or stray code) on {}: {}",
            code, String::from_utf8_lossy(&stdin), support::stderr(&out)
        );
        if code == Some(2) {
            prop_assert!(!support::stderr(&out).trim().is_empty(), "exit 2 gives a reason");
        }
    }
}

/// YAML texts around guard's config keys, hostile values included.
fn config_text() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "judge",
        "text",
        "deadline",
        "failure",
        "loop_guard",
        "log",
        "detectors",
        "agents",
        "ask_as",
        "trust_project_config",
        "name",
        "events",
        "keywords",
        "signals",
        "bypasses",
        "reason",
        "on_violation",
        "shell",
    ]);
    let value = prop_oneof![
        gen::any_json().prop_map(|v| v.to_string()),
        Just("[{id: a, pattern: '(unclosed'}]".to_string()),
        Just("[{id: big, pattern: '\\w{500}\\w{500}'}]".to_string()),
        Just("&a [*a]".to_string()),
        ".{0,30}",
    ];
    prop::collection::vec((key, value), 0..8).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect::<String>()
    })
}

/// Shell-like command lines.
fn shell_command() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        prop::sample::select(vec![
            "rm",
            "-rf",
            "/",
            "~",
            "git",
            "push",
            "--force",
            "reset",
            "--hard",
            "sudo",
            "dd",
            "of=/dev/sda",
            "|",
            "&&",
            ";",
            "$(",
            ")",
            "`",
            "'",
            "\"",
            "\\",
            "\n",
            "bash",
            "-c",
            "eval",
            "chmod",
            "777",
            "*",
            "..",
            "find",
            "-delete",
            "xargs",
        ])
        .prop_map(str::to_string),
        ".{0,12}",
    ];
    prop::collection::vec(word, 0..16).prop_map(|w| w.join(" "))
}

/// One transcript line: real record shapes with hostile content, or junk.
fn transcript_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (gen::hostile_string(), gen::any_json()).prop_map(|(t, v)| {
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": t}]}, "x": v})
                .to_string().into_bytes()
        }),
        gen::hostile_string().prop_map(|t| {
            json!({"type": "user", "message": {"role": "user", "content": t}}).to_string().into_bytes()
        }),
        gen::hostile_string().prop_map(|t| {
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t}]}})
                .to_string().into_bytes()
        }),
        gen::hostile_string().prop_map(|t| {
            json!({"type": "gemini", "content": t, "messages": [{"type": "user", "content": t}]}).to_string().into_bytes()
        }),
        gen::any_json().prop_map(|v: Value| v.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..200),
    ]
}
