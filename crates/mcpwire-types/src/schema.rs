//! JSON Schema validation of tool arguments (`inputSchema`) and structured tool results (`outputSchema`).
//!
//! A schema is compiled once into a [`CompiledSchema`] and reused for every call. Simple schemas
//! (typed properties, `required`, enums, arrays of typed items, bounds; see `schema/simple.rs`)
//! are compiled by a small built-in validator that gives jsonschema's results exactly; the rest
//! by the jsonschema crate, which costs tens of millions of instructions and megabytes of heap for
//! the first schema, because it validates it against its dialect's meta-schema. The crate is
//! built in with the `full-schemas` feature only (3 MB of code and three quarters of a stdio
//! server's start-up relocations, `docs/performance.md`); without it, a schema beyond the
//! built-in validator does not compile ([`SchemaError::NeedsFullSchemas`]): it is never let
//! through unchecked. A server holds
//! its tools' schemas as [`DeferredSchema`]s: the cheap checks run when the tool is registered,
//! the compilation itself when a call first needs it, except in debug builds and builds without
//! `full-schemas`, which compile at registration so that a broken schema (or one that needs the
//! feature) shows at once. Compiling follows the MCP rules of
//! `basic/index` "JSON Schema Usage" (revision 2026-07-28, also 2025-11-25):
//!
//! - **Dialects.** A schema without `$schema` is JSON Schema 2020-12. An explicit `$schema` may
//!   name 2020-12, 2019-09, draft-07, draft-06 or draft-04 (see [`Dialect`]); the URI is accepted
//!   with `http` or `https`, with or without a trailing `#` or `/`. Any other dialect is refused
//!   with [`SchemaError::UnsupportedDialect`] ("MUST handle unsupported dialects gracefully by
//!   returning an appropriate error indicating the dialect is not supported").
//! - **No remote `$ref`.** References inside the schema (`#/$defs/...`, `#/definitions/...`,
//!   embedded `$id`s, anchors) resolve; anything else is never fetched and is a compile error,
//!   [`SchemaError::UnresolvedReference`] ("MUST NOT automatically dereference `$ref` values that
//!   resolve to a network URI" and "SHOULD be rejected rather than silently treated as
//!   permissive").
//! - **Bounded work.** Schemas nested deeper than [`SchemaLimits::max_depth`] or made of more than
//!   [`SchemaLimits::max_size`] JSON values are refused before compiling ("Composition-Keyword
//!   Resource Use": implementations SHOULD apply reasonable bounds such as a maximum schema depth
//!   or a cap on the number of subschemas). `pattern` regexes run on the jsonschema crate's
//!   backtracking engine with its default backtrack limit, so a hostile pattern fails the value
//!   instead of hanging.
//!
//! Validation reports every violation with the JSON Pointer of the offending value
//! ([`ValidationFailure`]); its `Display` is the text a server puts in an `isError: true` tool
//! result, since invalid arguments are tool execution errors, not protocol errors (SEP-1303).

mod simple;

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

#[cfg(feature = "full-schemas")]
use jsonschema::error::ValidationErrorKind;
#[cfg(feature = "full-schemas")]
use jsonschema::{Draft, ReferencingError, Retrieve, Uri, ValidationError, Validator};
use serde_json::{Map, Value};

/// Default for [`SchemaLimits::max_depth`]: levels of JSON object/array nesting.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Default for [`SchemaLimits::max_size`]: JSON values (objects, arrays and scalars) in a schema.
pub const DEFAULT_MAX_SIZE: usize = 10_000;

/// At most this many violations are kept in a [`ValidationFailure`]; the rest are only counted,
/// so a huge invalid array cannot produce a huge error text.
pub const MAX_REPORTED_ERRORS: usize = 100;

/// Messages longer than this many characters are shortened in the failure text, because
/// jsonschema messages quote the offending value, which can be arbitrarily large.
const MAX_MESSAGE_CHARS: usize = 300;

/// How much of the start of an overlong message is kept.
const MESSAGE_HEAD_CHARS: usize = 200;

/// How much of the end of an overlong message is kept.
const MESSAGE_TAIL_CHARS: usize = 80;

