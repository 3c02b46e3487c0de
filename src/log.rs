//! The decision log: one JSON line per decision, appended to
//! `<log.dir>/decisions-YYYY-MM-DD.jsonl` with a single `write` on a file
//! opened with `O_APPEND` and mode 0600, so concurrent hooks never
//! interleave lines. It never holds a raw secret: judged text is only kept
//! when `log.keep_text` is on, and then redacted.

use serde_json::Value;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// (year, month, day) of a Unix day number (days since 1970-01-01).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The current time as RFC 3339 UTC with milliseconds, and the date part.
pub fn now_rfc3339() -> (String, String) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    let date = format!("{y:04}-{m:02}-{d:02}");
    let ts = format!(
        "{date}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    );
    (ts, date)
}

/// A fresh decision id: time, process and a per-process counter.
pub fn decision_id() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format!(
        "{:x}-{:x}-{}",
        now.as_millis(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The log file for a date.
pub fn file_for(dir: &Path, date: &str) -> PathBuf {
    dir.join(format!("decisions-{date}.jsonl"))
}

/// Appends one record (a JSON object) as one line, in one write.
pub fn append<T: serde::Serialize + ?Sized>(
    dir: &Path,
    date: &str,
    record: &T,
) -> std::io::Result<PathBuf> {
    let path = file_for(dir, date);
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = crate::state::open_in_dir(
        &path,
        OpenOptions::new().append(true).create(true).mode(0o600),
    )?;
    f.write_all(&line)?;
    Ok(path)
}

/// Every record in the log files of a directory, oldest file first
/// (unreadable lines are skipped).
pub fn read_all(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("decisions-") && n.ends_with(".jsonl"))
    });
    files.sort();
    let mut out = Vec::new();
    for f in files {
        if let Ok(text) = fs::read_to_string(&f) {
            out.extend(
                text.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
