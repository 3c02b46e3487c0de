//! Unit tests of wrapper stripping (kept apart to keep `wrappers.rs` short).

use super::*;

fn run(line: &str) -> (String, Vec<String>) {
    let words: Vec<String> = line.split_whitespace().map(String::from).collect();
    let inv = resolve(&words);
    (inv.program, inv.args)
}

#[test]
fn strips_common_wrappers() {
    let cases = [
        ("sudo rm -rf /", "rm"),
        ("sudo -u root -H rm x", "rm"),
        ("sudo -uroot rm x", "rm"),
        ("sudo -- rm x", "rm"),
        ("doas -u admin rm x", "rm"),
        ("env -i FOO=1 BAR=2 git reset", "git"),
        ("env -u HOME -C /tmp git reset", "git"),
        ("FOO=1 BAR=x git reset", "git"),
        ("nohup nice -n 19 ionice -c 3 git gc", "git"),
        ("time -p git status", "git"),
        ("timeout 10 rm -rf x", "rm"),
        ("timeout -s KILL -k 5 30s rm x", "rm"),
        ("command git reset", "git"),
        ("builtin command exec -a foo git reset", "git"),
        ("stdbuf -oL -e 0 git log", "git"),
        ("xargs -0 -n 1 -I {} rm -rf {}", "rm"),
        ("/bin/rm -rf x", "rm"),
        ("\\rm -rf x", "rm"),
        ("npx -y prisma migrate deploy", "prisma"),
        ("npm exec -- prisma migrate", "prisma"),
        ("uv run alembic upgrade head", "alembic"),
        ("bundle exec rake db:migrate", "rake"),
        ("strace -f -o out.txt rm x", "rm"),
        ("SUDO /BIN/RM x", "rm"),
        ("=2 git reset --hard", "git"),
    ];
    for (line, program) in cases {
        assert_eq!(run(line).0, program, "{line}");
    }
    assert_eq!(run("sudo rm -rf /").1, vec!["-rf", "/"]);
}

#[test]
fn queries_and_bare_assignments_run_nothing() {
    assert_eq!(run("env -u").0, "env", "env alone prints the environment");
    assert_eq!(run("env FOO=1").0, "env");
    for line in [
        "command -v rm",
        "command -V git",
        "sudo -l",
        "FOO=1",
        "ionice -p 123",
        "xargs",
    ] {
        assert_eq!(run(line).0, "", "{line}");
    }
}

#[test]
fn command_strings_become_scripts() {
    let words: Vec<String> = ["env", "-S", "rm -rf /"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(resolve(&words).scripts, vec!["rm -rf /"]);
    let words: Vec<String> = ["watch", "-n", "5", "rm", "-rf", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(resolve(&words).scripts, vec!["rm -rf x"]);
    assert!(resolve(&words).program.is_empty());
}

#[test]
fn assignment_shape() {
    assert!(is_assignment("A=1"));
    assert!(is_assignment("_x+=y"));
    assert!(!is_assignment("1A=2"));
    assert!(!is_assignment("--opt=1"));
    assert!(
        is_assignment("of=/dev/sda"),
        "shape only: operands after a program are never assignments"
    );
}
