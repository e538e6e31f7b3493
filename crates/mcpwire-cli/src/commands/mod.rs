//! The commands that talk to one server, a file each: `inspect` (with the
//! rendering of its report), `call` (with the input loop of multi
//! round-trip requests), `read`, `prompt`, `complete`, `ping` and `logs`;
//! and the small helpers the other command files share.

mod call;
mod complete;
mod input_rounds;
mod inspect;
mod logs;
mod ping;
mod prompt;
mod read;
mod report;

use std::path::PathBuf;

use crate::error::{CliError, CliResult};

pub(crate) use call::{call, call_rendered, print_call, render_result};
pub(crate) use complete::complete;
pub(crate) use inspect::{gather, inspect};
pub(crate) use logs::logs;
pub(crate) use ping::ping;
pub(crate) use prompt::prompt;
pub(crate) use read::read;
pub(crate) use report::print_report;

/// The directory binary contents are saved to.
pub(crate) fn output_dir(dir: Option<&PathBuf>) -> PathBuf {
    dir.cloned().unwrap_or_else(|| PathBuf::from("."))
}

/// Refuses words left over after a command took what it needs.
pub(crate) fn no_more_words(rest: &[String]) -> CliResult {
    match rest.first() {
        None => Ok(()),
        Some(word) => Err(CliError::usage(format!("unexpected argument {word:?}"))),
    }
}
