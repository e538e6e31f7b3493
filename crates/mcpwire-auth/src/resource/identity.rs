//! The validated identity a request carries past the bearer layer.

use serde_json::{Map, Value};

/// Who a validated access token speaks for, and what it allows.
///
/// [`BearerAuth`](super::BearerAuth) inserts one into the extensions of every
/// request it lets through (`request.extensions().get::<AuthContext>()`); on
/// Streamable HTTP the server runtime hands those extensions to tool handlers.
/// The token itself is not kept here: it never travels further than the layer.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthContext {
    /// The resource owner (`sub`), when the token names one.
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id`, or `azp`).
    pub client_id: Option<String>,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// The audiences (`aud`): the resources the token is bound to (RFC 8707).
    pub audiences: Vec<String>,
    /// The issuer (`iss`).
    pub issuer: Option<String>,
    /// When the token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// Every claim of the token (or introspection answer), as received.
    pub claims: Map<String, Value>,
}

impl AuthContext {
    /// An identity for `subject` with `scopes`; the other fields stay empty
    /// (set them directly: a custom verifier fills what it knows).
    pub fn new(subject: impl Into<String>, scopes: impl IntoIterator<Item = String>) -> Self {
        Self {
            subject: Some(subject.into()),
            scopes: scopes.into_iter().collect(),
            ..Self::default()
        }
    }

    /// The identity described by JWT claims or an RFC 7662 introspection
    /// answer: `sub`, `client_id` (or `azp`), `scope` (space-separated),
    /// `aud` (a string or an array), `iss` and `exp`.
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let audiences = match claims.get("aud") {
            Some(Value::String(audience)) => vec![audience.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes: text("scope")
                .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default(),
            audiences,
            issuer: text("iss"),
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// The identity in a transport's per-request context: the
    /// `http::Extensions` of the HTTP request, which the Streamable HTTP
    /// server hands to the runtime (`mcpwire_server::Context::transport_context()`).
    /// `None` when the request did not pass through the bearer layer.
    pub fn from_transport_context(
        context: Option<&(dyn std::any::Any + Send + Sync)>,
    ) -> Option<&Self> {
        context?.downcast_ref::<http::Extensions>()?.get::<Self>()
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Whether the token is bound to `resource` (RFC 8707): one of its
    /// audiences names it, ignoring a trailing slash on either side.
    pub fn is_bound_to(&self, resource: &str) -> bool {
        let wanted = resource.trim_end_matches('/');
        self.audiences
            .iter()
            .any(|audience| audience.trim_end_matches('/') == wanted)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    // AUTH-52: the audience is read from either `aud` shape.
    #[test]
    fn claims_fill_the_identity_with_either_audience_shape() {
        let Value::Object(claims) = json!({
            "sub": "alice", "azp": "app", "scope": "read  write", "aud": ["https://a/mcp", "x"],
            "iss": "https://as", "exp": 42
        }) else {
            unreachable!()
        };
        let identity = AuthContext::from_claims(claims);
        assert_eq!(identity.subject.as_deref(), Some("alice"));
        assert_eq!(identity.client_id.as_deref(), Some("app"));
        assert_eq!(identity.scopes, ["read", "write"]);
        assert!(identity.is_bound_to("https://a/mcp/"));
        assert!(!identity.is_bound_to("https://b/mcp"));
        assert_eq!(identity.expires_at, Some(42));
        let Value::Object(single) = json!({"aud": "https://a/mcp"}) else {
            unreachable!()
        };
        assert!(AuthContext::from_claims(single).is_bound_to("https://a/mcp"));
    }
}
