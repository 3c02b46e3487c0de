//! Commands hidden inside other commands.
//!
//! Some programs run text as code: a shell given `-c STRING`, a heredoc or
//! piped `echo` output; `eval`; `su -c`; `ssh host CMD`; Windows' `cmd /c`;
//! `find -exec`; and interpreters (`python -c`, `node -e`, `perl -e`...)
//! whose code calls `system(...)`, `execSync(...)` or
//! `subprocess.run([...])`. This module finds that text so the walker can
//! examine it one level deeper. Anything else (arguments of `echo`, `grep`,
//! `git commit -m`...) stays data.

use super::code::shell_strings_in_code;
use super::wrappers::Invocation;

/// Something to examine one level deeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Nested {
    /// A script (shell source text).
    Script(String),
    /// An argument vector run directly (`find -exec rm {} ;`).
    Argv(Vec<String>),
    /// A script run on another machine (`ssh host '…'`): its paths are
    /// that machine's.
    Remote(String),
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "csh", "tcsh",
];

/// A POSIX-like shell that runs `-c` strings and its standard input.
pub(crate) fn is_shell(program: &str) -> bool {
    SHELLS.contains(&program)
}

/// A language interpreter with an inline-code option.
pub(crate) fn is_interpreter(program: &str) -> bool {
    code_options(program).is_some()
}

/// Programs whose arguments or input are executed as code: their
/// substitutions' output feeds them.
pub(crate) fn runs_code(program: &str) -> bool {
    is_shell(program)
        || is_interpreter(program)
        || matches!(
            program,
            "eval" | "source" | "." | "su" | "ssh" | "cmd" | "cmd.exe"
        )
}

fn code_options(program: &str) -> Option<&'static [&'static str]> {
    let python = program.starts_with("python")
        && program[6..].chars().all(|c| c.is_ascii_digit() || c == '.');
    Some(match program {
        _ if python => &["-c"],
        "pypy" | "pypy3" => &["-c"],
        "node" | "nodejs" | "bun" => &["-e", "--eval", "-p", "--print"],
        "deno" => &["eval"],
        "ruby" | "perl" | "jruby" | "truffleruby" => &["-e", "-E"],
        "elixir" | "iex" | "racket" | "clojure" | "bb" => &["-e"],
        "jython" | "tclsh" | "guile" => &["-c"],
        "erl" => &["-eval"],
        "sbcl" => &["--eval"],
        "php" => &["-r"],
        "lua" | "luajit" | "rscript" | "julia" | "groovy" | "scala" | "kotlin" | "kotlinc"
        | "osascript" | "jjs" => &["-e"],
        "pwsh" | "powershell" | "powershell.exe" => &["-c", "-command", "-Command", "-C"],
        _ => return None,
    })
}

/// The script a shell runs with `-c` (`bash -ec 'rm -rf /'`).
fn shell_script(args: &[String]) -> Option<&String> {
    let c_flag = args
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains('c'))?;
    args[c_flag + 1..].iter().find(|a| !a.starts_with('-'))
}

/// The inline code an interpreter runs: the value of its code option, or,
/// without a script operand, what is fed to its standard input.
pub(crate) fn inline_code(inv: &Invocation, stdin: &[String]) -> Option<String> {
    if is_shell(&inv.program) {
        return shell_script(&inv.args).cloned();
    }
    let options = code_options(&inv.program)?;
    let mut args = inv.args.iter();
    while let Some(arg) = args.next() {
        if options.contains(&arg.as_str()) {
            return args.next().cloned();
        }
        if let Some(attached) = options
            .iter()
            .filter(|o| o.len() == 2)
            .find_map(|o| arg.strip_prefix(o))
        {
            if !attached.is_empty() && arg.starts_with('-') && !arg.starts_with("--") {
                return Some(attached.to_string());
            }
        }
        if arg == "-" || !arg.starts_with('-') {
            break;
        }
    }
    let has_script = inv.args.iter().any(|a| !a.starts_with('-'));
    (!has_script && !stdin.is_empty()).then(|| stdin.join("\n"))
}

