//! Unit tests of nested-command discovery (kept apart to keep `expand.rs` short).

use super::*;

fn inv(program: &str, args: &[&str]) -> Invocation {
    Invocation {
        program: program.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        ..Invocation::default()
    }
}

#[test]
fn shell_c_string_and_stdin() {
    assert_eq!(
        nested(&inv("bash", &["-ec", "rm -rf /"]), &[], None, None),
        vec![Nested::Script("rm -rf /".into())]
    );
    assert_eq!(
        nested(&inv("sh", &[]), &["git reset --hard\n".into()], None, None),
        vec![Nested::Script("git reset --hard\n".into())]
    );
    assert_eq!(
        nested(&inv("bash", &["-s"]), &[], Some("rm -rf ~"), None),
        vec![Nested::Script("rm -rf ~".into())]
    );
    assert!(nested(&inv("bash", &["script.sh"]), &["x".into()], Some("y"), None).is_empty());
}

#[test]
fn windows_cmd_runs_the_rest_of_its_line() {
    assert_eq!(
        nested(
            &inv("cmd.exe", &["/d", "/C", "cd app && dotnet test"]),
            &[],
            None,
            None
        ),
        vec![Nested::Script("cd app && dotnet test".into())]
    );
    assert_eq!(
        nested(
            &inv("cmd", &["/c", "rd", "/s", "/q", "build"]),
            &[],
            None,
            None
        ),
        vec![Nested::Script("rd /s /q build".into())]
    );
    assert!(nested(&inv("cmd", &["/?"]), &[], None, None).is_empty());
}

#[test]
fn find_exec_and_ssh() {
    let got = nested(
        &inv(
            "find",
            &[".", "-name", "x", "-exec", "rm", "-rf", "{}", ";"],
        ),
        &[],
        None,
        None,
    );
    assert_eq!(
        got,
        vec![Nested::Argv(vec!["rm".into(), "-rf".into(), "{}".into()])]
    );
    let got = nested(
        &inv("ssh", &["-p", "22", "host", "rm", "-rf", "/"]),
        &[],
        None,
        None,
    );
    assert_eq!(got, vec![Nested::Remote("rm -rf /".into())]);
}

#[test]
fn compose_exec_and_run_run_their_command_in_the_container() {
    let argv = |v: &[&str]| vec![Nested::Argv(v.iter().map(|s| s.to_string()).collect())];
    assert_eq!(
        nested(
            &inv(
                "docker",
                &[
                    "compose",
                    "-f",
                    "dev.yml",
                    "exec",
                    "-T",
                    "web",
                    "python",
                    "manage.py",
                    "test"
                ]
            ),
            &[],
            None,
            None
        ),
        argv(&["python", "manage.py", "test"])
    );
    assert_eq!(
        nested(
            &inv(
                "docker-compose",
                &["run", "--rm", "-e", "CI=1", "app", "npm", "test"]
            ),
            &[],
            None,
            None
        ),
        argv(&["npm", "test"])
    );
    for args in [
        &["compose", "up", "-d"][..],
        &["compose", "exec", "web"],
        &["compose", "ps"],
    ] {
        assert!(
            nested(&inv("docker", args), &[], None, None).is_empty(),
            "{args:?}"
        );
    }
}

#[test]
fn printf_formats() {
    assert_eq!(printf_format("%s", &["cur", "l"]), "curl");
    assert_eq!(printf_format("%s-%s\\n", &["a"]), "a-\\n");
    assert_eq!(printf_format("100%%", &["x"]), "100%");
    assert_eq!(printf_format("%5s|", &["a", "b"]), "a|b|");
}

#[test]
fn interpreter_code() {
    assert_eq!(
        inline_code(&inv("python3", &["-c", "print(1)"]), &[]),
        Some("print(1)".into())
    );
    assert_eq!(
        inline_code(&inv("python3", &["script.py", "-c", "x"]), &[]),
        None
    );
    assert_eq!(
        inline_code(&inv("node", &["-e", "x"]), &[]),
        Some("x".into())
    );
    assert_eq!(
        inline_code(&inv("python", &[]), &["import os".into()]),
        Some("import os".into())
    );
}
