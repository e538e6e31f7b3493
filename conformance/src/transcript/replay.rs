//! Replaying a transcript against a server over an in-memory transport.

use std::fmt;
use std::time::Duration;

use mcpwire_jsonrpc::{Packet, memory};
use mcpwire_server::Server;
use serde_json::Value;

use super::matching::{Captures, check_message, substitute};
use super::{Direction, Transcript};

/// How many packets each direction of the in-memory pair holds.
const CHANNEL_CAPACITY: usize = 64;

/// Why a replay failed: the transcript line (when one is to blame) and
/// what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// The 1-based line of the entry that failed, if any.
    pub line: Option<usize>,
    /// What went wrong, with the expected and received messages.
    pub message: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => write!(f, "after the last entry: {}", self.message),
        }
    }
}

impl std::error::Error for ReplayError {}

fn at(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError {
        line: Some(line),
        message: message.into(),
    }
}

fn after_the_end(message: impl Into<String>) -> ReplayError {
    ReplayError {
        line: None,
        message: message.into(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Reads a packet the server sent back into a JSON value.
fn to_value(packet: &Packet) -> Result<Value, String> {
    serde_json::from_slice(&packet.to_vec())
        .map_err(|error| format!("the server's message does not re-read as JSON: {error}"))
}

/// Replays `transcript` against a fresh session of `server`: sends each `>`
/// entry, waits at most `wait` for each `<` entry's message and compares
/// it, then closes the client side and requires the server to end the
/// session, within `wait`, without sending anything more.
///
/// Must run inside a tokio runtime (the server spawns its handlers).
///
/// # Errors
///
/// The first entry that could not be sent, did not arrive in time, or
/// arrived different from its expectation; or a message or failure after
/// the last entry.
pub async fn replay(
    server: &Server,
    transcript: &Transcript,
    wait: Duration,
) -> Result<(), ReplayError> {
    let (mut client, server_end) = memory::pair(CHANNEL_CAPACITY);
    let session = server.clone();
    let serving = tokio::spawn(async move { session.serve(server_end).await });
    let mut captures = Captures::new();
    for entry in &transcript.entries {
        match entry.direction {
            Direction::Send => {
                let message =
                    substitute(&entry.message, &captures).map_err(|error| at(entry.line, error))?;
                let bytes = serde_json::to_vec(&message)
                    .map_err(|error| at(entry.line, error.to_string()))?;
                let packet = Packet::from_slice(&bytes).map_err(|error| {
                    at(
                        entry.line,
                        format!("not a JSON-RPC message or batch: {}", error.message()),
                    )
                })?;
                client.send(packet).await.map_err(|error| {
                    at(entry.line, format!("the server stopped reading: {error}"))
                })?;
            }
            Direction::Expect => {
                let received = match tokio::time::timeout(wait, client.recv()).await {
                    Err(_) => {
                        return Err(at(
                            entry.line,
                            format!(
                                "nothing arrived within {wait:?}; expected:\n{}",
                                pretty(&entry.message)
                            ),
                        ));
                    }
                    Ok(None) => {
                        return Err(at(entry.line, "the server ended the session"));
                    }
                    Ok(Some(Err(error))) => {
                        return Err(at(entry.line, format!("the transport failed: {error}")));
                    }
                    Ok(Some(Ok(inbound))) => inbound,
                };
                let packet = received.into_packet().map_err(|error| {
                    at(
                        entry.line,
                        format!("the server sent an invalid message: {}", error.message()),
                    )
                })?;
                let actual = to_value(&packet).map_err(|error| at(entry.line, error))?;
                check_message(&entry.message, &actual, &mut captures).map_err(|difference| {
                    at(
                        entry.line,
                        format!(
                            "{difference}\nexpected:\n{}\nreceived:\n{}",
                            pretty(&entry.message),
                            pretty(&actual)
                        ),
                    )
                })?;
            }
        }
    }
    finish(client, serving, wait).await
}

/// Closes the client side, then requires silence and the session's end.
async fn finish(
    mut client: memory::MemoryTransport,
    serving: tokio::task::JoinHandle<Result<(), mcpwire_server::ServeError>>,
    wait: Duration,
) -> Result<(), ReplayError> {
    client
        .close()
        .await
        .map_err(|error| after_the_end(format!("closing the client side failed: {error}")))?;
    match tokio::time::timeout(wait, client.recv()).await {
        Ok(None) => {}
        Ok(Some(Ok(inbound))) => {
            let shown = match inbound.into_packet() {
                Ok(packet) => to_value(&packet)
                    .map(|value| pretty(&value))
                    .unwrap_or_default(),
                Err(error) => error.message().to_owned(),
            };
            return Err(after_the_end(format!(
                "the server sent a message no entry expects:\n{shown}"
            )));
        }
        Ok(Some(Err(error))) => {
            return Err(after_the_end(format!("the transport failed: {error}")));
        }
        Err(_) => {
            return Err(after_the_end(format!(
                "the server did not end the session within {wait:?} of the client closing"
            )));
        }
    }
    match tokio::time::timeout(wait, serving).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(error))) => Err(after_the_end(format!("serving failed: {error}"))),
        Ok(Err(error)) => Err(after_the_end(format!("the serving task failed: {error}"))),
        Err(_) => Err(after_the_end(format!(
            "serving did not return within {wait:?}"
        ))),
    }
}
