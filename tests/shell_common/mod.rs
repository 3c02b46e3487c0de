//! Helpers shared by the shell-corpus tests: the built-in
//! `dangerous-command` detector's rules and a typical working context.

use guard::detector::DetectorSpec;
use guard::shell::{ShellContext, ShellRules};

/// The built-in `dangerous-command` detector.
pub fn dangerous_command_spec() -> DetectorSpec {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/detectors/dangerous-command.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The shell rules of `detectors/dangerous-command.yaml`, validated.
pub fn dangerous_command_rules() -> ShellRules {
    let rules = dangerous_command_spec()
        .shell
        .expect("the detector has a shell section");
    rules.validate().unwrap();
    rules
}

/// Whether Layer 1 would let the command reach the shell rules: some
/// keyword occurs in it, case-insensitively.
#[allow(dead_code)]
pub fn keyword_hit(keywords: &[String], command: &str) -> bool {
    let lower = command.to_lowercase();
    keywords.iter().any(|k| lower.contains(&k.to_lowercase()))
}

/// An agent working at the root of a repository inside the user's home.
pub fn repo_context() -> ShellContext {
    ShellContext {
        cwd: Some("/home/dev/project".into()),
        repo_root: Some("/home/dev/project".into()),
        home: Some("/home/dev".into()),
    }
}
