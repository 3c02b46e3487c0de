//! `{{name}}` fragments in shell-rule regexes: each is replaced by the named
//! regex of the section's `patterns:`. Its own file, with no dependency on
//! the crate, so that build.rs expands the built-in rules' regexes the same
//! way before computing their literal gates.

use std::collections::BTreeMap;

/// Replaces each `{{name}}` by the named fragment, in a group (fragments
/// may use fragments, a few levels deep).
pub fn expand(
    pattern: &str,
    patterns: &BTreeMap<String, String>,
    depth: usize,
) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}") else {
            break;
        };
        let name = &rest[open + 2..open + close];
        let fragment = patterns
            .get(name)
            .ok_or_else(|| format!("no pattern `{name}` among `patterns:`"))?;
        if depth >= 4 {
            return Err(format!("pattern `{name}` nests too deep"));
        }
        out.push_str(&rest[..open]);
        out.push_str("(?:");
        out.push_str(&expand(fragment, patterns, depth + 1)?);
        out.push(')');
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}
