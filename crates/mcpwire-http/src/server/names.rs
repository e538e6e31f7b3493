//! The header names the server looks up on every request, parsed once:
//! looking a header up by a `&str` parses and validates the name each time.

use http::HeaderName;

use crate::headers;

/// `Mcp-Session-Id`.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static(headers::MCP_SESSION_ID);

/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName =
    HeaderName::from_static(headers::MCP_PROTOCOL_VERSION);

/// `Last-Event-ID`.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static(headers::LAST_EVENT_ID);

/// `X-Accel-Buffering`, which tells reverse proxies not to buffer a stream.
pub(crate) const ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_names_are_the_lower_case_wire_names() {
        assert_eq!(SESSION_ID.as_str(), "mcp-session-id");
        assert_eq!(PROTOCOL_VERSION.as_str(), "mcp-protocol-version");
        assert_eq!(LAST_EVENT_ID.as_str(), "last-event-id");
        assert_eq!(ACCEL_BUFFERING.as_str(), "x-accel-buffering");
    }
}
