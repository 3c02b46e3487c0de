//! The config moves classes of shell rules (`detectors.dangerous-command.
//! shell`): `classes`, `allow_push` and `production`, from the user's own
//! file; a project's `.guard.yaml` may only move a class to deny.

use std::process::Command;

struct Sandbox {
    home: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("project/.git")).unwrap();
        Sandbox { home }
    }

    fn project(&self) -> std::path::PathBuf {
        self.home.path().join("project")
    }

    fn user_config(&self, yaml: &str) {
        let dir = self.home.path().join(".config/guard");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.yaml"), yaml).unwrap();
    }

    fn project_config(&self, yaml: &str) {
        std::fs::write(self.project().join(".guard.yaml"), yaml).unwrap();
    }

    fn run(&self, command: &str) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_guard"))
            .args(["check", "--no-judge", "--json", "--command", command])
            .current_dir(self.project())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("XDG_STATE_HOME", self.home.path().join(".state"))
            .env_remove("GUARD_CONFIG")
            .output()
            .unwrap()
    }

    fn verdict(&self, command: &str) -> String {
        let out = self.run(command);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        json["verdict"].as_str().unwrap_or_default().to_string()
    }
}

fn assert_verdicts(sandbox: &Sandbox, cases: &[(&str, &str)]) {
    for (command, want) in cases {
        assert_eq!(&sandbox.verdict(command), want, "{command}");
    }
}

#[test]
fn defaults_without_config() {
    let s = Sandbox::new();
    assert_verdicts(
        &s,
        &[
            ("git push origin feature/login", "ask"),
            ("sudo apt-get remove nginx", "ask"),
            ("systemctl restart nginx", "ask"),
            ("helm uninstall api -n blue", "ask"),
            ("helm uninstall api -n production", "deny"),
        ],
    );
}

#[test]
fn the_users_config_moves_classes() {
    let s = Sandbox::new();
    s.user_config(
        r#"
detectors:
  dangerous-command:
    shell:
      allow_push: ["feature/*", "fix-*"]
      classes: {packages: allow, services: deny, git-branch-force-delete: deny}
      production: '(?i)\b(blue|green)\b'
"#,
    );
    assert_verdicts(
        &s,
        &[
            ("git push origin feature/login", "allow"),
            ("git push -u origin HEAD:fix-42", "allow"),
            ("git push origin feature/a main", "ask"),
            ("git push origin v1.0", "ask"),
            ("git push", "ask"),
            ("git push --force origin main", "deny"),
        ],
    );
    // A plain `git push` pushes the current branch: read from the repository.
    std::fs::write(s.project().join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
    assert_verdicts(
        &s,
        &[
            ("git push", "allow"),
            ("git push -u origin HEAD", "allow"),
            ("sudo apt-get remove nginx", "allow"),
            ("systemctl restart nginx", "deny"),
            ("git branch -D old", "deny"),
            ("helm uninstall api -n blue", "deny"),
            ("helm uninstall api -n production", "ask"),
        ],
    );
}

#[test]
fn a_project_may_only_tighten() {
    let s = Sandbox::new();
    s.project_config(
        r#"
detectors:
  dangerous-command:
    shell:
      allow_push: ["*"]
      production: 'nothing-matches-this'
      classes: {push: deny, packages: allow}
"#,
    );
    assert_verdicts(
        &s,
        &[
            ("git push origin feature/login", "deny"),
            ("sudo apt-get remove nginx", "ask"),
            ("helm uninstall api -n production", "deny"),
        ],
    );
}

#[test]
fn an_unknown_class_is_a_clear_error() {
    let s = Sandbox::new();
    s.user_config("detectors:\n  dangerous-command:\n    shell:\n      classes: {pushes: allow}\n");
    let out = s.run("git push");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("pushes") && stderr.contains("shell.classes"),
        "{stderr}"
    );
}
