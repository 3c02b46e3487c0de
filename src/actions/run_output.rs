//! A check's own report of failure, read from the end of its output.
//!
//! A shell's exit status is the last command's: `cargo test 2>&1 | tail -20`
//! exits 0 when tests fail (it is `tail`'s status), and so does
//! `pytest || true`. Agents pipe their test runs through `tail`, `head` and
//! `grep` all the time, so an exit status alone would tell the judge "tests
//! passed" of a run whose output says `test result: FAILED`, and would hide
//! the failing run that reproduced a bug. The runners' own summary lines
//! (`test result: FAILED.`, `2 failed, 5 passed in 0.3s`, `Tests: 1 failed`,
//! `--- FAIL:`, `BUILD FAILURE`, `Found 3 errors`) say how the run ended
//! whatever the pipe did.
//!
//! A transcript reader keeps the end of each tool result's output
//! (its last [`TAIL_BYTES`]) until it meets the call; only when the call is
//! a test, build or lint command whose status said success (or nothing) is
//! that end read ([`failure_reported`]): the lines that mention a failure or
//! an error are matched against the runners' summary formats below (each
//! compiled the first time a line holds its literal gate), and the line that
//! reports the failure is kept with the command for the facts block and the
//! log.
//!
//! Only failures are read: a passing summary never makes a failed status
//! pass. The one status the output may turn to unknown is grep's: `pytest |
//! grep FAILED` exits 1 when grep found nothing (`CommandRun::read_output`).

use std::sync::OnceLock;

/// The end of an output kept and scanned for summary lines, in bytes.
pub const TAIL_BYTES: usize = 4096;
/// At most this many lines that mention a failure are matched (the last ones).
const MAX_CANDIDATES: usize = 12;
/// The line named is kept up to this many bytes.
const LINE_BYTES: usize = 240;

/// A runner's summary line that reports a failure: `pattern` is matched
/// against one output line, its leading whitespace trimmed, only when the
/// line holds `gate` (a literal every match contains), so a turn compiles
/// only the few patterns its outputs could match.
struct Summary {
    gate: &'static str,
    pattern: &'static str,
}

/// A [`Summary`], written short in the table.
const fn summary(gate: &'static str, pattern: &'static str) -> Summary {
    Summary { gate, pattern }
}

/// The runners' failure summaries. Each reports a failed run by itself: a
/// count must be non-zero (`0 failed` is no failure).
const FAILURE_SUMMARIES: &[Summary] = &[
    // cargo test (libtest) and cargo build.
    summary("test result: FAILED", r"^test result: FAILED\b"),
    summary(
        "error: ",
        r"^error: (?:could not compile|test failed|\d+ targets? failed)",
    ),
    // pytest: the closing line (`=== 2 failed, 5 passed in 0.31s ===`,
    // `1 error in 0.12s`), and its short summary (`FAILED tests/x.py::t`).
    summary(
        " in ",
        r"\b[1-9]\d* (?:failed|errors?)\b.* in \d+(?:\.\d+)?s\b",
    ),
    summary(".py", r"^(?:FAILED|ERROR) \S+\.py\b"),
    // unittest.
    summary("FAILED (", r"^FAILED \((?:failures|errors)=[1-9]"),
    // jest and vitest.
    summary(
        " failed",
        r"^(?:Tests|Test Suites|Test Files):?\s+[1-9]\d* failed\b",
    ),
    summary("FAIL", r"^FAIL\s+\S"),
    // mocha, node --test (spec and TAP), bun test, playwright.
    summary(" failing", r"^[1-9]\d* failing\b"),
    summary(" fail ", r"^(?:ℹ|#) fail [1-9]\d*$"),
    summary("✖ ", r"^✖ .*\(\d+(?:\.\d+)?ms\)$"),
    summary(" failed'", r"^'\d+ subtests? failed'$"),
    summary(" fail", r"^[1-9]\d* fail$"),
    summary(" failed", r"^[1-9]\d* failed$"),
    // go test.
    summary("FAIL", r"^(?:FAIL$|FAIL\t|--- FAIL: )"),
    // rspec, minitest, mix test, bats, XCTest.
    summary(" failure", r"^\d+ examples?, [1-9]\d* failures?\b"),
    summary(
        " assertions, ",
        r"\b\d+ (?:runs|tests), \d+ assertions, (?:[1-9]\d* failures|\d+ failures, [1-9]\d* errors)",
    ),
    summary(" failure", r"\b\d+ tests?, [1-9]\d* failures?\b"),
    summary(" failure", r"^Executed \d+ tests?, with [1-9]\d* failures?"),
    summary(" FAILED ", r"^\*\* (?:TEST|BUILD) FAILED \*\*"),
    // phpunit.
    summary("FAILURES!", r"^FAILURES!$"),
    summary("ERRORS!", r"^ERRORS!$"),
    summary(
        ", Assertions: ",
        r"^Tests: \d+, Assertions: \d+, (?:Errors|Failures): [1-9]",
    ),
    // dotnet test and msbuild.
    summary("Failed!", r"^Failed!\s+-\s+Failed:\s+[1-9]"),
    summary("Build FAILED", r"^Build FAILED\.?$"),
    // maven, gradle, ant.
    summary(" BUILD FAILURE", r"^\[(?:ERROR|INFO)\] BUILD FAILURE\b"),
    summary(
        "Tests run: ",
        r"^\[ERROR\] Tests run: \d+, (?:Failures: [1-9]|Failures: \d+, Errors: [1-9])",
    ),
    summary("BUILD FAILED", r"^BUILD FAILED\b"),
    summary("FAILURE: Build failed", r"^FAILURE: Build failed"),
    // ctest, deno.
    summary(
        " failed out of",
        r"\btests passed, [1-9]\d* tests? failed out of\b",
    ),
    summary("FAILED | ", r"^FAILED \| \d+ passed \| [1-9]\d* failed"),
    // tsc, mypy, ruff (`Found 3 errors`; `Found 3 errors (3 fixed, 0
    // remaining).` is ruff's fixed run), tsc's error lines, eslint.
    summary(
        "Found ",
        r"^Found [1-9]\d* errors?(?:\.|\s+in\b| \(\d+ fixed, [1-9]\d* remaining\))",
    ),
    summary(
        " error TS",
        r"^\S+(?:\(\d+,\d+\)|:\d+:\d+)(?::| -) error TS\d+",
    ),
    summary(" problem", r"^✖ \d+ problems? \([1-9]\d* errors?"),
    // gcc, clang, rustc's own error lines and make.
    summary("error: ", r"^\S+:\d+:\d+: (?:fatal )?error: "),
    summary("make", r"^make(?:\[\d+\])?: \*\*\* .*\bError \d+"),
    // npm's lifecycle report of a failed script.
    summary(
        "npm ",
        r"^npm (?:ERR!|error) (?:Test failed|code ELIFECYCLE|Lifecycle script|command (?:failed|sh -c))",
    ),
];

