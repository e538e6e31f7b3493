//! The builder that assembles a [`Server`] without macros: identity,
//! capabilities, handlers as plain async functions, and options.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use mcpwire_session::{Limits, ServerConfig, Timeouts};
use mcpwire_types::{
    CallToolResult, GetPromptResult, Implementation, Prompt, PromptsCapability, ProtocolVersion,
    ReadResourceResult, Resource, ResourceTemplate, ResourcesCapability, ServerCapabilities, Tool,
    ToolsCapability,
};

use crate::catalog::{Catalog, PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::handler::{
    Arguments, CompleteFn, PromptArguments, TemplateVariables, complete_fn, prompt_fn, resource_fn,
    template_fn, tool_fn,
};
use crate::server::{Inner, Server};
use crate::uri_template::UriTemplate;
use crate::{BuildError, Context, HandlerError};

/// Assembles a [`Server`]: identity, capabilities, and handlers as plain
/// async functions.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    versions: Vec<ProtocolVersion>,
    limits: Limits,
    timeouts: Timeouts,
    page_size: usize,
    drain_timeout: std::time::Duration,
    state_key: Option<crate::StateKeyRing>,
    tasks: Option<crate::tasks::TaskOptions>,
    catalog: Catalog,
    pending_completions: Vec<PendingCompletion>,
    errors: Vec<BuildError>,
    enable: Enabled,
    pub(crate) cache_hints: crate::cache_hints::CacheHints,
    pub(crate) discover_cache_hint: Option<mcpwire_types::CacheHint>,
    roots_changed: Option<crate::roots::RootsChangedFn>,
    change_feed: Option<Arc<dyn crate::ChangeFeed>>,
    skills: Option<crate::skills::SkillCatalog>,
    states: crate::typed::States,
}

#[derive(Default)]
struct Enabled {
    tools: bool,
    resources: bool,
    prompts: bool,
}

