//! Wrapper stripping: find the program a command line really runs.
//!
//! `sudo -u root env FOO=1 nice -n 5 /bin/rm -rf x` runs `rm -rf x`. Each
//! wrapper is skipped together with its own options (and their values), so
//! that the rules only ever see the effective program, written as a bare
//! name (`/usr/bin/git` and `\git` are `git`). Wrappers that take a command
//! *string* (`env -S`, `npx -c`, `watch`) hand that string back as a script
//! to examine at the next depth.

/// The effective program of a simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// The program's bare name (empty when the command runs nothing, e.g.
    /// only assignments, or `command -v git`).
    pub program: String,
    /// Index of the program word among the command's words.
    pub program_index: usize,
    /// The arguments after the program.
    pub args: Vec<String>,
    /// `VAR=value` assignments seen before the program (also via `env`).
    pub assignments: Vec<String>,
    /// The program is run by `xargs`: it gets more operands from stdin.
    pub via_xargs: bool,
    /// Command strings a wrapper runs through a shell (`env -S`, `watch`).
    pub scripts: Vec<String>,
}

/// The bare name of a program word: `/usr/bin/git` → `git`.
pub(crate) fn program_name(word: &str) -> &str {
    let trimmed = word.trim_start_matches('\\');
    match trimmed.rfind('/') {
        Some(slash) if slash + 1 < trimmed.len() => &trimmed[slash + 1..],
        _ => trimmed,
    }
}

fn is_short_flag(word: &str, letter: char) -> bool {
    word.len() > 1 && word.starts_with('-') && !word.starts_with("--") && word[1..].contains(letter)
}

