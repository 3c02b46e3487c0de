//! Benchmarks of the judge path (plain timing loops, `cargo bench --bench judge`):
//! redaction of a typical turn-end text with and without secrets, and the
//! wall time of five concurrent judgments against one (a judge that sleeps
//! 200 ms), which should be about the same.

use guard::detector::JudgeSpec;
use guard::judge::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use guard::redact::redact;
use std::time::{Duration, Instant};

fn time<F: FnMut()>(name: &str, iterations: u32, mut f: F) {
    f();
    let started = Instant::now();
    for _ in 0..iterations {
        f();
    }
    let per = started.elapsed() / iterations;
    println!("{name:<48} {per:>12.2?} per iteration ({iterations} iterations)");
}

fn main() {
    let prose = include_str!("../tests/corpus/agent-prose.txt");
    let text: String = prose.chars().cycle().take(4000).collect();
    time("redact 4 KB of prose (no secrets)", 2000, || {
        std::hint::black_box(redact(&text));
    });
    let with_secrets = format!(
        "{}\nexport GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\nDB_PASSWORD=hX9#kq2Lw!7z\n",
        &text[..3900]
    );
    time("redact 4 KB with two secrets", 2000, || {
        std::hint::black_box(redact(&with_secrets));
    });

    let spec: JudgeSpec = serde_json::from_value(serde_json::json!({
        "prompt": "p",
        "fields": [{"name": "v", "type": "boolean", "required": true}],
        "violation": "v"
    }))
    .expect("spec");
    let script = "nonce=$(grep -- '--- text-end ' | tail -n1 | cut -d' ' -f3); sleep 0.2; \
                  printf '{\"v\": false, \"nonce\": \"%s\"}' \"$nonce\"";
    let cfg = JudgeConfig {
        backend: "command".into(),
        command: vec!["sh".into(), "-c".into(), script.into()],
        cache_ttl_s: 0,
        ..JudgeConfig::default()
    };
    for n in [1usize, 5] {
        let names: Vec<String> = (0..n).map(|i| format!("detector-{i}")).collect();
        let requests: Vec<JudgeRequest> = names
            .iter()
            .map(|d| JudgeRequest {
                detector: d,
                spec: &spec,
                text: &text,
                facts: None,
            })
            .collect();
        time(&format!("judge_all, {n} judgment(s) of 200 ms"), 5, || {
            let ctx = JudgeContext {
                deadline: Instant::now() + Duration::from_secs(10),
                cache_dir: None,
            };
            std::hint::black_box(judge_all(&cfg, &requests, &ctx));
        });
    }
}
