//! Tasks: tool calls that run in the background while the client polls.
//!
//! Both forms are served from the same tool handlers:
//!
//! - 2025-11-25 (experimental core utility): the client asks with
//!   `params.task` on `tools/call` (per-tool `execution.taskSupport`), gets
//!   `{task: {...}}`, and uses `tasks/get`, `tasks/result` (blocks until the
//!   task is over), `tasks/list` and `tasks/cancel`; tasks are bound to the
//!   session that created them.
//! - 2026-07-28 (extension `io.modelcontextprotocol/tasks`, SEP-2663): the
//!   server decides. A call of a tool that supports tasks, from a client
//!   that declared the extension, whose handler does not finish at once
//!   becomes a task (`resultType: "task"`); the client polls `tasks/get`,
//!   answers input with `tasks/update`, and may `tasks/cancel`. A handler
//!   that asks for input before doing any asynchronous work asks
//!   synchronously (`input_required`), so a multi round-trip exchange can
//!   come before the task.
//!
//! Binding (TASK-47, TASK-48): when [`TaskOptions::requestor`] names the
//! authorization context of a request (the subject of a validated bearer
//! token, say), its tasks are bound to that requestor in both eras, across
//! sessions and instances. Without one, 2025-11-25 tasks are bound to their
//! session and 2026-07-28 tasks to nobody: their 128-bit random id is then
//! the only capability, and short TTLs are advisable.
//!
//! Records live in a [`TaskStore`] (in memory by default), so that another
//! instance sharing the store can answer for a task; the handler itself
//! runs in the instance that accepted the call, in a tokio task of its own,
//! with its own cancellation signal.

mod clock;
pub(crate) mod serve;
mod start;
/// The contract every [`TaskStore`] keeps (`mcpwire_store::tasks::store_contract`).
#[cfg(any(test, feature = "store-contract"))]
pub use mcpwire_store::tasks::store_contract;

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use mcpwire_session::CancelHandle;

/// Task records and their stores, from `mcpwire-store` (the runtime-free
/// crate of shared state).
pub use mcpwire_store::tasks::{
    InMemoryTaskStore, TaskChange, TaskFailure, TaskFuture, TaskPage, TaskRecord, TaskStore,
    TaskStoreError,
};
pub(crate) use start::Reply;

/// How the server runs tasks: where records live and how long they last.
#[derive(Clone)]
pub struct TaskOptions {
    store: Arc<dyn TaskStore>,
    default_ttl: Duration,
    max_ttl: Duration,
    poll_interval: Duration,
    requestor: Option<Arc<Requestor>>,
    max_per_requestor: usize,
}

