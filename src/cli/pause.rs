//! `guard pause [--for DURATION]` and `guard resume`: guard off and on for
//! every agent, each switch logged.

use super::setup;
use guard::logview::time;
use std::path::PathBuf;

/// Runs `guard pause`.
pub fn pause(duration: Option<String>, config_path: Option<PathBuf>) -> u8 {
    let duration = match duration.as_deref().map(time::parse_duration).transpose() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("guard pause: --for {e}");
            return 2;
        }
    };
    let log_dir = match setup::config(config_path, None, None) {
        Ok(c) => c.log.dir(),
        Err(e) => {
            eprintln!("guard pause: {e}");
            return 2;
        }
    };
    match guard::control::pause(&guard::paths::state_dir(), &log_dir, duration) {
        Ok(rec) => {
            println!("{}", rec["reason"].as_str().unwrap_or("guard paused"));
            0
        }
        Err(e) => {
            eprintln!("guard pause: {e}");
            2
        }
    }
}

/// Runs `guard resume`.
pub fn resume(config_path: Option<PathBuf>) -> u8 {
    let log_dir = match setup::config(config_path, None, None) {
        Ok(c) => c.log.dir(),
        Err(e) => {
            eprintln!("guard resume: {e}");
            return 2;
        }
    };
    match guard::control::resume(&guard::paths::state_dir(), &log_dir) {
        Ok((_, rec)) => {
            println!("{}", rec["reason"].as_str().unwrap_or("guard resumed"));
            0
        }
        Err(e) => {
            eprintln!("guard resume: {e}");
            2
        }
    }
}
