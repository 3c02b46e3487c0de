//! The `http` backend against a tiny OpenAI-compatible server on loopback.

mod common;

use common::spec;
use guard::judge::{judge_all, JudgeConfig, JudgeContext, JudgeRequest};
use guard::verdict::{JudgeOutcome, JudgeReport};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A request the server received: headers (lowercased names) and JSON body.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

/// How the server answers a request: `None` means never answer.
type Handler = fn(&Value, usize) -> Option<(u16, String)>;

/// Starts a server on 127.0.0.1 answering with `handler`; returns its base URL
/// and what it has seen.
fn serve(handler: Handler) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut headers = Vec::new();
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
                    if k == "content-length" {
                        length = v.parse().unwrap();
                    }
                    headers.push((k, v));
                }
            }
            let mut body = vec![0u8; length];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            log.lock().unwrap().push(Seen {
                path,
                headers,
                body: body.clone(),
            });
            match handler(&body, n) {
                Some((status, text)) => {
                    let reply = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                        text.len()
                    );
                    let _ = stream.write_all(reply.as_bytes());
                }
                None => std::thread::sleep(Duration::from_secs(30)),
            }
        }
    });
    (url, seen)
}

/// The nonce of the envelope in a request body.
fn nonce_of(body: &Value) -> String {
    let prompt = body["messages"][0]["content"].as_str().unwrap_or("");
    let line = prompt
        .lines()
        .rev()
        .find(|l| l.starts_with("--- text-end "))
        .unwrap_or("");
    line.trim_start_matches("--- text-end ")
        .trim_end_matches(" ---")
        .to_string()
}

fn completion(content: &str) -> String {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        .to_string()
}

fn judge(url: &str, text: &str, deadline: Duration) -> JudgeReport {
    let cfg = JudgeConfig {
        backend: "http".into(),
        url: Some(url.into()),
        model: Some("judge-mini".into()),
        // Cargo sets this for every test process: the key is "guard".
        api_key_env: Some("CARGO_PKG_NAME".into()),
        timeout_ms: 20_000,
        cache_ttl_s: 0,
        ..JudgeConfig::default()
    };
    let s = spec();
    let requests = [JudgeRequest {
        detector: "http-test",
        spec: &s,
        text,
        facts: None,
    }];
    let ctx = JudgeContext {
        deadline: Instant::now() + deadline,
        cache_dir: None,
    };
    judge_all(&cfg, &requests, &ctx).remove(0)
}