/// Bounds on the schemas a server agrees to compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaLimits {
    /// Deepest allowed nesting of JSON objects and arrays, counting the root as level 1. A
    /// property schema nested `n` objects deep uses about `2n` levels (`properties` is one).
    pub max_depth: usize,
    /// Most JSON values (objects, arrays, strings, numbers, booleans, nulls) a schema may hold.
    pub max_size: usize,
}

impl Default for SchemaLimits {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            max_size: DEFAULT_MAX_SIZE,
        }
    }
}

/// A JSON Schema dialect this crate validates with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// JSON Schema 2020-12, the MCP default when `$schema` is absent.
    Draft202012,
    /// JSON Schema 2019-09.
    Draft201909,
    /// JSON Schema draft-07.
    Draft07,
    /// JSON Schema draft-06.
    Draft06,
    /// JSON Schema draft-04.
    Draft04,
}

impl Dialect {
    /// The canonical `$schema` URI of this dialect.
    pub fn uri(self) -> &'static str {
        match self {
            Self::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
            Self::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Self::Draft07 => "http://json-schema.org/draft-07/schema#",
            Self::Draft06 => "http://json-schema.org/draft-06/schema#",
            Self::Draft04 => "http://json-schema.org/draft-04/schema#",
        }
    }

    /// The dialect a `$schema` URI names, accepting `http` or `https` and an optional trailing
    /// `#` or `/`; `None` for anything this crate does not support.
    pub fn from_schema_uri(uri: &str) -> Option<Self> {
        let without_fragment = uri.strip_suffix('#').unwrap_or(uri);
        let without_slash = without_fragment
            .strip_suffix('/')
            .unwrap_or(without_fragment);
        let location = without_slash
            .strip_prefix("https://")
            .or_else(|| without_slash.strip_prefix("http://"))?;
        match location {
            "json-schema.org/draft/2020-12/schema" => Some(Self::Draft202012),
            "json-schema.org/draft/2019-09/schema" => Some(Self::Draft201909),
            "json-schema.org/draft-07/schema" => Some(Self::Draft07),
            "json-schema.org/draft-06/schema" => Some(Self::Draft06),
            "json-schema.org/draft-04/schema" => Some(Self::Draft04),
            _ => None,
        }
    }

    #[cfg(feature = "full-schemas")]
    fn draft(self) -> Draft {
        match self {
            Self::Draft202012 => Draft::Draft202012,
            Self::Draft201909 => Draft::Draft201909,
            Self::Draft07 => Draft::Draft7,
            Self::Draft06 => Draft::Draft6,
            Self::Draft04 => Draft::Draft4,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Draft202012 => "JSON Schema 2020-12",
            Self::Draft201909 => "JSON Schema 2019-09",
            Self::Draft07 => "JSON Schema draft-07",
            Self::Draft06 => "JSON Schema draft-06",
            Self::Draft04 => "JSON Schema draft-04",
        })
    }
}

/// Why a schema could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// `$schema` names a dialect this crate does not support.
    #[error(
        "unsupported JSON Schema dialect {dialect}; supported: 2020-12 (the default), 2019-09, draft-07, draft-06, draft-04"
    )]
    UnsupportedDialect {
        /// The `$schema` value as written (JSON text when it is not a string).
        dialect: String,
    },
    /// The schema nests objects and arrays deeper than the configured limit.
    #[error("schema is nested more than {limit} levels deep")]
    TooDeep {
        /// The configured [`SchemaLimits::max_depth`].
        limit: usize,
    },
    /// The schema holds more JSON values than the configured limit.
    #[error("schema has more than {limit} JSON values")]
    TooLarge {
        /// The configured [`SchemaLimits::max_size`].
        limit: usize,
    },
    /// A `$ref` points outside the schema; remote references are never fetched.
    #[error(
        "schema refers to `{reference}`, which is not part of the schema; remote $ref resolution is disabled"
    )]
    UnresolvedReference {
        /// The absolute URI the reference resolved to.
        reference: String,
    },
    /// A local `$ref` points at nothing (missing pointer target or anchor).
    #[error("schema has a broken $ref: {message}")]
    BrokenReference {
        /// What the resolver reported.
        message: String,
    },
    /// The schema is not valid under its dialect's meta-schema, or uses a keyword wrongly.
    #[error("schema is invalid at {}: {message}", pointer_or_root(.location))]
    Invalid {
        /// JSON Pointer into the schema where the problem is (empty for the root).
        location: String,
        /// What is wrong there.
        message: String,
    },
    /// The schema uses keywords only the jsonschema crate compiles (references, combinators,
    /// `pattern`, enums of numbers, `format` before 2019-09, ...), and it was not built in (the `full-schemas` feature).
    #[error(
        "schema uses keywords beyond the built-in validator's (such as $ref, allOf/anyOf/oneOf, pattern or an enum of numbers): enable the `full-schemas` feature of mcpwire (or mcpwire-types) to compile it"
    )]
    NeedsFullSchemas,
    /// A tool's `inputSchema` does not declare `"type": "object"`.
    #[error("a tool's inputSchema must have \"type\": \"object\", but {found}")]
    NotAnObjectSchema {
        /// What was found instead, as a short phrase.
        found: String,
    },
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the root"
    } else {
        pointer
    }
}