/// Names the requestor of a request from what its transport learned (see
/// [`TaskOptions::requestor`]).
pub type Requestor = dyn Fn(Option<&(dyn Any + Send + Sync)>) -> Option<String> + Send + Sync;

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("default_ttl", &self.default_ttl)
            .field("max_ttl", &self.max_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_per_requestor", &self.max_per_requestor)
            .finish_non_exhaustive()
    }
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl TaskOptions {
    /// Tasks in memory, kept one hour unless the client asks for less, at
    /// most one day, polled every half second.
    pub fn new() -> Self {
        Self {
            store: Arc::new(InMemoryTaskStore::new()),
            default_ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(86_400),
            poll_interval: Duration::from_millis(500),
            requestor: None,
            max_per_requestor: 1000,
        }
    }

    /// Binds tasks to their requestor (TASK-47): `requestor` reads the
    /// transport's context of a request (what [`Context::transport_context`]
    /// returns, e.g. the identity an authentication layer validated) and
    /// names who asked, or `None` when it cannot tell. A task created by a
    /// named requestor is seen, listed, answered and cancelled only by
    /// requests of the same requestor, from any session or instance.
    ///
    /// [`Context::transport_context`]: crate::Context::transport_context
    pub fn requestor(
        mut self,
        requestor: impl Fn(Option<&(dyn Any + Send + Sync)>) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.requestor = Some(Arc::new(requestor));
        self
    }

    /// Keeps records in `store` (share one between instances).
    pub fn store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// How long a task is kept after creation when the client names no
    /// `ttl` (the server may always shorten it: TASK-18, TASK-50).
    pub fn default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = ttl;
        self
    }

    /// The longest `ttl` granted, whatever the client asks (TASK-50).
    pub fn max_ttl(mut self, ttl: Duration) -> Self {
        self.max_ttl = ttl;
        self
    }

    /// The most unexpired tasks one requestor may hold (default 1,000):
    /// the tasks of one session, of one named requestor
    /// ([`TaskOptions::requestor`]), or, together, the unbound ones. One
    /// more `tools/call` asking for a task is refused with an Invalid
    /// Request error naming the limit, until some expire.
    pub fn max_tasks_per_requestor(mut self, max: usize) -> Self {
        self.max_per_requestor = max.max(1);
        self
    }

    /// The polling interval suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The ttl to grant for a request asking for `requested` milliseconds.
    fn ttl_ms(&self, requested: Option<u64>) -> u64 {
        let max = millis(self.max_ttl);
        requested
            .unwrap_or_else(|| millis(self.default_ttl))
            .clamp(1, max.max(1))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A task whose handler runs in this process.
struct Local {
    cancel: CancelHandle,
    changed: Arc<Notify>,
    abort: Option<AbortHandle>,
}

/// The task runtime of one server: options, and the handlers it runs.
pub(crate) struct Tasks {
    options: TaskOptions,
    local: Mutex<HashMap<String, Local>>,
}

impl Tasks {
    /// Who a task created or looked up by a request belongs to: its named
    /// requestor; else, when `session` is given (2025-11-25), that session;
    /// else nobody (TASK-47, TASK-48). The prefixes keep the two namespaces apart.
    pub(crate) fn owner_for(
        &self,
        transport: Option<&(dyn Any + Send + Sync)>,
        session: Option<&str>,
    ) -> Option<String> {
        let named = self
            .options
            .requestor
            .as_ref()
            .and_then(|name| name(transport));
        match (named, session) {
            (Some(requestor), _) => Some(format!("requestor:{requestor}")),
            (None, Some(session)) => Some(format!("session:{session}")),
            (None, None) => None,
        }
    }

    pub(crate) fn new(options: TaskOptions) -> Self {
        Self {
            options,
            local: Mutex::new(HashMap::new()),
        }
    }

    fn store(&self) -> &dyn TaskStore {
        &*self.options.store
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<String, Local>> {
        // Entries are inserted and removed whole; poisoning cannot leave one half-made.
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The signal that fires when the task changes here, or one that never
    /// fires for a task this process does not run (waiters then poll).
    fn changed(&self, task_id: &str) -> Arc<Notify> {
        self.local()
            .get(task_id)
            .map_or_else(|| Arc::new(Notify::new()), |l| Arc::clone(&l.changed))
    }

    fn announce_change(&self, task_id: &str) {
        if let Some(local) = self.local().get(task_id) {
            local.changed.notify_waiters();
        }
    }

    /// Stops the handler of `task_id`, if it runs here.
    fn stop(&self, task_id: &str) {
        if let Some(local) = self.local().remove(task_id) {
            local.cancel.cancel();
            local.changed.notify_waiters();
            if let Some(abort) = local.abort {
                abort.abort();
            }
        }
    }
}

/// A new task id: 128 random bits, hex (TASK-48: high entropy, since a
/// stateless task is reachable by anyone who knows its id).
fn new_task_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| error.to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Declares task support: the 2025-11-25 `tasks` capability (TASK-01:
/// list, cancel, `tools/call`) and the 2026-07-28 extension (each revision
/// keeps only its own when the capabilities are fitted to it).
pub(crate) fn declare(capabilities: &mut mcpwire_types::ServerCapabilities) {
    use mcpwire_types::{ServerTaskRequests, ServerTasksCapability, ToolsTaskRequests};
    capabilities.tasks = Some(ServerTasksCapability {
        list: Some(serde_json::Map::new()),
        cancel: Some(serde_json::Map::new()),
        requests: Some(ServerTaskRequests {
            tools: Some(ToolsTaskRequests {
                call: Some(serde_json::Map::new()),
                extra: mcpwire_types::Extra::new(),
            }),
            extra: mcpwire_types::Extra::new(),
        }),
        extra: mcpwire_types::Extra::new(),
    });
    capabilities
        .extensions
        .get_or_insert_with(serde_json::Map::new)
        .insert(
            mcpwire_types::tasks_extension::TASKS_EXTENSION.to_owned(),
            serde_json::json!({}),
        );
}

/// Has the engine route the extension's methods to the runtime.
pub(crate) fn serve_extension_methods(
    mut config: mcpwire_session::ServerConfig,
) -> mcpwire_session::ServerConfig {
    use mcpwire_types::tasks_extension::{TASKS_EXTENSION, TASKS_EXTENSION_METHODS};
    for method in TASKS_EXTENSION_METHODS {
        config = config.with_extension_method(mcpwire_session::ExtensionMethod::new(
            method,
            TASKS_EXTENSION,
        ));
    }
    config
}

/// A task of the handshake era whose handler waits on requests it sent to
/// the client.
pub(crate) struct WaitingTask {
    tasks: Arc<Tasks>,
    task_id: String,
}

/// Marks the task `ctx` runs for (if any) `input_required` while its
/// handler's `requests` go to the client.
pub(crate) async fn waiting_for_input(
    ctx: &crate::Context,
    requests: &mcpwire_types::InputRequests,
) -> Option<WaitingTask> {
    let task_id = ctx.task_id()?.to_owned();
    let tasks = ctx.server().inner.tasks.clone()?;
    let change = TaskChange::InputRequired {
        requests: requests.clone(),
        state: None,
    };
    tasks.record(&task_id, change, Some(ctx)).await;
    Some(WaitingTask { tasks, task_id })
}

impl WaitingTask {
    /// Records the answers: the task is `working` again.
    pub(crate) async fn answered(
        &self,
        ctx: &crate::Context,
        responses: &mcpwire_types::InputResponses,
    ) {
        let change = TaskChange::Answer(responses.clone());
        self.tasks.record(&self.task_id, change, Some(ctx)).await;
    }
}
