//! Integration tests of the client runtime against a real server and
//! against scripted peers (one test binary, modules by concern).

mod calls;
mod cancel;
mod connect;
mod handler;
mod load;
mod notifications;
mod robustness;
mod structured;
mod support;
