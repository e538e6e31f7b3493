//! The fields every result shares (`resultType`, cache hints, `_meta`) and
//! the plain params and results of requests that carry nothing else.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Cursor, Extra, ForRevision, Meta, ProtocolVersion};

/// What kind of result a response carries (2026-07-28 on), so that the
/// receiver knows which shape to read before reading it.
///
/// Extensions may add values; an unknown value is kept as [`ResultType::Other`]
/// so that the receiver can reject it with a clear error (the spec says a
/// value the client does not recognize is invalid).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ResultType {
    /// `complete`: the request finished and this is its final result. An
    /// absent `resultType` (every revision before 2026-07-28) means this.
    #[default]
    Complete,
    /// `input_required`: the server needs more input from the client before
    /// it can finish, and the result is an `InputRequiredResult`.
    InputRequired,
    /// `task`: the tasks extension answered with a task handle instead of
    /// the final result.
    Task,
    /// A value added by an extension this model does not name.
    Other(String),
}

impl ResultType {
    /// The wire name, e.g. `"input_required"`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
            Self::Other(name) => name,
        }
    }

    /// Reads a wire name; names this model does not know become [`ResultType::Other`].
    pub fn from_wire(name: &str) -> Self {
        match name {
            "complete" => Self::Complete,
            "input_required" => Self::InputRequired,
            "task" => Self::Task,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Self::from_wire(&name))
    }
}

/// Who may cache a result (2026-07-28 on), like HTTP `Cache-Control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// The result holds no user-specific data; any client or shared cache may
    /// store it and serve it to anyone.
    Public,
    /// The result may be reused only within the same authorization context.
    Private,
}

/// Params of a request that carries nothing but `_meta` (`ping`,
/// `server/discover`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Metadata. In 2026-07-28 it is required and carries the protocol
    /// version and client capabilities; the session fills those in.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for RequestParams {
    /// `_meta` exists on params in every revision, so nothing changes.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of a notification that carries nothing but `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for NotificationParams {
    /// `_meta` exists on params in every revision, so nothing changes.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// Params of a list request that pages through its results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Where to continue: the `nextCursor` of the previous page; absent for
    /// the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl PaginatedRequestParams {
    /// Params asking for the page after `cursor`.
    pub fn with_cursor(cursor: impl Into<Cursor>) -> Self {
        Self {
            cursor: Some(cursor.into()),
            ..Self::default()
        }
    }
}

impl ForRevision for PaginatedRequestParams {
    /// `cursor` and `_meta` exist in every revision, so nothing changes.
    fn fit_to(&mut self, _version: ProtocolVersion) {}
}

/// A result that says only that the request succeeded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The kind of result (2026-07-28 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ForRevision for EmptyResult {
    fn fit_to(&mut self, version: ProtocolVersion) {
        fit_result_type(&mut self.result_type, version);
    }
}

/// Fits a result's `resultType` to `version`: 2026-07-28 requires it, so an
/// absent one becomes `complete` (what an absent one means); older
/// revisions do not define it, so it is removed.
pub(crate) fn fit_result_type(result_type: &mut Option<ResultType>, version: ProtocolVersion) {
    if version.has_result_type() {
        result_type.get_or_insert(ResultType::Complete);
    } else {
        *result_type = None;
    }
}

/// Fits a cacheable result's `ttlMs` and `cacheScope` to `version`.
///
/// 2026-07-28 requires both. The defaults are the cautious ones: a TTL of 0
/// (immediately stale, which is also what a client assumes when `ttlMs` is
/// absent) and `private` scope (never shared across authorization contexts).
/// Older revisions do not define them, so they are removed.
pub(crate) fn fit_cache_hints(
    ttl_ms: &mut Option<u64>,
    cache_scope: &mut Option<CacheScope>,
    version: ProtocolVersion,
) {
    if version.has_cache_hints() {
        ttl_ms.get_or_insert(0);
        cache_scope.get_or_insert(CacheScope::Private);
    } else {
        *ttl_ms = None;
        *cache_scope = None;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    #[test]
    fn paginated_params_example_round_trips() {
        let example = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "ExampleClient", "version": "1.0.0" },
                "io.modelcontextprotocol/clientCapabilities": {}
            },
            "cursor": "eyJwYWdlIjogMn0="
        });
        assert_eq!(round_trip::<PaginatedRequestParams>(&example), example);
    }

    #[test]
    fn result_type_names_round_trip_and_unknown_names_are_kept() {
        for name in ["complete", "input_required", "task", "com.example/deferred"] {
            let parsed: ResultType = serde_json::from_value(json!(name)).unwrap();
            assert_eq!(parsed.as_str(), name);
            assert_eq!(serde_json::to_value(&parsed).unwrap(), json!(name));
        }
        assert_eq!(
            ResultType::from_wire("input_required"),
            ResultType::InputRequired
        );
        assert_eq!(
            ResultType::from_wire("com.example/deferred"),
            ResultType::Other("com.example/deferred".into())
        );
    }

    #[test]
    fn empty_result_gets_result_type_complete_only_in_2026_07_28() {
        let latest = fitted(EmptyResult::default(), ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&latest).unwrap(),
            json!({ "resultType": "complete" })
        );
        for v in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25] {
            let older = fitted(latest.clone(), v);
            assert_eq!(serde_json::to_value(&older).unwrap(), json!({}));
        }
    }

    #[test]
    fn fitting_keeps_an_explicit_result_type() {
        let mut result_type = Some(ResultType::InputRequired);
        fit_result_type(&mut result_type, ProtocolVersion::V2026_07_28);
        assert_eq!(result_type, Some(ResultType::InputRequired));
    }

    #[test]
    fn cache_hints_default_to_stale_and_private_and_vanish_before_2026_07_28() {
        let (mut ttl, mut scope) = (None, None);
        fit_cache_hints(&mut ttl, &mut scope, ProtocolVersion::V2026_07_28);
        assert_eq!((ttl, scope), (Some(0), Some(CacheScope::Private)));

        let (mut ttl, mut scope) = (Some(60_000), Some(CacheScope::Public));
        fit_cache_hints(&mut ttl, &mut scope, ProtocolVersion::V2026_07_28);
        assert_eq!((ttl, scope), (Some(60_000), Some(CacheScope::Public)));

        fit_cache_hints(&mut ttl, &mut scope, ProtocolVersion::V2025_11_25);
        assert_eq!((ttl, scope), (None, None));
    }

    #[test]
    fn unknown_fields_survive_in_plain_params_and_results() {
        let params = json!({ "_meta": { "progressToken": 7 }, "x-vendor": [1, 2] });
        assert_eq!(round_trip::<RequestParams>(&params), params);
        assert_eq!(round_trip::<NotificationParams>(&params), params);
        let result = json!({ "resultType": "complete", "x-vendor": true });
        assert_eq!(round_trip::<EmptyResult>(&result), result);
    }

    #[test]
    fn cache_scope_uses_lowercase_names() {
        assert_eq!(
            serde_json::to_value(CacheScope::Public).unwrap(),
            json!("public")
        );
        assert_eq!(
            serde_json::from_value::<CacheScope>(json!("private")).unwrap(),
            CacheScope::Private
        );
    }
}
