//! Handler shapes: the boxed async functions the catalog stores, and the
//! conversions from plain async closures.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcpwire_types::{CallToolResult, GetPromptResult, ReadResourceResult};
use serde_json::{Map, Value};

use crate::{Context, HandlerError};

pub use mcpwire_jsonrpc::BoxFuture;

/// Arguments of a tool call (`arguments`, `{}` when absent).
pub type Arguments = Map<String, Value>;

/// Variables a resource template matched in a URI (`id` -> `123`).
pub type TemplateVariables = BTreeMap<String, String>;

/// Arguments of a prompt (`prompts/get`'s `arguments`).
pub type PromptArguments = BTreeMap<String, String>;

pub(crate) type ToolFn = Arc<
    dyn Fn(Context, Arguments) -> BoxFuture<'static, Result<CallToolResult, HandlerError>>
        + Send
        + Sync,
>;
pub(crate) type ResourceFn = Arc<
    dyn Fn(Context, String) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>>
        + Send
        + Sync,
>;
pub(crate) type TemplateFn = Arc<
    dyn Fn(
            Context,
            String,
            TemplateVariables,
        ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>>
        + Send
        + Sync,
>;
pub(crate) type PromptFn = Arc<
    dyn Fn(Context, PromptArguments) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>>
        + Send
        + Sync,
>;
/// A completer gets the partial value and the other arguments already given.
pub(crate) type CompleteFn = Arc<
    dyn Fn(
            Context,
            String,
            BTreeMap<String, String>,
        ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>>
        + Send
        + Sync,
>;

pub(crate) fn tool_fn<F, Fut>(handler: F) -> ToolFn
where
    F: Fn(Context, Arguments) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, HandlerError>> + Send + 'static,
{
    Arc::new(move |ctx, args| Box::pin(handler(ctx, args)))
}

pub(crate) fn resource_fn<F, Fut>(handler: F) -> ResourceFn
where
    F: Fn(Context, String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, HandlerError>> + Send + 'static,
{
    Arc::new(move |ctx, uri| Box::pin(handler(ctx, uri)))
}

pub(crate) fn template_fn<F, Fut>(handler: F) -> TemplateFn
where
    F: Fn(Context, String, TemplateVariables) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult, HandlerError>> + Send + 'static,
{
    Arc::new(move |ctx, uri, vars| Box::pin(handler(ctx, uri, vars)))
}

pub(crate) fn prompt_fn<F, Fut>(handler: F) -> PromptFn
where
    F: Fn(Context, PromptArguments) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, HandlerError>> + Send + 'static,
{
    Arc::new(move |ctx, args| Box::pin(handler(ctx, args)))
}

pub(crate) fn complete_fn<F, Fut>(handler: F) -> CompleteFn
where
    F: Fn(Context, String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<String>, HandlerError>> + Send + 'static,
{
    Arc::new(move |ctx, value, context| Box::pin(handler(ctx, value, context)))
}
