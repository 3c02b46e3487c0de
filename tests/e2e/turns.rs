//! Pieces of the scripted turns the transcript tests run on every CLI
//! (`e2e_transcripts`, `e2e_piped_checks`, `e2e_plans`): the CLI's own edit
//! call, a project with a passing and a failing test, the transcript format
//! guard reads it with, and the transcript the turn-end hook was given.

use super::stub::named_call;
use super::{Agent, Run, Sandbox};
use guard::transcript::TranscriptFormat;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The agent's own edit call creating `notes.txt` in the sandbox's work dir.
pub fn edit_call(sandbox: &Sandbox) -> Value {
    let file = sandbox.work.join("notes.txt");
    match sandbox.agent {
        Agent::Claude => named_call("Write", json!({"file_path": file, "content": "notes\n"})),
        // Codex 0.171 offers no patch tool to this model: it applies patches
        // given to its shell tool.
        Agent::Codex => json!(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** End Patch\nEOF"
        ),
        Agent::Gemini => named_call("write_file", json!({"file_path": file, "content": "notes\n"})),
        Agent::Copilot => named_call("create", json!({"path": file, "file_text": "notes\n"})),
        Agent::Qwen | Agent::Droid => unreachable!("{:?} is not run here", sandbox.agent),
    }
}

/// `tests/test_ok.py` (passes) and `tests/test_fail.py` (fails), run with
/// `python3 -m unittest tests.test_ok` / `tests.test_fail`.
pub fn write_unittest_project(work: &Path) {
    let tests = work.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(tests.join("__init__.py"), "").unwrap();
    let case = |body: &str| {
        format!(
            "import unittest\n\nclass T(unittest.TestCase):\n    def test(self):\n        {body}\n"
        )
    };
    std::fs::write(tests.join("test_ok.py"), case("self.assertTrue(True)")).unwrap();
    std::fs::write(tests.join("test_fail.py"), case("self.fail('E2E failure')")).unwrap();
}

/// The format guard reads `agent`'s transcript with.
pub fn transcript_format(agent: Agent) -> TranscriptFormat {
    match agent {
        Agent::Claude => TranscriptFormat::ClaudeCode,
        Agent::Codex => TranscriptFormat::Codex,
        Agent::Gemini => TranscriptFormat::Gemini,
        Agent::Copilot => TranscriptFormat::Copilot,
        Agent::Qwen | Agent::Droid => unreachable!("{agent:?} is not run here"),
    }
}

/// The transcript named by the last turn-end payload a recording hook saw
/// (`transcript_path`, or Copilot's `transcriptPath`).
pub fn last_transcript(payloads: &[Value], run: &Run) -> PathBuf {
    payloads
        .last()
        .and_then(|p| {
            p["transcript_path"]
                .as_str()
                .or(p["transcriptPath"].as_str())
        })
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no transcript_path in {payloads:?}\n{}", run.debug()))
}
