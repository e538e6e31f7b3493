//! The Streamable HTTP server (being written).
