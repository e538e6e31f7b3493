//! What the engine wants sent, and which request it belongs to.

use mcpwire_jsonrpc::{Packet, RequestId};

/// A packet for the transport to send.
///
/// `related` names the request from the peer this packet answers or belongs
/// to (its response, or progress, logs and requests a handler sent while
/// serving it), so that a transport with several streams (Streamable HTTP)
/// can send it on that request's stream; a batch of answers names one of
/// the requests it answers. `None` means it stands alone
/// (list-changed notifications, requests of our own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// What to send.
    pub packet: Packet,
    /// The peer's request this belongs to, if any.
    pub related: Option<RequestId>,
}
