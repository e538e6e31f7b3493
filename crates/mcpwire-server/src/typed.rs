//! Typed tools: what a tool handler may return ([`IntoToolResult`], with
//! [`Structured`] for typed structured output), the application state
//! handlers share ([`ServerBuilder::state`](crate::ServerBuilder::state)),
//! and, with the `schemars` feature, schemas derived from Rust types.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use mcpwire_types::CallToolResult;
use serde::Serialize;

use crate::HandlerError;

/// What a tool handler returns: a [`CallToolResult`] built by hand, a
/// [`Structured`] value, or a plain `String` (one text block).
pub trait IntoToolResult: Send + 'static {
    /// The result sent to the client.
    ///
    /// # Errors
    ///
    /// When the value cannot be serialized (an internal error).
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::text(self))
    }
}

/// A tool's typed structured output: `T` becomes `structuredContent`, and
/// its serialized JSON the text block beside it (for clients that read
/// only `content`). With the `schemars` feature and
/// `ServerBuilder::derived_tool`, the tool's `outputSchema` is derived from `T`, and every result is checked
/// against it like a hand-written one.
///
/// `T` should serialize to a JSON object: clients of revisions before
/// 2026-07-28 only accept object-shaped structured content, so a server
/// that speaks them refuses a non-object `outputSchema` at `build()`
/// (wrap a list in a struct: `struct Found { matches: Vec<Match> }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Structured<T>(pub T);

impl<T: Serialize + Send + 'static> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        let value = serde_json::to_value(&self.0).map_err(|error| {
            HandlerError::Internal(format!("the structured output does not serialize: {error}"))
        })?;
        Ok(CallToolResult::structured(value))
    }
}

/// The values given to [`ServerBuilder::state`](crate::ServerBuilder::state), one per type.
#[derive(Clone, Default)]
pub(crate) struct States(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl States {
    pub(crate) fn insert<S: Send + Sync + 'static>(&mut self, state: S) {
        self.0.insert(TypeId::of::<S>(), Arc::new(state));
    }

    pub(crate) fn get<S: Send + Sync + 'static>(&self) -> Result<&S, HandlerError> {
        self.0
            .get(&TypeId::of::<S>())
            .and_then(|state| state.downcast_ref::<S>())
            .ok_or_else(|| {
                HandlerError::Internal(format!(
                    "no state of type {} was given to the server builder (ServerBuilder::state)",
                    std::any::type_name::<S>()
                ))
            })
    }
}

/// Schemas derived from Rust types (`schemars`, JSON Schema 2020-12).
#[cfg(feature = "schemars")]
mod derived {
    use schemars::JsonSchema;
    use serde::Serialize;
    use serde_json::Value;

    use super::{IntoToolResult, Structured};
    use mcpwire_types::CallToolResult;

    /// The JSON Schema (2020-12) of `T`, as `schemars` derives it:
    /// definitions of nested types under `$defs`, `$schema` naming the dialect.
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    pub fn schema_for<T: JsonSchema>() -> Value {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        generator.into_root_schema_for::<T>().to_value()
    }

    /// A tool output whose `outputSchema` can be derived: [`Structured<T>`]
    /// (the schema of `T`), or none for a [`CallToolResult`] or `String`.
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    pub trait DerivedOutput: IntoToolResult {
        /// The `outputSchema` of the tool, if it has one.
        fn output_schema() -> Option<Value>;
    }

    impl DerivedOutput for CallToolResult {
        fn output_schema() -> Option<Value> {
            None
        }
    }

    impl DerivedOutput for String {
        fn output_schema() -> Option<Value> {
            None
        }
    }

    impl<T: Serialize + JsonSchema + Send + 'static> DerivedOutput for Structured<T> {
        fn output_schema() -> Option<Value> {
            Some(schema_for::<T>())
        }
    }
}

#[cfg(feature = "schemars")]
pub use derived::{DerivedOutput, schema_for};
