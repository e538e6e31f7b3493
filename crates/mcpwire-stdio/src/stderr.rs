//! Forwarding of a child's stderr, line by line, as `tracing` events.

use std::io;

use bytes::{BufMut, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt};

/// The `tracing` target of forwarded stderr lines.
pub(crate) const TARGET: &str = "mcpwire_stdio::child";

/// How many bytes one read may add to the buffer.
const READ_CHUNK: usize = 4 * 1024;

/// Longer stderr lines are forwarded in pieces of this size, so that a
/// server that never writes a newline cannot make the buffer grow.
const MAX_LOGGED_LINE: usize = 16 * 1024;

/// Reads `stderr` until it ends, emitting one `info` event per line.
///
/// The server may log anything to stderr, errors included, and the
/// protocol says the client should not read that as an error condition
/// (STDIO-04): every line is recorded at the same level, as information
/// about the server. Invalid UTF-8 is replaced, blank lines are skipped.
pub(crate) async fn forward_lines(mut stderr: impl AsyncRead + Unpin, server: String) {
    let mut buffer = BytesMut::new();
    loop {
        while let Some(newline) = buffer.iter().position(|&byte| byte == b'\n') {
            let line = buffer.split_to(newline + 1);
            emit(&server, &line[..newline]);
        }
        if buffer.len() >= MAX_LOGGED_LINE {
            emit(&server, &buffer.split());
        }
        buffer.reserve(READ_CHUNK);
        match stderr.read_buf(&mut (&mut buffer).limit(READ_CHUNK)).await {
            Ok(0) => {
                emit(&server, &buffer);
                return;
            }
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                tracing::debug!(
                    target: TARGET,
                    server = server.as_str(),
                    %error,
                    "stopped reading the server's stderr"
                );
                return;
            }
        }
    }
}

fn emit(server: &str, line: &[u8]) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let text = String::from_utf8_lossy(line);
    tracing::info!(target: TARGET, server, "{text}");
}