/// `NAME=value` (or `NAME+=value`) with a valid shell name.
pub(crate) fn is_assignment(word: &str) -> bool {
    let Some(eq) = word.find('=') else {
        return false;
    };
    let name = word[..eq].strip_suffix('+').unwrap_or(&word[..eq]);
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `1A=2` or `A-B=2`: not a valid assignment, so the shell would try to
/// run it and fail; skipping it like one judges the rest of the line, the
/// reading that errs on the safe side.
fn looks_like_assignment(word: &str) -> bool {
    // `=2 git reset --hard`: an empty name counts too.
    word.split_once('=').is_some_and(|(name, value)| {
        (!name.is_empty() || !value.is_empty())
            && !name.starts_with('-')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
    })
}

/// Skips options starting at `i`. `short_values` lists the short options
/// that take a value, `long_values` the long ones (`--opt value`). Stops at
/// the first operand or after `--`. Returns the index of the first operand
/// and whether one of `stop_flags` (short letters) was seen.
fn skip_options(
    words: &[String],
    mut i: usize,
    short_values: &str,
    long_values: &[&str],
    stop_flags: &str,
) -> (usize, bool) {
    let mut stopped = false;
    while let Some(word) = words.get(i) {
        if word == "--" {
            return (i + 1, stopped);
        }
        if !word.starts_with('-') || word.len() < 2 {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let takes_value = !long.contains('=')
                && long_values
                    .iter()
                    .any(|v| v.trim_start_matches('-') == long);
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        let letters = &word[1..];
        let mut step = 1;
        for (pos, letter) in letters.char_indices() {
            if stop_flags.contains(letter) {
                stopped = true;
            }
            if short_values.contains(letter) {
                if pos + letter.len_utf8() == letters.len() {
                    step = 2;
                }
                break;
            }
        }
        i += step;
    }
    (i, stopped)
}

/// Finds the effective program of a command's words.
pub(crate) fn resolve(words: &[String]) -> Invocation {
    let mut out = Invocation::default();
    let mut placeholder: Option<String> = None;
    let mut i = 0;
    for _ in 0..64 {
        let Some(word) = words.get(i) else { return out };
        if is_assignment(word) || looks_like_assignment(word) {
            out.assignments.push(word.clone());
            i += 1;
            continue;
        }
        // Lowercase: case-insensitive filesystems (macOS) run `RM` as `rm`.
        let lowered = program_name(word).to_lowercase();
        let name = lowered.as_str();
        let next = |s: &str| words.get(i + 1).is_some_and(|w| w == s);
        let (after, stop) = match name {
            "sudo" => skip_options(
                words,
                i + 1,
                "ughpCDrtUTc",
                &[
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--other-user",
                    "--command-timeout",
                    "--login-class",
                ],
                "elvkKV",
            ),
            "doas" => skip_options(words, i + 1, "uC", &[], "L"),
            "env" => match env_options(words, i + 1, &mut out) {
                // `env` alone (or with only assignments) prints the environment.
                Some(after)
                    if words
                        .get(after..)
                        .unwrap_or(&[])
                        .iter()
                        .all(|w| is_assignment(w)) =>
                {
                    out.program = "env".into();
                    out.program_index = i;
                    out.args = words[i + 1..].to_vec();
                    return out;
                }
                Some(after) => (after, false),
                None => return out,
            },
            "nohup" | "builtin" | "setsid" | "unbuffer" | "chronic" | "nocache" | "busybox" => {
                skip_options(words, i + 1, "", &[], "")
            }
            "time" => skip_options(words, i + 1, "fo", &["--format", "--output"], ""),
            "nice" => skip_options(words, i + 1, "n", &["--adjustment"], ""),
            "ionice" => skip_options(words, i + 1, "cn", &["--class", "--classdata"], "pPu"),
            "timeout" => {
                let (after, _) =
                    skip_options(words, i + 1, "sk", &["--signal", "--kill-after"], "");
                (after + 1, false)
            }
            "command" => skip_options(words, i + 1, "", &[], "vV"),
            "exec" => skip_options(words, i + 1, "a", &[], ""),
            "stdbuf" => skip_options(words, i + 1, "ioe", &["--input", "--output", "--error"], ""),
            "strace" | "ltrace" => {
                skip_options(words, i + 1, "oepsuEIbPXa", &["--output", "--trace"], "")
            }
            "xargs" => {
                out.via_xargs = true;
                placeholder = xargs_placeholder(&words[i + 1..]);
                skip_options(
                    words,
                    i + 1,
                    "IJRLnPsdEa",
                    &[
                        "--max-lines",
                        "--max-args",
                        "--max-procs",
                        "--max-chars",
                        "--delimiter",
                        "--eof",
                        "--arg-file",
                        "--process-slot-var",
                    ],
                    "",
                )
            }
            "npx" | "pnpx" | "bunx" | "uvx" => {
                if let Some(pos) = words[i + 1..]
                    .iter()
                    .position(|w| w == "-c" || w == "--call")
                {
                    if let Some(script) = words.get(i + 2 + pos) {
                        out.scripts.push(script.clone());
                    }
                    return out;
                }
                skip_options(
                    words,
                    i + 1,
                    "p",
                    &["--package", "--from", "--with", "--python"],
                    "",
                )
            }
            "npm" | "pnpm" | "yarn" if next("exec") || next("dlx") || next("x") => {
                skip_options(words, i + 2, "p", &["--package"], "")
            }
            "uv" if next("run") => skip_options(
                words,
                i + 2,
                "p",
                &[
                    "--with",
                    "--from",
                    "--python",
                    "--directory",
                    "--project",
                    "--package",
                    "--env-file",
                    "--extra",
                    "--group",
                    "--index",
                ],
                "",
            ),
            "poetry" | "pipenv" | "pdm" | "hatch" if next("run") => (i + 2, false),
            "bundle" if next("exec") => (i + 2, false),
            "watch" => {
                let (after, _) = skip_options(words, i + 1, "nq", &["--interval"], "");
                let joined = words.get(after..).unwrap_or(&[]).join(" ");
                if !joined.is_empty() {
                    out.scripts.push(joined);
                }
                return out;
            }
            _ => {
                out.program = name.to_string();
                out.program_index = i;
                out.args = words[i + 1..].to_vec();
                if let Some(mark) = placeholder.filter(|m| m != "{}" && !m.is_empty()) {
                    // `xargs -I % rm %`, `xargs -J X cp X dir`: the
                    // placeholder is spelled `{}` for the rules.
                    for arg in &mut out.args {
                        *arg = arg.replace(&mark, "{}");
                    }
                }
                if name == "git" && out.args.first().is_some_and(|a| a == "--") {
                    // `git -- reset --hard` is read as `git reset --hard`.
                    out.args.remove(0);
                }
                return out;
            }
        };
        if stop {
            // `command -v git`, `sudo -l`: a query, nothing runs.
            return out;
        }
        if name == "sudo"
            && after >= words.len()
            && words[i + 1..].iter().any(|w| {
                is_short_flag(w, 's') || is_short_flag(w, 'i') || w == "--shell" || w == "--login"
            })
        {
            // `sudo -s` / `sudo -i` alone: an interactive shell reading stdin.
            out.program = "sh".into();
            out.program_index = i;
            return out;
        }
        i = after;
    }
    out
}

/// The replacement string of `xargs -I X`, `-J X` (BSD), `-iX` or
/// `--replace=X`, read from the words after `xargs`.
fn xargs_placeholder(words: &[String]) -> Option<String> {
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if !word.starts_with('-') || word == "--" {
            return None;
        }
        match word.as_str() {
            "-I" | "-J" => return iter.next().cloned(),
            "-i" | "--replace" => return Some("{}".into()),
            w if w.starts_with("--replace=") => return Some(w[10..].to_string()),
            w if (w.starts_with("-I") || w.starts_with("-J") || w.starts_with("-i"))
                && w.len() > 2 =>
            {
                return Some(w[2..].to_string())
            }
            _ => {}
        }
    }
    None
}

/// `env`'s options. Returns the index after them, or `None` when `env -S`
/// handed over a command string (recorded in `out.scripts`).
fn env_options(words: &[String], mut i: usize, out: &mut Invocation) -> Option<usize> {
    while let Some(word) = words.get(i) {
        match word.as_str() {
            "--" => return Some(i + 1),
            "-u" | "-C" | "-P" | "--unset" | "--chdir" => i += 2,
            "-S" | "--split-string" => {
                let rest = words.get(i + 1..).unwrap_or(&[]).join(" ");
                out.scripts.push(rest);
                return None;
            }
            w if w.starts_with("--split-string=") => {
                let mut rest = vec![w["--split-string=".len()..].to_string()];
                rest.extend(words.get(i + 1..).unwrap_or(&[]).iter().cloned());
                out.scripts.push(rest.join(" "));
                return None;
            }
            w if w.starts_with("-S") => {
                let mut rest = vec![w[2..].to_string()];
                rest.extend(words.get(i + 1..).unwrap_or(&[]).iter().cloned());
                out.scripts.push(rest.join(" "));
                return None;
            }
            w if w.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    Some(i)
}

#[cfg(test)]
#[path = "wrappers_tests.rs"]
mod tests;
