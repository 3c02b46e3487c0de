//! The shell lexer: turns a command line into words (with quotes removed and
//! escapes applied), operators, redirections and heredoc bodies.
//!
//! It keeps what classification needs and nothing more: each word's value,
//! the command substitutions it contains (they run, so they are examined
//! too), and a "skeleton" of the line in which quoted text, comments and
//! heredoc bodies are blanked out, for the few rules that look at the shape
//! of the code itself (a fork bomb). It never fails: an unterminated quote or
//! substitution runs to the end of the input.

use super::scan;
pub(crate) use super::token::{Lexed, Op, RedirectOp, Token, Word};

/// Lexes `src`, producing at most `word_budget` words (the budget is
/// decremented; reaching zero sets `truncated`).
pub(crate) fn lex(src: &str, word_budget: &mut usize) -> Lexed {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        out: Lexed::default(),
        pending: Vec::new(),
        fd: None,
    };
    lexer.run(word_budget);
    lexer.out
}

struct PendingHeredoc {
    token: usize,
    delimiter: String,
    strip_tabs: bool,
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Lexed,
    pending: Vec<PendingHeredoc>,
    /// A file-descriptor number just read before `<` or `>`.
    fd: Option<u32>,
}

/// Bytes that end an unquoted word.
fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

impl<'a> Lexer<'a> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn op(&mut self, op: Op, len: usize) {
        self.out
            .skeleton
            .push_str(&self.src[self.pos..self.pos + len]);
        self.pos += len;
        self.out.tokens.push(Token::Op(op));
    }

    fn run(&mut self, word_budget: &mut usize) {
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            match b {
                b' ' | b'\t' | b'\r' => {
                    self.pos += 1;
                    self.out.skeleton.push(' ');
                }
                b'\\' if self.peek(1) == Some(b'\n') => self.pos += 2,
                b'\n' => {
                    self.op(Op::Newline, 1);
                    self.read_heredoc_bodies();
                }
                b'#' => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b';' => {
                    let len = if matches!(self.peek(1), Some(b';') | Some(b'&')) {
                        2
                    } else {
                        1
                    };
                    self.op(Op::Semi, len);
                }
                b'&' => match self.peek(1) {
                    Some(b'&') => self.op(Op::And, 2),
                    Some(b'>') => {
                        let append = self.peek(2) == Some(b'>');
                        self.pos += if append { 3 } else { 2 };
                        self.redirect(RedirectOp {
                            append,
                            ..RedirectOp::default()
                        });
                    }
                    _ => self.op(Op::Background, 1),
                },
                b'|' => match self.peek(1) {
                    Some(b'|') => self.op(Op::Or, 2),
                    Some(b'&') => self.op(Op::Pipe, 2),
                    _ => self.op(Op::Pipe, 1),
                },
                b'(' => self.op(Op::Open, 1),
                b')' => self.op(Op::Close, 1),
                b'<' | b'>' if self.peek(1) == Some(b'(') => self.word(word_budget),
                b'<' => self.less(word_budget),
                b'>' => {
                    let next = self.peek(1);
                    let len = if matches!(next, Some(b'>') | Some(b'|') | Some(b'&')) {
                        2
                    } else {
                        1
                    };
                    self.pos += len;
                    self.redirect(RedirectOp {
                        append: next == Some(b'>'),
                        dup: next == Some(b'&'),
                        ..RedirectOp::default()
                    });
                }
                _ => self.word(word_budget),
            }
            if *word_budget == 0 {
                self.out.truncated = true;
                return;
            }
        }
    }

    /// Pushes a redirection, with the file descriptor read before it.
    fn redirect(&mut self, mut op: RedirectOp) {
        op.fd = self.fd.take();
        self.out.skeleton.push(if op.input { '<' } else { '>' });
        self.out.tokens.push(Token::Redirect(op));
    }

    /// `<`, `<&`, `<>`, `<<`, `<<-`, `<<<`.
    fn less(&mut self, word_budget: &mut usize) {
        if self.peek(1) == Some(b'<') {
            self.fd = None;
            self.out.skeleton.push('<');
            if self.peek(2) == Some(b'<') {
                self.pos += 3;
                self.out.tokens.push(Token::HereString);
                return;
            }
            let strip_tabs = self.peek(2) == Some(b'-');
            self.pos += if strip_tabs { 3 } else { 2 };
            while matches!(self.peek(0), Some(b' ') | Some(b'\t')) {
                self.pos += 1;
            }
            let delimiter = match self.read_word() {
                Some(word) => {
                    *word_budget = word_budget.saturating_sub(1);
                    word.text
                }
                None => String::new(),
            };
            self.pending.push(PendingHeredoc {
                token: self.out.tokens.len(),
                delimiter,
                strip_tabs,
            });
            self.out.tokens.push(Token::HereDoc {
                body: String::new(),
            });
            return;
        }
        let next = self.peek(1);
        self.pos += if matches!(next, Some(b'&') | Some(b'>')) {
            2
        } else {
            1
        };
        self.redirect(RedirectOp {
            input: next != Some(b'>'),
            dup: next == Some(b'&'),
            ..RedirectOp::default()
        });
    }

    /// After a newline: the bodies of the heredocs opened on that line.
    fn read_heredoc_bodies(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.bytes.len() {
                let rest = &self.src[self.pos..];
                let (line, advance) = match rest.find('\n') {
                    Some(eol) => (&rest[..eol], eol + 1),
                    None => (rest, rest.len()),
                };
                self.pos += advance;
                let mut check = line.strip_suffix('\r').unwrap_or(line);
                if pending.strip_tabs {
                    check = check.trim_start_matches('\t');
                }
                if check == pending.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if let Some(Token::HereDoc { body: slot }) = self.out.tokens.get_mut(pending.token) {
                *slot = body;
            }
        }
    }

    fn word(&mut self, word_budget: &mut usize) {
        let start = self.pos;
        let Some(word) = self.read_word() else {
            // Nothing consumed: skip one character so the loop advances.
            let step = self.src[start..].chars().next().map_or(1, char::len_utf8);
            self.pos = start + step;
            return;
        };
        *word_budget = word_budget.saturating_sub(1);
        // `2>`: a file-descriptor number glued to a redirection.
        let is_fd =
            !word.quoted && !word.text.is_empty() && word.text.bytes().all(|b| b.is_ascii_digit());
        if is_fd && matches!(self.peek(0), Some(b'<') | Some(b'>')) {
            self.fd = word.text.parse().ok();
            return;
        }
        self.fd = None;
        self.out.tokens.push(Token::Word(word));
    }

    /// Reads one word at `pos`. Returns `None` if no byte was consumed.
    fn read_word(&mut self) -> Option<Word> {
        let start = self.pos;
        let mut text = String::new();
        let mut quoted = false;
        let mut subs = Vec::new();
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            let at_start = self.pos == start;
            match b {
                b'<' | b'>' if at_start && self.peek(1) == Some(b'(') => {
                    let (end, next) = scan::closing_paren(self.src, self.pos + 2);
                    subs.push(self.src[self.pos + 2..end].to_string());
                    text.push_str(&self.src[self.pos..next]);
                    self.out.skeleton.push_str("<(_)");
                    self.pos = next;
                }
                _ if is_meta(b) => break,
                b'\\' => {
                    quoted = true;
                    self.pos += 1;
                    if let Some(c) = self.src[self.pos..].chars().next() {
                        self.pos += c.len_utf8();
                        if c != '\n' {
                            text.push(c);
                        }
                    }
                    self.out.skeleton.push('_');
                }
                b'\'' => {
                    quoted = true;
                    let rest = &self.src[self.pos + 1..];
                    let end = rest.find('\'').unwrap_or(rest.len());
                    text.push_str(&rest[..end]);
                    self.pos = (self.pos + 1 + end + 1).min(self.bytes.len());
                    self.out.skeleton.push_str("'_'");
                }
                b'"' => {
                    quoted = true;
                    self.pos += 1;
                    self.double_quoted(&mut text, &mut subs);
                    self.out.skeleton.push_str("\"_\"");
                }
                b'$' => self.dollar(&mut text, &mut subs, &mut quoted, true),
                b'`' => {
                    let (end, next) = scan::closing_backtick(self.src, self.pos + 1);
                    subs.push(scan::unescape_backtick(&self.src[self.pos + 1..end]));
                    text.push_str(&self.src[self.pos..next]);
                    self.out.skeleton.push_str("`_`");
                    self.pos = next;
                }
                _ => {
                    let c = self.src[self.pos..].chars().next().unwrap_or(' ');
                    text.push(c);
                    self.out.skeleton.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if self.pos == start {
            return None;
        }
        Some(Word {
            text,
            start,
            end: self.pos,
            quoted,
            subs,
        })
    }

    /// Inside `"…"`, from just after the opening quote.
    fn double_quoted(&mut self, text: &mut String, subs: &mut Vec<String>) {
        let mut ignored = true;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => {
                    let next = self.src[self.pos + 1..].chars().next();
                    match next {
                        Some(c @ ('$' | '`' | '"' | '\\')) => {
                            text.push(c);
                            self.pos += 2;
                        }
                        Some('\n') => self.pos += 2,
                        _ => {
                            text.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                b'$' => self.dollar(text, subs, &mut ignored, false),
                b'`' => {
                    let (end, next) = scan::closing_backtick(self.src, self.pos + 1);
                    subs.push(scan::unescape_backtick(&self.src[self.pos + 1..end]));
                    text.push_str(&self.src[self.pos..next]);
                    self.pos = next;
                }
                _ => {
                    let c = self.src[self.pos..].chars().next().unwrap_or(' ');
                    text.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// `$(…)`, `${…}`, `$'…'`, `$"…"` or a plain `$`.
    fn dollar(
        &mut self,
        text: &mut String,
        subs: &mut Vec<String>,
        quoted: &mut bool,
        unquoted: bool,
    ) {
        match self.peek(1) {
            Some(b'(') => {
                let (end, next) = scan::closing_paren(self.src, self.pos + 2);
                subs.push(self.src[self.pos + 2..end].to_string());
                text.push_str(&self.src[self.pos..next]);
                if unquoted {
                    self.out.skeleton.push_str("$(_)");
                }
                self.pos = next;
            }
            Some(b'{') => {
                let next = scan::closing_brace(self.src, self.pos + 2);
                text.push_str(&self.src[self.pos..next]);
                if unquoted {
                    self.out.skeleton.push_str("${_}");
                }
                self.pos = next;
            }
            Some(b'\'') if unquoted => {
                *quoted = true;
                let (decoded, next) = scan::ansi_c(self.src, self.pos + 2);
                text.push_str(&decoded);
                self.out.skeleton.push_str("'_'");
                self.pos = next;
            }
            Some(b'"') if unquoted => {
                *quoted = true;
                self.pos += 2;
                self.double_quoted(text, subs);
                self.out.skeleton.push_str("\"_\"");
            }
            _ => {
                text.push('$');
                if unquoted {
                    self.out.skeleton.push('$');
                }
                self.pos += 1;
            }
        }
    }
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