/// The text a pipeline stage writes to its standard output when it is
/// plainly visible: `echo`/`printf` arguments, or `cat` of a heredoc.
pub(crate) fn visible_output(inv: &Invocation, stdin: &[String]) -> Option<String> {
    match inv.program.as_str() {
        "echo" | "printf" => {
            let args: Vec<&str> = inv
                .args
                .iter()
                .map(String::as_str)
                .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                .collect();
            // printf (and echo -e) decode escapes: `\n` is a separator,
            // `\x72\x6d` is `rm`; printf fills its format with the rest
            // (`printf '%s' cur l` is `curl`).
            let text = match (inv.program.as_str(), args.split_first()) {
                ("printf", Some((format, rest))) if format.contains('%') => {
                    printf_format(format, rest)
                }
                _ => args.join(" "),
            };
            Some(super::scan::unescape(&text))
        }
        "cat" if inv.args.iter().all(|a| a.starts_with('-')) && !stdin.is_empty() => {
            Some(stdin.join("\n"))
        }
        _ => None,
    }
}

/// Longest output built from a printf format.
const PRINTF_MAX: usize = 4096;

/// `printf FORMAT ARGS…` with `%s`-like conversions: each takes the next
/// argument (none left: empty), `%%` is `%`, and the format is reused
/// while arguments remain, as printf does.
fn printf_format(format: &str, args: &[&str]) -> String {
    let mut out = String::new();
    let mut next = 0;
    loop {
        let mut chars = format.chars().peekable();
        let mut converted = false;
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            if chars.peek() == Some(&'%') {
                chars.next();
                out.push('%');
                continue;
            }
            // Flags, width and precision, then the conversion letter.
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || "-+ #.".contains(*c))
            {
                chars.next();
            }
            chars.next();
            converted = true;
            if let Some(arg) = args.get(next) {
                out.push_str(arg);
            }
            next += 1;
        }
        if !converted || next >= args.len() || out.len() > PRINTF_MAX {
            return out;
        }
    }
}

/// Options of `docker exec` and `docker compose exec|run` that take a value.
const CONTAINER_VALUE_OPTIONS: &[&str] = &[
    "-e",
    "--env",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--env-file",
    "--detach-keys",
    "--index",
    "--entrypoint",
    "--name",
    "-p",
    "--publish",
    "-v",
    "--volume",
    "-l",
    "--label",
    "--pull",
    "--cap-add",
    "--cap-drop",
];

/// The index of the first operand at or after `start`, skipping options
/// (and the values of those in `values`).
fn after_options(args: &[String], mut start: usize, values: &[&str]) -> usize {
    while let Some(arg) = args.get(start).filter(|a| a.starts_with('-')) {
        start += if values.contains(&arg.as_str()) { 2 } else { 1 };
    }
    start
}

/// The command of `[options] CONTAINER COMMAND…` from `start` (`docker
/// exec`, `docker compose exec|run`), if it names one.
fn container_command(args: &[String], start: usize) -> Option<Vec<String>> {
    let container = after_options(args, start, CONTAINER_VALUE_OPTIONS);
    args.get(container + 1..)
        .filter(|argv| !argv.is_empty())
        .map(<[String]>::to_vec)
}

/// The command a `compose [options] exec|run [options] SERVICE COMMAND…`
/// line runs (`args` after `compose`), if it names one.
fn compose_command(args: &[String]) -> Option<Vec<String>> {
    const GLOBAL_VALUES: &[&str] = &[
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--profile",
        "--env-file",
        "--project-directory",
        "--ansi",
        "--progress",
        "--parallel",
    ];
    let at = after_options(args, 0, GLOBAL_VALUES);
    match args.get(at).map(String::as_str) {
        Some("exec" | "run") => container_command(args, at + 1),
        _ => None,
    }
}