/// Checks that a tool's `inputSchema` is an object schema, as every revision of the MCP schema
/// requires (`inputSchema.type` is the constant `"object"`).
pub fn require_object_schema(schema: &Value) -> Result<(), SchemaError> {
    let found = match schema {
        Value::Object(map) => match map.get("type") {
            Some(Value::String(kind)) if kind == "object" => return Ok(()),
            Some(other) => format!("its \"type\" is {other}"),
            None => "it has no \"type\"".to_owned(),
        },
        Value::Bool(_) => "it is a boolean schema".to_owned(),
        other => format!("it is not a JSON object but {}", json_kind(other)),
    };
    Err(SchemaError::NotAnObjectSchema { found })
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A schema compiled once and reused to validate many instances.
pub struct CompiledSchema {
    checker: Checker,
    dialect: Dialect,
}

/// What validates instances: the built-in validator for the simple schemas it handles (no
/// meta-schema work, a few hundred bytes), the jsonschema crate for the rest.
enum Checker {
    Simple(simple::SimpleSchema),
    #[cfg(feature = "full-schemas")]
    Full(Box<Validator>),
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("dialect", &self.dialect)
            .field("built_in", &matches!(self.checker, Checker::Simple(_)))
            .finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Compiles `schema` with the default [`SchemaLimits`].
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        Self::compile_with_limits(schema, SchemaLimits::default())
    }

    /// Compiles a schema held as a JSON object, as `inputSchema` and `outputSchema` are.
    pub fn compile_object(schema: &Map<String, Value>) -> Result<Self, SchemaError> {
        Self::compile(&Value::Object(schema.clone()))
    }

    /// Compiles a tool's `inputSchema`: checks it is an object schema
    /// ([`require_object_schema`]), then compiles it with the default limits.
    pub fn compile_tool_input(schema: &Value) -> Result<Self, SchemaError> {
        require_object_schema(schema)?;
        Self::compile(schema)
    }

    /// Compiles `schema`, refusing it when it exceeds `limits`.
    pub fn compile_with_limits(schema: &Value, limits: SchemaLimits) -> Result<Self, SchemaError> {
        // The size walk comes first so that neither the dialect check nor the (recursive)
        // jsonschema compiler ever sees an oversized or overly deep document.
        check_limits(schema, limits)?;
        let dialect = declared_dialect(schema)?;
        if let Some(simple) = simple::SimpleSchema::recognize(schema, dialect) {
            return Ok(Self {
                checker: Checker::Simple(simple),
                dialect,
            });
        }
        #[cfg(feature = "full-schemas")]
        {
            let validator = jsonschema::options()
                .with_draft(dialect.draft())
                .with_retriever(RefuseRetrieval)
                .build(&with_canonical_dialect(schema, dialect))
                .map_err(|error| compile_error(&error))?;
            Ok(Self {
                checker: Checker::Full(Box::new(validator)),
                dialect,
            })
        }
        #[cfg(not(feature = "full-schemas"))]
        Err(SchemaError::NeedsFullSchemas)
    }

    /// Whether the built-in validator for simple schemas serves this schema, rather than the
    /// jsonschema crate (the two give the same results; the built-in one costs no meta-schema
    /// validation at compile time).
    pub fn is_built_in(&self) -> bool {
        matches!(self.checker, Checker::Simple(_))
    }

    /// The dialect the schema is validated under.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Whether `instance` satisfies the schema; cheaper than [`Self::validate`] when the
    /// reasons are not needed.
    pub fn is_valid(&self, instance: &Value) -> bool {
        match &self.checker {
            Checker::Simple(simple) => simple.is_valid(instance),
            #[cfg(feature = "full-schemas")]
            Checker::Full(validator) => validator.is_valid(instance),
        }
    }

    /// Validates `instance`, reporting every violation when it does not satisfy the schema.
    pub fn validate(&self, instance: &Value) -> Result<(), ValidationFailure> {
        if self.is_valid(instance) {
            return Ok(());
        }
        let (mut errors, omitted) = match &self.checker {
            Checker::Simple(simple) => simple.errors(instance),
            #[cfg(feature = "full-schemas")]
            Checker::Full(validator) => full_errors(validator, instance),
        };
        if errors.is_empty() {
            // `is_valid` and the error walk should agree; if they ever do not, the instance is
            // still refused rather than let through.
            errors.push(InstanceError {
                instance_path: String::new(),
                message: "the value does not match the schema".to_owned(),
            });
        }
        Err(ValidationFailure { errors, omitted })
    }
}

