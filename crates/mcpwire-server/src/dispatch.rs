//! Serving one request from the catalog: lists with pagination, tool calls
//! with schema validation, resource reads, prompts and completions.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RawJson};
use mcpwire_types::methods::{ClientRequest, ServerResult};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, Completion,
    CompletionReference, ContentBlock, GetPromptRequestParams, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams,
};
use serde_json::Value;

use crate::catalog::ToolEntry;
use crate::cursor::Page;
use crate::error::invalid_params;
use crate::handler::ToolFn;
use crate::input::{Answer, Retry};
use crate::tasks::Reply;
use crate::tool_call::ToolCall;
use crate::{Arguments, BoxFuture, Context, HandlerError, Server};

/// The most completion values one answer may carry (COMP: at most 100).
const MAX_COMPLETION_VALUES: usize = 100;

impl Server {
    /// Serves one request from the catalog. `resources/subscribe`,
    /// `unsubscribe` and `subscriptions/listen` are per-session and handled
    /// by the session driver. (The driver serves `tools/call` with a
    /// [`ToolCall`] of its own, not boxed inside this future.)
    pub(crate) async fn dispatch(
        &self,
        request: ClientRequest,
        ctx: Context,
    ) -> Result<Reply, ErrorObject> {
        let version = ctx.version();
        let fail_resource = |error: HandlerError| error.to_error_object(version);
        let fail = |error: HandlerError| error.to_error_object_outside_resources(version);
        Ok(Reply::Typed(match request {
            ClientRequest::ListTools(params) => {
                ServerResult::ListTools(Box::new(self.list_tools(&params)?))
            }
            ClientRequest::CallTool(params) => {
                return ToolCall::new(self.clone(), params, None, ctx).await;
            }
            request @ (ClientRequest::GetTask(_)
            | ClientRequest::GetTaskPayload(_)
            | ClientRequest::ListTasks(_)
            | ClientRequest::CancelTask(_)) => self.serve_core_task_request(request, &ctx).await?,
            ClientRequest::ListResources(params) => {
                ServerResult::ListResources(Box::new(self.list_resources(&params)?))
            }
            ClientRequest::ListResourceTemplates(params) => {
                ServerResult::ListResourceTemplates(Box::new(self.list_templates(&params)?))
            }
            ClientRequest::ReadResource(params) => {
                let uri = params.uri.clone();
                match self
                    .read_resource(*params, ctx)
                    .await
                    .map_err(fail_resource)?
                {
                    Answer::Complete(mut result) => {
                        self.hint_read(&uri, &mut result);
                        ServerResult::ReadResource(Box::new(result))
                    }
                    Answer::InputRequired(input) => ServerResult::InputRequired(Box::new(input)),
                }
            }
            ClientRequest::ListPrompts(params) => {
                ServerResult::ListPrompts(Box::new(self.list_prompts(&params)?))
            }
            ClientRequest::GetPrompt(params) => {
                match self.get_prompt(*params, ctx).await.map_err(fail)? {
                    Answer::Complete(result) => ServerResult::GetPrompt(Box::new(result)),
                    Answer::InputRequired(input) => ServerResult::InputRequired(Box::new(input)),
                }
            }
            ClientRequest::Complete(params) => {
                ServerResult::Complete(Box::new(self.complete(*params, ctx).await.map_err(fail)?))
            }
            other => return Err(ErrorObject::method_not_found(other.method())),
        }))
    }

