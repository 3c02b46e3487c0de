//! `stub_model`: a loopback stand-in for the model APIs that the real agent
//! CLIs call, so the end-to-end tests can run Claude Code, Codex CLI and
//! Gemini CLI offline and prove that guard's hooks act on them.
//!
//! It speaks just enough of Anthropic Messages, OpenAI Responses, OpenAI Chat
//! Completions and Gemini (JSON and SSE) to play a scripted conversation (see
//! `script.rs`) and logs every exchange as one JSON line (see `log_line`).
//!
//! ```text
//! stub_model --script S.json --log L.jsonl [--port N] [--port-file F] [--loopback-up] [-- CMD ARGS...]
//! ```
//! `--port 0` (the default) picks a free port; the port is printed on stderr
//! and written to `--port-file`. With `-- CMD ARGS...` the stub runs CMD as a
//! child (stdin from /dev/null, env `STUB_MODEL_PORT` set), serves until CMD
//! exits, and exits with CMD's status: this ties the stub's life to the CLI
//! under test and lets both share one network namespace. `--loopback-up`
//! first brings up `lo`, which starts down in a fresh namespace (`unshare -n`).

mod conversation;
mod http;
mod loopback;
mod script;
mod wire;

use conversation::Api;
use script::{Reply, RequestView, Script};
use serde_json::{json, Value};
use std::fs::OpenOptions;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Command-line options.
struct Options {
    port: u16,
    port_file: Option<PathBuf>,
    script: PathBuf,
    log: PathBuf,
    loopback_up: bool,
    child: Vec<String>,
}

const USAGE: &str =
    "usage: stub_model --script S.json --log L.jsonl [--port N] [--port-file F] [--loopback-up] [-- CMD ARGS...]";

fn parse_options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut port, mut port_file, mut script, mut log) = (0u16, None, None, None);
    let mut child = Vec::new();
    let mut loopback_up = false;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--port" => port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--port-file" => port_file = Some(PathBuf::from(value()?)),
            "--script" => script = Some(PathBuf::from(value()?)),
            "--log" => log = Some(PathBuf::from(value()?)),
            "--loopback-up" => loopback_up = true,
            "--" => {
                child = args.by_ref().collect();
                break;
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(Options {
        port,
        port_file,
        script: script.ok_or(USAGE)?,
        log: log.ok_or(USAGE)?,
        loopback_up,
        child,
    })
}

/// State shared by the connection threads.
struct Shared {
    script: PathBuf,
    log: Mutex<std::fs::File>,
    sequence: AtomicU64,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("stub_model: {message}");
            return ExitCode::from(2);
        }
    };
    if options.loopback_up {
        if let Err(e) = loopback::bring_up() {
            eprintln!("stub_model: cannot bring up the loopback interface: {e}");
            return ExitCode::from(125);
        }
    }
    let log = match OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.log)
    {
        Ok(file) => file,
        Err(e) => {
            eprintln!("stub_model: cannot open log {}: {e}", options.log.display());
            return ExitCode::from(2);
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", options.port)) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "stub_model: cannot listen on 127.0.0.1:{}: {e}",
                options.port
            );
            return ExitCode::from(2);
        }
    };
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .unwrap_or(options.port);
    eprintln!("stub_model: listening on 127.0.0.1:{port}");
    if let Some(path) = &options.port_file {
        if let Err(e) = std::fs::write(path, format!("{port}\n")) {
            eprintln!("stub_model: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let shared = Arc::new(Shared {
        script: options.script,
        log: Mutex::new(log),
        sequence: AtomicU64::new(0),
    });
    let server = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || serve(listener, shared))
    };
    if options.child.is_empty() {
        let _ = server.join();
        return ExitCode::SUCCESS;
    }
    run_child(&options.child, port)
}

/// Runs the CLI under test and returns its exit status (128 + signal when killed).
fn run_child(argv: &[String], port: u16) -> ExitCode {
    let status = Command::new(&argv[0])
        .args(&argv[1..])
        .env("STUB_MODEL_PORT", port.to_string())
        .stdin(Stdio::null())
        .status();
    match status {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt;
            let code = status
                .code()
                .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("stub_model: cannot run {}: {e}", argv[0]);
            ExitCode::from(127)
        }
    }
}

fn serve(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming().flatten() {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(60)));
            if let Err(e) = handle(&stream, &shared) {
                eprintln!("stub_model: connection error: {e}");
            }
        });
    }
}

/// Which API a request path speaks, if it is a model call.
fn api_of(path: &str) -> Option<Api> {
    if path.ends_with("/messages") {
        Some(Api::Anthropic)
    } else if path.ends_with("/responses") {
        Some(Api::Responses)
    } else if path.ends_with("/chat/completions") {
        Some(Api::Chat)
    } else if path.contains(":generateContent") || path.contains(":streamGenerateContent") {
        Some(Api::Gemini)
    } else {
        None
    }
}

