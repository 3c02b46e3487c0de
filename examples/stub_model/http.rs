//! Minimal HTTP/1.1 over a `TcpStream`: enough to read one request from an
//! agent CLI and write one reply, then close.
//!
//! Agent CLIs use ordinary HTTP clients (undici, reqwest, hyper). They may
//! send `Transfer-Encoding: chunked` bodies or `Expect: 100-continue`, so both
//! are handled; every reply says `Connection: close` and the socket is closed
//! after it, which every client accepts, so keep-alive is never needed.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// Largest header block or body accepted, to bound memory on a bad client.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// One parsed request.
pub struct Request {
    /// `GET`, `POST`, `HEAD`, ...
    pub method: String,
    /// The request target as sent, query string included.
    pub target: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The de-chunked body.
    pub body: Vec<u8>,
}

impl Request {
    /// The value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path without its query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// Reads one request from `stream`; `Ok(None)` when the peer closed first.
pub fn read_request(stream: &TcpStream) -> io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts
        .next()
        .ok_or_else(|| bad("empty request line"))?
        .to_string();
    let target = parts
        .next()
        .ok_or_else(|| bad("no request target"))?
        .to_string();

    let mut headers = Vec::new();
    let mut header_bytes = 0;
    loop {
        line.clear();
        let n = reader.read_line(&mut line)?;
        header_bytes += n;
        if n == 0 || header_bytes > MAX_BYTES {
            return Err(bad("truncated or oversized headers"));
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
    };

    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        let mut writer = stream;
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(&mut reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len.parse().map_err(|_| bad("bad content-length"))?;
        if len > MAX_BYTES {
            return Err(bad("body too large"));
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size_text = line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size_text, 16).map_err(|_| bad("bad chunk size"))?;
        if size == 0 {
            // Trailers, then the empty line that ends the body.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BYTES {
            return Err(bad("body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?; // the CRLF after the chunk
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes a complete reply with a body and `Content-Length`, then closes.
/// For `HEAD` requests pass `head_only` so no body bytes follow the headers.
pub fn write_full(
    mut stream: &TcpStream,
    status: u16,
    content_type: &str,
    body: &[u8],
    head_only: bool,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason_phrase(status),
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}

/// Writes a server-sent-events stream: each `(event name, data)` becomes one
/// event; the body ends when the connection closes.
pub fn write_sse(mut stream: &TcpStream, events: &[(Option<String>, String)]) -> io::Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
    )?;
    for (name, data) in events {
        let mut chunk = String::new();
        if let Some(name) = name {
            chunk.push_str("event: ");
            chunk.push_str(name);
            chunk.push('\n');
        }
        chunk.push_str("data: ");
        chunk.push_str(data);
        chunk.push_str("\n\n");
        stream.write_all(chunk.as_bytes())?;
        stream.flush()?;
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}
