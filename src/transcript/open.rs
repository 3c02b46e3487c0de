//! Opening a transcript without ever blocking: the path must name a regular
//! file (checked before opening, and again on the open handle), and the open
//! itself is non-blocking, so a FIFO or device swapped in cannot stall the hook.

use super::TranscriptError;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for reading if it is a regular file; returns the handle and
/// the file's metadata taken from the handle.
pub(crate) fn open_regular_file(path: &Path) -> Result<(File, Metadata), TranscriptError> {
    let unreadable = |source| TranscriptError::Unreadable {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => TranscriptError::Missing {
            path: path.to_owned(),
        },
        _ => unreadable(error),
    })?;
    refuse_non_regular(path, &metadata)?;
    let file = open_without_blocking(path).map_err(unreadable)?;
    // The path may have been swapped between the check and the open.
    let metadata = file.metadata().map_err(unreadable)?;
    refuse_non_regular(path, &metadata)?;
    Ok((file, metadata))
}

fn refuse_non_regular(path: &Path, metadata: &Metadata) -> Result<(), TranscriptError> {
    if metadata.is_file() {
        return Ok(());
    }
    Err(TranscriptError::NotRegularFile {
        path: path.to_owned(),
        kind: file_kind(metadata),
    })
}

fn file_kind(metadata: &Metadata) -> &'static str {
    if metadata.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let file_type = metadata.file_type();
        if file_type.is_fifo() {
            return "fifo";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
    }
    "other"
}

/// Opens for reading with `O_NONBLOCK`, so that a FIFO swapped in after the
/// type check cannot make the open wait for a writer.
fn open_without_blocking(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}
