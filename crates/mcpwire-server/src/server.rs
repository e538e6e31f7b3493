//! The server: its identity, its catalog and its shared state, served
//! over any transport (`builder.rs` assembles it).

use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use mcpwire_session::ServerConfig;
use mcpwire_types::{
    CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource, Tool,
};

use crate::catalog::{Catalog, PromptEntry, ResourceEntry, ToolEntry};
use crate::handler::{Arguments, PromptArguments, prompt_fn, resource_fn, tool_fn};
use crate::{BuildError, Context, HandlerError, ServerBuilder};
use mcpwire_jsonrpc::Transport;

pub(crate) use mcpwire_store::Change;

/// An MCP server: cheap to clone, shared by every session it serves.
///
/// Build one with [`Server::builder`], then serve it over any transport
/// with [`Server::serve`]. Tools, resources and prompts can be added and
/// removed while serving; live sessions are told (`list_changed`).
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: Arc<ServerConfig>,
    pub(crate) catalog: RwLock<Catalog>,
    pub(crate) changes: Arc<crate::change_log::ChangeLog>,
    /// Shares this server's changes with other instances, and theirs with it.
    pub(crate) change_feed: Option<Arc<dyn crate::ChangeFeed>>,
    pub(crate) page_size: usize,
    pub(crate) drain_timeout: std::time::Duration,
    /// Seals the `requestState` of multi round-trip answers.
    pub(crate) state_key: crate::StateKeyRing,
    /// The task runtime, when tasks are enabled.
    pub(crate) tasks: Option<Arc<crate::tasks::Tasks>>,
    /// The `ttlMs` / `cacheScope` of cacheable results (2026-07-28).
    pub(crate) cache_hints: crate::cache_hints::CacheHints,
    /// The hook on `notifications/roots/list_changed`, if any.
    pub(crate) roots_changed: Option<crate::roots::RootsChangedFn>,
    /// The skills extension's catalog, when skills are served.
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
    /// The application state handlers read with [`Context::state`].
    pub(crate) states: crate::typed::States,
}

