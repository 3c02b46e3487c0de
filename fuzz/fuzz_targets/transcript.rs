//! Transcripts of every format, read from a file holding the input.
#![no_main]
use std::sync::OnceLock;

static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // In memory where there is a tmpfs: the target writes a file per input.
    let dir = DIR.get_or_init(|| {
        tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .expect("temp dir")
    });
    guard::robustness::check_transcript(data, dir.path());
});
