//! Guard's command line in an agent's settings: building it (the binary's
//! path quoted for `sh`) and recognising it again, even after the binary
//! moved, so that a re-install replaces the old entry instead of adding one.

/// Recognises guard's command lines: a word whose file name is one of
/// guard's binary names, followed by the word `hook`.
#[derive(Debug, Clone)]
pub struct GuardCommand {
    names: Vec<String>,
}

impl GuardCommand {
    /// Recognises `guard` and any of `extra_names` (e.g. the running binary's name).
    pub fn new(extra_names: &[&str]) -> GuardCommand {
        let mut names = vec!["guard".to_string()];
        names.extend(
            extra_names
                .iter()
                .filter(|n| !n.is_empty())
                .map(|n| n.to_string()),
        );
        GuardCommand { names }
    }

    /// Whether this command line runs guard's hook: after any `VAR=value`
    /// words and `env`/`exec`/`command`/`nice`/`nohup`, guard's binary, then
    /// `hook` (a `--config PATH` may come between).
    pub fn matches(&self, command: &str) -> bool {
        let words = program_words(command);
        let Some((program, rest)) = words.split_first() else {
            return false;
        };
        let base = program.rsplit('/').next().unwrap_or(program);
        if !self.names.iter().any(|n| n == base) {
            return false;
        }
        // Global options may come before the subcommand: `guard --config X hook …`.
        let mut rest = rest.iter();
        while let Some(word) = rest.next() {
            match word.as_str() {
                "hook" => return true,
                "--config" => {
                    rest.next();
                }
                w if w.starts_with("--config=") => {}
                _ => return false,
            }
        }
        false
    }

    /// The executable of a command line.
    pub fn executable(command: &str) -> Option<String> {
        program_words(command).into_iter().next()
    }
}

/// The words of a command line from its program on (prefixes skipped).
fn program_words(command: &str) -> Vec<String> {
    let words = shell_words(command);
    let start = words
        .iter()
        .position(|w| {
            !(w.contains('=') || ["env", "exec", "command", "nice", "nohup"].contains(&w.as_str()))
        })
        .unwrap_or(words.len());
    words[start..].to_vec()
}

/// Splits a command line into words the way `sh` would for plain words and
/// single/double quotes (no expansion).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    current.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => current.extend(chars.next()),
                        _ => current.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                current.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// Quotes a path for `sh` when it holds anything but plain characters.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_guard_commands_only() {
        let g = GuardCommand::new(&["guard-dev"]);
        assert!(g.matches("/usr/local/bin/guard hook claude-code"));
        assert!(g.matches("'/home/a b/bin/guard' hook codex"));
        assert!(g.matches("\"/x/guard-dev\" hook gemini"));
        assert!(!g.matches("/usr/bin/guard check"));
        assert!(!g.matches("python3 hook_probe.py log"));
        assert!(!g.matches("/usr/bin/safeguard hook claude"));
        assert!(!g.matches("echo guard hook"));
        assert!(g.matches("GUARD_CONFIG=/x.yaml exec /bin/guard hook codex"));
        assert!(g.matches("/bin/guard --config '/my conf.yaml' hook codex"));
        assert!(!g.matches("/bin/guard --config hook"));
        assert_eq!(
            GuardCommand::executable("A=1 env /bin/guard hook x").as_deref(),
            Some("/bin/guard")
        );
    }

    #[test]
    fn quoting_round_trips_through_the_word_splitter() {
        for path in ["/usr/bin/guard", "/home/a b/guard", "/it's/guard"] {
            let line = format!("{} hook claude-code", shell_quote(path));
            assert_eq!(shell_words(&line), [path, "hook", "claude-code"]);
        }
        assert_eq!(shell_quote("/usr/bin/guard"), "/usr/bin/guard");
    }
}
