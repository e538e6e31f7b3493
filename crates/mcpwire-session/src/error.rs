//! Why the engine refused to send something.

use mcpwire_types::ProtocolVersion;

/// A message the engine would not send, with the rule that forbids it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// The session has not finished its handshake (LIFE-05, LIFE-06).
    #[error("the session is not initialized yet")]
    NotInitialized,
    /// The method does not exist in the session's revision.
    #[error("{method} does not exist in protocol revision {version}")]
    NotInRevision {
        /// The method.
        method: &'static str,
        /// The revision spoken.
        version: ProtocolVersion,
    },
    /// The peer did not declare the capability the message needs (LIFE-14).
    #[error("the peer did not declare the {capability} capability needed for {method}")]
    PeerLacksCapability {
        /// The method.
        method: &'static str,
        /// The capability, as a dotted path (`sampling.tools`).
        capability: &'static str,
    },
    /// We did not declare the capability the message needs (e.g. a
    /// list-changed notification without `listChanged`).
    #[error("this side did not declare the {capability} capability needed for {method}")]
    OwnCapabilityMissing {
        /// The method.
        method: &'static str,
        /// The capability, as a dotted path.
        capability: &'static str,
    },
    /// Too many requests to the peer are awaiting answers.
    #[error("{0} requests are already awaiting answers")]
    TooManyInFlight(usize),
    /// The request it refers to is not being handled (answered, cancelled
    /// or unknown).
    #[error("no such request in flight")]
    UnknownRequest,
    /// Progress must grow with every notification (PROG-03).
    #[error("progress {new} does not exceed the previous {previous}")]
    ProgressNotIncreasing {
        /// The last progress sent.
        previous: f64,
        /// The refused value.
        new: f64,
    },
    /// The request carried no progress token, so no progress may be sent.
    #[error("the request asked for no progress")]
    NoProgressToken,
    /// The message could not be serialized.
    #[error("could not serialize the message: {0}")]
    Serialize(String),
    /// The session has ended (the client could not agree on a revision).
    #[error("the session has failed: {0}")]
    Failed(String),
}
