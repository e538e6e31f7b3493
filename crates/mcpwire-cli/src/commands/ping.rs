//! `ping`: measures a server's round trip.

use std::time::Instant;

use mcpwire::types::LoggingLevel;
use serde_json::json;

use crate::cli::{GlobalOptions, TargetArgs};
use crate::error::CliResult;
use crate::output::{line, print_json};
use crate::session::{self};
use crate::target::resolve;

use super::no_more_words;

/// `ping`.
pub(crate) async fn ping(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let json_mode = global.json;
    session::run(
        &target,
        global,
        LoggingLevel::Info,
        true,
        |client, _transport| async move {
            let started = Instant::now();
            // 2026-07-28 has no ping; `server/discover` is its liveness check.
            if client.server().version.has_handshake() {
                client.ping().await?;
            } else {
                client.discover().await?;
            }
            let millis = started.elapsed().as_secs_f64() * 1000.0;
            if json_mode {
                print_json(&json!({"ok": true, "milliseconds": millis}));
            } else {
                line(format!("pong in {millis:.1} ms"));
            }
            Ok(())
        },
    )
    .await
}
