//! The test PKI of the HTTPS tests, from mcpwire-test (one copy for every
//! crate's HTTPS tests).

pub use mcpwire_test::tls::{ca_der, server_config};
