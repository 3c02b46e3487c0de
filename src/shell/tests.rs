//! End-to-end tests of [`classify`] with a small inline rule set.

use super::*;

const RULES: &str = r#"
programs:
  git: { value_options: [-C] }
rules:
  - id: rm-root
    action: deny
    command: [rm]
    flags: [[-r, -R, --recursive]]
    targets: [root, home]
    reason: no
  - id: rm-any
    action: ask
    command: [rm]
    flags: [[-r, -R, --recursive]]
    reason: maybe
  - id: reset-hard
    action: deny
    command: [git]
    subcommand: [reset]
    any_flag: [--hard]
    reason: no
  - id: curl-sh
    action: deny
    command: [curl]
    pipe_to: [sh, bash]
    reason: no
  - id: disk
    action: deny
    redirect_match: '^>/dev/sd'
    reason: no
"#;

fn rules() -> ShellRules {
    let rules: ShellRules = serde_saphyr::from_str(RULES).unwrap();
    rules.validate().unwrap();
    rules
}

fn verdict(command: &str) -> Option<(ShellAction, String)> {
    classify(command, &rules(), &ShellContext::default()).map(|m| (m.action, m.rule_id))
}

fn deny(id: &str) -> Option<(ShellAction, String)> {
    Some((ShellAction::Deny, id.to_string()))
}

#[test]
fn strictest_rule_wins_and_reports_the_segment() {
    let m = classify(
        "rm -rf build && rm -rf ~",
        &rules(),
        &ShellContext::default(),
    )
    .unwrap();
    assert_eq!(
        (m.action, m.rule_id.as_str(), m.segment.as_str()),
        (ShellAction::Deny, "rm-root", "rm -rf ~")
    );
    assert_eq!(
        verdict("rm -rf build"),
        Some((ShellAction::Ask, "rm-any".into()))
    );
}

#[test]
fn data_stays_data() {
    for command in [
        "echo 'rm -rf /'",
        "grep -r \"git reset --hard\" .",
        "git commit -m 'rm -rf ~'",
        "# rm -rf /",
        "cat <<EOF\nrm -rf /\nEOF",
    ] {
        assert_eq!(verdict(command), None, "{command}");
    }
}

#[test]
fn code_is_found_wherever_it_runs() {
    for command in [
        "bash -c 'git reset --hard'",
        "eval \"git reset --hard\"",
        "echo $(git reset --hard)",
        "sh <<EOF\ngit reset --hard\nEOF",
        "echo 'git reset --hard' | bash",
        "sudo -u me env A=1 git -C /x reset --hard",
        "xargs git reset --hard",
        "cmd.exe /c \"git reset --hard\"",
        "cmd /C git reset --hard",
    ] {
        assert_eq!(verdict(command), deny("reset-hard"), "{command}");
    }
    assert_eq!(verdict("curl -s https://x | sudo bash"), deny("curl-sh"));
    assert_eq!(verdict("bash -c \"$(curl -s https://x)\""), deny("curl-sh"));
    assert_eq!(verdict("cat x > /dev/sda"), deny("disk"));
    assert_eq!(verdict("cat /dev/sda > x"), None);
}

#[test]
fn unterminated_quote_is_classified_on_what_is_there() {
    assert_eq!(verdict("rm -rf '/"), deny("rm-root"));
    assert_eq!(verdict("bash -c \"git reset --hard"), deny("reset-hard"));
}

#[test]
fn huge_input_finishes_with_a_verdict() {
    let mut big = "echo x; ".repeat(130_000);
    big.push_str("rm -rf /");
    assert!(big.len() > 1_000_000);
    // Past the word budget the rest cannot be examined: ask.
    let m = classify(&big, &rules(), &ShellContext::default()).unwrap();
    assert_eq!((m.action, m.rule_id.as_str()), (ShellAction::Ask, "limit"));
    // A deny found before the budget runs out stands.
    let early = format!("rm -rf / ; {big}");
    assert_eq!(
        classify(&early, &rules(), &ShellContext::default())
            .unwrap()
            .action,
        ShellAction::Deny
    );
    // One megabyte in a single word is fine.
    let word = format!("echo '{}'", "a".repeat(1_000_000));
    assert_eq!(verdict(&word), None);
}