/// Every violation jsonschema finds (at most [`MAX_REPORTED_ERRORS`]), and how many more.
#[cfg(feature = "full-schemas")]
fn full_errors(validator: &Validator, instance: &Value) -> (Vec<InstanceError>, usize) {
    let mut errors = Vec::new();
    let mut omitted = 0;
    for error in validator.iter_errors(instance) {
        if errors.len() < MAX_REPORTED_ERRORS {
            errors.push(InstanceError {
                instance_path: error.instance_path.to_string(),
                message: error.to_string(),
            });
        } else {
            omitted += 1;
        }
    }
    (errors, omitted)
}

/// A schema checked now and compiled on first use, once, by whichever thread needs it first.
///
/// Building one refuses at once what is cheap to see: a schema over the [`SchemaLimits`], an
/// unsupported `$schema` and, for [`tool_input`](Self::tool_input), a schema that is not an
/// object schema. What only the compiler finds (a malformed keyword, an unresolvable `$ref`) is
/// found at registration in debug builds, which compile at once, and otherwise on first use:
/// then every [`validate`](Self::validate) fails, naming the schema's error, and the error is
/// logged once. Release builds thereby start without compiling (nor meta-validating) any schema,
/// and a tool that is never called never costs its compilation.
pub struct DeferredSchema {
    schema: Value,
    compiled: OnceLock<Result<CompiledSchema, SchemaError>>,
}

impl fmt::Debug for DeferredSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeferredSchema")
            .field("compiled", &self.compiled.get().map(Result::is_ok))
            .finish_non_exhaustive()
    }
}

impl DeferredSchema {
    /// Checks `schema` against the default [`SchemaLimits`] and its declared dialect; compiles
    /// it now in debug builds, and in every build without the `full-schemas` feature (the
    /// built-in validator compiles in microseconds, so a schema that needs the feature is
    /// refused here, never at a call).
    ///
    /// # Errors
    ///
    /// When the schema is too large or deep, names an unsupported dialect or (debug builds, or
    /// any build without `full-schemas`) does not compile.
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        check_limits(&schema, SchemaLimits::default())?;
        declared_dialect(&schema)?;
        let deferred = Self {
            schema,
            compiled: OnceLock::new(),
        };
        if cfg!(debug_assertions) || !cfg!(feature = "full-schemas") {
            deferred.compiled().map_err(Clone::clone)?;
        }
        Ok(deferred)
    }

    /// Like [`new`](Self::new) for a tool's `inputSchema`, which must also be an object schema
    /// ([`require_object_schema`]).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new), and when the schema is not an object schema.
    pub fn tool_input(schema: Value) -> Result<Self, SchemaError> {
        require_object_schema(&schema)?;
        Self::new(schema)
    }

    /// The compiled schema, compiling it on the first call.
    ///
    /// # Errors
    ///
    /// The compiler's error, the same on every call.
    pub fn compiled(&self) -> Result<&CompiledSchema, &SchemaError> {
        self.compiled
            .get_or_init(|| {
                let compiled = CompiledSchema::compile(&self.schema);
                if let Err(error) = &compiled {
                    tracing::error!(%error, "a registered schema does not compile");
                }
                compiled
            })
            .as_ref()
    }

    /// Validates `instance` as [`CompiledSchema::validate`] does; when the schema itself does
    /// not compile, every instance fails with the schema's error (at the instance's root).
    pub fn validate(&self, instance: &Value) -> Result<(), ValidationFailure> {
        match self.compiled() {
            Ok(compiled) => compiled.validate(instance),
            Err(error) => Err(ValidationFailure {
                errors: vec![InstanceError {
                    instance_path: String::new(),
                    message: format!("the schema itself is invalid: {error}"),
                }],
                omitted: 0,
            }),
        }
    }
}

