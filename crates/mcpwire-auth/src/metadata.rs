//! RFC 8414 authorization server metadata and RFC 9728 protected resource metadata.
