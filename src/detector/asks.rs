//! Whether a message puts a question to the user, as the action rules with
//! `unless_it_asks` read it: a turn that leaves work open and asks the user
//! about it hands that work back, as the detectors' definitions allow (a
//! choice to make, a blocker to lift). Read on the case-folded text.

/// Whether the text puts a question to the user: a question mark after a
/// word (French spacing allowed: "laquelle ?"), ending the text or followed
/// by a space, a line end or closing punctuation ("Which do you prefer?",
/// "어떻게 할까요?"), or a full-width `？`. The `?` of most code
/// (`foo()?;`, `x?.y`, `/orders?page=2`) is none; a ternary `a ? b` in a
/// snippet reads as a question.
pub fn asks_the_user(text: &str) -> bool {
    // The last two characters before the current one.
    let (mut before, mut previous) = (' ', ' ');
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '？' {
            return true;
        }
        let after_word = previous.is_alphabetic()
            || (matches!(previous, ' ' | '\u{a0}' | '\u{202f}') && before.is_alphabetic());
        if c == '?' && after_word {
            let next = chars.peek().copied();
            if next.is_none_or(|n| n.is_whitespace() || "*_\"')»」）".contains(n)) {
                return true;
            }
        }
        (before, previous) = (previous, c);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_mark_of_code_is_no_question() {
        for code in [
            "let n = parse(s)?;",
            "GET /orders?page=2 now pages",
            "user?.email is read",
            "matches `Option<T>?` now",
        ] {
            assert!(!asks_the_user(code), "{code}");
        }
        for question in [
            "Ready to merge?",
            "ready?",
            "Shall I go on?**",
            "(ok?)",
            "laquelle ?",
        ] {
            assert!(asks_the_user(question), "{question}");
        }
    }
}
