//! Tests of `examples/stub_model` on its own, over loopback HTTP with no agent
//! CLI: each wire protocol's reply shape, chunked request bodies, script turn
//! selection (re-read on every request) and the JSONL log the e2e tests read.

mod e2e;

use e2e::stub::{write_script, StubLog};
use e2e::Turn;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A stub listening on a free loopback port; killed on drop.
struct Stub {
    child: Child,
    port: u16,
    script: PathBuf,
    log: PathBuf,
}

impl Stub {
    fn start(name: &str, turns: &[Turn]) -> Stub {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("stub-model")
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (script, log, port_file) = (
            dir.join("script.json"),
            dir.join("log.jsonl"),
            dir.join("port"),
        );
        write_script(&script, turns);
        let child = Command::new(e2e::stub_bin())
            .args(["--port", "0", "--script"])
            .arg(&script)
            .arg("--log")
            .arg(&log)
            .arg("--port-file")
            .arg(&port_file)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                break port;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        Stub {
            child,
            port,
            script,
            log,
        }
    }

    /// Sends one raw request; returns (status, headers, body).
    fn send(&self, head: &str, body: &[u8]) -> (u16, String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        let reply = String::from_utf8(reply).unwrap();
        let (headers, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
        let status = headers
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, headers.to_string(), body.to_string())
    }

    fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let body = body.to_string();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let (status, _, reply) = self.send(&head, body.as_bytes());
        (status, reply)
    }

    fn log(&self) -> StubLog {
        StubLog::read(&self.log)
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON data lines of an SSE body.
fn sse_data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn anthropic_request(user: &str, stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "tools": [{"name": "Bash"}],
           "messages": [{"role": "user", "content": [{"type": "text", "text": user}]}]})
}

#[test]
fn anthropic_json_and_sse_follow_the_script() {
    let stub = Stub::start(
        "anthropic",
        &[
            Turn::text("after feedback").when_last_user_contains("FEEDBACK"),
            Turn::shell_then("ls", "listed"),
        ],
    );
    let (status, body) = stub.post("/v1/messages", &anthropic_request("hi", false));
    assert_eq!(status, 200);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["stop_reason"], "tool_use");
    assert_eq!(reply["content"][0]["name"], "Bash");
    assert_eq!(reply["content"][0]["input"]["command"], "ls");

    let mut answered = anthropic_request("hi", true);
    answered["messages"].as_array_mut().unwrap().extend([
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"},
                                            {"type": "text", "text": "<system-reminder>x</system-reminder>"}]}),
    ]);
    let (_, body) = stub.post("/v1/messages?beta=true", &answered);
    let events = sse_data(&body);
    assert_eq!(events.first().unwrap()["type"], "message_start");
    assert_eq!(events.last().unwrap()["type"], "message_stop");
    let delta = events
        .iter()
        .find(|e| e["type"] == "content_block_delta")
        .unwrap();
    assert_eq!(delta["delta"]["text"], "listed");

    let (_, body) = stub.post(
        "/v1/messages",
        &anthropic_request("FEEDBACK: verify first", false),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["content"][0]["text"],
        "after feedback"
    );

    let calls = stub.log().model_calls();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].reply["kind"], "shell");
    assert_eq!(
        calls[1].last().unwrap().text,
        "a.txt",
        "the tool result is the last entry"
    );
    assert_eq!(calls[2].turn, Some(0));
}

