//! Production hardening against hostile clients on real sockets: connection
//! deadlines and caps, write stalls, DNS rebinding on dual-stack
//! listeners, batches outside 2025-03-26, request routing abuse and the
//! bounds on what one session may hold (issue 17).

pub(crate) mod bounds;
pub(crate) mod connections;
pub(crate) mod fuzz_corpus;
pub(crate) mod identity;
pub(crate) mod inbox;
pub(crate) mod rebinding;
pub(crate) mod routing;
