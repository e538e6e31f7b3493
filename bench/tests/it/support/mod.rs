//! What the suite tests share: the binaries of this crate as built for the
//! test, and the rmcp echo server when `cargo xtask bench` has built it.

use std::path::{Path, PathBuf};

use mcpwire_bench::suite::Binaries;

/// This crate's servers, plus rmcp's when it was built (it is never built
/// by the test command, so that the tests do not compile rmcp).
pub(crate) fn binaries() -> Binaries {
    let rmcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/rmcp-echo/release/rmcp-echo");
    Binaries {
        bench_server: PathBuf::from(env!("CARGO_BIN_EXE_bench-server")),
        stdio_server: PathBuf::from(env!("CARGO_BIN_EXE_stdio-server")),
        raw_echo: PathBuf::from(env!("CARGO_BIN_EXE_raw-echo")),
        bare_hyper: PathBuf::from(env!("CARGO_BIN_EXE_bare-hyper")),
        lean: PathBuf::from(env!("CARGO_BIN_EXE_lean-mcp")),
        rmcp_echo: rmcp.exists().then_some(rmcp),
    }
}
