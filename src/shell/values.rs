//! Values the walker can know without running anything: a word that is
//! only `$(echo …)`, a `$NAME` assigned earlier in the same command line,
//! and the directory a `cd` moves to.
//!
//! This closes the simplest indirections (`a=rm; $a -rf /`,
//! `$(echo rm) -rf /`, `cd / && rm -rf *`) without evaluating the shell:
//! anything not plainly visible stays as written.

use super::expand::visible_output;
use super::lexer::lex;
use super::parse::{parse, SimpleCommand};
use super::wrappers::{resolve, Invocation};
use super::ShellContext;
use std::collections::HashMap;
use std::path::PathBuf;

/// Words a static substitution may hold before it is left as written.
const STATIC_WORDS: usize = 64;
/// Longest expansion kept: a longer one (`a=$a$a` repeated) stays as written.
pub(crate) const MAX_VALUE_LEN: usize = 4096;

/// The texts of a command's words, with static substitutions and known
/// variables replaced.
pub(crate) fn word_texts(command: &SimpleCommand, vars: &HashMap<String, String>) -> Vec<String> {
    command
        .words
        .iter()
        .map(|word| {
            let whole_sub = word.subs.len() == 1
                && ((word.text.starts_with("$(") && word.text.ends_with(')'))
                    || (word.text.starts_with('`') && word.text.ends_with('`')));
            let mut text = match whole_sub.then(|| static_output(&word.subs[0])).flatten() {
                Some(value) => value,
                None => word.text.clone(),
            };
            if text.contains('$') && !vars.is_empty() {
                if let Some(replaced) = replace_vars(&text, vars) {
                    text = replaced;
                }
            }
            if !word.quoted && !vars.contains_key("IFS") && text.contains("IFS") {
                // Unquoted, the default IFS splits words: `rm${IFS}-rf${IFS}/`.
                text = text.replace("${IFS}", " ").replace("$IFS", " ");
            }
            text
        })
        .collect()
}

/// The output of a substitution that is a single `echo`/`printf`.
fn static_output(script: &str) -> Option<String> {
    let mut budget = STATIC_WORDS;
    let lexed = lex(script, &mut budget);
    if lexed.truncated {
        return None;
    }
    let pipelines = parse(lexed.tokens);
    let [pipeline] = pipelines.as_slice() else {
        return None;
    };
    let [command] = pipeline.as_slice() else {
        return None;
    };
    if command.words.iter().any(|w| !w.subs.is_empty()) {
        return None;
    }
    let inv = resolve(
        &command
            .words
            .iter()
            .map(|w| w.text.clone())
            .collect::<Vec<_>>(),
    );
    let stdin: Vec<String> = command
        .stdin_texts()
        .into_iter()
        .map(str::to_string)
        .collect();
    visible_output(&inv, &stdin).map(|s| s.trim_end_matches('\n').to_string())
}

