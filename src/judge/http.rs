//! The `http` backend: any OpenAI-compatible chat-completions endpoint.
//!
//! Asks for structured output with the detector's schema
//! (`response_format: json_schema`); a server that rejects that (HTTP 400,
//! 415 or 422) is asked again with `json_object`. The answer is read from
//! `choices[0].message.content` and checked like any other judge's text.

use super::backends::RawAnswer;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One HTTP judge call.
pub struct HttpCall<'a> {
    /// Base URL, e.g. `https://api.openai.com/v1` (`/chat/completions` is added).
    pub url: &'a str,
    /// The model name.
    pub model: &'a str,
    /// The bearer token, if any.
    pub api_key: Option<String>,
    /// The full prompt.
    pub prompt: &'a str,
    /// The answer's JSON schema.
    pub schema: &'a Value,
    /// When to give up.
    pub deadline: Instant,
    /// The response body cap.
    pub max_output_bytes: u64,
}

/// The request body; `strict_schema` false asks for a plain JSON object.
pub fn request_body(model: &str, prompt: &str, schema: &Value, strict_schema: bool) -> Value {
    let response_format = if strict_schema {
        json!({"type": "json_schema", "json_schema": {"name": "judge_answer", "strict": true, "schema": schema}})
    } else {
        json!({"type": "json_object"})
    };
    json!({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "response_format": response_format,
    })
}

/// The endpoint for a base URL.
pub fn endpoint(url: &str) -> String {
    let base = url.trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    }
}

fn is_loopback(url: &str) -> bool {
    let rest = url.split("://").nth(1).unwrap_or(url);
    ["127.", "localhost", "[::1]"]
        .iter()
        .any(|p| rest.starts_with(p))
}

/// Posts the prompt and returns the answer text.
pub fn ask(call: &HttpCall) -> Result<RawAnswer, String> {
    match post(call, true)? {
        Posted::Answer(a) => Ok(a),
        Posted::SchemaRejected(_) => match post(call, false)? {
            Posted::Answer(a) => Ok(a),
            Posted::SchemaRejected(status) => Err(format!("judge endpoint answered HTTP {status}")),
        },
    }
}

enum Posted {
    Answer(RawAnswer),
    SchemaRejected(u16),
}

fn post(call: &HttpCall, strict_schema: bool) -> Result<Posted, String> {
    let left = call.deadline.saturating_duration_since(Instant::now());
    if left < Duration::from_millis(10) {
        return Err("judge timed out".into());
    }
    let mut config = ureq::Agent::config_builder()
        .timeout_global(Some(left))
        .http_status_as_error(false);
    if is_loopback(call.url) {
        config = config.proxy(None);
    }
    let agent: ureq::Agent = config.build().into();
    let body = request_body(call.model, call.prompt, call.schema, strict_schema).to_string();
    let mut request = agent
        .post(endpoint(call.url))
        .header("Content-Type", "application/json");
    if let Some(key) = &call.api_key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let mut response = request.send(body).map_err(|e| describe(&e))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(call.max_output_bytes)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|e| describe(&e))?;
    if strict_schema && matches!(status, 400 | 415 | 422) {
        return Ok(Posted::SchemaRejected(status));
    }
    if !(200..300).contains(&status) {
        let cut: String = text.chars().take(300).collect();
        return Err(format!("judge endpoint answered HTTP {status}: {cut}"));
    }
    let reply: Value = serde_json::from_str(&text)
        .map_err(|e| format!("judge endpoint sent invalid JSON: {e}"))?;
    match reply.pointer("/choices/0/message/content") {
        Some(Value::String(content)) => Ok(Posted::Answer(RawAnswer::Text(content.clone()))),
        _ => Err("judge endpoint reply has no choices[0].message.content".into()),
    }
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "judge timed out".into(),
        ureq::Error::BodyExceedsLimit(n) => format!("judge output passed the {n}-byte cap"),
        other => format!("judge endpoint error: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_and_endpoint() {
        let schema = json!({"type": "object"});
        let b = request_body("m", "P", &schema, true);
        assert_eq!(b["model"], "m");
        assert_eq!(b["messages"][0]["content"], "P");
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["schema"], schema);
        assert_eq!(
            request_body("m", "P", &schema, false)["response_format"],
            json!({"type": "json_object"})
        );
        assert_eq!(endpoint("http://h/v1/"), "http://h/v1/chat/completions");
        assert_eq!(
            endpoint("http://h/v1/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert!(is_loopback("http://127.0.0.1:9/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
    }
}
