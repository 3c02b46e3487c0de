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
        match vars.get(name) {
            Some(value) if !name.is_empty() => {
                if out.len() + value.len() > MAX_VALUE_LEN {
                    return None;
                }
                out.push_str(value);
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
