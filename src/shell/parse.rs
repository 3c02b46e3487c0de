//! From tokens to pipelines of simple commands.
//!
//! Not a full shell grammar: `&&`, `||`, `;`, `&` and newlines end a
//! pipeline, `|` joins commands into one, parentheses and braces only group
//! (a subshell's commands are examined like any others), reserved words such
//! as `if`/`then`/`do` are skipped where a command name would be, and a
//! function definition `name() { … }` contributes its body. Redirections and
//! heredoc bodies are attached to the command they belong to.

use super::lexer::{Op, RedirectOp, Token, Word};

/// A redirection of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// What the operator does (`<`, `>`, `>>`, `2>`, `>&`...).
    pub op: RedirectOp,
    /// The target word.
    pub target: Word,
}

impl Redirect {
    /// The redirection as rules see it: `<file`, `>file`, `>>file`, or
    /// `>&2` for a duplicated descriptor.
    pub fn shown(&self) -> String {
        let target = &self.target.text;
        let op = match self.op {
            RedirectOp { input: true, .. } => "<",
            RedirectOp { dup: true, .. } if is_descriptor(target) => ">&",
            RedirectOp { append: true, .. } => ">>",
            _ => ">",
        };
        format!("{op}{target}")
    }

    /// Whether it sends the command's standard output to a file (so that
    /// the output does not reach whoever runs it).
    pub fn stdout_to_file(&self) -> bool {
        let op = self.op;
        !op.input
            && matches!(op.fd, None | Some(1))
            && (!op.dup || !is_descriptor(&self.target.text))
            && !matches!(
                self.target.text.as_str(),
                "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/fd/1" | "/dev/fd/2"
            )
    }
}

fn is_descriptor(target: &str) -> bool {
    target == "-" || (!target.is_empty() && target.bytes().all(|b| b.is_ascii_digit()))
}

/// One simple command: its words, redirections and standard-input data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The words, command name first (reserved words removed).
    pub words: Vec<Word>,
    /// `<`, `>`, `>>`... with their targets.
    pub redirects: Vec<Redirect>,
    /// Here-string words (`<<< word`).
    pub here_strings: Vec<Word>,
    /// Heredoc bodies.
    pub heredocs: Vec<String>,
}

impl SimpleCommand {
    fn is_empty(&self) -> bool {
        self.words.is_empty()
            && self.redirects.is_empty()
            && self.here_strings.is_empty()
            && self.heredocs.is_empty()
    }

    /// The text fed to the command's standard input by heredocs and
    /// here-strings.
    pub fn stdin_texts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.heredocs.iter().map(String::as_str).collect();
        out.extend(self.here_strings.iter().map(|w| w.text.as_str()));
        out
    }

    /// The command as written in `src` (from its first to its last word).
    pub fn source_text(&self, src: &str) -> String {
        let mut start = usize::MAX;
        let mut end = 0;
        let all = self
            .words
            .iter()
            .chain(self.redirects.iter().map(|r| &r.target))
            .chain(self.here_strings.iter());
        for word in all {
            start = start.min(word.start);
            end = end.max(word.end);
        }
        if start >= end {
            return String::new();
        }
        src.get(start..end).unwrap_or("").to_string()
    }
}

/// Commands joined by `|`.
pub(crate) type Pipeline = Vec<SimpleCommand>;

/// Words that are shell syntax, not commands, at the start of a command.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case", "esac",
    "in", "!", "{", "}", "function", "select", "coproc", "[[", "]]",
];

enum Expect {
    Word,
    Redirect(RedirectOp),
    HereString,
}