enum PendingCompletion {
    Prompt {
        prompt: String,
        argument: String,
        handler: CompleteFn,
    },
    Template {
        template: String,
        variable: String,
        handler: CompleteFn,
    },
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    pub(crate) fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            versions: ProtocolVersion::ALL.to_vec(),
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            page_size: crate::cursor::DEFAULT_PAGE_SIZE,
            drain_timeout: std::time::Duration::from_secs(5),
            state_key: None,
            tasks: None,
            catalog: Catalog::default(),
            pending_completions: Vec::new(),
            errors: Vec::new(),
            enable: Enabled::default(),
            cache_hints: crate::cache_hints::CacheHints::default(),
            discover_cache_hint: None,
            roots_changed: None,
            change_feed: None,
            skills: None,
            states: crate::typed::States::default(),
        }
    }

    /// Shares `state` with every handler, which reads it with
    /// [`Context::state`] (`ctx.state::<S>()?`): one value per type, no
    /// clones to hand each closure. Put interior mutability inside
    /// (`Mutex`, atomics, a database pool) since handlers run concurrently.
    pub fn state<S: Send + Sync + 'static>(mut self, state: S) -> Self {
        self.states.insert(state);
        self
    }

    /// Shares catalog changes with the other instances of the service
    /// through `feed` (see [`ChangeFeed`](crate::ChangeFeed)): changes
    /// made here reach their sessions and `subscriptions/listen` requests,
    /// and theirs reach the ones running here. Without a feed, changes stay
    /// on this instance.
    pub fn change_feed(mut self, feed: Arc<dyn crate::ChangeFeed>) -> Self {
        self.change_feed = Some(feed);
        self
    }

    /// Runs `handler` whenever a client says its roots changed
    /// (`notifications/roots/list_changed`, ROOTS-02). Each session runs it
    /// one run at a time, and once more after every notification: those
    /// that arrive while it runs are merged into a single next run (the
    /// notification says only "changed", and a flood of them costs one
    /// pending run). The [`RootsContext`](crate::RootsContext) it gets can
    /// ask the client for its roots (`list_roots`).
    pub fn on_roots_list_changed<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(crate::RootsContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.roots_changed = Some(crate::roots::boxed(handler));
        self
    }

    /// Sets the full server identity (title, description, icons, website).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Instructions for the model on how to use the server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Restricts the revisions spoken (default: all five).
    pub fn versions(mut self, versions: impl IntoIterator<Item = ProtocolVersion>) -> Self {
        self.versions = versions.into_iter().collect();
        self
    }

    /// Sets the engine's limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the timeouts of requests the server sends to clients.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Sets how many items a list page holds (default 50).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// How long requests already received may still run after the client
    /// stopped sending (default 5 s); then they are cancelled.
    pub fn drain_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// The key that seals the `requestState` of multi round-trip answers
    /// (HMAC-SHA256). By default each `Server` draws a random key, so a
    /// state only opens on the instance that issued it: instances that
    /// share traffic (behind a load balancer) must be given the same key.
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.state_key = Some(crate::StateKeyRing::new(key));
        self
    }

    /// The keys that seal the `requestState` of multi round-trip answers,
    /// as a ring the application rotates at run time (see
    /// [`StateKeyRing`](crate::StateKeyRing)); replaces
    /// [`request_state_key`](Self::request_state_key).
    pub fn request_state_keys(mut self, ring: crate::StateKeyRing) -> Self {
        self.state_key = Some(ring);
        self
    }

    /// Runs tool calls as tasks where the tool's `execution.taskSupport`
    /// allows: asked for by the client in 2025-11-25 (capability `tasks`),
    /// chosen by the server in 2026-07-28 (extension
    /// `io.modelcontextprotocol/tasks`). See [`TaskOptions`](crate::tasks::TaskOptions).
    pub fn tasks(mut self, options: crate::tasks::TaskOptions) -> Self {
        self.tasks = Some(options);
        self
    }

    /// Serves the skills of `catalog` (extension `io.modelcontextprotocol/skills`).
    pub fn skills(mut self, catalog: crate::skills::SkillCatalog) -> Self {
        self.skills = Some(catalog);
        self
    }

    /// Declares the tools capability even with no tool registered yet (for
    /// tools added while serving).
    pub fn enable_tools(mut self) -> Self {
        self.enable.tools = true;
        self
    }

    /// Declares the resources capability even with none registered yet.
    pub fn enable_resources(mut self) -> Self {
        self.enable.resources = true;
        self
    }

    /// Declares the prompts capability even with none registered yet.
    pub fn enable_prompts(mut self) -> Self {
        self.enable.prompts = true;
        self
    }

    fn record(&mut self, outcome: Result<(), BuildError>) {
        if let Err(error) = outcome {
            self.errors.push(error);
        }
    }

    /// Adds a tool: `handler` gets the call's arguments, already validated
    /// against the tool's `inputSchema`.
    pub fn tool<F, Fut>(mut self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Context, Arguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, HandlerError>> + Send + 'static,
    {
        let outcome = ToolEntry::new(tool, tool_fn(handler)).and_then(|e| self.catalog.add_tool(e));
        self.record(outcome);
        self
    }

    /// Adds a tool whose arguments are read into `A` (after validation
    /// against the tool's hand-written `inputSchema`); arguments that do
    /// not fit `A` are a tool error. The handler returns any
    /// [`IntoToolResult`](crate::IntoToolResult): a `CallToolResult`, a
    /// [`Structured`](crate::Structured) value or a `String`. With the
    /// `schemars` feature, `derived_tool` derives the schemas from the types
    /// instead.
    pub fn typed_tool<A, O, F, Fut>(self, tool: Tool, handler: F) -> Self
    where
        A: serde::de::DeserializeOwned + Send + 'static,
        O: crate::IntoToolResult,
        F: Fn(Context, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, HandlerError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        self.tool(tool, move |ctx, args| {
            let handler = handler.clone();
            async move {
                let args: A = serde_json::from_value(serde_json::Value::Object(args))
                    .map_err(|e| HandlerError::tool(format!("invalid arguments: {e}")))?;
                handler(ctx, args).await?.into_tool_result()
            }
        })
    }

    /// Adds a tool whose `inputSchema` is derived from `A` and whose
    /// `outputSchema` is derived from the handler's output when it is a
    /// [`Structured<T>`](crate::Structured) (JSON Schema 2020-12, by
    /// `schemars`). The schemas are derived once, here, replace any in
    /// `tool`, and are checked like hand-written ones: arguments are
    /// validated before `A` is read, structured results after the handler
    /// returns, and a non-object `outputSchema` is refused by `build()`
    /// while the server speaks a revision before 2026-07-28.
    ///
    /// ```
    /// use mcpwire_server::{Context, HandlerError, Server, Structured};
    /// use mcpwire_types::Tool;
    /// use schemars::JsonSchema;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Add { a: i64, b: i64 }
    /// #[derive(Serialize, JsonSchema)]
    /// struct Sum { sum: i64 }
    ///
    /// let server = Server::builder("calc", "1.0.0")
    ///     .derived_tool(Tool::named("add").description("Adds two numbers."),
    ///         |_ctx: Context, Add { a, b }| async move {
    ///             Ok::<_, HandlerError>(Structured(Sum { sum: a + b }))
    ///         })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.tool_names(), ["add"]);
    /// ```
    #[cfg(feature = "schemars")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    pub fn derived_tool<A, O, F, Fut>(self, tool: Tool, handler: F) -> Self
    where
        A: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        O: crate::DerivedOutput,
        F: Fn(Context, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, HandlerError>> + Send + 'static,
    {
        let mut tool = tool.input_schema(crate::schema_for::<A>());
        if let Some(schema) = O::output_schema() {
            tool = tool.output_schema(schema);
        }
        self.typed_tool(tool, handler)
    }

    /// Adds a listed resource read by `handler` (which gets the URI).
    pub fn resource<F, Fut>(mut self, resource: Resource, handler: F) -> Self
    where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, HandlerError>> + Send + 'static,
    {
        let entry = ResourceEntry {
            resource,
            handler: resource_fn(handler),
        };
        let outcome = self.catalog.add_resource(entry);
        self.record(outcome);
        self
    }

    /// Adds a resource template (RFC 6570) read by `handler`, which gets the
    /// URI and the variables it matched.
    pub fn resource_template<F, Fut>(mut self, template: ResourceTemplate, handler: F) -> Self
    where
        F: Fn(Context, String, TemplateVariables) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, HandlerError>> + Send + 'static,
    {
        let outcome = match UriTemplate::parse(&template.uri_template) {
            Ok(parsed) => self.catalog.add_template(TemplateEntry {
                template,
                parsed,
                handler: template_fn(handler),
                completers: Vec::new(),
            }),
            Err(error) => Err(BuildError::Template {
                template: template.uri_template.clone(),
                reason: error.to_string(),
            }),
        };
        self.record(outcome);
        self
    }

    /// Adds a prompt rendered by `handler` from its arguments (required
    /// arguments are checked before it runs).
    pub fn prompt<F, Fut>(mut self, prompt: Prompt, handler: F) -> Self
    where
        F: Fn(Context, PromptArguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, HandlerError>> + Send + 'static,
    {
        let entry = PromptEntry {
            prompt,
            handler: prompt_fn(handler),
            completers: Vec::new(),
        };
        let outcome = self.catalog.add_prompt(entry);
        self.record(outcome);
        self
    }

    /// Completes the argument `argument` of prompt `prompt`: `handler` gets
    /// the partial value and the other arguments, and returns candidates.
    pub fn prompt_completion<F, Fut>(mut self, prompt: &str, argument: &str, handler: F) -> Self
    where
        F: Fn(Context, String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, HandlerError>> + Send + 'static,
    {
        self.pending_completions.push(PendingCompletion::Prompt {
            prompt: prompt.to_owned(),
            argument: argument.to_owned(),
            handler: complete_fn(handler),
        });
        self
    }

    /// Completes the variable `variable` of the resource template `template`.
    pub fn template_completion<F, Fut>(mut self, template: &str, variable: &str, handler: F) -> Self
    where
        F: Fn(Context, String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, HandlerError>> + Send + 'static,
    {
        self.pending_completions.push(PendingCompletion::Template {
            template: template.to_owned(),
            variable: variable.to_owned(),
            handler: complete_fn(handler),
        });
        self
    }

    /// Builds the server.
    ///
    /// # Errors
    ///
    /// The first problem met while registering (an invalid tool name or
    /// schema, a duplicate, a bad template, a completion for an unknown target).
    pub fn build(mut self) -> Result<Server, BuildError> {
        self.attach_completions()?;
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error);
        }
        for entry in &self.catalog.tools {
            crate::catalog::check_output_for_versions(&entry.tool, &self.versions)?;
        }
        let mut catalog = self.catalog;
        let has_completions = catalog.prompts.iter().any(|p| !p.completers.is_empty())
            || catalog.templates.iter().any(|t| !t.completers.is_empty());
        let mut capabilities = ServerCapabilities {
            logging: Some(Default::default()),
            ..ServerCapabilities::default()
        };
        if self.enable.tools || !catalog.tools.is_empty() {
            capabilities.tools = Some(ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if self.enable.resources || !catalog.resources.is_empty() || !catalog.templates.is_empty() {
            capabilities.resources = Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if self.enable.prompts || !catalog.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability {
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if has_completions || !catalog.prompts.is_empty() || !catalog.templates.is_empty() {
            capabilities.completions = Some(Default::default());
        }
        if self.tasks.is_some() {
            crate::tasks::declare(&mut capabilities);
        }
        let skills = match self.skills {
            Some(skills) => Some(crate::skills::install(
                skills,
                &mut catalog,
                &mut capabilities,
            )?),
            None => None,
        };
        let mut config = ServerConfig::new(self.info, capabilities)
            .with_versions(self.versions)
            .with_limits(self.limits)
            .with_timeouts(self.timeouts);
        config.instructions = self.instructions;
        if self.tasks.is_some() {
            config = crate::tasks::serve_extension_methods(config);
        }
        if let Some((_, methods)) = &skills {
            for method in methods {
                config = config.with_extension_method(method.clone());
            }
        }
        let skills = skills.map(|(skills, _)| skills);
        config.discover_cache_hint = self.discover_cache_hint.or(self.cache_hints.server_wide());
        let state_key = match self.state_key {
            Some(ring) => ring,
            None => crate::StateKeyRing::random().map_err(BuildError::StateKey)?,
        };
        let server = Server {
            inner: Arc::new(Inner {
                config: Arc::new(config),
                catalog: RwLock::new(catalog),
                changes: Arc::default(),
                page_size: self.page_size,
                drain_timeout: self.drain_timeout,
                state_key,
                tasks: self
                    .tasks
                    .map(|options| Arc::new(crate::tasks::Tasks::new(options))),
                cache_hints: self.cache_hints,
                roots_changed: self.roots_changed,
                change_feed: self.change_feed,
                skills,
                states: self.states,
            }),
        };
        if let Some(feed) = &server.inner.change_feed {
            let inner: Arc<dyn crate::ChangeReceiver> = server.inner.clone();
            let receiver = Arc::downgrade(&inner);
            drop(inner);
            feed.attach(crate::ChangeSink::new(receiver));
        }
        Ok(server)
    }

    fn attach_completions(&mut self) -> Result<(), BuildError> {
        for pending in std::mem::take(&mut self.pending_completions) {
            match pending {
                PendingCompletion::Prompt {
                    prompt,
                    argument,
                    handler,
                } => {
                    let entry = self
                        .catalog
                        .prompts
                        .iter_mut()
                        .find(|p| p.prompt.name == prompt);
                    let Some(entry) = entry.and_then(Arc::get_mut) else {
                        return Err(BuildError::UnknownCompletionTarget {
                            kind: "prompt",
                            name: prompt,
                        });
                    };
                    entry.completers.push((argument, handler));
                }
                PendingCompletion::Template {
                    template,
                    variable,
                    handler,
                } => {
                    let entry = self
                        .catalog
                        .templates
                        .iter_mut()
                        .find(|t| t.template.uri_template == template);
                    let Some(entry) = entry.and_then(Arc::get_mut) else {
                        return Err(BuildError::UnknownCompletionTarget {
                            kind: "resource template",
                            name: template,
                        });
                    };
                    entry.completers.push((variable, handler));
                }
            }
        }
        Ok(())
    }
}
