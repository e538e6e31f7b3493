//! Server-Sent Events (being written).
