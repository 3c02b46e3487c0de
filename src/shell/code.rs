//! Shell commands inside interpreter code: the strings that `system(…)`,
//! `os.execute(…)`, `subprocess.run([…])`, `execSync(…)`, AppleScript's
//! `do shell script "…"`, PowerShell's `iex "…"`, Ruby's `%x(…)` or
//! backticks hand to a shell. Found by regex, not by parsing each language:
//! what is found is examined as a script; what is built at run time is left
//! to the `inline-code-*` rules.

use regex::Regex;
use std::sync::OnceLock;

fn call_regex() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            // system("…"), os.execute('…'), subprocess.run([…]), run(`…`)
            r#"(?:\b(?:system|system2|exec|execute|execSync|execFileSync|spawn|spawnSync|popen|run|call|check_call|check_output|Popen|getoutput|getstatusoutput|shell_exec|passthru|proc_open|sh)\s*\(\s*"#,
            // AppleScript's `do shell script "…"`, PowerShell's `iex "…"`
            r#"|\bdo shell script\s+|\b(?:Invoke-Expression|iex)\s+)"#,
            r#"(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)"#,
            // Ruby's %x(…), Perl's qx{…}
            r#"|(?:%x|\bqx)[({]([^)}]*)[)}]"#
        ))
        .ok()
    })
    .as_ref()
}

fn quoted_regex() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`]*)`"#).ok())
        .as_ref()
}

/// Shell command strings passed to `system(...)`-like calls in interpreter
/// code (a list literal is joined with spaces), plus standalone backtick
/// strings for languages where backticks run a command.
pub(crate) fn shell_strings_in_code(code: &str, backticks_run: bool) -> Vec<String> {
    let (Some(call), Some(quoted)) = (call_regex(), quoted_regex()) else {
        return Vec::new();
    };
    let strings_of = |text: &str| -> Vec<String> {
        quoted
            .captures_iter(text)
            .filter_map(|c| c.get(1).or(c.get(2)).or(c.get(3)))
            .map(|m| m.as_str().replace("\\'", "'").replace("\\\"", "\""))
            .collect()
    };
    let mut out = Vec::new();
    for caps in call.captures_iter(code) {
        if let Some(raw) = caps.get(2) {
            out.push(raw.as_str().to_string());
            continue;
        }
        let Some(arg) = caps.get(1) else { continue };
        let parts = strings_of(arg.as_str());
        if arg.as_str().starts_with('[') {
            out.push(parts.join(" "));
        } else {
            out.extend(parts);
        }
    }
    if backticks_run {
        out.extend(
            quoted
                .captures_iter(code)
                .filter_map(|c| c.get(3))
                .map(|m| m.as_str().to_string()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_strings_in_code() {
        let code = "import subprocess; subprocess.run(['git', 'reset', '--hard']); os.system(\"rm -rf /\")";
        assert_eq!(
            shell_strings_in_code(code, false),
            vec!["git reset --hard", "rm -rf /"]
        );
        assert_eq!(
            shell_strings_in_code("x = `rm -rf ~`", true),
            vec!["rm -rf ~"]
        );
        assert!(shell_strings_in_code("print('rm -rf /')", false).is_empty());
        assert_eq!(
            shell_strings_in_code("do shell script \"rm -rf ~\"", false),
            vec!["rm -rf ~"]
        );
        assert_eq!(
            shell_strings_in_code("%x(git clean -fdx)", false),
            vec!["git clean -fdx"]
        );
        assert_eq!(
            shell_strings_in_code("os.execute('rm -rf /')", false),
            vec!["rm -rf /"]
        );
    }
}
