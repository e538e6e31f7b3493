//! RFC 8414 authorization server metadata and RFC 9728 protected resource metadata.
//!
//! Both documents are plain serde types: the fields MCP reads are named,
//! every other member is kept in `extra`, so a document survives a round
//! trip unchanged. They are shared by the client (which reads them), the
//! resource-server layer (which serves protected resource metadata) and the
//! embedded authorization server (which serves its own metadata).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The well-known suffix of protected resource metadata (RFC 9728 §3).
pub const PROTECTED_RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// The well-known suffix of authorization server metadata (RFC 8414 §3).
pub const AUTHORIZATION_SERVER_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
/// The well-known suffix of OpenID Connect discovery (OpenID Connect Discovery 1.0 §4).
pub const OPENID_CONFIGURATION_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// Protected resource metadata (RFC 9728 §2): what an MCP server publishes
/// about itself so that clients find its authorization servers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the URL clients send as the RFC 8707
    /// `resource` parameter, exactly as written here.
    pub resource: String,
    /// The issuers of the authorization servers that grant tokens for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How bearer tokens may be presented (`header`, `body`, `query`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// The URL of the resource's JSON Web Key Set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Documentation for developers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// The JWS algorithms the resource accepts for DPoP proofs (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether the resource always requires DPoP-bound tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_bound_access_tokens_required: Option<bool>,
    /// Every other member, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ProtectedResourceMetadata {
    /// Metadata for `resource` naming one authorization server.
    pub fn new(resource: impl Into<String>, authorization_server: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            ..Self::default()
        }
    }
}

/// Authorization server metadata (RFC 8414 §2, with the OpenID Connect
/// Discovery members the same document may carry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; a client checks that it equals the URL the
    /// metadata was derived from (RFC 8414 §3.3).
    pub issuer: String,
    /// Where the user is sent to authorize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes, refresh tokens and assertions become access tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// The JSON Web Key Set of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The scopes the server knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// The `response_type` values supported.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_types_supported: Vec<String>,
    /// The grant types supported (RFC 8414 default: `authorization_code`
    /// and `implicit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// The client authentication methods of the token endpoint (RFC 8414
    /// default: `client_secret_basic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The JWS algorithms accepted for `private_key_jwt` client assertions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// The PKCE methods supported; MCP clients refuse a server without `S256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Token revocation (RFC 7009).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    /// Token introspection (RFC 7662).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_endpoint: Option<String>,
    /// Whether the server puts `iss` in authorization responses (RFC 9207).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Whether an HTTPS URL may serve as a client id (Client ID Metadata
    /// Documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// The JWS algorithms accepted in DPoP proofs (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Every other member, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthorizationServerMetadata {
    /// Whether PKCE with `S256` is advertised. An absent list means the
    /// server says nothing, which MCP clients must treat as unsupported.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|methods| methods.iter().any(|method| method == "S256"))
    }

    /// Whether the server says it puts `iss` in authorization responses.
    pub fn advertises_iss_parameter(&self) -> bool {
        self.authorization_response_iss_parameter_supported == Some(true)
    }

    /// Whether `grant_type` is supported, reading an absent list with the
    /// RFC 8414 default (`authorization_code` and `implicit`).
    pub fn supports_grant(&self, grant_type: &str) -> bool {
        match &self.grant_types_supported {
            Some(grants) => grants.iter().any(|grant| grant == grant_type),
            None => matches!(grant_type, "authorization_code" | "implicit"),
        }
    }

    /// The token endpoint client authentication methods, with the RFC 8414
    /// default (`client_secret_basic`) when the list is absent.
    pub fn token_auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".to_owned()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-18, AUTH-19: RFC 8414 metadata read and written whole.
    #[test]
    fn unknown_members_survive_a_round_trip() {
        let text = r#"{"issuer":"https://as.example","code_challenge_methods_supported":["S256"],"x-vendor":{"a":1}}"#;
        let metadata: AuthorizationServerMetadata = serde_json::from_str(text).unwrap();
        assert!(metadata.supports_s256());
        assert_eq!(metadata.extra["x-vendor"]["a"], 1);
        let back: Value = serde_json::to_value(&metadata).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());
        let prm = r#"{"resource":"https://rs.example/mcp","authorization_servers":["https://as.example"],"extra":true}"#;
        let parsed: ProtectedResourceMetadata = serde_json::from_str(prm).unwrap();
        assert_eq!(parsed.resource, "https://rs.example/mcp");
        assert_eq!(parsed.extra["extra"], true);
    }

    // AUTH-18, AUTH-66: absent lists read as RFC 8414 says (no PKCE method assumed).
    #[test]
    fn absent_lists_read_with_the_rfc_8414_defaults() {
        let metadata = AuthorizationServerMetadata {
            issuer: "https://as.example".to_owned(),
            ..AuthorizationServerMetadata::default()
        };
        assert!(!metadata.supports_s256(), "no list means no S256");
        assert!(metadata.supports_grant("authorization_code"));
        assert!(!metadata.supports_grant("client_credentials"));
        assert_eq!(metadata.token_auth_methods(), ["client_secret_basic"]);
    }
}
