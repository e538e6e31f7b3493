//! Support shared by the test modules: a misbehaving hand-written OAuth
//! server for the client tests, and raw HTTP/1.1 over 127.0.0.1 for the
//! resource-server and authorization-server tests.

#[cfg(feature = "client")]
pub(crate) mod mock_oauth;
#[cfg(feature = "authorization-server")]
pub(crate) mod wire;