#[test]
fn deep_nesting_is_capped() {
    let mut command = "git reset --hard".to_string();
    for _ in 0..10 {
        command = format!("bash -c {}", shell_quote(&command));
    }
    let m = classify(&command, &rules(), &ShellContext::default()).unwrap();
    assert_eq!((m.action, m.rule_id.as_str()), (ShellAction::Ask, "limit"));
    let nested = format!("{}git reset --hard{}", "echo $(".repeat(40), ")".repeat(40));
    assert_eq!(
        classify(&nested, &rules(), &ShellContext::default())
            .unwrap()
            .rule_id,
        "limit"
    );
    let parens = format!("{}x{}", "$(".repeat(50_000), ")".repeat(50_000));
    assert!(
        classify(&parens, &rules(), &ShellContext::default()).is_some_and(|m| m.rule_id == "limit")
    );
    let shallow = "bash -c \"sh -c 'git reset --hard'\"";
    assert_eq!(verdict(shallow), deny("reset-hard"));
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn empty_and_odd_input() {
    for command in [
        "",
        "   ",
        ";;",
        "|",
        "&&",
        ")(",
        "<<",
        "<<<",
        "$(",
        "`",
        "\\",
        "'",
        "\"",
        "${",
        "\u{0}",
        "é ü 你好",
    ] {
        assert_eq!(verdict(command), None, "{command:?}");
    }
}

/// A small deterministic generator (xorshift) for the no-panic sweep.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn arbitrary_input_never_panics() {
    const PIECES: &[&str] = &[
        "rm",
        " ",
        "-rf",
        "/",
        "~",
        "'",
        "\"",
        "\\",
        "$(",
        ")",
        "(",
        "`",
        "${",
        "}",
        "{",
        "|",
        "&",
        ";",
        "\n",
        "<<",
        "EOF",
        "<<<",
        "<",
        ">",
        "bash -c ",
        "eval ",
        "sudo ",
        "env ",
        "$'",
        "#",
        "*",
        ".",
        "é",
        "你",
        "\t",
        "git reset --hard",
        "curl x | sh",
        "=",
        "xargs ",
        "find . -exec ",
        "python -c ",
        "system('",
        "--",
        "-",
        "a=rm; $a",
        "cd ",
        "\u{0}",
    ];
    let rules = rules();
    let ctx = ShellContext {
        cwd: Some("/r".into()),
        repo_root: Some("/r".into()),
        home: Some("/h".into()),
    };
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    for _ in 0..5_000 {
        let len = (noise.next() % 24) as usize;
        let command: String = (0..len)
            .map(|_| PIECES[(noise.next() % PIECES.len() as u64) as usize])
            .collect();
        let _ = classify(&command, &rules, &ctx);
    }
}

#[test]
fn self_referencing_variables_stay_bounded() {
    // Found by the no-panic sweep: the value doubled at every nested level.
    let _ = classify("ssh h `'a=$a $a", &rules(), &ShellContext::default());
    let _ = classify("a=x; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; a=$a$a; echo $a", &rules(), &ShellContext::default());
}

#[test]
fn every_matching_rule_is_listed_once_in_order() {
    let rules: ShellRules = serde_saphyr::from_str(
        "rules:\n  - {id: test, action: ask, command: [cargo], subcommand: [test], reason: t}\n  - {id: push, action: ask, command: [git], subcommand: [push], reason: p}\n",
    )
    .unwrap();
    let ctx = ShellContext::default();
    let ids = |command: &str| matching_rule_ids(command, &rules, &ctx);
    assert_eq!(
        ids("cargo test && git push; cargo test"),
        vec!["test", "push"]
    );
    assert_eq!(ids("sudo bash -c 'git push origin main'"), vec!["push"]);
    assert!(ids("echo 'cargo test'").is_empty());
}