/// The commands hidden in one invocation. `stdin` is what heredocs and
/// here-strings feed it, `piped_in` the visible output of the previous
/// pipeline stage, `code` its inline interpreter code.
pub(crate) fn nested(
    inv: &Invocation,
    stdin: &[String],
    piped_in: Option<&str>,
    code: Option<&str>,
) -> Vec<Nested> {
    let args = &inv.args;
    let program = inv.program.as_str();
    let mut out = Vec::new();
    if is_shell(program) {
        let has_c = args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains('c'));
        if has_c {
            out.extend(shell_script(args).cloned().map(Nested::Script));
        } else if args.iter().all(|a| a.starts_with('-')) {
            out.extend(stdin.iter().cloned().map(Nested::Script));
            out.extend(piped_in.map(|s| Nested::Script(s.to_string())));
        }
        return out;
    }
    let stdin_scripts = || {
        stdin
            .iter()
            .map(String::as_str)
            .chain(piped_in)
            .map(|s| Nested::Script(s.to_string()))
            .collect::<Vec<_>>()
    };
    match program {
        "eval" => out.push(Nested::Script(args.join(" "))),
        // Windows' `cmd /c dotnet build && dotnet test`: the rest of the line
        // after `/c` (or `/k`) is the command, quoted or not.
        "cmd" | "cmd.exe" => out.extend(
            args.iter()
                .position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))
                .map(|at| Nested::Script(args[at + 1..].join(" "))),
        ),
        // An alias body runs whenever the alias is used.
        "alias" => out.extend(
            args.iter()
                .filter_map(|a| a.split_once('=').map(|(_, body)| body))
                .map(|body| Nested::Script(body.to_string())),
        ),
        "su" | "runuser" | "script" => {
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                if arg == "-c" || arg == "--command" {
                    out.extend(iter.next().cloned().map(Nested::Script));
                } else if let Some(script) = arg.strip_prefix("--command=") {
                    out.push(Nested::Script(script.to_string()));
                }
            }
            if out.is_empty() && program != "script" {
                out = stdin_scripts();
            }
        }
        // `at`/`batch` run their standard input later, through a shell.
        "at" | "batch"
            if !args
                .iter()
                .any(|a| a.starts_with("-f") || a == "-l" || a == "-d" || a == "-r") =>
        {
            out = stdin_scripts()
        }
        "docker" | "podman" if args.first().is_some_and(|a| a == "exec") => {
            out.extend(container_command(args, 1).map(Nested::Argv));
        }
        // `docker compose exec web pytest`, `docker-compose run --rm app
        // npm test`: the command runs in the service's container.
        "docker" | "podman" if args.first().is_some_and(|a| a == "compose") => {
            out.extend(compose_command(&args[1..]).map(Nested::Argv));
        }
        "docker-compose" | "podman-compose" => {
            out.extend(compose_command(args).map(Nested::Argv));
        }
        "kubectl" | "oc" if args.iter().any(|a| a == "exec") => {
            if let Some(dash) = args.iter().position(|a| a == "--") {
                out.push(Nested::Argv(args[dash + 1..].to_vec()));
            }
        }
        // `parallel CMD ::: ARGS` (or ARGS on its input): the command gets
        // the arguments; with no command, each argument is a command line.
        "parallel" => {
            let start = args
                .iter()
                .position(|a| !a.starts_with('-'))
                .unwrap_or(args.len());
            let command: Vec<String> = args[start..]
                .iter()
                .take_while(|a| *a != ":::")
                .cloned()
                .collect();
            let listed: Vec<&str> = args[start..]
                .iter()
                .skip_while(|a| *a != ":::")
                .filter(|a| *a != ":::")
                .map(String::as_str)
                .collect();
            let input = match (listed.is_empty(), piped_in) {
                (true, Some(text)) => text.to_string(),
                _ => listed.join("\n"),
            };
            if command.is_empty() {
                out.extend(input.lines().map(|l| Nested::Script(l.to_string())));
            } else if input.is_empty() {
                out.push(Nested::Argv(command));
            } else {
                out.extend(
                    super::values::fill_from_input(&command, &input, true)
                        .into_iter()
                        .map(Nested::Argv),
                );
            }
        }
        "ssh" => {
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                if !arg.starts_with('-') {
                    break;
                }
                let takes_value = arg.len() == 2 && "bcDEeFIiJLlmOopQRSWw".contains(&arg[1..]);
                i += if takes_value { 2 } else { 1 };
            }
            let remote = args.get(i + 1..).unwrap_or(&[]).join(" ");
            if !remote.is_empty() {
                out.push(Nested::Remote(remote));
            }
        }
        "find" => {
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let argv: Vec<String> = iter
                        .by_ref()
                        .take_while(|a| *a != ";" && *a != "+")
                        .cloned()
                        .collect();
                    out.push(Nested::Argv(argv));
                }
            }
        }
        _ => {}
    }
    if let Some(code) = code {
        out.extend(
            shell_strings_in_code(
                code,
                matches!(program, "ruby" | "perl" | "php" | "jruby" | "truffleruby"),
            )
            .into_iter()
            .map(Nested::Script),
        );
    }
    out
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
