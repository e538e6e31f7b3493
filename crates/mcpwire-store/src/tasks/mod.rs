//! Task records (the 2025-11-25 tasks utility and the 2026-07-28 tasks
//! extension) and the [`TaskStore`] that keeps them, so that several server
//! instances can share tasks; the server runtime (`mcpwire-server`'s
//! `tasks`) runs them.

mod record;
mod store;
#[cfg(any(test, feature = "store-contract"))]
pub mod store_contract;

pub use record::{TaskChange, TaskFailure, TaskRecord};
pub use store::{InMemoryTaskStore, TaskFuture, TaskPage, TaskStore, TaskStoreError};
