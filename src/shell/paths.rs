//! Path classes: what a path argument would touch.
//!
//! A rule says "any operand is the filesystem root, a home directory, a
//! system directory or the repository root" instead of listing spellings:
//! `/`, `/*`, `//`, `~`, `~/`, `$HOME`, `${HOME}/*`, `/home/alice`, `.` when
//! the working directory is the repository root, `..` from a subdirectory of
//! it, and so on. Relative paths are resolved against the context's working
//! directory when it is known.

use super::ShellContext;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What a path argument designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathClass {
    /// `/` (or all of it, `/*`).
    Root,
    /// A home directory itself: `~`, `$HOME`, `/home/alice`, `/root`.
    Home,
    /// A system directory or one level below it: `/etc`, `/usr/lib`, `/home`.
    System,
    /// The repository root, or a directory containing it.
    RepoRoot,
    /// The working directory (`.`, `*`, `..`) when it is not known.
    Cwd,
    /// A temporary location: `/tmp/...`, `/var/tmp/...`, `$TMPDIR/...`.
    Temp,
    /// Anything else.
    Other,
}

/// Top-level directories of the operating system.
const SYSTEM_DIRS: &[&str] = &[
    "etc",
    "usr",
    "var",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "boot",
    "dev",
    "proc",
    "sys",
    "opt",
    "srv",
    "home",
    "Users",
    "mnt",
    "media",
    "snap",
    "run",
    "System",
    "Library",
    "Applications",
    "Volumes",
    "private",
    "nix",
    "root",
];

const TEMP_PREFIXES: &[&str] = &[
    "/tmp/",
    "/var/tmp/",
    "/private/tmp/",
    "/private/var/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/dev/shm/",
    "$TMPDIR",
    "${TMPDIR",
    "$TMP/",
    "${TMP}/",
    "$TEMP/",
    "${TEMP}/",
    "$RUNNER_TEMP",
    "${RUNNER_TEMP",
    "$(mktemp",
];

const HOME_WORDS: &[&str] = &["~", "$HOME", "${HOME}"];
const CWD_WORDS: &[&str] = &[".", "*", ".*", "$PWD", "${PWD}", "$(pwd)", "`pwd`"];

/// Classifies one path argument.
pub fn classify_path(arg: &str, ctx: &ShellContext) -> PathClass {
    let arg = arg.trim();
    if arg.is_empty() {
        return PathClass::Other;
    }
    let trimmed = trim_tail(arg);
    let in_home = trimmed.starts_with('/') && holds_home(&normalize(Path::new(trimmed)), ctx);
    if TEMP_PREFIXES.iter().any(|p| arg.starts_with(p)) && !arg.contains("..") && !in_home {
        return PathClass::Temp;
    }
    if HOME_WORDS.contains(&trimmed) || (trimmed.starts_with('~') && !trimmed.contains('/')) {
        return match &ctx.home {
            Some(home) => classify_absolute(home, ctx),
            None => PathClass::Home,
        };
    }
    for home_word in HOME_WORDS {
        if let Some(rest) = trimmed
            .strip_prefix(home_word)
            .and_then(|r| r.strip_prefix('/'))
        {
            return match &ctx.home {
                Some(home) => classify_absolute(&home.join(rest), ctx),
                None if rest.split('/').any(|c| c == "..") => PathClass::System,
                None => PathClass::Other,
            };
        }
    }
    if trimmed.starts_with('/') {
        return classify_absolute(Path::new(trimmed), ctx);
    }
    if trimmed.starts_with('$') || trimmed.starts_with('`') {
        return if CWD_WORDS.contains(&trimmed) {
            relative(".", ctx)
        } else {
            PathClass::Other
        };
    }
    relative(trimmed, ctx)
}

/// Strips what does not change the designated directory: trailing `/`,
/// `/*` and `/.` (deleting all of a directory's entries is as bad as
/// deleting the directory).
fn trim_tail(mut s: &str) -> &str {
    loop {
        let drop_last = (s.len() > 1 && s.ends_with('/'))
            || (s.len() > 2 && (s.ends_with("/*") || s.ends_with("/.")));
        if drop_last {
            s = &s[..s.len() - 1];
        } else if s == "/*" {
            return "/";
        } else {
            return s;
        }
    }
}

fn relative(path: &str, ctx: &ShellContext) -> PathClass {
    let only_dots = path
        .split('/')
        .all(|c| matches!(c, "." | ".." | "*" | ".*" | ""));
    let as_dir = if CWD_WORDS.contains(&path) { "." } else { path };
    match &ctx.cwd {
        // `*` in /tmp is `/tmp/*`: spelled out, the temp rules apply.
        Some(cwd) if only_dots && path.contains('*') && !path.contains("..") => classify_path(
            &format!("{}/*", cwd.to_string_lossy().trim_end_matches('/')),
            ctx,
        ),
        Some(cwd) => {
            let joined = if only_dots {
                let dirs: Vec<&str> = as_dir
                    .split('/')
                    .map(|c| if c == ".." { ".." } else { "." })
                    .collect();
                cwd.join(dirs.join("/"))
            } else {
                cwd.join(as_dir)
            };
            // `.` in a repository that is also the home (HOME = the
            // project, as in some containers) designates the repository:
            // spelled `~` or `$HOME`, it is still the home.
            let joined = normalize(&joined);
            if ctx.repo_root.as_deref().map(normalize).as_ref() == Some(&joined) {
                return PathClass::RepoRoot;
            }
            classify_absolute(&joined, ctx)
        }
        None if only_dots || CWD_WORDS.contains(&path) => PathClass::Cwd,
        None => PathClass::Other,
    }
}

