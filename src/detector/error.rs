//! Why a detector cannot be used: a file that does not parse, a pattern or
//! rule that is invalid, a config naming a detector that does not exist.
//! Each message names the file or the detector, for the person who wrote it.

/// A detector file that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DetectorError {
    /// The YAML does not parse or does not fit the detector format.
    #[error("detector file {source_name}{}: {message}", loc(*.line, *.column))]
    Parse {
        /// The file.
        source_name: String,
        /// 1-based line.
        line: Option<u64>,
        /// 1-based column.
        column: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// A pattern or rule in it is invalid.
    #[error("detector `{detector}`: {message}")]
    Invalid {
        /// The detector's name.
        detector: String,
        /// What is wrong.
        message: String,
    },
    /// The config names a detector that does not exist.
    #[error("config: detector `{0}` is neither built in nor given a `file:`")]
    Unknown(String),
}

fn loc(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        _ => String::new(),
    }
}
