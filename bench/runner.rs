//! A small whole-process benchmark runner for `bench/compare.sh` (std only,
//! built with `rustc -O`).
//!
//! Usage: `runner RUNS WARMUP SPEC_FILE`. Each line of SPEC_FILE is
//! `name<TAB>stdin file<TAB>program<TAB>arg<TAB>arg…` (the environment is
//! inherited). The commands run round-robin, one run of each in turn, so that
//! a change in the machine's load touches every command alike (the machine
//! this was written on is shared), each round starting one command further
//! on. Each run's wall time is taken from spawn
//! to reaping, and its peak resident set size from `wait4`. Prints one line
//! per command: `name median_ms mean_ms p99_ms min_ms max_rss_kb runs`, and
//! exits 1 if any run of a command exits with a code outside 0 and 2 (the
//! codes a hook may answer with).

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::Instant;

/// `struct rusage` of Linux x86_64 and aarch64: two timevals, then 14 longs
/// of which the first is `ru_maxrss` (kilobytes).
#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss: i64,
    rest: [i64; 13],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut Rusage) -> i32;
}

struct Spec {
    name: String,
    stdin: String,
    argv: Vec<String>,
    times_ms: Vec<f64>,
    max_rss_kb: i64,
    bad_exit: Option<i32>,
}

fn run_once(spec: &mut Spec) {
    let stdin = match File::open(&spec.stdin) {
        Ok(f) => Stdio::from(f),
        Err(_) => Stdio::null(),
    };
    let started = Instant::now();
    let child = Command::new(&spec.argv[0])
        .args(&spec.argv[1..])
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("runner: cannot start {}: {e}", spec.argv[0]);
            std::process::exit(2);
        }
    };
    let mut status = 0i32;
    let mut usage = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss: 0,
        rest: [0; 13],
    };
    // SAFETY: the child is ours and not yet reaped; the pointers are valid.
    let pid = unsafe { wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    std::mem::forget(child);
    if pid <= 0 {
        eprintln!("runner: wait4 failed for {}", spec.name);
        std::process::exit(2);
    }
    let exited_normally = status & 0x7f == 0;
    let code = (status >> 8) & 0xff;
    if !exited_normally || (code != 0 && code != 2) {
        spec.bad_exit = Some(if exited_normally { code } else { -(status & 0x7f) });
    }
    spec.times_ms.push(elapsed);
    spec.max_rss_kb = spec.max_rss_kb.max(usage.maxrss);
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: runner RUNS WARMUP SPEC_FILE");
        std::process::exit(2);
    }
    let runs: usize = args[1].parse().unwrap_or(100);
    let warmup: usize = args[2].parse().unwrap_or(10);
    let text = std::fs::read_to_string(&args[3]).unwrap_or_default();
    let mut specs: Vec<Spec> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split('\t').map(str::to_string);
            let name = parts.next()?;
            let stdin = parts.next()?;
            let argv: Vec<String> = parts.collect();
            (!argv.is_empty()).then_some(Spec {
                name,
                stdin,
                argv,
                times_ms: Vec::new(),
                max_rss_kb: 0,
                bad_exit: None,
            })
        })
        .collect();
    for _ in 0..warmup {
        for s in specs.iter_mut() {
            run_once(s);
        }
    }
    for s in specs.iter_mut() {
        s.times_ms.clear();
    }
    // Each round starts one command further on, so that no command always
    // runs right after the same one (the row after the tiny floor read
    // 5 to 10 % slower, whichever build sat there).
    let n = specs.len();
    for round in 0..runs {
        for i in 0..n {
            run_once(&mut specs[(round + i) % n]);
        }
    }
    let mut failed = false;
    for s in &specs {
        let mut sorted = s.times_ms.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
        println!(
            "{}\t{:.3}\t{:.3}\t{:.3}\t{:.3}\t{}\t{}",
            s.name,
            percentile(&sorted, 0.5),
            mean,
            percentile(&sorted, 0.99),
            sorted.first().copied().unwrap_or(f64::NAN),
            s.max_rss_kb,
            sorted.len()
        );
        if let Some(code) = s.bad_exit {
            eprintln!("runner: {} exited with {code}", s.name);
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}