/// Groups tokens into pipelines.
pub(crate) fn parse(tokens: Vec<Token>) -> Vec<Pipeline> {
    let mut pipelines = Vec::new();
    let mut pipeline: Pipeline = Vec::new();
    let mut command = SimpleCommand::default();
    let mut expect = Expect::Word;
    for token in tokens {
        match token {
            Token::Word(word) => match std::mem::replace(&mut expect, Expect::Word) {
                Expect::Redirect(op) => command.redirects.push(Redirect { op, target: word }),
                Expect::HereString => command.here_strings.push(word),
                Expect::Word => {
                    if command.words.is_empty()
                        && !word.quoted
                        && RESERVED.contains(&word.text.as_str())
                    {
                        continue;
                    }
                    command.words.push(word);
                }
            },
            Token::Redirect(op) => expect = Expect::Redirect(op),
            Token::HereString => expect = Expect::HereString,
            Token::HereDoc { body } => command.heredocs.push(body),
            Token::Op(op) => {
                expect = Expect::Word;
                match op {
                    Op::Pipe => end_command(&mut command, &mut pipeline),
                    Op::Open => {
                        // `name()`: a function definition, the name is no command.
                        if command.words.len() == 1 && command.redirects.is_empty() {
                            command.words.clear();
                        }
                        end_command(&mut command, &mut pipeline);
                        end_pipeline(&mut pipeline, &mut pipelines);
                    }
                    // A subshell's last command may feed a pipe after `)`.
                    Op::Close => end_command(&mut command, &mut pipeline),
                    Op::And | Op::Or | Op::Semi | Op::Background | Op::Newline => {
                        end_command(&mut command, &mut pipeline);
                        end_pipeline(&mut pipeline, &mut pipelines);
                    }
                }
            }
        }
    }
    end_command(&mut command, &mut pipeline);
    end_pipeline(&mut pipeline, &mut pipelines);
    pipelines
}

fn end_command(command: &mut SimpleCommand, pipeline: &mut Pipeline) {
    if !command.is_empty() {
        pipeline.push(std::mem::take(command));
    }
}

fn end_pipeline(pipeline: &mut Pipeline, pipelines: &mut Vec<Pipeline>) {
    if !pipeline.is_empty() {
        pipelines.push(std::mem::take(pipeline));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::lexer::lex;

    fn shape(src: &str) -> Vec<Vec<Vec<String>>> {
        let mut budget = 1000;
        parse(lex(src, &mut budget).tokens)
            .into_iter()
            .map(|p| {
                p.into_iter()
                    .map(|c| c.words.into_iter().map(|w| w.text).collect())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn separators_and_pipes() {
        let got = shape("a 1 && b | c; d || e & f\ng");
        let want: Vec<Vec<Vec<&str>>> = vec![
            vec![vec!["a", "1"]],
            vec![vec!["b"], vec!["c"]],
            vec![vec!["d"]],
            vec![vec!["e"]],
            vec![vec!["f"]],
            vec![vec!["g"]],
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn subshell_braces_and_reserved_words() {
        assert_eq!(
            shape("(cd x && rm y)"),
            vec![vec![vec!["cd", "x"]], vec![vec!["rm", "y"]]]
        );
        assert_eq!(shape("{ rm y; }"), vec![vec![vec!["rm", "y"]]]);
        assert_eq!(
            shape("if true; then rm y; fi"),
            vec![vec![vec!["true"]], vec![vec!["rm", "y"]]]
        );
        assert_eq!(
            shape("(curl x) | sh"),
            vec![vec![vec!["curl", "x"], vec!["sh"]]]
        );
    }

    #[test]
    fn redirects_and_heredocs_attach() {
        let mut budget = 100;
        let pipelines = parse(
            lex(
                "cat <<EOF > out.txt 2>&1\nrm -rf /\nEOF\nls < in",
                &mut budget,
            )
            .tokens,
        );
        assert_eq!(pipelines.len(), 2);
        let cat = &pipelines[0][0];
        assert_eq!(cat.words.len(), 1);
        assert_eq!(cat.heredocs, vec!["rm -rf /\n".to_string()]);
        assert_eq!(cat.redirects.len(), 2);
        assert!(pipelines[1][0].redirects[0].op.input);
        assert_eq!(cat.redirects[0].shown(), ">out.txt");
        assert!(cat.redirects[0].stdout_to_file());
        assert_eq!(cat.redirects[1].shown(), ">&1");
        assert!(!cat.redirects[1].stdout_to_file());
    }

    #[test]
    fn function_definition_keeps_the_body() {
        assert_eq!(shape("f() { rm x; }"), vec![vec![vec!["rm", "x"]]]);
    }
}
