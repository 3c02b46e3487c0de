//! Reading the start of a JSON record whose end was not kept.
//!
//! A transcript line longer than the reader keeps (a tool result with
//! megabytes of output) is skipped, but its first bytes are kept: in every
//! agent's layout they name the record, the tool call and its first fields
//! (the command, the start of the output, often the status). This module
//! turns such a prefix into a JSON value: the string being written when the
//! prefix ends is closed where it was cut, an unfinished key or literal is
//! dropped, and the open objects and arrays are closed. The result is marked
//! partial by the caller; nothing that comes after the cut is invented.

use serde_json::Value;

/// What the scanner is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// The object (as a JSON value) that `prefix`, the cut start of a JSON
/// object, begins with; `None` when it does not start an object.
pub(crate) fn parse_prefix(prefix: &[u8]) -> Option<Value> {
    let repaired = close(prefix)?;
    match serde_json::from_slice::<Value>(&repaired) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

/// `prefix` cut back to its last complete point and closed.
fn close(prefix: &[u8]) -> Option<Vec<u8>> {
    let start = prefix.iter().position(|b| !b.is_ascii_whitespace())?;
    if prefix[start] != b'{' {
        return None;
    }
    let mut stack: Vec<Container> = Vec::new();
    // Where the prefix can be cut and closed, with the stack at that point.
    let mut safe = (start, Vec::new());
    let mut in_string = false;
    let mut string_start = 0;
    let mut escaped = false;
    // Inside an object: whether the next string is a key.
    let mut expect_key = false;
    let mut i = start;
    while i < prefix.len() {
        let byte = prefix[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
                let was_key = expect_key && stack.last() == Some(&Container::Object);
                if !was_key {
                    safe = (i + 1, stack.clone());
                }
            }
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                string_start = i;
            }
            b'{' => {
                stack.push(Container::Object);
                expect_key = true;
                safe = (i + 1, stack.clone());
            }
            b'[' => {
                stack.push(Container::Array);
                expect_key = false;
                safe = (i + 1, stack.clone());
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                safe = (i + 1, stack.clone());
                if stack.is_empty() {
                    return Some(prefix[..i + 1].to_vec());
                }
            }
            b':' => expect_key = false,
            b',' => expect_key = stack.last() == Some(&Container::Object),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                // A number or literal: complete once a delimiter follows.
                let end = prefix[i..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
                    .map(|offset| i + offset);
                match end {
                    Some(end) => {
                        safe = (end, stack.clone());
                        i = end;
                        continue;
                    }
                    None => break,
                }
            }
        }
        i += 1;
    }
    let mut out;
    let closers;
    if in_string && !(expect_key && stack.last() == Some(&Container::Object)) {
        // A value string cut short: keep what it holds and close it.
        let mut end = prefix.len();
        if escaped {
            end -= 1;
        }
        out = prefix[..end].to_vec();
        drop_partial_escape(&mut out, string_start);
        drop_partial_utf8(&mut out);
        out.push(b'"');
        closers = stack;
    } else {
        out = prefix[..safe.0].to_vec();
        closers = safe.1;
    }
    for container in closers.iter().rev() {
        out.push(match container {
            Container::Object => b'}',
            Container::Array => b']',
        });
    }
    Some(out)
}

/// Drops a `\uXXXX` escape cut before its four digits.
fn drop_partial_escape(out: &mut Vec<u8>, string_start: usize) {
    let tail_from = out.len().saturating_sub(5).max(string_start + 1);
    if let Some(offset) = out[tail_from..].windows(2).rposition(|w| w == b"\\u") {
        let at = tail_from + offset;
        let digits = out.len() - at - 2;
        let backslashes = out[string_start + 1..at]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        if digits < 4 && backslashes % 2 == 0 {
            out.truncate(at);
        }
    }
}

/// Drops the bytes of a UTF-8 character cut at the end.
fn drop_partial_utf8(out: &mut Vec<u8>) {
    let tail = out.len().saturating_sub(4);
    if let Err(error) = std::str::from_utf8(&out[tail..]) {
        if error.error_len().is_none() {
            out.truncate(tail + error.valid_up_to());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(prefix: &str) -> Option<Value> {
        parse_prefix(prefix.as_bytes())
    }

    #[test]
    fn a_cut_value_string_keeps_its_start() {
        assert_eq!(
            parsed(
                r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"Exit code 3\nlots of out"#
            ),
            Some(json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "content": "Exit code 3\nlots of out"}
            ]}}))
        );
    }

    #[test]
    fn unfinished_keys_literals_and_escapes_are_dropped() {
        assert_eq!(
            parsed(r#"{"a":1,"b":[true,fal"#),
            Some(json!({"a": 1, "b": [true]}))
        );
        assert_eq!(parsed(r#"{"a":"x","bo"#), Some(json!({"a": "x"})));
        assert_eq!(parsed(r#"{"a":"x","b":"#), Some(json!({"a": "x"})));
        assert_eq!(parsed(r#"{"a":12"#), Some(json!({})));
        assert_eq!(parsed(r#"{"a":"line\"#), Some(json!({"a": "line"})));
        assert_eq!(parsed(r#"{"a":"x\u00"#), Some(json!({"a": "x"})));
        assert_eq!(parsed(r#"{"a":"x\\u00"#), Some(json!({"a": "x\\u00"})));
        let cut_char = [br#"{"a":"caf"#.as_slice(), &"é".as_bytes()[..1]].concat();
        assert_eq!(parse_prefix(&cut_char), Some(json!({"a": "caf"})));
    }

    #[test]
    fn a_complete_object_is_read_as_it_is() {
        assert_eq!(
            parsed(r#" {"a":[1,{"b":"}"}]} trailing"#),
            Some(json!({"a": [1, {"b": "}"}]}))
        );
    }

    #[test]
    fn what_is_not_an_object_is_refused() {
        assert_eq!(parsed("[1,2"), None);
        assert_eq!(parsed("garbage"), None);
        assert_eq!(parsed(""), None);
    }
}