/// Replaces `$NAME` and `${NAME}` for the known names (`None` when the
/// result would exceed [`MAX_VALUE_LEN`]).
fn replace_vars(text: &str, vars: &HashMap<String, String>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let (name, consumed) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        // `${name:offset}` and `${name:offset:length}` of a known name.
        let (name, value) = match name.split_once(':') {
            Some((base, range)) if vars.contains_key(base) => (base, substring(&vars[base], range)),
            _ => (name, vars.get(name).cloned()),
        };
        match value {
            Some(value) if !name.is_empty() => {
                if out.len() + value.len() > MAX_VALUE_LEN {
                    return None;
                }
                out.push_str(&value);
                rest = &after[consumed..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// `${name:offset:length}`: the characters of `value` in that range
/// (`None` for anything else after the colon, such as `:-default`).
fn substring(value: &str, range: &str) -> Option<String> {
    let (offset, length) = match range.split_once(':') {
        Some((o, l)) => (o, Some(l)),
        None => (range, None),
    };
    let offset = offset.trim();
    if offset.is_empty() || offset.starts_with('-') {
        return None;
    }
    let chars: Vec<char> = value.chars().collect();
    let parse = |s: &str| s.trim().parse::<i64>().ok();
    let start = usize::try_from(parse(offset)?).ok()?.min(chars.len());
    let end = match length.map(parse) {
        None => chars.len(),
        Some(None) => return None,
        Some(Some(l)) if l < 0 => chars.len().saturating_sub(l.unsigned_abs() as usize),
        Some(Some(l)) => start.saturating_add(l as usize).min(chars.len()),
    };
    Some(chars[start..end.max(start)].iter().collect())
}

/// Words glued by `${IFS}` that the shell splits: the command must be
/// re-read from its expanded words.
pub(crate) fn ifs_split(command: &SimpleCommand, texts: &[String]) -> bool {
    command.words.iter().zip(texts).any(|(word, text)| {
        word.text.contains("IFS") && !word.text.contains(' ') && text.contains(' ')
    })
}

/// With `IFS` assigned earlier in the command line (`IFS=_; c=rm_-rf_/;
/// $c`), the unquoted words holding an expansion are split on its
/// characters: the command to re-read, or `None` when nothing splits.
pub(crate) fn custom_ifs_split(
    command: &SimpleCommand,
    texts: &[String],
    vars: &HashMap<String, String>,
) -> Option<String> {
    let separators: Vec<char> = vars
        .get("IFS")?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if separators.is_empty() {
        return None;
    }
    let mut split = false;
    let words: Vec<String> = command
        .words
        .iter()
        .zip(texts)
        .map(|(word, text)| {
            if !word.quoted && word.text.contains('$') && text.contains(&separators[..]) {
                split = true;
                text.split(&separators[..])
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                text.clone()
            }
        })
        .collect();
    split.then(|| words.join(" "))
}

/// An unquoted `$NAME` operand whose value holds blanks is split into
/// several words by the shell (`c='git reset --hard'; git ${c:4}`): the
/// command to re-read, each word quoted unless plainly a word or a path
/// (so that a `;` inside a value stays text), or `None`.
pub(crate) fn split_fields(command: &SimpleCommand, texts: &[String]) -> Option<String> {
    let splits = |word: &super::lexer::Word, text: &String| {
        !word.quoted && word.text.contains('$') && text.contains([' ', '\t', '\n'])
    };
    if !command.words.iter().zip(texts).any(|(w, t)| splits(w, t)) {
        return None;
    }
    let quote = |field: &str| {
        if !field.is_empty()
            && field
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./~*=:@%+,-{}".contains(c))
        {
            field.to_string()
        } else {
            format!("'{}'", field.replace('\'', "'\\''"))
        }
    };
    let mut out = Vec::new();
    for (word, text) in command.words.iter().zip(texts) {
        if splits(word, text) {
            out.extend(text.split_whitespace().map(quote));
        } else {
            out.push(quote(text));
        }
    }
    Some(out.join(" "))
}

/// Lines of input `xargs` reads at most, one command each with `{}`.
const INPUT_LINES: usize = 16;

/// The argument lists `xargs` (or `parallel`) runs when its input is
/// visible: with a `{}` placeholder, one per input line with the line in
/// its place; without, the input appended, split into words (`xargs`) or
/// one argument per line (`parallel`, `per_line`).
pub(crate) fn fill_from_input(args: &[String], input: &str, per_line: bool) -> Vec<Vec<String>> {
    if args.iter().any(|a| a.contains("{}")) {
        return input
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(INPUT_LINES)
            .map(|line| args.iter().map(|a| a.replace("{}", line)).collect())
            .collect();
    }
    if per_line {
        return input
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(INPUT_LINES)
            .map(|line| {
                let mut all = args.to_vec();
                all.push(line.to_string());
                all
            })
            .collect();
    }
    let mut all = args.to_vec();
    all.extend(input.split_whitespace().map(str::to_string));
    vec![all]
}

/// The arguments the rules see: `NAME=value` assignments in front of the
/// command are read into its `$NAME` operands (`TMPDIR=/Users rm -rf
/// $TMPDIR/x` is judged on `/Users/x`, the reading that could hurt), and
/// `find`'s `-exec … ;` commands (examined on their own) are cut down to
/// their program name (`-exec rm`), so that their options are not find's.
pub(crate) fn own_args(inv: &Invocation) -> Vec<String> {
    let mut args = inv.args.clone();
    if !inv.assignments.is_empty() && args.iter().any(|a| a.contains('$')) {
        let vars: HashMap<String, String> = inv
            .assignments
            .iter()
            .filter_map(|a| a.split_once('='))
            .map(|(n, v)| (n.trim_end_matches('+').to_string(), v.to_string()))
            .collect();
        for arg in &mut args {
            if let Some(replaced) = replace_vars(arg, &vars) {
                *arg = replaced;
            }
        }
    }
    if inv.program == "find" {
        let mut kept = Vec::with_capacity(args.len());
        // Words left of the exec command: its program is kept, the rest not.
        let mut in_exec: Option<bool> = None;
        for arg in args {
            match in_exec {
                Some(program_seen) => {
                    if arg == ";" || arg == "+" {
                        in_exec = None;
                    } else if !program_seen {
                        kept.push(arg);
                        in_exec = Some(true);
                    }
                }
                None => {
                    if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                        in_exec = Some(false);
                    }
                    kept.push(arg);
                }
            }
        }
        return kept;
    }
    args
}

/// The program word expanded to several words (`x='rm -rf ~'; $x`): the
/// command must be re-read as a script.
pub(crate) fn split_program(inv: &Invocation) -> bool {
    inv.program.contains([' ', '\t', '\n'])
}

/// The directory `cd`/`pushd` moves to, or `None` when it cannot be known.
pub(crate) fn cd_target(inv: &Invocation, ctx: &ShellContext) -> Option<PathBuf> {
    let target = inv
        .args
        .iter()
        .find(|a| !a.starts_with('-') || a.as_str() == "-");
    let Some(target) = target else {
        return ctx.home.clone();
    };
    if target == "-" || target.contains('`') {
        return None;
    }
    for home_word in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = target.strip_prefix(home_word) {
            if rest.is_empty() || rest.starts_with('/') {
                return ctx
                    .home
                    .as_ref()
                    .map(|h| h.join(rest.trim_start_matches('/')));
            }
        }
    }
    if target.contains('$') {
        return None;
    }
    if target.starts_with('/') {
        return Some(PathBuf::from(target));
    }
    ctx.cwd.as_ref().map(|cwd| cwd.join(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_replaced() {
        let vars: HashMap<String, String> = [
            ("a".to_string(), "rm".to_string()),
            ("D".to_string(), "/".to_string()),
        ]
        .into();
        assert_eq!(replace_vars("$a", &vars).as_deref(), Some("rm"));
        assert_eq!(replace_vars("${D}x$D", &vars).as_deref(), Some("/x/"));
        assert_eq!(replace_vars("$other $", &vars).as_deref(), Some("$other $"));
        let cmd: HashMap<String, String> = [("c".to_string(), "curl http://x".to_string())].into();
        assert_eq!(replace_vars("${c:0:4}", &cmd).as_deref(), Some("curl"));
        assert_eq!(replace_vars("${c:5}", &cmd).as_deref(), Some("http://x"));
        assert_eq!(replace_vars("${c:-d}", &cmd).as_deref(), Some("${c:-d}"));
        let big: HashMap<String, String> = [("a".to_string(), "x".repeat(3000))].into();
        assert_eq!(replace_vars("$a$a", &big), None);
    }

    #[test]
    fn static_substitutions() {
        assert_eq!(static_output("echo rm"), Some("rm".into()));
        assert_eq!(static_output("printf 'rm -rf ~'"), Some("rm -rf ~".into()));
        assert_eq!(static_output("date"), None);
        assert_eq!(static_output("echo $(date)"), None);
    }

    #[test]
    fn cd_targets() {
        let ctx = ShellContext {
            cwd: Some("/r".into()),
            repo_root: None,
            home: Some("/h".into()),
        };
        let cd = |arg: &[&str]| {
            cd_target(
                &Invocation {
                    program: "cd".into(),
                    args: arg.iter().map(|s| s.to_string()).collect(),
                    ..Invocation::default()
                },
                &ctx,
            )
        };
        assert_eq!(cd(&["/tmp"]), Some("/tmp".into()));
        assert_eq!(cd(&["sub"]), Some("/r/sub".into()));
        assert_eq!(cd(&[]), Some("/h".into()));
        assert_eq!(cd(&["~/x"]), Some("/h/x".into()));
        assert_eq!(cd(&["$DIR"]), None);
        assert_eq!(cd(&["-"]), None);
    }
}
