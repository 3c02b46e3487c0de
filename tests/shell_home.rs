//! The user's home is protected wherever it lives. Sandboxes, CI runners
//! and containers set HOME under /tmp or /var/tmp, or run the agent in HOME
//! itself: the temp-dir rules must not turn `rm -rf ~` into a temp clean-up.

#[allow(dead_code)]
mod shell_common;

use guard::shell::{classify, ShellAction, ShellContext};
use std::path::Path;
use std::process::Command;

fn ctx(home: &str, cwd: &str) -> ShellContext {
    ShellContext {
        cwd: Some(cwd.into()),
        repo_root: Some(cwd.into()).filter(|_| cwd != home),
        home: Some(home.into()),
    }
}

fn action(command: &str, ctx: &ShellContext) -> Option<ShellAction> {
    let rules = shell_common::dangerous_command_rules();
    classify(command, &rules, ctx).map(|m| m.action)
}

/// Denied for every home given: the home itself, its contents at once,
/// and its ancestors.
fn assert_home_protected(home: &str, cwd: &str) {
    let ctx = ctx(home, cwd);
    let parent = Path::new(home).parent().unwrap().display().to_string();
    let commands = [
        "rm -rf ~".to_string(),
        "rm -rf ~/".to_string(),
        "rm -rf ~/*".to_string(),
        "rm -rf $HOME".to_string(),
        "rm -rf \"$HOME\"".to_string(),
        "rm -rf ${HOME}/*".to_string(),
        format!("rm -rf {home}"),
        format!("rm -rf {home}/"),
        format!("rm -rf {home}/*"),
        format!("rm -rf {parent}"),
        format!("rm -rf {parent}/"),
        "cd ~ && rm -rf *".to_string(),
        "cd && rm -rf .".to_string(),
        "find ~ -delete".to_string(),
    ];
    assert_denied(&ctx, &commands, &format!("HOME={home}, cwd={cwd}"));
}

fn assert_denied(ctx: &ShellContext, commands: &[impl AsRef<str>], label: &str) {
    for command in commands {
        let command = command.as_ref();
        assert_eq!(
            action(command, ctx),
            Some(ShellAction::Deny),
            "{label}: {command}"
        );
    }
}

#[test]
fn home_under_tmp_is_home() {
    assert_home_protected("/tmp/sandbox/home", "/tmp/sandbox/home/project");
}

#[test]
fn home_under_var_tmp_is_home() {
    assert_home_protected("/var/tmp/ci/runner", "/var/tmp/ci/runner/work/repo");
}

#[test]
fn home_equal_to_cwd_is_home() {
    for home in ["/home/dev", "/tmp/box"] {
        assert_home_protected(home, home);
        let commands = [
            "rm -rf .",
            "rm -rf ./",
            "rm -rf *",
            "rm -rf ./*",
            "rm -rf .*",
        ];
        assert_denied(&ctx(home, home), &commands, &format!("HOME = cwd = {home}"));
    }
}

/// What lies inside a home under /tmp is the user's, not scratch space:
/// a recursive delete there is asked about, as anywhere in a home. A real
/// temp dir beside it stays free.
#[test]
fn inside_a_home_under_tmp_is_not_temp() {
    let ctx = ctx("/tmp/sandbox/home", "/tmp/sandbox/home/project");
    assert_eq!(
        action("rm -rf /tmp/sandbox/home/notes", &ctx),
        Some(ShellAction::Ask)
    );
    assert_eq!(action("rm -rf ~/notes", &ctx), Some(ShellAction::Ask));
    assert_eq!(action("rm -rf /tmp/build-cache", &ctx), None);
    assert_eq!(action("rm -rf build", &ctx), Some(ShellAction::Ask));
    assert_eq!(action("rm -rf node_modules", &ctx), None);
}

/// The same through the binary: `guard check` reads HOME from the
/// environment and the working directory from the process.
#[test]
fn guard_check_protects_a_home_under_tmp() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    for (dir, command) in [
        (&project, "rm -rf ~"),
        (&project, "rm -rf $HOME"),
        (&home.path().to_path_buf(), "rm -rf ."),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_guard"))
            .args(["check", "--no-judge", "--json", "--command", command])
            .current_dir(dir)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("XDG_STATE_HOME", home.path().join(".state"))
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
        });
        assert_eq!(
            json["verdict"],
            "deny",
            "HOME={}: {command} in {}",
            home.path().display(),
            dir.display()
        );
    }
}

/// Filtered clean-ups stay clean-ups when HOME is the repository itself or
/// lies under /tmp: `.` in a repository that is also the home is the
/// repository (`~` is still the home), and a filtered `find` over /tmp is a
/// temp clean-up even though HOME is below it. Unfiltered, both are denied.
#[test]
fn filtered_find_cleanups_in_a_home_repo_and_under_tmp() {
    for home in ["/home/dev", "/tmp/box"] {
        let ctx = ShellContext {
            cwd: Some(home.into()),
            repo_root: Some(home.into()),
            home: Some(home.into()),
        };
        let label = format!("HOME = repo = {home}");
        for command in [
            "find . -name '*.log' -delete",
            "find . -name '*.pyc' -exec rm {} +",
        ] {
            assert_ne!(
                action(command, &ctx),
                Some(ShellAction::Deny),
                "{label}: {command}"
            );
        }
        let denied = [
            "find . -delete",
            "find ~ -name '*.log' -delete",
            "find $HOME -name '*.pyc' -exec rm {} \\;",
            "rm -rf .",
            "rm -rf ~",
        ];
        assert_denied(&ctx, &denied, &label);
    }
    let ctx = ctx("/tmp/x/home/dev", "/tmp/x/home/dev/project");
    for command in [
        "find /tmp -name '*.log' -exec rm {} \\;",
        "find /tmp -type f -mtime +7 -delete",
        "find /tmp/build -exec rm -rf {} +",
    ] {
        assert_ne!(
            action(command, &ctx),
            Some(ShellAction::Deny),
            "HOME under /tmp: {command}"
        );
    }
    assert_denied(
        &ctx,
        &[
            "find /tmp -delete",
            "find /tmp -exec rm -rf {} +",
            "find ~ -name '*.log' -delete",
        ],
        "HOME under /tmp",
    );
}
