//! The shared state of MCP servers, runtime-free: the traits of session
//! records, stream event logs, the message bus, task records, catalog
//! change feeds and the `requestState` key ring, their in-memory
//! implementations where no runtime is needed, and the contract suites
//! every implementation runs.
//!
//! The Streamable HTTP transport (`mcpwire-http`) keeps its sessions, event
//! logs and routing in a [`SessionStore`], an [`EventStore`] and a
//! [`MessageBus`]; the server runtime (`mcpwire-server`) keeps its tasks in
//! a [`TaskStore`](tasks::TaskStore), shares catalog changes through a
//! [`ChangeFeed`] and seals `requestState` with a [`StateKeyRing`]. Both
//! re-export these items where they used to live, so code written against
//! them keeps compiling. A store for another backend (Redis in
//! `mcpwire-redis`, a database) depends on this crate alone: it carries no
//! async runtime, HTTP stack or tower (tidy checks it), and every method
//! returns a boxed future so that an implementation may do network I/O.
//!
//! In-memory defaults here: [`MemoryEventStore`] and
//! [`InMemoryTaskStore`](tasks::InMemoryTaskStore). The in-memory session
//! store and bus stay in `mcpwire-http`: the session store keeps its idle
//! deadlines on tokio's clock (so that the server's tests can pause time)
//! and the bus is made of tokio channels.
//!
//! With the `store-contract` feature, `store_contract` and
//! `tasks::store_contract` are the checks every implementation must pass.
//! Every method returns a boxed future, awaited on any runtime:
//!
//! ```
//! use mcpwire_store::tasks::{InMemoryTaskStore, TaskRecord, TaskStore};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcpwire_store::tasks::TaskStoreError> {
//! let store = InMemoryTaskStore::new();
//! store.create(TaskRecord::new("t1".to_owned(), "tools/call", 0)).await?;
//! assert!(store.get("t1".to_owned(), 1).await?.is_some());
//! # Ok(())
//! # }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

mod bus;
mod change_feed;
mod config;
mod error;
mod event_log;
mod events;
mod identity;
mod key_ring;
mod response_form;
mod session;
mod small_queue;
#[cfg(any(test, feature = "store-contract"))]
pub mod store_contract;
mod tables;
pub mod tasks;

pub use bus::{Envelope, Inbox, MessageBus, PostExtensions, SharedForm, StreamEvent, Subscription};
pub use change_feed::{Change, ChangeFeed, ChangeReceiver, ChangeSink};
pub use config::UseStores;
pub use error::{StoreError, StoreFuture, answered, done};
pub use event_log::MemoryEventStore;
pub use events::{EventStore, Replay, StoredEvent, StreamKey};
pub use identity::RequestIdentity;
pub use key_ring::{MAX_PREVIOUS_KEYS, StateKeyRing};
pub use response_form::ResponseForm;
pub use session::{SessionId, SessionRecord, SessionStore};
pub use tables::{shrink_sparse, shrink_sparse_set, sparse_shrink};

/// The README's examples, compiled (and run) as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
