//! The benchmark server over stdio, linked as a stdio server is: the
//! `echo` server of `bench-server` ([`mcpwire_bench::echo::server`]) served
//! by `Host::run_stdio` (a current-thread runtime of its own), the whole
//! `main` of the README's stdio server, with nothing else reachable from
//! it. Exits when stdin ends.
//!
//! It is a binary of its own because what an executable links is part of
//! its cold start: the kernel maps its code and the dynamic loader applies
//! the relocations of all its data before `main` runs (see
//! `docs/performance.md`, "The cold start (C1)"). `bench-server` also
//! carries HTTP/1, HTTP/2, the Streamable HTTP service and tokio's
//! multi-threaded scheduler, which a stdio server built with `mcpwire`'s
//! `server` and `stdio` features and `run_stdio` does not.

use mcpwire::Host as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcpwire_bench::echo::server()?.run_stdio()?;
    Ok(())
}