fn handle(stream: &TcpStream, shared: &Shared) -> std::io::Result<()> {
    let Some(request) = http::read_request(stream)? else {
        return Ok(());
    };
    let sequence = shared.sequence.fetch_add(1, Ordering::Relaxed) + 1;
    let raw = String::from_utf8_lossy(&request.body).into_owned();
    let body: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let path = request.path().to_string();
    let mut record = json!({
        "seq": sequence,
        "method": request.method,
        "path": request.target,
        "headers": request.headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "body": if body.is_null() { json!(raw) } else { body.clone() },
    });

    let api = if request.method == "POST" {
        api_of(&path)
    } else {
        None
    };
    let Some(api) = api else {
        let reply = side_reply(&request.method, &path);
        record["reply"] = json!({"status": 200, "json": reply});
        write_log(shared, &record);
        return http::write_full(
            stream,
            200,
            "application/json",
            reply.to_string().as_bytes(),
            request.method == "HEAD",
        );
    };

    let conversation = conversation::flatten(api, &body);
    let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let tool_names = offered_tool_names(&body);
    let (turn, reply, delay_ms) = match Script::load(&shared.script) {
        Ok(script) => script.choose(&RequestView {
            api,
            raw: &raw,
            conversation: &conversation,
            offers_tools,
            tool_names: &tool_names,
        }),
        Err(message) => {
            eprintln!("stub_model: {message}");
            (None, Reply::Text(format!("stub_model: {message}")), 0)
        }
    };
    let stream_reply =
        body["stream"] == Value::Bool(true) || path.contains(":streamGenerateContent");
    record["api"] = json!(api.as_str());
    record["model_call"] = json!(true);
    record["stream"] = json!(stream_reply);
    record["conversation"] = json!(conversation);
    record["turn"] = json!(turn);
    record["reply"] = match &reply {
        Reply::Text(text) => json!({"kind": "text", "text": text}),
        Reply::Shell(command) => json!({"kind": "shell", "command": command}),
        Reply::Tool { name, input } => json!({"kind": "tool", "name": name, "input": input}),
        Reply::Error(status) => json!({"kind": "error", "status": status}),
    };
    if delay_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
    }
    // Log before writing: a CLI may exit, and the stub with it, as soon as it has the reply.
    write_log(shared, &record);
    if let Reply::Error(status) = reply {
        let error =
            json!({"error": {"type": "stub_error", "message": format!("scripted HTTP {status}")}});
        return http::write_full(
            stream,
            status,
            "application/json",
            error.to_string().as_bytes(),
            false,
        );
    }
    let model = body["model"].as_str().unwrap_or("stub-model");
    match wire::render(api, &reply, model, stream_reply, &tool_names) {
        wire::Wire::Json(value) => http::write_full(
            stream,
            200,
            "application/json",
            value.to_string().as_bytes(),
            false,
        ),
        wire::Wire::Sse(events) => {
            let events: Vec<(Option<String>, String)> = events
                .into_iter()
                .map(|(name, data)| match data {
                    Value::String(raw) => (name, raw),
                    other => (name, other.to_string()),
                })
                .collect();
            http::write_sse(stream, &events)
        }
    }
}

/// Names of the tools a request offers, in any of the wire formats:
/// `tools[].name`, `tools[].function.name`, `tools[].functionDeclarations[].name`.
fn offered_tool_names(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        let declared = tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten();
        for candidate in [&tool["name"], &tool["function"]["name"]]
            .into_iter()
            .chain(declared.map(|d| &d["name"]))
        {
            if let Some(name) = candidate.as_str() {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Replies to everything that is not a model call: probes, token counts, model lists.
fn side_reply(method: &str, path: &str) -> Value {
    if path.ends_with("/count_tokens") {
        json!({"input_tokens": 42})
    } else if path.contains(":countTokens") {
        json!({"totalTokens": 42})
    } else if method == "GET" && path.ends_with("/models") {
        json!({"object": "list", "data": [{"id": "stub-model", "object": "model", "created": 0, "owned_by": "stub"}], "models": []})
    } else {
        json!({})
    }
}

/// Appends one exchange to the log as a single JSON line:
/// `seq`, `method`, `path` (with query), `headers`, `body` (JSON, or the raw
/// text), and for model calls `api`, `model_call`, `stream`, `conversation`
/// (flattened, see `conversation.rs`), `turn` (script index or null) and
/// `reply` (`{"kind": "text"|"shell"|"error", ...}`); other requests get
/// `reply: {"status", "json"}`.
fn write_log(shared: &Shared, record: &Value) {
    let line = format!("{record}\n");
    match shared.log.lock() {
        Ok(mut file) => {
            let _ = file.write_all(line.as_bytes());
            let _ = file.flush();
        }
        Err(_) => eprintln!("stub_model: log lock poisoned"),
    }
}