/// Whether a lowercased line says "fail" or "err", or carries eslint's or
/// node's `✖`.
fn mentions_failure(lower: &str) -> bool {
    lower.contains("fail") || lower.contains("err") || lower.contains('✖')
}

/// Whether `line` is one of the [`FAILURE_SUMMARIES`]: the patterns whose
/// gate it holds are compiled (once per process) and tried.
fn reports_failure(line: &str) -> bool {
    static COMPILED: OnceLock<Vec<OnceLock<Option<regex::bytes::Regex>>>> = OnceLock::new();
    let compiled =
        COMPILED.get_or_init(|| FAILURE_SUMMARIES.iter().map(|_| OnceLock::new()).collect());
    (FAILURE_SUMMARIES.iter().zip(compiled))
        .filter(|(summary, _)| line.contains(summary.gate))
        .any(|(summary, regex)| {
            regex
                .get_or_init(|| compile(summary.pattern).ok())
                .as_ref()
                .is_some_and(|regex| regex.is_match(line.as_bytes()))
        })
}

/// A summary's pattern, with ASCII classes (`\d`, `\b`, `\s`): the Unicode
/// ones would multiply its size and its compile time on the hook path.
fn compile(pattern: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(pattern)
        .unicode(false)
        .build()
}

/// The line of `output`'s end (its last [`TAIL_BYTES`]) that reports a failed run, the
/// last one if several do, trimmed and cut to [`LINE_BYTES`].
pub fn failure_reported(output: &str) -> Option<String> {
    let tail = super::tail(output, TAIL_BYTES);
    // Lowercased in one pass: the same lines, searched with `str::contains`.
    let lower = tail.to_ascii_lowercase();
    let mut candidates = (tail.lines().rev().zip(lower.lines().rev()))
        .filter(|(_, low)| mentions_failure(low))
        .map(|(line, _)| line.trim())
        .take(MAX_CANDIDATES);
    let line = candidates.find(|line| reports_failure(line))?;
    Some(super::clip(line, LINE_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_summary_compiles() {
        for Summary { gate, pattern } in FAILURE_SUMMARIES {
            let built = compile(pattern);
            assert!(built.is_ok(), "{pattern}: {built:?}");
            // The gate is a literal of the pattern (with no alternative
            // around it that could match without it).
            let mut unescaped = String::new();
            let mut chars = pattern.chars().peekable();
            while let Some(c) = chars.next() {
                match chars.peek() {
                    Some(next) if c == '\\' && next.is_ascii_punctuation() => {}
                    _ => unescaped.push(c),
                }
            }
            assert!(unescaped.contains(gate), "{gate:?} in {pattern}");
        }
    }

    #[test]
    fn a_failed_run_is_read_from_its_summary() {
        assert_eq!(
            failure_reported(
                "running 3 tests\n...\ntest result: FAILED. 2 passed; 1 failed; 0 ignored\n"
            )
            .as_deref(),
            Some("test result: FAILED. 2 passed; 1 failed; 0 ignored")
        );
        assert!(failure_reported("===== 1 failed, 4 passed in 0.21s =====").is_some());
        assert!(failure_reported("Tests:       1 failed, 3 passed, 4 total").is_some());
        assert!(
            failure_reported("--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/p\t0.01s")
                .is_some()
        );
    }

    #[test]
    fn a_passing_run_reports_no_failure() {
        for output in [
            "test result: ok. 12 passed; 0 failed; 0 ignored",
            "tests/test_io.py::test_fails_gracefully PASSED\n==== 5 passed, 1 xfailed in 0.40s ====",
            "--- PASS: TestFailureMode (0.00s)\nok  \texample.com/p\t0.01s",
            "Tests:       4 passed, 4 total",
        ] {
            assert_eq!(failure_reported(output), None, "{output}");
        }
    }

    #[test]
    fn only_the_end_of_a_long_output_is_read() {
        let output = format!(
            "test result: FAILED. 0 passed; 1 failed\n{}",
            "ok\n".repeat(5000)
        );
        assert_eq!(failure_reported(&output), None);
        let long = format!("{}\nFAILED (failures=1)\n", "é".repeat(100_000));
        assert_eq!(
            crate::actions::tail(&long, TAIL_BYTES).len(),
            TAIL_BYTES - 1
        );
        assert_eq!(
            failure_reported(&long).as_deref(),
            Some("FAILED (failures=1)")
        );
    }
}
