//! Soft line breaks joined, so Layer 1 reads a wrapped sentence as one.
//!
//! Some agents and session exports wrap prose at a fixed width: "continue
//! the other five in a next\nsession". Markdown reads a single line break
//! inside a paragraph as a space, but the keywords and patterns look for
//! "next session" with a space, and a wrapped phrase slipped past them (in
//! the real turns and one written set, a tenth to half of the texts are
//! wrapped). A break is joined only where it is plainly a wrap: the line
//! ends inside a sentence (a letter, a digit, a comma, a closing bracket or
//! backtick) and the next line goes on in lowercase or with a backtick, or
//! in a script without case (Korean, Chinese, Japanese) after a line long
//! enough to have been wrapped.
//! Headings, list items, quotes, tables, code blocks and breaks after a
//! full stop or a colon stay as they are, since patterns read line starts.
//! The joined text is the turn's subject, so the judge and the decision log
//! read the same text as Layer 1 (the same Markdown, reflowed).

use std::borrow::Cow;

/// `text` with its soft line breaks (see the module doc) made spaces.
pub fn join_soft_wraps(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let mut previous: Option<&str> = None;
    for line in text.split('\n') {
        let fence = is_fence(line);
        match previous {
            Some(prev) if !in_code && !fence && wraps(prev, line) => {
                out.push(' ');
                out.push_str(line.trim_start());
            }
            Some(_) => {
                out.push('\n');
                out.push_str(line);
            }
            None => out.push_str(line),
        }
        in_code ^= fence;
        previous = Some(line);
    }
    Cow::Owned(out)
}

/// Whether a code fence opens or closes on this line.
fn is_fence(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("```") || line.starts_with("~~~")
}

/// Whether the break between `prev` and `next` is a wrap inside a sentence.
fn wraps(prev: &str, next: &str) -> bool {
    let head = prev.trim_start();
    if head.starts_with('#') || head.starts_with('|') || is_fence(prev) || prev.ends_with("  ") {
        return false;
    }
    let ends_inside = prev.chars().next_back().is_some_and(|c| {
        c.is_alphanumeric() || matches!(c, ',' | ')' | '`' | '"' | '\'' | '”' | '’' | '»')
    });
    let next = next.trim_start();
    let goes_on = next
        .chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c == '`' || (uncased(c) && wrapped_width(prev)));
    ends_inside && goes_on && !starts_block(next)
}

/// A letter of a script without case (Korean, Chinese, Japanese): it
/// cannot say "lowercase, so the sentence goes on".
fn uncased(c: char) -> bool {
    c.is_alphabetic() && !c.is_lowercase() && !c.is_uppercase()
}

/// Whether a line is long enough to have been wrapped at a fixed width (in
/// columns, a letter without case taking two): a short one ("文件", "변경
/// 사항") is a label whose next line starts anew.
fn wrapped_width(line: &str) -> bool {
    let columns: usize = line
        .trim()
        .chars()
        .map(|c| if uncased(c) { 2 } else { 1 })
        .sum();
    columns >= 20
}

/// Whether a (left-trimmed) line opens a Markdown block of its own.
fn starts_block(line: &str) -> bool {
    let mut chars = line.chars();
    let marker = matches!(chars.next(), Some('-' | '*' | '+' | '>'));
    marker && matches!(chars.next(), Some(' ' | '\t') | None)
}

#[cfg(test)]
mod tests {
    use super::join_soft_wraps;

    #[test]
    fn a_wrapped_sentence_is_read_as_one_line() {
        assert_eq!(
            join_soft_wraps("continue the other five in a next\nsession, with a clean context."),
            "continue the other five in a next session, with a clean context."
        );
        assert_eq!(
            join_soft_wraps("- ranks 0-6 go to the\n  training group"),
            "- ranks 0-6 go to the training group"
        );
        assert_eq!(join_soft_wraps("uses\n`cargo test`"), "uses `cargo test`");
        assert_eq!(
            join_soft_wraps("이제 마지막 페이지까지\n크래시 없이 잘 넘어갑니다"),
            "이제 마지막 페이지까지 크래시 없이 잘 넘어갑니다"
        );
    }

    #[test]
    fn structure_is_kept() {
        for text in [
            "Done.\nnext step",
            "Summary:\nroot cause: `x`",
            "## Why\nthe `x` was null",
            "| a |\nb",
            "the change\n- item",
            "the change\nRoot cause: `x`",
            "hard break  \nnext",
            "```\ngit add\ngit commit\n```",
            "文件\n原因：`y`",
            "변경 사항\n원인: `x`",
        ] {
            assert_eq!(join_soft_wraps(text), text, "{text:?}");
        }
        assert_eq!(
            join_soft_wraps("run it\n```\nfoo\nbar\n```\nthen\nmore"),
            "run it\n```\nfoo\nbar\n```\nthen more"
        );
    }
}
