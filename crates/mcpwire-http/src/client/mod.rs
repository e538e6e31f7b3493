//! The Streamable HTTP client (being written).
