//! The binary frames the Redis bus publishes between instances: a POSTed
//! message for a runtime, an event for a stream's connection, a detach,
//! or the end of a session. Length-prefixed, so payloads stay opaque bytes.

use bytes::Bytes;
use mcpwire_http::server::{Envelope, SessionId, StreamEvent};

/// One message between instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A message a client POSTed, for the runtime of `session`.
    Deliver {
        session: SessionId,
        envelope: Envelope,
    },
    /// An event for the connection `token` attached to a stream.
    Event {
        session: SessionId,
        stream: u64,
        token: u64,
        event: StreamEvent,
    },
    /// End the connection `token` attached to a stream.
    Detach {
        session: SessionId,
        stream: u64,
        token: u64,
    },
    /// The session ended: end its runtime's inbox and every connection.
    Close { session: SessionId },
}

const DELIVER: u8 = 1;
const EVENT: u8 = 2;
const DETACH: u8 = 3;
const CLOSE: u8 = 4;

const MESSAGE: u8 = 0;
const END: u8 = 1;
const PAUSE: u8 = 2;

impl Frame {
    /// The frame as bytes; `None` for a stream event this version does not
    /// know how to carry.
    pub(crate) fn encode(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let session = match self {
            Self::Deliver { session, .. } => {
                out.push(DELIVER);
                session
            }
            Self::Event { session, .. } => {
                out.push(EVENT);
                session
            }
            Self::Detach { session, .. } => {
                out.push(DETACH);
                session
            }
            Self::Close { session } => {
                out.push(CLOSE);
                session
            }
        };
        let id = session.as_str().as_bytes();
        // Session ids are at most 256 bytes (`SessionId::parse`).
        out.extend_from_slice(&u16::try_from(id.len()).ok()?.to_be_bytes());
        out.extend_from_slice(id);
        match self {
            Self::Deliver { envelope, .. } => {
                out.push(u8::from(envelope.stream.is_some()));
                out.extend_from_slice(&envelope.stream.unwrap_or(0).to_be_bytes());
                out.push(u8::from(envelope.answers_only));
                out.extend_from_slice(&envelope.payload);
            }
            Self::Event {
                stream,
                token,
                event,
                ..
            } => {
                out.extend_from_slice(&stream.to_be_bytes());
                out.extend_from_slice(&token.to_be_bytes());
                match event {
                    StreamEvent::Message { seq, data, last } => {
                        out.push(MESSAGE);
                        out.extend_from_slice(&seq.to_be_bytes());
                        out.push(u8::from(*last));
                        out.extend_from_slice(data);
                    }
                    StreamEvent::End => out.push(END),
                    StreamEvent::Pause => out.push(PAUSE),
                    _ => return None,
                }
            }
            Self::Detach { stream, token, .. } => {
                out.extend_from_slice(&stream.to_be_bytes());
                out.extend_from_slice(&token.to_be_bytes());
            }
            Self::Close { .. } => {}
        }
        Some(out)
    }

    /// Reads a frame; `None` for bytes no instance of this version wrote.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader(bytes);
        let kind = reader.byte()?;
        let length = usize::from(u16::from_be_bytes(reader.array()?));
        let session = SessionId::parse(std::str::from_utf8(reader.take(length)?).ok()?)?;
        let frame = match kind {
            DELIVER => {
                let has_stream = reader.byte()? == 1;
                let stream = u64::from_be_bytes(reader.array()?);
                let answers_only = reader.byte()? == 1;
                let payload = Bytes::copy_from_slice(reader.rest());
                Self::Deliver {
                    session,
                    envelope: Envelope::new(payload, has_stream.then_some(stream), answers_only),
                }
            }
            EVENT => {
                let stream = u64::from_be_bytes(reader.array()?);
                let token = u64::from_be_bytes(reader.array()?);
                let event = match reader.byte()? {
                    MESSAGE => {
                        let seq = u64::from_be_bytes(reader.array()?);
                        let last = reader.byte()? == 1;
                        let data = Bytes::copy_from_slice(reader.rest());
                        StreamEvent::Message { seq, data, last }
                    }
                    END => StreamEvent::End,
                    PAUSE => StreamEvent::Pause,
                    _ => return None,
                };
                Self::Event {
                    session,
                    stream,
                    token,
                    event,
                }
            }
            DETACH => Self::Detach {
                session,
                stream: u64::from_be_bytes(reader.array()?),
                token: u64::from_be_bytes(reader.array()?),
            },
            CLOSE => Self::Close { session },
            _ => return None,
        };
        Some(frame)
    }
}

/// Reads a frame front to back.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(count)?;
        self.0 = tail;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> SessionId {
        SessionId::parse("abc123").unwrap()
    }

    #[test]
    fn every_frame_survives_a_round_trip() {
        let frames = [
            Frame::Deliver {
                session: session(),
                envelope: Envelope::new(Bytes::from_static(b"{\"a\":1}"), Some(7), true),
            },
            Frame::Deliver {
                session: session(),
                envelope: Envelope::new(Bytes::from_static(b"[]"), None, false),
            },
            Frame::Event {
                session: session(),
                stream: 3,
                token: 9,
                event: StreamEvent::Message {
                    seq: 4,
                    data: Bytes::from_static(b"{}"),
                    last: true,
                },
            },
            Frame::Event {
                session: session(),
                stream: 0,
                token: 1,
                event: StreamEvent::Pause,
            },
            Frame::Event {
                session: session(),
                stream: 0,
                token: 1,
                event: StreamEvent::End,
            },
            Frame::Detach {
                session: session(),
                stream: 2,
                token: 5,
            },
            Frame::Close { session: session() },
        ];
        for frame in frames {
            let bytes = frame.encode().unwrap();
            assert_eq!(Frame::decode(&bytes), Some(frame));
        }
    }

    #[test]
    fn truncated_or_unknown_frames_are_refused() {
        let bytes = Frame::Detach {
            session: session(),
            stream: 2,
            token: 5,
        }
        .encode()
        .unwrap();
        for end in 0..bytes.len() {
            assert_eq!(Frame::decode(&bytes[..end]), None, "{end}");
        }
        assert_eq!(Frame::decode(&[9, 0, 1, b'a']), None);
    }
}
