//! The Model Context Protocol vocabulary, for every revision at once.
//!
//! One Rust model serves all five revisions (2024-11-05, 2025-03-26,
//! 2025-06-18, 2025-11-25, 2026-07-28):
//!
//! - reading is lenient: fields a revision added are optional, and unknown
//!   fields and `_meta` survive a round trip (see [`Extra`]);
//! - writing is exact: [`ForRevision::fit_to`] fits a value to the peer's
//!   revision before it is sent, so a message built once can go to any peer;
//! - requests and notifications are routed by their `method` string through
//!   the generated method table in [`methods`], never by trying shapes in turn.
//!
//! This crate performs no I/O and depends on no async runtime.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod cache_hint;
mod capabilities;
mod common;
mod completion;
mod content;
mod elicitation;
mod elicitation_check;
mod elicitation_schema;
mod errors;
mod lifecycle;
mod logging;
mod meta;
mod meta_key;
mod metadata;
pub mod methods;
mod mrtr;
#[cfg(feature = "official-schemas")]
pub mod official_schema;
mod prompts;
mod resources;
mod result;
mod revision;
mod roots;
mod sampling;
mod sampling_order;
#[cfg(feature = "schema")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema")))]
pub mod schema;
mod setters;
pub mod skills;
mod subscriptions;
mod tasks;
pub mod tasks_extension;
mod tools;
mod utilities;
mod version;

pub use cache_hint::CacheHint;
pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use elicitation_check::ElicitationMismatch;
pub use elicitation_schema::*;
pub use errors::*;
pub use lifecycle::*;
pub use logging::*;
pub use meta::{Extra, Meta, keys as meta_keys};
pub use meta_key::{MetaKey, MetaKeyError, is_reserved_prefix};
pub use metadata::WithMetadata;
pub use mrtr::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use revision::{ForRevision, fitted};
pub use roots::*;
pub use sampling::*;
pub use sampling_order::{ToolOrderingError, check_tool_ordering};
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use utilities::*;
pub use version::{ProtocolVersion, UnknownVersion};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
