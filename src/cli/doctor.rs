//! `guard doctor [--json]`: prints every check of `guard::install::doctor`
//! with what to do about each problem; exits 1 when something is broken.

use guard::install::doctor::{self, DoctorOptions, Status};
use std::path::PathBuf;

/// Runs the doctor; returns the exit code.
pub fn run(json: bool, config: Option<PathBuf>) -> u8 {
    let exe = std::env::current_exe()
        .ok()
        .map(|e| e.canonicalize().unwrap_or(e))
        .unwrap_or_else(|| PathBuf::from("guard"));
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let report = doctor::run(&DoctorOptions {
        config_path: config,
        cwd,
        guard_exe: exe,
    });
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("guard doctor: {e}"),
        }
    } else {
        let mut section: Option<Option<String>> = None;
        for f in &report.findings {
            if section.as_ref() != Some(&f.agent) {
                println!("{}", f.agent.as_deref().unwrap_or("guard"));
                section = Some(f.agent.clone());
            }
            let tag = match f.status {
                Status::Ok => "ok   ",
                Status::Info => "info ",
                Status::Warn => "warn ",
                Status::Error => "ERROR",
            };
            println!("  {tag} {}: {}", f.check, f.message);
            if let Some(fix) = &f.fix {
                println!("        fix: {fix}");
            }
        }
        println!(
            "{}",
            if report.ok {
                "guard doctor: no problem found"
            } else {
                "guard doctor: problems found (see ERROR lines)"
            }
        );
    }
    u8::from(!report.ok)
}
