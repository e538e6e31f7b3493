//! The binary frames the Redis bus publishes between instances: a POSTed
//! message for a runtime, an event for a stream's connection, a detach,
//! or the end of a session. Length-prefixed, so payloads stay opaque bytes.
//! A POSTed message whose extensions hold a `RequestIdentity` travels as a
//! frame of its own kind with the identity as JSON, so that instances of
//! an earlier version still read every other frame.

use bytes::Bytes;
use mcpwire_store::{Envelope, PostExtensions, RequestIdentity, SessionId, StreamEvent};

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
/// `DELIVER` with the POST's `RequestIdentity` (u32 length, JSON) before
/// the payload.
const DELIVER_WITH_IDENTITY: u8 = 5;

const MESSAGE: u8 = 0;
const END: u8 = 1;
const PAUSE: u8 = 2;

impl Frame {
    /// The frame as bytes; `None` for a stream event this version does not
    /// know how to carry.
    pub(crate) fn encode(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let identity = match self {
            Self::Deliver { envelope, .. } => envelope
                .extensions
                .identity()
                .and_then(|identity| serde_json::to_vec(identity).ok()),
            _ => None,
        };
        let session = match self {
            Self::Deliver { session, .. } => {
                out.push(if identity.is_some() {
                    DELIVER_WITH_IDENTITY
                } else {
                    DELIVER
                });
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
                if let Some(identity) = &identity {
                    out.extend_from_slice(&u32::try_from(identity.len()).ok()?.to_be_bytes());
                    out.extend_from_slice(identity);
                }
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
            DELIVER | DELIVER_WITH_IDENTITY => {
                let has_stream = reader.byte()? == 1;
                let stream = u64::from_be_bytes(reader.array()?);
                let answers_only = reader.byte()? == 1;
                let identity = if kind == DELIVER_WITH_IDENTITY {
                    let length = usize::try_from(u32::from_be_bytes(reader.array()?)).ok()?;
                    let json = reader.take(length)?;
                    Some(serde_json::from_slice::<RequestIdentity>(json).ok()?)
                } else {
                    None
                };
                let payload = Bytes::copy_from_slice(reader.rest());
                let mut envelope =
                    Envelope::new(payload, has_stream.then_some(stream), answers_only);
                if let Some(identity) = identity {
                    envelope.extensions = PostExtensions::from_identity(identity);
                }
                Self::Deliver { session, envelope }
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
    fn a_request_identity_crosses_alone_and_other_extensions_stay_behind() {
        let identity = RequestIdentity::new("alice")
            .client_id("app")
            .scopes(["read"])
            .claim("tenant", serde_json::json!("t1"));
        let mut extensions = http::Extensions::new();
        extensions.insert(identity.clone());
        extensions.insert(42u32);
        let mut envelope = Envelope::new(Bytes::from_static(b"{}"), Some(1), false);
        envelope.extensions = PostExtensions(Some(std::sync::Arc::new(extensions)));
        let frame = Frame::Deliver {
            session: session(),
            envelope,
        };
        let bytes = frame.encode().unwrap();
        assert_eq!(bytes[0], DELIVER_WITH_IDENTITY);
        let Some(Frame::Deliver { envelope, .. }) = Frame::decode(&bytes) else {
            panic!("not a delivery");
        };
        assert_eq!(envelope.payload, Bytes::from_static(b"{}"));
        assert_eq!(envelope.extensions.identity(), Some(&identity));
        let carried = envelope.extensions.0.unwrap();
        assert_eq!(carried.get::<u32>(), None);
        // Without an identity, nothing of the extensions travels.
        let mut plain = Envelope::new(Bytes::from_static(b"[]"), None, true);
        let mut extensions = http::Extensions::new();
        extensions.insert(42u32);
        plain.extensions = PostExtensions(Some(std::sync::Arc::new(extensions)));
        let bytes = Frame::Deliver {
            session: session(),
            envelope: plain,
        }
        .encode()
        .unwrap();
        assert_eq!(bytes[0], DELIVER);
        let Some(Frame::Deliver { envelope, .. }) = Frame::decode(&bytes) else {
            panic!("not a delivery");
        };
        assert!(envelope.extensions.0.is_none());
        // A damaged identity refuses the frame rather than dropping it.
        let mut broken = Frame::Deliver {
            session: session(),
            envelope: {
                let mut envelope = Envelope::new(Bytes::new(), None, false);
                envelope.extensions = PostExtensions::from_identity(RequestIdentity::new("x"));
                envelope
            },
        }
        .encode()
        .unwrap();
        let last = broken.len() - 1;
        broken[last] = b'!';
        assert_eq!(Frame::decode(&broken), None);
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
