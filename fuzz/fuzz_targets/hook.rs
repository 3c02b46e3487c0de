//! The whole `guard hook` path in-process (no watchdog), with HOME and the
//! XDG directories in a temp dir and no judge: every answer is one the agent
//! reads (exit 0, or 2 with a reason).
#![no_main]
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
static RUNS: AtomicU64 = AtomicU64::new(0);

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        guard::robustness::isolate_environment(dir.path()).expect("isolated environment");
        dir
    });
    guard::robustness::check_hook(data);
    // The decision log grows by a line per run: start it again now and then.
    if RUNS.fetch_add(1, Ordering::Relaxed) % 10_000 == 9_999 {
        let _ = std::fs::remove_dir_all(dir.path().join("state"));
    }
});