#[test]
fn responses_sse_carries_a_function_call_then_text() {
    let stub = Stub::start("responses", &[Turn::shell_then("git status", "clean")]);
    let request = json!({"model": "m", "stream": true, "tools": [{"type": "function", "name": "exec_command"}],
                         "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}]});
    let (_, body) = stub.post("/v1/responses", &request);
    let events = sse_data(&body);
    let done = events
        .iter()
        .find(|e| e["type"] == "response.output_item.done")
        .unwrap();
    assert_eq!(done["item"]["name"], "exec_command");
    assert_eq!(
        serde_json::from_str::<Value>(done["item"]["arguments"].as_str().unwrap()).unwrap()["cmd"],
        "git status"
    );
    assert_eq!(events.last().unwrap()["type"], "response.completed");

    let mut answered = request.clone();
    answered["input"].as_array_mut().unwrap().extend([
        json!({"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{}"}),
        json!({"type": "function_call_output", "call_id": "c1", "output": "nothing to commit"}),
    ]);
    let (_, body) = stub.post("/v1/responses", &answered);
    let completed = sse_data(&body).pop().unwrap();
    assert_eq!(
        completed["response"]["output"][0]["content"][0]["text"],
        "clean"
    );
}

#[test]
fn chat_completions_answers_the_judge_and_honours_http_status() {
    let stub = Stub::start(
        "chat",
        &[
            Turn::text("")
                .http_status(503)
                .when_last_user_contains("overloaded"),
            Turn::text(r#"{"verdict": "pass"}"#).when_offers_tools(false),
        ],
    );
    let request = json!({"model": "judge", "messages": [{"role": "system", "content": "judge"}, {"role": "user", "content": "transcript"}]});
    let (status, body) = stub.post("/v1/chat/completions", &request);
    assert_eq!(status, 200);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        reply["choices"][0]["message"]["content"],
        r#"{"verdict": "pass"}"#
    );
    assert_eq!(reply["choices"][0]["finish_reason"], "stop");

    let overloaded =
        json!({"model": "judge", "messages": [{"role": "user", "content": "overloaded?"}]});
    assert_eq!(stub.post("/v1/chat/completions", &overloaded).0, 503);
}

#[test]
fn gemini_streams_and_chunked_bodies_are_read() {
    let stub = Stub::start("gemini", &[Turn::text("hello gemini")]);
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).to_string();
    let (first, rest) = body.split_at(body.len() / 2);
    let chunked = format!(
        "{:x}\r\n{first}\r\n{:x}\r\n{rest}\r\n0\r\n\r\n",
        first.len(),
        rest.len()
    );
    let head = "POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse HTTP/1.1\r\nHost: x\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let (status, headers, reply) = stub.send(head, chunked.as_bytes());
    assert_eq!(status, 200);
    assert!(headers.to_ascii_lowercase().contains("text/event-stream"));
    let events = sse_data(&reply);
    assert_eq!(
        events[0]["candidates"][0]["content"]["parts"][0]["text"],
        "hello gemini"
    );
    assert_eq!(
        stub.log().model_calls()[0].last_user(),
        "hi",
        "chunked body was decoded"
    );
}

#[test]
fn script_is_reread_and_probes_are_logged() {
    let stub = Stub::start("reread", &[Turn::text("one")]);
    let (status, headers, body) = stub.send(
        "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert_eq!((status, body.as_str()), (200, ""));
    assert!(headers.contains("Content-Length"));
    let (_, body) = stub.post("/v1/messages/count_tokens", &json!({"messages": []}));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["input_tokens"],
        42
    );

    let ask = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let text = |stub: &Stub| {
        let (_, body) = stub.post("/v1/messages", &ask);
        serde_json::from_str::<Value>(&body).unwrap()["content"][0]["text"].clone()
    };
    assert_eq!(text(&stub), "one");
    write_script(&stub.script, &[Turn::text("two")]);
    assert_eq!(text(&stub), "two");
    write_script(
        &stub.script,
        &[Turn::text("never").when_last_user_contains("absent")],
    );
    assert!(text(&stub)
        .as_str()
        .unwrap()
        .contains("no scripted turn matched"));

    let log = stub.log();
    assert_eq!(
        log.records.len(),
        5,
        "every request is logged, probes included"
    );
    assert_eq!(log.records[0]["method"], "HEAD");
    assert_eq!(log.model_calls().len(), 3);
}

/// The e2e test judge (guard's `command` backend) answers per detector and
/// echoes the prompt's nonce.
#[test]
fn test_judge_answers_per_detector_with_the_nonce() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stub-model/judge");
    let _ = std::fs::remove_dir_all(&dir);
    let judge = e2e::guard::TestJudge::new(&dir, &json!({"nonce": "__NONCE__", "verified": true}));
    judge.answer(
        "scope-check",
        &json!({"nonce": "__NONCE__", "shrunk": false}),
    );
    let ask = |detector: &str| ask_test_judge(&judge.path, detector);
    assert_eq!(
        ask("commit-before-verification"),
        json!({"nonce": "Zq81xK3", "verified": true})
    );
    assert_eq!(
        ask("scope-check"),
        json!({"nonce": "Zq81xK3", "shrunk": false})
    );
    assert_eq!(judge.calls(), ["commit-before-verification", "scope-check"]);
    assert!(judge.prompt("scope-check").unwrap().contains("<<<text>>>"));
}

