//! The refs a `git push` sends, for the config's `allow_push`: the
//! destinations its refspecs name after the remote, or, when it names none
//! (or `HEAD`), the branch checked out, read from the repository.

use super::ShellContext;

/// A glob where `*` stands for any text (`feature/*`).
fn glob_matches(glob: &str, text: &str) -> bool {
    let mut parts = glob.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether every ref a push names (the operands after the remote) goes to a
/// branch matching one of `globs`. A push that names none (or `HEAD`)
/// pushes the current branch, read from the repository; false when it
/// cannot be known.
pub(crate) fn all_match(operands: &[&str], globs: &[String], ctx: &ShellContext) -> bool {
    let branch = || ctx.repo_root.as_deref().and_then(current_branch);
    let named = operands.get(1..).unwrap_or(&[]);
    let current;
    let refs: &[&str] = if named.is_empty() {
        match branch() {
            Some(b) => {
                current = b;
                &[current.as_str()][..]
            }
            None => return false,
        }
    } else {
        named
    };
    refs.iter().all(|spec| {
        let dest = spec.rsplit(':').next().unwrap_or(spec);
        let dest = dest.trim_start_matches('+');
        let dest = dest.strip_prefix("refs/heads/").unwrap_or(dest);
        let dest = match dest {
            "HEAD" => match branch() {
                Some(b) => b,
                None => return false,
            },
            other => other.to_string(),
        };
        globs.iter().any(|g| glob_matches(g, &dest))
    })
}

/// The branch checked out in a repository (`.git/HEAD`, following a
/// worktree's `gitdir:` file), if it is on one.
fn current_branch(repo_root: &std::path::Path) -> Option<String> {
    let dot_git = repo_root.join(".git");
    let git_dir = if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let dir = text.strip_prefix("gitdir:")?.trim();
        repo_root.join(dir)
    } else {
        dot_git
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_refs_against_globs() {
        let globs = vec!["feature/*".to_string(), "fix-*".to_string()];
        let none = ShellContext::default();
        assert!(all_match(&["origin", "feature/a/b"], &globs, &none));
        assert!(all_match(
            &["origin", "HEAD:refs/heads/fix-1"],
            &globs,
            &none
        ));
        assert!(!all_match(&["origin", "feature/a", "main"], &globs, &none));
        assert!(!all_match(&["origin"], &globs, &none));
        assert!(!all_match(&[], &globs, &none));
        assert!(!all_match(&["origin", "HEAD"], &globs, &none));
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        let ctx = ShellContext {
            repo_root: Some(repo.path().to_path_buf()),
            ..ShellContext::default()
        };
        assert!(all_match(&[], &globs, &ctx));
        assert!(all_match(&["origin", "HEAD"], &globs, &ctx));
        assert!(!all_match(&["origin", "main"], &globs, &ctx));
        assert!(glob_matches("a*c*e", "abcde"));
        assert!(!glob_matches("feature/*", "main"));
    }
}
