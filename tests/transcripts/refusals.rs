//! Files that are not transcripts: missing, empty, directory, device, FIFO,
//! garbage. Each must be answered at once, without opening what could block.

use super::*;
use guard::transcript::TranscriptError;
use std::fs::File;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn empty_file_has_no_text() {
    let dir = ScratchDir::new();
    let path = dir.path("empty.jsonl");
    File::create(&path).unwrap();
    for format in [ClaudeCode, Codex, Gemini] {
        assert_eq!(last_turn_text(format, &path, 1024).unwrap(), None);
    }
}

#[test]
fn missing_file_is_an_error() {
    let error = last_turn_text(
        ClaudeCode,
        Path::new("/nonexistent/guard/transcript.jsonl"),
        1024,
    )
    .unwrap_err();
    assert!(matches!(error, TranscriptError::Missing { .. }), "{error}");
}

#[test]
fn directory_is_refused() {
    let dir = ScratchDir::new();
    let error = last_turn_text(Codex, &dir.0, 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile {
                kind: "directory",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn dev_zero_is_refused() {
    let error = last_turn_text(ClaudeCode, Path::new("/dev/zero"), 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile { kind: "device", .. }
        ),
        "{error}"
    );
}

#[test]
fn symlink_to_a_device_is_refused() {
    let dir = ScratchDir::new();
    let link = dir.path("transcript.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let error = last_turn_text(ClaudeCode, &link, 1024).unwrap_err();
    assert!(
        matches!(
            error,
            TranscriptError::NotRegularFile { kind: "device", .. }
        ),
        "{error}"
    );
}

#[test]
fn fifo_is_refused_without_waiting_for_a_writer() {
    let dir = ScratchDir::new();
    let fifo = dir.path("transcript.jsonl");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path and a plain mode.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    // Opening a FIFO for reading would wait for a writer forever; the reader
    // runs on its own thread so that a regression fails instead of hanging.
    // Every format: each may look at the file before reading it.
    for format in TranscriptFormat::ALL {
        let (sender, receiver) = mpsc::channel();
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let _ = sender.send(last_turn(format, &fifo, 1024));
        });
        let result = receiver
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the {format} reader blocked on a FIFO"));
        let error = result.unwrap_err();
        assert!(
            matches!(error, TranscriptError::NotRegularFile { kind: "fifo", .. }),
            "{format}: {error}"
        );
    }
}

#[test]
fn garbage_file_is_an_error() {
    let dir = ScratchDir::new();
    let path = dir.path("garbage.jsonl");
    let garbage: String = (0..100).map(|i| format!("not json line {i}\n")).collect();
    fs::write(&path, garbage).unwrap();
    let error = last_turn_text(ClaudeCode, &path, 1024).unwrap_err();
    assert!(
        matches!(error, TranscriptError::TooManyMalformedLines { .. }),
        "{error}"
    );
}