    fn page<'a, T>(
        &self,
        all: &'a [T],
        params: &PaginatedRequestParams,
    ) -> Result<Page<'a, T>, ErrorObject> {
        // PAGE: an invalid cursor is invalid params.
        Page::of(all, params.cursor.as_deref(), self.inner.page_size)
            .map_err(|error| invalid_params(format!("invalid cursor: {error}")))
    }

    fn list_tools(&self, params: &PaginatedRequestParams) -> Result<ListToolsResult, ErrorObject> {
        let catalog = self.catalog();
        let page = self.page(&catalog.tools, params)?;
        let mut result = ListToolsResult::new(page.items.iter().map(|e| e.tool.clone()).collect());
        self.hint_tools(page.items, &mut result);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    fn list_resources(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListResourcesResult, ErrorObject> {
        let catalog = self.catalog();
        let page = self.page(&catalog.resources, params)?;
        let mut result =
            ListResourcesResult::new(page.items.iter().map(|e| e.resource.clone()).collect());
        self.hint_resources(page.items, &mut result);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    fn list_templates(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListResourceTemplatesResult, ErrorObject> {
        let catalog = self.catalog();
        let page = self.page(&catalog.templates, params)?;
        let templates = page.items.iter().map(|e| e.template.clone()).collect();
        let mut result = ListResourceTemplatesResult::new(templates);
        self.hint_templates(page.items, &mut result);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    fn list_prompts(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListPromptsResult, ErrorObject> {
        let catalog = self.catalog();
        let page = self.page(&catalog.prompts, params)?;
        let mut result =
            ListPromptsResult::new(page.items.iter().map(|e| e.prompt.clone()).collect());
        self.hint_prompts(page.items, &mut result);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    /// Calls the tool of `entry` (the caller found it; an unknown tool is
    /// [`unknown_tool`]): arguments failing `inputSchema`
    /// are a tool execution error from 2025-11-25 on (TOOL-16, SEP-1303) and
    /// -32602 before; `structuredContent` is checked against `outputSchema`
    /// before sending (TOOL-14) and mirrored as text when the tool gave no
    /// content (TOOL-13).
    ///
    /// The params stay boxed: every async layer keeps its arguments for
    /// its whole life, and the call's future (moved to the heap once per
    /// call) would hold them once per layer.
    pub(crate) async fn call_tool(
        &self,
        entry: Arc<ToolEntry>,
        params: Box<CallToolRequestParams>,
        raw_params: Option<RawJson>,
        ctx: Context,
    ) -> Result<Answer<CallToolResult>, ErrorObject> {
        let mut arguments = params.arguments.unwrap_or_default();
        if let Some(refusal) = check_arguments(&entry, &mut arguments, ctx.version())? {
            return Ok(Answer::Complete(refusal));
        }
        let version = ctx.version();
        let retry = Retry {
            responses: params.input_responses,
            state: params.request_state,
        };
        let mut arguments = ToolArguments::new(arguments, raw_params);
        let answer = self
            .run_rounds("tools/call", &params.name, retry, ctx, |ctx| {
                arguments.run(&entry.handler, ctx)
            })
            .await;
        match answer {
            Ok(Answer::Complete(result)) => {
                conclude_tool(&entry, Ok(result), version).map(Answer::Complete)
            }
            Ok(input @ Answer::InputRequired(_)) => Ok(input),
            Err(error) => conclude_tool(&entry, Err(error), version).map(Answer::Complete),
        }
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        ctx: Context,
    ) -> Result<Answer<mcpwire_types::ReadResourceResult>, HandlerError> {
        let uri = params.uri;
        let retry = Retry {
            responses: params.input_responses,
            state: params.request_state,
        };
        let listed = self.catalog().resource(&uri);
        if let Some(entry) = listed {
            let handler = &entry.handler;
            return self
                .run_rounds("resources/read", &uri, retry, ctx, |ctx| {
                    handler(ctx, uri.clone())
                })
                .await;
        }
        let matched = self.catalog().match_template(&uri);
        match matched {
            Some((entry, vars)) => {
                let handler = &entry.handler;
                self.run_rounds("resources/read", &uri, retry, ctx, |ctx| {
                    handler(ctx, uri.clone(), vars.clone())
                })
                .await
            }
            None => {
                if let Some(skills) = &self.inner.skills
                    && let Some(read) = skills.read(&uri).await
                {
                    return read.map(Answer::Complete);
                }
                Err(HandlerError::Rpc(resource_not_found(ctx.version(), &uri)))
            }
        }
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: Context,
    ) -> Result<Answer<mcpwire_types::GetPromptResult>, HandlerError> {
        let Some(entry) = self.catalog().prompt(&params.name) else {
            return Err(HandlerError::InvalidParams(format!(
                "unknown prompt: {}",
                params.name
            )));
        };
        let arguments = params.arguments.unwrap_or_default();
        let missing: Vec<&str> = entry
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(HandlerError::InvalidParams(format!(
                "prompt {} needs the argument(s) {}",
                params.name,
                missing.join(", ")
            )));
        }
        let retry = Retry {
            responses: params.input_responses,
            state: params.request_state,
        };
        let handler = &entry.handler;
        self.run_rounds("prompts/get", &params.name, retry, ctx, |ctx| {
            handler(ctx, arguments.clone())
        })
        .await
    }

    async fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: Context,
    ) -> Result<CompleteResult, HandlerError> {
        let completer = {
            let catalog = self.catalog();
            let completers = match &params.reference {
                CompletionReference::Prompt(reference) => catalog
                    .prompt(&reference.name)
                    .map(|p| p.completers.clone()),
                CompletionReference::ResourceTemplate(reference) => catalog
                    .template(&reference.uri)
                    .map(|t| t.completers.clone()),
            };
            let Some(completers) = completers else {
                return Err(HandlerError::InvalidParams(
                    "completion for an unknown prompt or template".to_owned(),
                ));
            };
            completers
                .into_iter()
                .find(|(name, _)| *name == params.argument.name)
                .map(|(_, f)| f)
        };
        let Some(completer) = completer else {
            // Nothing to suggest for this argument.
            return Ok(CompleteResult::new(Vec::new()));
        };
        let context: BTreeMap<String, String> = params
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut values = completer(ctx, params.argument.value, context).await?;
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        let mut result = CompleteResult::new(Vec::new());
        result.completion = Completion {
            has_more: Some(total > values.len()),
            total: u64::try_from(total).ok(),
            values,
            ..result.completion
        };
        Ok(result)
    }
}

/// The error for a `tools/call` naming no tool of the catalog (-32602).
pub(crate) fn unknown_tool(name: &str) -> ErrorObject {
    invalid_params(format!("unknown tool: {name}"))
}

/// The error for a URI that names no resource: -32002 before 2026-07-28,
/// -32602 from it, with the URI in `data` as the spec's example shows (RES-09).
pub(crate) fn resource_not_found(version: ProtocolVersion, uri: &str) -> ErrorObject {
    let error = ErrorObject::new(
        mcpwire_types::resource_not_found_code(version),
        format!("not found: resource {uri}"),
    );
    // Serializing a JSON object cannot fail; the plain error is the fallback anyway.
    error
        .clone()
        .with_data(&serde_json::json!({ "uri": uri }))
        .unwrap_or(error)
}

/// The arguments of a tool call, for each run of its handler.
///
/// The first run gets the decoded arguments themselves, moved. A handler
/// runs again only after an input round: one the runtime fulfilled itself
/// (handshake revisions) or a task's `tasks/update` (2026-07-28); that run
/// gets them decoded again from the request's raw params. So the rare
/// second run pays for a decoding instead of every call paying for a copy
/// as long as its arguments.
pub(crate) struct ToolArguments {
    /// The decoded arguments, until the first run takes them.
    first: Option<Arguments>,
    /// The request's params as they came (`None`: it sent none).
    raw_params: Option<RawJson>,
}

impl ToolArguments {
    /// The source of `arguments` (already checked against the input schema),
    /// decoded from `raw_params`.
    pub(crate) fn new(arguments: Arguments, raw_params: Option<RawJson>) -> Self {
        Self {
            first: Some(arguments),
            raw_params,
        }
    }

    /// Starts the next run of `handler` with the arguments as the client
    /// sent them.
    pub(crate) fn run(
        &mut self,
        handler: &ToolFn,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        match self.next() {
            Ok(arguments) => handler(ctx, arguments),
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }

    fn next(&mut self) -> Result<Arguments, HandlerError> {
        if let Some(first) = self.first.take() {
            return Ok(first);
        }
        /// Only the one member; serde skips the others without building them.
        #[derive(serde::Deserialize)]
        struct ArgumentsOnly {
            #[serde(default)]
            arguments: Option<Arguments>,
        }
        let Some(raw) = &self.raw_params else {
            return Ok(Arguments::new());
        };
        // The same text decoded into the same type as the first time, so
        // the same arguments; they passed the input schema then.
        serde_json::from_str::<ArgumentsOnly>(raw.get())
            .map(|params| params.arguments.unwrap_or_default())
            .map_err(|error| {
                HandlerError::Internal(format!(
                    "the arguments could not be read again for another round: {error}"
                ))
            })
    }
}

/// Checks a call's arguments against the tool's `inputSchema`: a mismatch
/// is a tool execution error from 2025-11-25 on (TOOL-16, SEP-1303), given
/// back as the result to send, and -32602 before.
pub(crate) fn check_arguments(
    entry: &ToolEntry,
    arguments: &mut Arguments,
    version: ProtocolVersion,
) -> Result<Option<CallToolResult>, ErrorObject> {
    // The validator wants a `Value`: the arguments are moved into one and
    // back out rather than copied.
    let value = Value::Object(std::mem::take(arguments));
    let checked = entry.input.validate(&value);
    if let Value::Object(map) = value {
        *arguments = map;
    }
    let Err(failure) = checked else {
        return Ok(None);
    };
    let message = format!("invalid arguments for tool {}: {failure}", entry.tool.name);
    if version >= ProtocolVersion::V2025_11_25 {
        Ok(Some(CallToolResult::error(message)))
    } else {
        Err(invalid_params(message))
    }
}

/// Turns what a tool handler gave into the call's result: a tool error
/// becomes an `isError` result, a structured result is checked.
pub(crate) fn conclude_tool(
    entry: &ToolEntry,
    outcome: Result<CallToolResult, HandlerError>,
    version: ProtocolVersion,
) -> Result<CallToolResult, ErrorObject> {
    let mut result = match outcome {
        Ok(result) => result,
        Err(HandlerError::Tool(message)) => return Ok(CallToolResult::error(message)),
        Err(other) => return Err(other.to_error_object_outside_resources(version)),
    };
    if result.is_error != Some(true) {
        check_structured_output(&entry.tool.name, entry.output.as_ref(), &mut result)?;
    }
    Ok(result)
}

/// Checks a tool's structured result against its `outputSchema` (a tool
/// with one MUST return conforming `structuredContent`), and adds the
/// serialized-JSON text twin when the tool gave no content.
fn check_structured_output(
    tool: &str,
    output: Option<&crate::schema::DeferredSchema>,
    result: &mut CallToolResult,
) -> Result<(), ErrorObject> {
    if let Some(schema) = output {
        let Some(structured) = &result.structured_content else {
            return Err(ErrorObject::internal_error(format!(
                "tool {tool} declares an outputSchema but returned no structuredContent"
            )));
        };
        if let Err(failure) = schema.validate(structured) {
            return Err(ErrorObject::internal_error(format!(
                "tool {tool} returned structuredContent that does not match its outputSchema: {failure}"
            )));
        }
    }
    if let Some(structured) = &result.structured_content
        && result.content.is_empty()
    {
        result
            .content
            .push(ContentBlock::text(structured.to_string()));
    }
    Ok(())
}
