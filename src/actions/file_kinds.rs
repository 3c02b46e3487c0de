//! What kind of file an edit touched, from its path alone: a prose
//! document, or a test. The action rules need both: a turn that only wrote
//! documents fixed no bug, and a test written and run to a failure before
//! the first change to other code is how the agent showed the failure.

use std::path::Path;

/// The extensions of prose documents (Markdown, reStructuredText,
/// AsciiDoc): a change to one changes no program.
const DOCUMENT_EXTENSIONS: &[&str] = &["md", "markdown", "mdx", "rst", "adoc", "asciidoc"];

/// Directories that hold tests.
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "specs", "e2e"];

/// Whether the file is a prose document, by its extension.
pub fn is_document(path: &str) -> bool {
    Path::new(path)
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| {
            DOCUMENT_EXTENSIONS
                .iter()
                .any(|d| ext.eq_ignore_ascii_case(d))
        })
}

/// Whether the file is a test, by the usual conventions: a test directory
/// (`tests/`, `__tests__/`, `spec/`, …) or a test file name (`test_x.py`,
/// `x_test.go`, `x.test.ts`, `x.spec.js`, `x_spec.rb`, `XTest.java`,
/// `XTests.cs`); or a reproduction script (`repro.py`, `repro_issue57.py`,
/// `reproduce_crash.sh`), written to show the failure as a test does.
pub fn is_test(path: &str) -> bool {
    let path = Path::new(path);
    let in_test_dir = path.parent().is_some_and(|dir| {
        dir.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|name| TEST_DIRS.iter().any(|t| name.eq_ignore_ascii_case(t)))
        })
    });
    let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
        return in_test_dir;
    };
    let lower = stem.to_ascii_lowercase();
    in_test_dir
        || lower == "repro"
        || lower.starts_with("repro_")
        || lower.starts_with("repro-")
        || lower.starts_with("reproduce")
        || lower.starts_with("reproduction")
        || lower.starts_with("test_")
        || lower.ends_with("_test")
        || lower.ends_with("_spec")
        || lower.ends_with(".test")
        || lower.ends_with(".spec")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
}

#[cfg(test)]
mod tests {
    use super::{is_document, is_test};

    #[test]
    fn documents_and_tests_are_told_by_their_paths() {
        for path in ["README.md", "docs/a.MD", "notes/x.rst", "guide.adoc"] {
            assert!(is_document(path), "{path}");
        }
        for path in ["requirements.txt", "src/main.rs", "Makefile"] {
            assert!(!is_document(path), "{path}");
        }
        for path in [
            "tests/test_api.py",
            "test_api.py",
            "pkg/api_test.go",
            "src/a.test.ts",
            "src/__tests__/a.tsx",
            "spec/models/user_spec.rb",
            "src/test/java/UserServiceTest.java",
            "Api.Tests/ClientTests.cs",
            "e2e/login.spec.ts",
            "scripts/repro_issue57.py",
            "repro.sh",
            "tools/reproduce_crash.rs",
        ] {
            assert!(is_test(path), "{path}");
        }
        for path in [
            "src/api.py",
            "src/testing_utils.rs",
            "contest/main.go",
            "latest.py",
            "etl/reprocess_orders.py",
            "gis/reproject.py",
        ] {
            assert!(!is_test(path), "{path}");
        }
    }
}
