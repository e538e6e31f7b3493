//! Discovery: protected resource metadata (RFC 9728) from the challenge or
//! the well-known URIs, then authorization server metadata (RFC 8414 and
//! OpenID Connect Discovery) in the order the MCP authorization spec gives,
//! with the 2025-03-26 fallbacks when a server publishes no resource
//! metadata.

use std::sync::Arc;

use url::Url;

use super::challenge::Challenge;
use super::error::Error;
use super::fetch::{HttpFetch, checked_url, get_json, same_origin};
use crate::metadata::{
    AUTHORIZATION_SERVER_WELL_KNOWN, AuthorizationServerMetadata, OPENID_CONFIGURATION_WELL_KNOWN,
    PROTECTED_RESOURCE_WELL_KNOWN, ProtectedResourceMetadata,
};

/// What discovery found for one MCP server.
#[derive(Clone, Debug)]
pub struct Discovered {
    /// The protected resource metadata, when the server publishes it.
    pub resource_metadata: Option<ProtectedResourceMetadata>,
    /// The RFC 8707 `resource` value: the metadata's `resource` exactly as
    /// published, or (2025-03-26 servers without metadata) the server URL.
    pub resource: String,
    /// The authorization server.
    pub server: AuthorizationServer,
}

/// An authorization server, as the client uses it.
#[derive(Clone, Debug)]
pub struct AuthorizationServer {
    /// Its issuer identifier; credentials and tokens are keyed by it.
    pub issuer: String,
    /// Its metadata, when it publishes any (the 2025-03-26 default
    /// endpoints have none).
    pub metadata: Option<AuthorizationServerMetadata>,
    /// The authorization endpoint.
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    pub token_endpoint: String,
    /// The registration endpoint, if any.
    pub registration_endpoint: Option<String>,
}

impl AuthorizationServer {
    /// Whether redirects from it must carry `iss` (RFC 9207 §3).
    pub fn advertises_iss(&self) -> bool {
        self.metadata
            .as_ref()
            .is_some_and(AuthorizationServerMetadata::advertises_iss_parameter)
    }

    /// The scopes it lists, if it lists any.
    pub fn scopes_supported(&self) -> Option<&[String]> {
        self.metadata.as_ref()?.scopes_supported.as_deref()
    }
}

/// The locations of protected resource metadata for `server`, in order: the
/// challenge's `resource_metadata` alone when given, else the path-suffixed
/// then the root well-known URI (RFC 9728 §3.1; MCP authorization,
/// "Protected Resource Metadata Discovery Requirements").
pub fn resource_metadata_urls(server: &Url, challenge: Option<&Challenge>) -> Vec<String> {
    if let Some(url) = challenge.and_then(Challenge::resource_metadata) {
        return vec![url.to_owned()];
    }
    let origin = server.origin().ascii_serialization();
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}{PROTECTED_RESOURCE_WELL_KNOWN}{path}"));
    }
    urls.push(format!("{origin}{PROTECTED_RESOURCE_WELL_KNOWN}"));
    urls
}

/// The locations of the metadata of the authorization server `issuer`, in
/// the MCP authorization spec's order: with a path, RFC 8414 path
/// insertion, OpenID Connect path insertion, OpenID Connect path
/// appending; without, the two root well-known URIs. No other path is ever
/// tried.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER_WELL_KNOWN}"),
            format!("{origin}{OPENID_CONFIGURATION_WELL_KNOWN}"),
        ]
    } else {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER_WELL_KNOWN}{path}"),
            format!("{origin}{OPENID_CONFIGURATION_WELL_KNOWN}{path}"),
            format!("{origin}{path}{OPENID_CONFIGURATION_WELL_KNOWN}"),
        ]
    }
}

