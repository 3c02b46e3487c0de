//! Fault injection, for tests: `GUARD_FAULT=<stage>` makes the hook panic
//! at that stage, `GUARD_FAULT=stall:<stage>` makes it hang there (for the
//! watchdog), `GUARD_FAULT=abort:<stage>` aborts the process there, answering
//! nothing (a crash as the agent sees it, for its fail-closed switch). Only debug builds and builds with the `fault-injection`
//! feature read the variable; in any other build [`at`] is empty.

/// The hook's stages, by the name `GUARD_FAULT` gives them.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stage {
    Parse,
    Config,
    Transcript,
    Engine,
    Judge,
    Log,
    Render,
}

impl Stage {
    #[cfg_attr(
        not(any(debug_assertions, feature = "fault-injection")),
        allow(dead_code)
    )]
    fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Config => "config",
            Stage::Transcript => "transcript",
            Stage::Engine => "engine",
            Stage::Judge => "judge",
            Stage::Log => "log",
            Stage::Render => "render",
        }
    }
}

/// Panics, aborts or hangs at `stage` when `GUARD_FAULT` says so.
#[cfg(any(debug_assertions, feature = "fault-injection"))]
pub(super) fn at(stage: Stage) {
    let Ok(fault) = std::env::var("GUARD_FAULT") else {
        return;
    };
    if fault == stage.name() {
        panic!("injected fault at {}", stage.name());
    }
    if fault.strip_prefix("abort:") == Some(stage.name()) {
        std::process::abort();
    }
    if fault.strip_prefix("stall:") == Some(stage.name()) {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

/// Nothing: this build reads no `GUARD_FAULT`.
#[cfg(not(any(debug_assertions, feature = "fault-injection")))]
#[inline(always)]
pub(super) fn at(_: Stage) {}