/// Walks the schema without recursion (a hostile document must not overflow the stack) and
/// stops at the first limit exceeded.
fn check_limits(schema: &Value, limits: SchemaLimits) -> Result<(), SchemaError> {
    let mut pending = vec![(schema, 1_usize)];
    let mut size = 0_usize;
    while let Some((value, depth)) = pending.pop() {
        size += 1;
        if size > limits.max_size {
            return Err(SchemaError::TooLarge {
                limit: limits.max_size,
            });
        }
        // Only containers count as a level of nesting.
        if depth > limits.max_depth && matches!(value, Value::Object(_) | Value::Array(_)) {
            return Err(SchemaError::TooDeep {
                limit: limits.max_depth,
            });
        }
        match value {
            Value::Object(map) => pending.extend(map.values().map(|child| (child, depth + 1))),
            Value::Array(items) => pending.extend(items.iter().map(|child| (child, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

fn declared_dialect(schema: &Value) -> Result<Dialect, SchemaError> {
    match schema.get("$schema") {
        None => Ok(Dialect::Draft202012),
        Some(Value::String(uri)) => {
            Dialect::from_schema_uri(uri).ok_or_else(|| SchemaError::UnsupportedDialect {
                dialect: uri.clone(),
            })
        }
        Some(other) => Err(SchemaError::UnsupportedDialect {
            dialect: other.to_string(),
        }),
    }
}

/// Rewrites an accepted but non-canonical `$schema` spelling (say `https://` for draft-07) to
/// the one the jsonschema crate recognises, so that it never treats it as an unknown meta-schema
/// to look up.
#[cfg(feature = "full-schemas")]
fn with_canonical_dialect(schema: &Value, dialect: Dialect) -> Cow<'_, Value> {
    match schema {
        Value::Object(map) => match map.get("$schema") {
            Some(Value::String(uri)) if uri != dialect.uri() => {
                let mut rewritten = map.clone();
                rewritten.insert("$schema".to_owned(), Value::from(dialect.uri()));
                Cow::Owned(Value::Object(rewritten))
            }
            _ => Cow::Borrowed(schema),
        },
        _ => Cow::Borrowed(schema),
    }
}

#[cfg(feature = "full-schemas")]
fn compile_error(error: &ValidationError<'_>) -> SchemaError {
    match &error.kind {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => {
            SchemaError::UnresolvedReference {
                reference: uri.clone(),
            }
        }
        ValidationErrorKind::Referencing(ReferencingError::UnknownSpecification {
            specification,
        }) => SchemaError::UnsupportedDialect {
            dialect: specification.clone(),
        },
        ValidationErrorKind::Referencing(other) => SchemaError::BrokenReference {
            message: other.to_string(),
        },
        _ => SchemaError::Invalid {
            location: error.instance_path.to_string(),
            message: error.to_string(),
        },
    }
}

/// The retriever the compiler calls for any reference outside the schema: it never fetches
/// (MCP `basic/index` "`$ref` Resolution": no automatic dereferencing of network URIs), whatever
/// features the jsonschema crate was built with elsewhere in the dependency graph.
#[cfg(feature = "full-schemas")]
struct RefuseRetrieval;

#[cfg(feature = "full-schemas")]
impl Retrieve for RefuseRetrieval {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "refusing to retrieve `{}`: remote $ref resolution is disabled",
            uri.as_str()
        )
        .into())
    }
}

/// One violation: where in the instance, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceError {
    /// JSON Pointer to the offending value in the instance; empty for the instance itself.
    pub instance_path: String,
    /// What is wrong, as the validator words it.
    pub message: String,
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.instance_path.is_empty() {
            f.write_str("At the top level: ")?;
        } else {
            write!(f, "At {}: ", self.instance_path)?;
        }
        let message = shortened(&self.message);
        f.write_str(&message)?;
        if !message.ends_with(['.', '!', '?']) {
            f.write_str(".")?;
        }
        Ok(())
    }
}