/// Whether the metadata's `resource` may stand for `server`: the same
/// origin, and a path equal to the server's or a parent of it along
/// segment boundaries (RFC 9728 §3.3 and §7.3, as MCP servers publish
/// either their endpoint or their origin).
pub fn resource_matches(published: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(published) else {
        return false;
    };
    if !same_origin(&resource, server) || resource.fragment().is_some() {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    path == prefix || path.starts_with(&format!("{prefix}/"))
}

/// Fetches the protected resource metadata of `server`. `Ok(None)` when
/// every location answered 4xx.
pub async fn fetch_resource_metadata(
    http: &Arc<dyn HttpFetch>,
    server: &Url,
    challenge: Option<&Challenge>,
) -> Result<Option<ProtectedResourceMetadata>, Error> {
    for url in resource_metadata_urls(server, challenge) {
        if let Some((_, document)) = get_json(http, &url).await? {
            let metadata: ProtectedResourceMetadata =
                serde_json::from_value(document).map_err(|error| Error::Invalid {
                    what: "protected resource metadata",
                    reason: error.to_string(),
                })?;
            return Ok(Some(metadata));
        }
    }
    Ok(None)
}

/// Fetches and checks the metadata of the authorization server `issuer`:
/// its `issuer` must be `issuer` exactly (RFC 8414 §3.3) and it must
/// support PKCE S256.
pub async fn fetch_authorization_server(
    http: &Arc<dyn HttpFetch>,
    issuer: &str,
) -> Result<AuthorizationServer, Error> {
    let issuer_url = checked_url(issuer)?;
    for url in authorization_server_metadata_urls(&issuer_url) {
        if let Some((_, document)) = get_json(http, &url).await? {
            let metadata = parse_as_metadata(document)?;
            if metadata.issuer != issuer {
                return Err(Error::IssuerMismatch {
                    expected: issuer.to_owned(),
                    claimed: metadata.issuer,
                });
            }
            return from_metadata(metadata);
        }
    }
    Err(Error::NoAuthorizationServer(issuer.to_owned()))
}

/// The 2025-03-26 fallback for a server without resource metadata: the
/// authorization server is the server's origin; its metadata is at the
/// origin's RFC 8414 well-known URI, else the default endpoints
/// `/authorize`, `/token` and `/register` apply.
///
/// The issuer is only required to share the server's origin: in that
/// revision the metadata location derives from the MCP server, not from an
/// issuer identifier, and deployed servers name issuers under a path.
pub async fn legacy_authorization_server(
    http: &Arc<dyn HttpFetch>,
    server: &Url,
) -> Result<AuthorizationServer, Error> {
    let origin = server.origin().ascii_serialization();
    let url = format!("{origin}{AUTHORIZATION_SERVER_WELL_KNOWN}");
    if let Some((_, document)) = get_json(http, &url).await? {
        let metadata = parse_as_metadata(document)?;
        let same = Url::parse(&metadata.issuer).is_ok_and(|issuer| same_origin(&issuer, server));
        if !same {
            return Err(Error::IssuerMismatch {
                expected: origin,
                claimed: metadata.issuer,
            });
        }
        return from_metadata(metadata);
    }
    Ok(AuthorizationServer {
        issuer: origin.clone(),
        metadata: None,
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
    })
}

fn parse_as_metadata(document: serde_json::Value) -> Result<AuthorizationServerMetadata, Error> {
    serde_json::from_value(document).map_err(|error| Error::Invalid {
        what: "authorization server metadata",
        reason: error.to_string(),
    })
}

fn from_metadata(metadata: AuthorizationServerMetadata) -> Result<AuthorizationServer, Error> {
    let token_endpoint = metadata
        .token_endpoint
        .clone()
        .ok_or_else(|| Error::MissingEndpoint {
            issuer: metadata.issuer.clone(),
            endpoint: "token_endpoint",
        })?;
    Ok(AuthorizationServer {
        issuer: metadata.issuer.clone(),
        authorization_endpoint: metadata.authorization_endpoint.clone(),
        registration_endpoint: metadata.registration_endpoint.clone(),
        token_endpoint,
        metadata: Some(metadata),
    })
}

/// Runs discovery for `server` after a challenge (or before any request).
///
/// # Errors
///
/// A fetch failed, the resource metadata names another resource, no
/// authorization server is named or found, or its metadata is refused.
pub async fn discover(
    http: &Arc<dyn HttpFetch>,
    server: &Url,
    challenge: Option<&Challenge>,
) -> Result<Discovered, Error> {
    match fetch_resource_metadata(http, server, challenge).await? {
        Some(metadata) => {
            if !resource_matches(&metadata.resource, server) {
                return Err(Error::ResourceMismatch {
                    published: metadata.resource,
                    server: server.to_string(),
                });
            }
            let issuer = metadata
                .authorization_servers
                .first()
                .cloned()
                .ok_or_else(|| Error::NoAuthorizationServer(server.to_string()))?;
            let authorization_server = fetch_authorization_server(http, &issuer).await?;
            Ok(Discovered {
                resource: metadata.resource.clone(),
                resource_metadata: Some(metadata),
                server: authorization_server,
            })
        }
        None => Ok(Discovered {
            resource_metadata: None,
            resource: server.to_string(),
            server: legacy_authorization_server(http, server).await?,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    // AUTH-11: header URL, then path-suffixed, then root.
    #[test]
    fn resource_metadata_is_looked_up_path_first_then_at_the_root() {
        assert_eq!(
            resource_metadata_urls(&url("https://rs.example/public/mcp"), None),
            [
                "https://rs.example/.well-known/oauth-protected-resource/public/mcp",
                "https://rs.example/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("https://rs.example"), None),
            ["https://rs.example/.well-known/oauth-protected-resource"]
        );
        let challenge = Challenge {
            scheme: "Bearer".into(),
            params: vec![(
                "resource_metadata".into(),
                "https://rs.example/custom.json".into(),
            )],
        };
        assert_eq!(
            resource_metadata_urls(&url("https://rs.example/mcp"), Some(&challenge)),
            ["https://rs.example/custom.json"],
            "a named URL is the only one tried"
        );
    }

    // AUTH-19, AUTH-20, AUTH-21: discovery URLs in the spec order.
    #[test]
    fn authorization_server_metadata_follows_the_spec_order_and_nothing_else() {
        assert_eq!(
            authorization_server_metadata_urls(&url("https://auth.example/tenant1")),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls(&url("https://auth.example")),
            [
                "https://auth.example/.well-known/oauth-authorization-server",
                "https://auth.example/.well-known/openid-configuration",
            ]
        );
    }

    // AUTH-44, AUTH-54: the metadata must stand for this server.
    #[test]
    fn a_resource_matches_its_endpoint_or_a_parent_on_the_same_origin() {
        let server = url("http://localhost:3000/mcp");
        assert!(resource_matches("http://localhost:3000/mcp", &server));
        assert!(resource_matches("http://localhost:3000", &server));
        assert!(resource_matches("http://localhost:3000/", &server));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://localhost:3001/mcp", &server));
        assert!(!resource_matches("http://localhost:3000/mc", &server));
        assert!(!resource_matches(
            "http://localhost:3000/mcp/other",
            &server
        ));
        assert!(!resource_matches("not a url", &server));
    }
}
