//! Low-level scanners used by the lexer: finding the end of `$( … )`,
//! backticks and `${ … }`, and decoding `$'…'` strings.
//!
//! They work on byte offsets of ASCII delimiters in a `&str` (multi-byte
//! UTF-8 never contains ASCII bytes, so byte scanning is safe), always
//! terminate, and treat an unterminated construct as running to the end of
//! the input: a truncated command is still examined on what is there.

/// Given `src` and the offset just after an opening `(`, returns
/// `(inner_end, next)`: the offset of the matching `)` and the offset after
/// it. Quotes, escapes, backticks and nested parentheses are respected.
pub(crate) fn closing_paren(src: &str, start: usize) -> (usize, usize) {
    let bytes = src.as_bytes();
    let mut depth = 1usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => i = skip_single(bytes, i + 1),
            b'"' => i = skip_double(bytes, i + 1),
            b'`' => i = closing_backtick(src, i + 1).1,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return (i, i + 1);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (bytes.len(), bytes.len())
}

/// Given the offset just after an opening backtick, returns
/// `(inner_end, next)` for the closing backtick (escapes respected).
pub(crate) fn closing_backtick(src: &str, start: usize) -> (usize, usize) {
    let bytes = src.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => return (i, i + 1),
            _ => i += 1,
        }
    }
    (bytes.len(), bytes.len())
}

/// Given the offset just after `${`, returns the offset after the matching
/// `}` (nested braces and quotes respected).
pub(crate) fn closing_brace(src: &str, start: usize) -> usize {
    let bytes = src.as_bytes();
    let mut depth = 1usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => i = skip_single(bytes, i + 1),
            b'"' => i = skip_double(bytes, i + 1),
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Offset after the closing `'` of a single-quoted string starting at `i`.
fn skip_single(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// Offset after the closing `"` of a double-quoted string starting at `i`.
fn skip_double(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Removes the backslash escapes that backticks give meaning to
/// (`` \` ``, `\\`, `\$`) from the inside of a backtick substitution.
pub(crate) fn unescape_backtick(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if matches!(next, '`' | '\\' | '$') {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Decodes the body of a `$'…'` string starting at `start` (just after the
/// opening quote). Returns the decoded text and the offset after the closing
/// quote.
pub(crate) fn ansi_c(src: &str, start: usize) -> (String, usize) {
    decode(src, start, true)
}

/// Applies `printf`'s backslash escapes (`\x72`, `\155`, `\n`…) to a
/// whole text.
pub(crate) fn unescape(text: &str) -> String {
    decode(text, 0, false).0
}

fn decode(src: &str, start: usize, to_quote: bool) -> (String, usize) {
    let mut out = String::new();
    let rest = src.get(start..).unwrap_or("");
    let mut chars = rest.char_indices();
    while let Some((off, c)) = chars.next() {
        match c {
            '\'' if to_quote => return (out, start + off + 1),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 'a')) => out.push('\x07'),
                Some((_, 'b')) => out.push('\x08'),
                Some((_, 'e')) | Some((_, 'E')) => out.push('\x1b'),
                Some((_, 'x')) => {
                    let mut value = 0u32;
                    let mut clone = chars.clone();
                    let mut used = 0;
                    while used < 2 {
                        match clone.next() {
                            Some((_, d)) if d.is_ascii_hexdigit() => {
                                value = value * 16 + d.to_digit(16).unwrap_or(0);
                                used += 1;
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    if let Some(ch) = char::from_u32(value) {
                        if used > 0 {
                            out.push(ch);
                        }
                    }
                }
                Some((_, d)) if d.is_digit(8) => {
                    let mut value = d.to_digit(8).unwrap_or(0);
                    let mut clone = chars.clone();
                    for _ in 0..2 {
                        match clone.next() {
                            Some((_, o)) if o.is_digit(8) => {
                                value = value * 8 + o.to_digit(8).unwrap_or(0);
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    if let Some(ch) = char::from_u32(value) {
                        out.push(ch);
                    }
                }
                Some((_, other)) => out.push(other),
                None => break,
            },
            other => out.push(other),
        }
    }
    (out, src.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paren_respects_quotes_and_nesting() {
        let s = "$(echo ')' $(ls)) tail";
        let (end, next) = closing_paren(s, 2);
        assert_eq!(&s[2..end], "echo ')' $(ls)");
        assert_eq!(&s[next..], " tail");
    }

    #[test]
    fn unterminated_runs_to_end() {
        assert_eq!(closing_paren("$(rm -rf /", 2), (10, 10));
        assert_eq!(closing_backtick("`rm", 1), (3, 3));
        assert_eq!(closing_brace("${A", 2), 3);
    }

    #[test]
    fn ansi_c_decodes_escapes() {
        let (text, next) = ansi_c("$'r\\x6d -rf\\n\\'' x", 2);
        assert_eq!(text, "rm -rf\n'");
        assert_eq!(next, 16);
    }

    #[test]
    fn printf_escapes() {
        assert_eq!(unescape("\\x72\\155 -rf\\n'x'"), "rm -rf\n'x'");
    }

    #[test]
    fn backtick_unescape() {
        assert_eq!(unescape_backtick("echo \\`x\\` \\$y"), "echo `x` $y");
    }
}