/// The e2e test judge's answer to one envelope, asked for `detectors`
/// (`GUARD_DETECTOR`).
fn ask_test_judge(judge: &std::path::Path, detectors: &str) -> Value {
    let mut child = Command::new(judge)
        .env("GUARD_DETECTOR", detectors)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"Judge this.\n--- text-start Zq81xK3 ---\n<<<text>>>\n--- text-end Zq81xK3 ---\n",
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// For a combined call (`GUARD_DETECTOR=a,b`) the e2e test judge answers one
/// object keyed by detector, with the nonce at the top level.
#[test]
fn test_judge_answers_a_combined_call_per_section() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stub-model/judge-combined");
    let _ = std::fs::remove_dir_all(&dir);
    let judge = e2e::guard::TestJudge::new(&dir, &json!({"nonce": "__NONCE__", "verified": true}));
    judge.answer("scope-check", &json!({"shrunk": false}));
    let answer = ask_test_judge(&judge.path, "commit-before-verification,scope-check");
    assert_eq!(
        answer,
        json!({"nonce": "Zq81xK3",
               "commit-before-verification": {"nonce": "Zq81xK3", "verified": true},
               "scope-check": {"shrunk": false}})
    );
    assert_eq!(judge.calls(), ["commit-before-verification", "scope-check"]);
    assert!(judge.prompt("scope-check").unwrap().contains("<<<text>>>"));
}

/// `capture` lets the stub play an LLM judge: it echoes the prompt's nonce.
#[test]
fn capture_fills_the_text_from_the_request() {
    let stub = Stub::start(
        "capture",
        &[Turn::text(r#"{"nonce": "$1", "ok": true}"#)
            .capture("--- text-start ([A-Za-z0-9]+) ---")
            .when_api("chat")],
    );
    let request = json!({"model": "judge", "messages": [{"role": "user",
        "content": "Judge.\n--- text-start Ab12Cd34 ---\nhello\n--- text-end Ab12Cd34 ---"}]});
    let (_, body) = stub.post("/v1/chat/completions", &request);
    let reply: Value = serde_json::from_str(&body).unwrap();
    let answer: Value =
        serde_json::from_str(reply["choices"][0]["message"]["content"].as_str().unwrap()).unwrap();
    assert_eq!(answer, json!({"nonce": "Ab12Cd34", "ok": true}));
}

/// `call_tool` answers with a call of the named tool (when offered), its
/// arguments parsed from the text: how Claude Code's `--json-schema` wants it.
#[test]
fn call_tool_answers_with_the_offered_tool() {
    let stub = Stub::start(
        "call-tool",
        &[Turn::text(r#"{"nonce": "$1"}"#)
            .capture("nonce=([a-z]+)")
            .call_tool("StructuredOutput")],
    );
    let offered = json!({"model": "m", "tools": [{"name": "StructuredOutput"}],
        "messages": [{"role": "user", "content": "judge nonce=abc"}]});
    let (_, body) = stub.post("/v1/messages", &offered);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["content"][0]["name"], "StructuredOutput");
    assert_eq!(reply["content"][0]["input"], json!({"nonce": "abc"}));

    let not_offered =
        json!({"model": "m", "messages": [{"role": "user", "content": "judge nonce=abc"}]});
    let (_, body) = stub.post("/v1/messages", &not_offered);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["content"][0]["text"], r#"{"nonce": "abc"}"#);
}

/// `tools` mixes shell commands and named tool calls, played one per request
/// in order; a named tool the request does not offer is said so in a text.
#[test]
fn named_tool_calls_are_played_in_order() {
    let calls = [
        e2e::stub::named_call("Write", json!({"file_path": "/w/a.txt", "content": "x"})),
        json!("cargo test"),
    ];
    let stub = Stub::start("named-calls", &[Turn::calls_then(&calls, "Done.")]);
    let tools = json!([{"name": "Bash"}, {"name": "Write"}]);
    let user = json!({"role": "user", "content": "go"});
    let first = json!({"model": "m", "tools": tools, "messages": [user]});
    let (_, body) = stub.post("/v1/messages", &first);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["content"][0]["name"], "Write");
    assert_eq!(reply["content"][0]["input"]["file_path"], "/w/a.txt");

    let result = |id: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]});
    let call = |name: &str, id: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": {}}]});
    let second = json!({"model": "m", "tools": tools,
        "messages": [user, call("Write", "t1"), result("t1")]});
    let (_, body) = stub.post("/v1/messages", &second);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["content"][0]["name"], "Bash");
    assert_eq!(reply["content"][0]["input"]["command"], "cargo test");

    let last = json!({"model": "m", "tools": tools, "messages": [
        user, call("Write", "t1"), result("t1"), call("Bash", "t2"), result("t2")]});
    let (_, body) = stub.post("/v1/messages", &last);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["content"][0]["text"], "Done.");

    let no_write = json!({"model": "m", "tools": [{"name": "Bash"}], "messages": [user]});
    let (_, body) = stub.post("/v1/messages", &no_write);
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert!(reply["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("does not offer tool Write"));
}
