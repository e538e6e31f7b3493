//! `check`: the conformance and lint checks of `mcpwire-check` against the
//! target, as text or JSON; exit 1 when a check failed.

use std::time::Duration;

use mcpwire_types::ProtocolVersion;

use crate::cli::{GlobalOptions, TargetArgs};
use crate::commands::no_more_words;
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json};
use crate::target::{Target, resolve};

/// Runs every check on the target and prints the report.
pub(crate) async fn check(args: &TargetArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    no_more_words(&rest)?;
    let target = match target {
        Target::Url { url, headers } if headers.is_empty() && global.headers.is_empty() => {
            mcpwire_check::Target::Url(url)
        }
        Target::Url { .. } => {
            return Err(CliError::usage(
                "check sends no extra headers (yet): drop --header",
            ));
        }
        Target::Command { program, args, .. } => mcpwire_check::Target::Command { program, args },
    };
    let mut options = mcpwire_check::Options::default();
    if global.timeout > 0 {
        options = options.with_timeout(Duration::from_secs(global.timeout));
    }
    if let Some(version) = &global.protocol_version {
        let version = ProtocolVersion::parse(version).map_err(CliError::usage)?;
        options = options.with_revision(version);
    }
    let report = mcpwire_check::run(&target, &options).await;
    if global.json {
        print_json(&report.to_json());
    } else {
        line(report.to_text().trim_end());
    }
    match report.failures() {
        0 => Ok(()),
        _ => Err(CliError::ToolFailed),
    }
}
