//! Shared helpers of the install tests: a throw-away HOME, an empty PATH,
//! and `guard` run as a subprocess in them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A sandbox: temp HOME, a PATH holding only `bin/`, a working directory.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "bin", "work"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Sandbox { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// `guard` (the test build, or `exe`) with a clean environment.
    pub fn command_with(&self, exe: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", self.bin())
            .current_dir(self.work())
            .stdin(Stdio::null());
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command_with(&guard_exe(), args).output().unwrap()
    }

    /// Runs guard and asserts it succeeded; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "guard {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn claude_settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }

    pub fn codex_hooks(&self) -> PathBuf {
        self.home().join(".codex/hooks.json")
    }
}

/// The guard binary under test, canonicalized as guard writes it.
pub fn guard_exe() -> PathBuf {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_guard")).unwrap()
}

/// Files in a directory whose name contains `part`.
pub fn files_containing(dir: &Path, part: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(part))
                .collect()
        })
        .unwrap_or_default()
}