#[test]
fn structured_answer_becomes_a_verdict() {
    fn handler(body: &Value, _: usize) -> Option<(u16, String)> {
        let answer =
            json!({"violation_found": true, "nonce": nonce_of(body), "reason": "pushes untested"});
        Some((200, completion(&answer.to_string())))
    }
    let (url, seen) = serve(handler);
    let secret = "sk-proj-Tq8Wm2Xv5Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2Op5Qr8St";
    let report = judge(
        &url,
        &format!("Pushing now with {secret}"),
        Duration::from_secs(20),
    );
    assert_eq!(report.outcome, JudgeOutcome::Violation, "{report:?}");
    assert_eq!(report.model.as_deref(), Some("judge-mini"));
    assert_eq!(report.backend.as_deref(), Some("http"));
    let seen = seen.lock().unwrap();
    let request = &seen[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert!(request
        .headers
        .contains(&("authorization".into(), "Bearer guard".into())));
    assert_eq!(request.body["model"], "judge-mini");
    assert_eq!(request.body["response_format"]["type"], "json_schema");
    assert!(
        !request.body.to_string().contains(secret),
        "the secret reached the endpoint"
    );
}

#[test]
fn a_server_rejecting_the_schema_is_asked_for_a_json_object() {
    fn handler(body: &Value, _: usize) -> Option<(u16, String)> {
        if body["response_format"]["type"] == "json_schema" {
            return Some((
                400,
                json!({"error": {"message": "response_format json_schema unsupported"}})
                    .to_string(),
            ));
        }
        let answer = json!({"violation_found": false, "nonce": nonce_of(body)});
        Some((200, completion(&format!("Sure.\n```json\n{answer}\n```"))))
    }
    let (url, seen) = serve(handler);
    let report = judge(
        &url,
        "All tests pass; shall I commit?",
        Duration::from_secs(20),
    );
    assert_eq!(report.outcome, JudgeOutcome::Allow, "{report:?}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].body["response_format"],
        json!({"type": "json_object"})
    );
}

#[test]
fn server_faults_fail() {
    fn error(_: &Value, _: usize) -> Option<(u16, String)> {
        Some((500, "{\"error\": \"boom\"}".into()))
    }
    fn wrong_nonce(_: &Value, _: usize) -> Option<(u16, String)> {
        Some((
            200,
            completion("{\"violation_found\": false, \"nonce\": \"guessed\"}"),
        ))
    }
    fn no_content(_: &Value, _: usize) -> Option<(u16, String)> {
        Some((200, "{\"choices\": []}".into()))
    }
    for (name, handler) in [
        ("500", error as Handler),
        ("nonce", wrong_nonce),
        ("empty", no_content),
    ] {
        let (url, _) = serve(handler);
        let report = judge(&url, "x", Duration::from_secs(20));
        assert_eq!(report.outcome, JudgeOutcome::Fail, "{name}: {report:?}");
    }
}

#[test]
fn a_silent_server_fails_within_the_deadline() {
    fn silent(_: &Value, _: usize) -> Option<(u16, String)> {
        None
    }
    let (url, _) = serve(silent);
    let started = Instant::now();
    let report = judge(&url, "x", Duration::from_millis(800));
    assert_eq!(report.outcome, JudgeOutcome::Fail);
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn missing_url_or_key_variable_fails() {
    let s = spec();
    let requests = [JudgeRequest {
        detector: "d",
        spec: &s,
        text: "x",
        facts: None,
    }];
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(5),
        cache_dir: None,
    };
    let no_url = JudgeConfig {
        backend: "http".into(),
        model: Some("m".into()),
        ..JudgeConfig::default()
    };
    assert!(judge_all(&no_url, &requests, &ctx)[0]
        .error
        .as_deref()
        .unwrap_or("")
        .contains("judge.url"));
    let no_key = JudgeConfig {
        backend: "http".into(),
        model: Some("m".into()),
        url: Some("http://127.0.0.1:9/v1".into()),
        api_key_env: Some("GUARD_TEST_SURELY_UNSET_VARIABLE".into()),
        ..JudgeConfig::default()
    };
    assert!(judge_all(&no_key, &requests, &ctx)[0]
        .error
        .as_deref()
        .unwrap_or("")
        .contains("GUARD_TEST_SURELY_UNSET_VARIABLE"));
}

#[test]
fn a_combined_call_sends_one_request_with_the_combined_schema() {
    fn handler(body: &Value, _: usize) -> Option<(u16, String)> {
        let answer = json!({"nonce": nonce_of(body),
            "first": {"violation_found": true, "reason": "r1"},
            "second": {"violation_found": false, "reason": "r2"}});
        Some((200, completion(&answer.to_string())))
    }
    let (url, seen) = serve(handler);
    let cfg = JudgeConfig {
        backend: "http".into(),
        url: Some(url),
        model: Some("judge-mini".into()),
        timeout_ms: 20_000,
        cache_ttl_s: 0,
        ..JudgeConfig::default()
    };
    let s = spec();
    let requests = [
        JudgeRequest {
            detector: "first",
            spec: &s,
            text: "Pushing now.",
            facts: None,
        },
        JudgeRequest {
            detector: "second",
            spec: &s,
            text: "Pushing now.",
            facts: None,
        },
    ];
    let ctx = JudgeContext {
        deadline: Instant::now() + Duration::from_secs(20),
        cache_dir: None,
    };
    let reports = judge_all(&cfg, &requests, &ctx);
    assert_eq!(reports[0].outcome, JudgeOutcome::Violation, "{reports:?}");
    assert_eq!(reports[1].outcome, JudgeOutcome::Allow, "{reports:?}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one request for both detectors");
    let schema = &seen[0].body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["required"], json!(["nonce", "first", "second"]));
    assert_eq!(
        schema["properties"]["first"]["required"],
        json!(["violation_found", "evidence", "reason"])
    );
}