/// Cuts the middle out of an overlong message: jsonschema quotes the offending value first and
/// says what is wrong with it last, so both ends are worth keeping.
fn shortened(message: &str) -> Cow<'_, str> {
    let length = message.chars().count();
    if length <= MAX_MESSAGE_CHARS {
        return Cow::Borrowed(message);
    }
    let head: String = message.chars().take(MESSAGE_HEAD_CHARS).collect();
    let tail: String = message.chars().skip(length - MESSAGE_TAIL_CHARS).collect();
    Cow::Owned(format!("{head} … {tail}"))
}

/// Every way an instance failed its schema.
///
/// `Display` writes one sentence per violation, one per line, ready for the text of an
/// `isError: true` tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationFailure {
    errors: Vec<InstanceError>,
    omitted: usize,
}

impl ValidationFailure {
    /// The violations, in the order the validator found them (at most [`MAX_REPORTED_ERRORS`]).
    pub fn errors(&self) -> &[InstanceError] {
        &self.errors
    }

    /// How many further violations were found but not kept.
    pub fn omitted(&self) -> usize {
        self.omitted
    }
}

impl fmt::Display for ValidationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.errors.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        match self.omitted {
            0 => {}
            1 => f.write_str("\n1 more error is not shown.")?,
            more => write!(f, "\n{more} more errors are not shown.")?,
        }
        Ok(())
    }
}

impl std::error::Error for ValidationFailure {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_deferred_schema_refuses_cheap_errors_at_once_in_every_build() {
        let not_an_object = DeferredSchema::tool_input(json!({"type": "string"}));
        assert!(not_an_object.is_err());
        let unknown_dialect = DeferredSchema::new(json!({"$schema": "https://example.com/s"}));
        assert!(matches!(
            unknown_dialect,
            Err(SchemaError::UnsupportedDialect { .. })
        ));
    }

    #[test]
    fn a_schema_beyond_the_built_in_validator_needs_the_full_schemas_feature() {
        let pattern = json!({
            "type": "object",
            "properties": {"a": {"type": "string", "pattern": "^a"}},
        });
        let compiled = CompiledSchema::compile(&pattern);
        let deferred = DeferredSchema::tool_input(pattern);
        if cfg!(feature = "full-schemas") {
            assert!(!compiled.unwrap().is_built_in());
            assert!(deferred.is_ok());
        } else {
            // Refused at registration in every build (without jsonschema, compiling is
            // cheap enough to do at once), never let through unchecked.
            assert_eq!(compiled.unwrap_err(), SchemaError::NeedsFullSchemas);
            assert_eq!(deferred.unwrap_err(), SchemaError::NeedsFullSchemas);
        }
    }

    #[test]
    fn a_deferred_schema_validates_as_the_compiled_one_does() {
        let schema = json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        });
        let deferred = DeferredSchema::tool_input(schema.clone()).unwrap();
        let compiled = CompiledSchema::compile(&schema).unwrap();
        for instance in [json!({"text": "hi"}), json!({"text": 1}), json!({})] {
            assert_eq!(
                deferred.validate(&instance).map_err(|f| f.to_string()),
                compiled.validate(&instance).map_err(|f| f.to_string()),
                "{instance}"
            );
        }
        assert!(deferred.compiled().is_ok());
    }

    #[test]
    fn a_schema_that_does_not_compile_is_reported_at_registration_in_debug_or_on_every_use() {
        let broken = json!({"properties": {"a": {"type": 5}}});
        let expected = CompiledSchema::compile(&broken).unwrap_err();
        let deferred = DeferredSchema {
            schema: broken.clone(),
            compiled: OnceLock::new(),
        };
        for _ in 0..2 {
            let failure = deferred.validate(&json!({"a": 1})).unwrap_err();
            assert!(
                failure.to_string().contains(&expected.to_string()),
                "{failure}"
            );
        }
        assert_eq!(deferred.compiled().unwrap_err(), &expected);
        if cfg!(debug_assertions) {
            assert_eq!(DeferredSchema::new(broken).unwrap_err(), expected);
        }
    }
}
