//! Unit tests of the lexer (kept apart to keep `lexer.rs` short).

use super::*;

fn words(src: &str) -> Vec<String> {
    let mut budget = 10_000;
    lex(src, &mut budget)
        .tokens
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.text),
            _ => None,
        })
        .collect()
}

fn subs(src: &str) -> Vec<String> {
    let mut budget = 10_000;
    lex(src, &mut budget)
        .tokens
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.subs),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn quotes_and_escapes() {
    assert_eq!(
        words(r#"echo 'a b' "c d" e\ f"#),
        vec!["echo", "a b", "c d", "e f"]
    );
    assert_eq!(words(r#"r''m -r"f" \/"#), vec!["rm", "-rf", "/"]);
    assert_eq!(
        words(r#"echo "a \"q\" \$x \n""#),
        vec!["echo", "a \"q\" $x \\n"]
    );
    assert_eq!(words("echo $'rm\\t-rf'"), vec!["echo", "rm\t-rf"]);
    assert_eq!(words("\\rm x"), vec!["rm", "x"]);
    assert_eq!(words("echo a\\\nb"), vec!["echo", "ab"]);
}

#[test]
fn operators_split_words() {
    let mut budget = 100;
    let tokens = lex("a&&b||c;d|e&f", &mut budget).tokens;
    let ops: Vec<Op> = tokens
        .iter()
        .filter_map(|t| if let Token::Op(o) = t { Some(*o) } else { None })
        .collect();
    assert_eq!(
        ops,
        vec![Op::And, Op::Or, Op::Semi, Op::Pipe, Op::Background]
    );
}

#[test]
fn substitutions_are_collected() {
    assert_eq!(
        subs("echo $(rm -rf /) `git reset --hard`"),
        vec!["rm -rf /", "git reset --hard"]
    );
    assert_eq!(subs("echo \"x $(ls) y\""), vec!["ls"]);
    assert_eq!(subs("echo '$(rm -rf /)'"), Vec::<String>::new());
    assert_eq!(subs("bash <(curl -s x)"), vec!["curl -s x"]);
    assert_eq!(
        words("rm ${TMPDIR:-/tmp a}/x"),
        vec!["rm", "${TMPDIR:-/tmp a}/x"]
    );
}

#[test]
fn comments_are_dropped() {
    assert_eq!(words("ls # rm -rf /"), vec!["ls"]);
    assert_eq!(words("echo a#b"), vec!["echo", "a#b"]);
}

#[test]
fn heredoc_bodies_are_captured() {
    let mut budget = 100;
    let tokens = lex("cat <<'EOF' | sh\nrm -rf /\nEOF\necho done", &mut budget).tokens;
    assert!(tokens.contains(&Token::HereDoc {
        body: "rm -rf /\n".into()
    }));
    let mut budget = 100;
    let tokens = lex("cat <<-X\n\tbody\n\tX\n", &mut budget).tokens;
    assert!(tokens.contains(&Token::HereDoc {
        body: "\tbody\n".into()
    }));
    assert_eq!(words("cat <<EOF\nrm -rf /\nEOF\nls"), vec!["cat", "ls"]);
}

#[test]
fn fd_numbers_are_not_words() {
    assert_eq!(
        words("cmd 2>&1 >out 2> err"),
        vec!["cmd", "1", "out", "err"]
    );
}

#[test]
fn unterminated_input_is_kept() {
    assert_eq!(words("rm -rf '/"), vec!["rm", "-rf", "/"]);
    assert_eq!(
        words("echo \"unterminated $(rm"),
        vec!["echo", "unterminated $(rm"]
    );
    assert_eq!(subs("echo $(rm -rf /"), vec!["rm -rf /"]);
}

#[test]
fn word_budget_truncates() {
    let mut budget = 3;
    let lexed = lex("a b c d e f", &mut budget);
    assert!(lexed.truncated);
    assert_eq!(lexed.tokens.len(), 3);
}

#[test]
fn skeleton_blanks_quoted_text() {
    let mut budget = 100;
    let lexed = lex("echo ':(){ :|:& };:' # x", &mut budget);
    assert!(!lexed.skeleton.contains(":|:"));
    let mut budget = 100;
    assert!(lex(":(){ :|:& };:", &mut budget).skeleton.contains(":|:&"));
}
