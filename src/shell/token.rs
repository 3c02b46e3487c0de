//! The tokens the shell lexer produces: words (with their substitutions),
//! control operators, redirections and heredocs, and the result of lexing
//! one script. Moved out of `lexer.rs` to keep it short; `lexer` re-exports
//! them.

/// A word after quote removal, with the substitutions found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The value of the word (quotes removed, escapes applied; `$VAR`,
    /// `${…}` and `$(…)` kept as written).
    pub text: String,
    /// Byte range of the word in the source.
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
    /// Any part was quoted or escaped.
    pub quoted: bool,
    /// Command and process substitutions inside the word.
    pub subs: Vec<String>,
}

/// Control operators that separate commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;` or `;;`
    Semi,
    /// `|` or `|&`
    Pipe,
    /// `&`
    Background,
    /// A newline.
    Newline,
    /// `(`
    Open,
    /// `)`
    Close,
}

/// What a redirection operator does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RedirectOp {
    /// `<` or `<&` (reads); `<>` reads and writes, and counts as output.
    pub input: bool,
    /// `>>` or `&>>`.
    pub append: bool,
    /// `>&` or `<&`: the target may be a file descriptor (`>&2`).
    pub dup: bool,
    /// The file descriptor written before it (`2>`), if any.
    pub fd: Option<u32>,
}

/// One lexical token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A word.
    Word(Word),
    /// A control operator.
    Op(Op),
    /// A redirection; the next word is its target.
    Redirect(RedirectOp),
    /// `<<<`: the next word is fed to the command's standard input.
    HereString,
    /// `<<DELIM`: the body, collected after the end of the line.
    HereDoc { body: String },
}

/// The result of lexing one script.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    /// The tokens, in order.
    pub tokens: Vec<Token>,
    /// The code with quoted text, comments and heredoc bodies blanked.
    pub skeleton: String,
    /// Lexing stopped at the word budget.
    pub truncated: bool,
}