impl crate::ChangeReceiver for Inner {
    fn receive(&self, change: Change) {
        self.changes.announce(change);
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.config.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server called `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

    /// Serves `transport` on a task of its own and returns at once; an
    /// error that ends the session is logged (tracing, `debug`). This is
    /// what a transport that hands over one transport per session (Streamable
    /// HTTP, HTTP+SSE) calls for each: `StreamableHttp::new(config, move
    /// |transport| server.spawn_session(transport))`.
    pub fn spawn_session<T: Transport>(&self, transport: T) {
        tokio::spawn(self.run_session(transport));
    }

    /// The future that serves `transport` until the client closes it, for
    /// a transport that runs each session's runtime itself; an error that
    /// ends the session is logged (tracing, `debug`). Streamable HTTP runs
    /// it so that a POST to an idle session is answered on the POST's own
    /// task: `StreamableHttp::with_runtime(config, move |transport|
    /// server.run_session(transport))`.
    pub fn run_session<T: Transport>(
        &self,
        transport: T,
    ) -> impl Future<Output = ()> + Send + use<T> {
        // Polled through a box rather than awaited in an `async` block: a
        // block keeps the future it captured and the one it awaits in two
        // places, which doubled the 1.4 KiB an idle session holds
        // (heaptrack).
        let mut serving = Box::pin(self.serve(transport));
        std::future::poll_fn(move |context| {
            serving.as_mut().poll(context).map(|outcome| {
                if let Err(error) = outcome {
                    tracing::debug!(%error, "an MCP session ended with an error");
                }
            })
        })
    }

    /// The engine configuration every session uses.
    pub fn config(&self) -> &Arc<ServerConfig> {
        &self.inner.config
    }

    pub(crate) fn catalog(&self) -> RwLockReadGuard<'_, Catalog> {
        // A panic while holding the lock cannot leave the catalog half
        // written (every write is one push or remove), so poisoning is ignored.
        self.inner
            .catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn catalog_mut(&self) -> RwLockWriteGuard<'_, Catalog> {
        self.inner
            .catalog
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn announce(&self, change: Change) {
        if let Some(feed) = &self.inner.change_feed {
            feed.publish(&change);
        }
        self.inner.changes.announce(change);
    }

    /// Adds a tool while serving; sessions get `notifications/tools/list_changed`.
    ///
    /// # Errors
    ///
    /// When the name is invalid or taken, or a schema is unusable.
    pub fn add_tool<F, Fut>(&self, tool: Tool, handler: F) -> Result<(), BuildError>
    where
        F: Fn(Context, Arguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, HandlerError>> + Send + 'static,
    {
        crate::catalog::check_output_for_versions(&tool, &self.inner.config.versions)?;
        let entry = ToolEntry::new(tool, tool_fn(handler))?;
        self.catalog_mut().add_tool(entry)?;
        self.announce(Change::Tools);
        Ok(())
    }

    /// Adds a prompt while serving; sessions get `notifications/prompts/list_changed`.
    ///
    /// # Errors
    ///
    /// When the name is taken.
    pub fn add_prompt<F, Fut>(&self, prompt: Prompt, handler: F) -> Result<(), BuildError>
    where
        F: Fn(Context, PromptArguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, HandlerError>> + Send + 'static,
    {
        let entry = PromptEntry {
            prompt,
            handler: prompt_fn(handler),
            completers: Vec::new(),
        };
        self.catalog_mut().add_prompt(entry)?;
        self.announce(Change::Prompts);
        Ok(())
    }

    /// Adds a listed resource while serving; sessions get
    /// `notifications/resources/list_changed`.
    ///
    /// # Errors
    ///
    /// When the URI is taken.
    pub fn add_resource<F, Fut>(&self, resource: Resource, handler: F) -> Result<(), BuildError>
    where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, HandlerError>> + Send + 'static,
    {
        let entry = ResourceEntry {
            resource,
            handler: resource_fn(handler),
        };
        self.catalog_mut().add_resource(entry)?;
        self.announce(Change::Resources);
        Ok(())
    }

    /// Removes a tool while serving; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove_where(|c| &mut c.tools, |e| e.tool.name == name, Change::Tools)
    }

    /// Removes a prompt while serving; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove_where(
            |c| &mut c.prompts,
            |e| e.prompt.name == name,
            Change::Prompts,
        )
    }

    /// Removes a listed resource while serving; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove_where(
            |c| &mut c.resources,
            |e| e.resource.uri == uri,
            Change::Resources,
        )
    }

    /// Removes the entries of one catalog list that `doomed` picks, and
    /// announces `change` when any went.
    fn remove_where<T>(
        &self,
        list: impl FnOnce(&mut Catalog) -> &mut Vec<Arc<T>>,
        doomed: impl Fn(&T) -> bool,
        change: Change,
    ) -> bool {
        let removed = {
            let mut catalog = self.catalog_mut();
            let entries = list(&mut catalog);
            let before = entries.len();
            entries.retain(|entry| !doomed(entry));
            entries.len() != before
        };
        if removed {
            self.announce(change);
        }
        removed
    }

    /// Tells sessions subscribed to `uri` that it changed
    /// (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated(uri.into()));
    }

    /// What `read` makes of the definition of the tool called `name`, or
    /// `None` when no such tool is offered; the catalog is not copied.
    pub fn with_tool<R>(&self, name: &str, read: impl FnOnce(&Tool) -> R) -> Option<R> {
        self.catalog().tool(name).map(|entry| read(&entry.tool))
    }

    /// The names of the tools offered, in list order.
    pub fn tool_names(&self) -> Vec<String> {
        self.catalog()
            .tools
            .iter()
            .map(|t| t.tool.name.clone())
            .collect()
    }
}
