//! The `auth/*` client scenarios: an OAuth client from `mcpwire-auth`
//! plugged into the Streamable HTTP transport through its `Authorizer`
//! hook, configured from the scenario's name and context.
//!
//! The runner's authorization servers grant without user interaction and
//! redirect at once, so the "user agent" is [`RedirectCapture`]: it GETs
//! the authorization URL, does not follow the redirect, and reads the code
//! from `Location` (the redirect URI itself is never contacted).

use std::sync::Arc;

use mcpwire_auth::client::{
    ClientCredentials, Es256Key, Grant, HttpFetch, HyperFetch, MemoryStore, OAuthAuthorizer,
    OAuthClient, OAuthConfig, RedirectCapture, TokenAuthMethod,
};
use mcpwire_client::Client;
use mcpwire_http::client::Authorizer;
use serde_json::{Map, Value};

use super::{CLIENT_NAME, Invocation, ScenarioError};

/// The redirect URI the client registers: a loopback URL, as a native app
/// would use; the runner never expects it to be contacted.
const REDIRECT_URI: &str = "http://127.0.0.1:3000/callback";

/// The Client ID Metadata Document URL the runner expects as `client_id`
/// where the authorization server supports such documents
/// (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// A string field of the scenario context.
fn context_str<'a>(context: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    context.get(key).and_then(Value::as_str)
}

/// The OAuth configuration the scenario calls for.
fn config(invocation: &Invocation) -> OAuthConfig {
    let context = &invocation.context;
    let mut config =
        OAuthConfig::new(CLIENT_NAME, REDIRECT_URI).client_metadata_url(CLIENT_METADATA_URL);
    let client_id = context_str(context, "client_id");
    match (client_id, context_str(context, "client_secret")) {
        (Some(id), Some(secret)) => {
            config = config.preregistered(ClientCredentials::with_secret(id, secret));
        }
        (Some(id), None) => config = config.preregistered(ClientCredentials::public(id)),
        _ => {}
    }
    if invocation.name.starts_with("auth/client-credentials-") {
        config = config.grant(Grant::ClientCredentials);
    }
    if let (Some(id), Some(pem)) = (client_id, context_str(context, "private_key_pem")) {
        let mut credentials = ClientCredentials::public(id);
        credentials.private_key_pem = Some(pem.to_owned());
        credentials.auth_method = Some(TokenAuthMethod::PrivateKeyJwt);
        config = config.preregistered(credentials);
    }
    if let (Some(endpoint), Some(id_token)) = (
        context_str(context, "idp_token_endpoint"),
        context_str(context, "idp_id_token"),
    ) {
        config = config.grant(Grant::IdentityAssertion {
            idp_token_endpoint: endpoint.to_owned(),
            id_token: id_token.to_owned(),
            idp_client_id: context_str(context, "idp_client_id").map(str::to_owned),
        });
    }
    if let Some(assertion) = context_str(context, "valid_jwt") {
        config = config.grant(Grant::JwtBearer {
            assertion: assertion.to_owned(),
        });
    }
    config
}

/// The authorizer for an `auth/*` scenario.
///
/// # Errors
///
/// The server URL is refused (not HTTPS and not loopback).
pub fn authorizer(invocation: &Invocation) -> Result<Arc<dyn Authorizer>, ScenarioError> {
    let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
    let user_agent = Arc::new(RedirectCapture::new(Arc::clone(&http)));
    let client = OAuthClient::new(
        &invocation.url,
        config(invocation),
        http,
        user_agent,
        Arc::new(MemoryStore::new()),
    )
    .map_err(|error| ScenarioError::Transport(error.to_string()))?;
    // DPoP is used wherever the authorization server offers it (the
    // `auth/dpop*` scenarios); elsewhere tokens stay plain bearer tokens.
    let key = Es256Key::generate().map_err(|error| ScenarioError::Transport(error.to_string()))?;
    Ok(Arc::new(OAuthAuthorizer::new(client.with_dpop(key))))
}

/// What an authorized client does: list the tools, then call `test-tool`
/// when listed. Two authenticated requests after the handshake, which the
/// authorization-server migration and step-up scenarios need.
pub(super) async fn play(client: &Client) -> Result<(), ScenarioError> {
    let tools = client
        .list_all_tools()
        .await
        .map_err(super::scenarios::failed("tools/list"))?;
    if tools.iter().any(|tool| tool.name == "test-tool") {
        client
            .call_tool("test-tool", Map::new())
            .await
            .map_err(super::scenarios::failed("tools/call test-tool"))?;
    }
    Ok(())
}
