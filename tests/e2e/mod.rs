//! Harness for the end-to-end tests that run the REAL agent CLIs (Claude Code,
//! Codex CLI, Gemini CLI, Qwen Code, Copilot CLI, Factory Droid) offline against `examples/stub_model`, to prove that
//! hooks (and later guard itself) act on the real agents, not on our idea of
//! their protocols.
//!
//! Each run gets a fresh sandbox (HOME, working directory, script, log) under
//! cargo's target tmp dir, and runs inside a network namespace that has only
//! loopback, with the stub started inside the same namespace. The CLIs are
//! installed by `tests/e2e/install-agents.sh` into `.cache/agents` at the
//! versions pinned in `tests/e2e/agents.json`.
//!
//! - [`agent`]: which CLIs exist, their pinned versions, how each is configured and launched;
//! - [`sandbox`]: a fresh HOME + workdir, hook registration, running a prompt;
//! - [`jail`]: the loopback-only namespace, the process group and the timeout;
//! - [`stub`]: writing scripts for the stub and reading what the model was sent;
//! - [`hooks`]: tiny shell hooks (block once, deny) that record their stdin;
//! - [`capture`]: each CLI's payloads and transcript, against the fixtures of its pinned version;
//! - [`guard`]: guard itself wired into the CLI, its config, judge and decision log;
//! - [`turns`]: pieces of the scripted turns the transcript tests share.
//!
//! `GUARD_E2E=skip` skips these tests on purpose; otherwise a missing CLI fails
//! with instructions.
#![allow(dead_code, unused_imports)]

pub mod agent;
pub mod capture;
pub mod guard;
pub mod hooks;
pub mod jail;
pub mod sandbox;
pub mod stub;
pub mod turns;

pub use agent::Agent;
pub use sandbox::{HookPoint, Run, Sandbox};
pub use stub::{Role, StubLog, Turn};

use std::path::PathBuf;

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the pinned CLIs are installed (`GUARD_E2E_AGENTS_DIR` overrides).
pub fn agents_dir() -> PathBuf {
    std::env::var_os("GUARD_E2E_AGENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".cache/agents"))
}

/// True when the user set `GUARD_E2E=skip` to skip the e2e tests on purpose.
pub fn skip_requested() -> bool {
    std::env::var("GUARD_E2E").is_ok_and(|v| v == "skip")
}

/// The guard binary built by cargo for this test run.
pub fn guard_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_guard"))
}

/// The stub model binary (`examples/stub_model`), next to the test binary:
/// `target/<profile>/deps/<test>` → `target/<profile>/examples/stub_model`.
/// Plain `cargo test` builds examples, but `cargo test --test NAME` neither
/// builds nor rebuilds them, so when the tests run under cargo this runs
/// `cargo build --example stub_model` once (a no-op when it is up to date).
pub fn stub_bin() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("current_exe");
            let profile_dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .expect("test binary in target/<profile>/deps");
            let stub = profile_dir.join("examples/stub_model");
            if let Ok(cargo) = std::env::var("CARGO") {
                let mut build = std::process::Command::new(cargo);
                build.args(["build", "--quiet", "--example", "stub_model"]);
                match profile_dir.file_name().and_then(|n| n.to_str()) {
                    Some("debug") | None => {}
                    Some(profile) => {
                        build.args(["--profile", profile]);
                    }
                }
                let status = build
                    .current_dir(repo_root())
                    .status()
                    .expect("run cargo build --example stub_model");
                assert!(status.success(), "cargo build --example stub_model failed");
            }
            assert!(
                stub.exists(),
                "stub model not found at {}; run `cargo build --example stub_model`",
                stub.display()
            );
            stub
        })
        .clone()
}