/// Lexically normalizes an absolute path (`.` and `..` resolved).
fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for comp in path.components() {
        match comp {
            std::path::Component::Normal(c) => parts.push(c),
            std::path::Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    let mut out = PathBuf::from("/");
    out.extend(parts);
    out
}

/// Whether a normalized absolute path is the user's home, lies inside it,
/// or contains it (a home of `/` contains everything and is not counted).
fn holds_home(path: &Path, ctx: &ShellContext) -> bool {
    ctx.home.as_deref().map(normalize).is_some_and(|home| {
        home.starts_with(path) || (home != Path::new("/") && path.starts_with(&home))
    })
}

fn classify_absolute(path: &Path, ctx: &ShellContext) -> PathClass {
    let path = normalize(path);
    let text = path.to_string_lossy();
    if text == "/" {
        return PathClass::Root;
    }
    // The home first: a HOME under /tmp (sandboxes, CI runners) is no
    // temporary directory, nor are its ancestors or its contents.
    let home = ctx.home.as_deref().map(normalize);
    let comps: Vec<&str> = text.split('/').filter(|c| !c.is_empty()).collect();
    let is_home = home.as_ref().is_some_and(|h| *h == path)
        || (comps.len() == 2 && matches!(comps[0], "home" | "Users"))
        || comps == ["root"]
        || comps == ["var", "root"];
    if is_home {
        return PathClass::Home;
    }
    if home.as_ref().is_some_and(|h| h.starts_with(&path)) {
        return PathClass::System;
    }
    let with_slash = format!("{text}/");
    let temp = TEMP_PREFIXES
        .iter()
        .any(|p| p.starts_with('/') && with_slash.starts_with(p) && with_slash.len() > p.len());
    // Inside the home (`/root/projects` for root) nothing is a system
    // directory or a temp one.
    let inside_home = holds_home(&path, ctx);
    if temp && !inside_home {
        return PathClass::Temp;
    }
    if comps.len() <= 2 && SYSTEM_DIRS.contains(&comps[0]) && !inside_home {
        return PathClass::System;
    }
    if let Some(root) = ctx.repo_root.as_deref().map(normalize) {
        if root.starts_with(&path) {
            return PathClass::RepoRoot;
        }
    }
    PathClass::Other
}

#[cfg(test)]
mod tests {
    use super::*;
    use PathClass::*;

    fn ctx_in_repo() -> ShellContext {
        ShellContext {
            cwd: Some("/work/repo".into()),
            repo_root: Some("/work/repo".into()),
            home: Some("/home/dev".into()),
        }
    }

    #[test]
    fn root_spellings() {
        let ctx = ShellContext::default();
        for p in ["/", "/*", "//", "/.", "/..", "/./", "/usr/.."] {
            assert_eq!(classify_path(p, &ctx), Root, "{p}");
        }
    }

    #[test]
    fn home_spellings() {
        let ctx = ShellContext::default();
        for p in [
            "~",
            "~/",
            "~/*",
            "$HOME",
            "${HOME}",
            "$HOME/",
            "${HOME}/*",
            "/home/user",
            "/Users/bob/",
            "/root",
            "~alice",
        ] {
            assert_eq!(classify_path(p, &ctx), Home, "{p}");
        }
        assert_eq!(classify_path("~/projects/x", &ctx), Other);
        let ctx = ctx_in_repo();
        assert_eq!(classify_path("/home/dev", &ctx), Home);
        assert_eq!(classify_path("~/", &ctx), Home);
        let root = ShellContext {
            home: Some("/root".into()),
            ..ShellContext::default()
        };
        assert_eq!(classify_path("~/projects", &root), Other);
        assert_eq!(classify_path("/root", &root), Home);
        assert_eq!(classify_path("/opt", &root), System);
    }

    #[test]
    fn system_dirs_one_level_deep() {
        let ctx = ShellContext::default();
        for p in ["/etc", "/var/log", "/usr/lib/", "/home", "/boot/*"] {
            assert_eq!(classify_path(p, &ctx), System, "{p}");
        }
        assert_eq!(classify_path("/usr/local/lib/foo", &ctx), Other);
    }

    #[test]
    fn temp_is_temp() {
        let ctx = ShellContext::default();
        for p in [
            "/tmp/build",
            "/tmp/*",
            "/var/tmp/x",
            "$TMPDIR/build",
            "${TMPDIR}/b",
            "${TMPDIR:-/tmp}/build",
        ] {
            assert_eq!(classify_path(p, &ctx), Temp, "{p}");
        }
        assert_eq!(classify_path("/tmp/../etc", &ctx), System);
    }

    #[test]
    fn cwd_and_repo_root() {
        let unknown = ShellContext::default();
        for p in [".", "./", "*", "./*", ".*", "..", "$PWD"] {
            assert_eq!(classify_path(p, &unknown), Cwd, "{p}");
        }
        assert_eq!(classify_path("./build", &unknown), Other);
        let ctx = ctx_in_repo();
        for p in [
            ".",
            "./",
            "*",
            "./*",
            ".*",
            "/work/repo",
            "/work/repo/",
            "/work",
        ] {
            assert_eq!(classify_path(p, &ctx), RepoRoot, "{p}");
        }
        assert_eq!(classify_path("build", &ctx), Other);
        let sub = ShellContext {
            cwd: Some("/work/repo/src".into()),
            ..ctx_in_repo()
        };
        assert_eq!(classify_path("..", &sub), RepoRoot);
        assert_eq!(classify_path(".", &sub), Other);
        let tmp = ShellContext {
            cwd: Some("/tmp".into()),
            ..ctx_in_repo()
        };
        assert_eq!(classify_path("*", &tmp), Temp);
        assert_eq!(classify_path(".", &tmp), Other);
    }
}
