//! Token endpoint requests (authorization code, refresh, client
//! credentials, JWT bearer) with client authentication, and dynamic client
//! registration (RFC 7591).

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::HeaderValue;
use http::header::AUTHORIZATION;
use serde::Deserialize;
use serde_json::{Value, json};
use url::form_urlencoded;

use super::discovery::AuthorizationServer;
use super::error::Error;
use super::fetch::{HttpFetch, post};
use super::store::{ClientCredentials, StoredTokens, TokenAuthMethod};

/// What a token endpoint answers on success (RFC 6749 §5.1).
#[derive(Debug, Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// An OAuth error answer (RFC 6749 §5.2).
#[derive(Debug, Deserialize)]
struct ErrorResponse {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// The token endpoint authentication the client uses with `credentials` at
/// `server`: the registered method, else the first the server supports
/// among those the credentials allow (Basic before post for a secret).
pub fn choose_auth_method(
    server: &AuthorizationServer,
    credentials: &ClientCredentials,
) -> TokenAuthMethod {
    if let Some(method) = credentials.auth_method {
        return method;
    }
    let supported = server
        .metadata
        .as_ref()
        .map(crate::metadata::AuthorizationServerMetadata::token_auth_methods)
        .unwrap_or_default();
    let allows = |method: TokenAuthMethod| supported.iter().any(|name| name == method.as_str());
    if credentials.private_key_pem.is_some() && allows(TokenAuthMethod::PrivateKeyJwt) {
        return TokenAuthMethod::PrivateKeyJwt;
    }
    if credentials.client_secret.is_some() {
        if allows(TokenAuthMethod::ClientSecretPost) && !allows(TokenAuthMethod::ClientSecretBasic)
        {
            return TokenAuthMethod::ClientSecretPost;
        }
        return TokenAuthMethod::ClientSecretBasic;
    }
    TokenAuthMethod::None
}

/// Signs client assertions for `private_key_jwt` (RFC 7523 §2.2).
pub trait AssertionSigner: Send + Sync + std::fmt::Debug {
    /// A signed JWT with `iss` = `sub` = `client_id` and `aud` = `audience`.
    ///
    /// # Errors
    ///
    /// The key is unusable.
    fn client_assertion(&self, client_id: &str, audience: &str, pem: &str)
    -> Result<String, Error>;
}

/// The form fields and headers that authenticate `credentials` with `method`.
fn authenticate(
    form: &mut Vec<(String, String)>,
    headers: &mut Vec<(http::HeaderName, HeaderValue)>,
    credentials: &ClientCredentials,
    method: TokenAuthMethod,
    server: &AuthorizationServer,
    signer: Option<&dyn AssertionSigner>,
) -> Result<(), Error> {
    let secret = credentials.client_secret.clone().unwrap_or_default();
    match method {
        TokenAuthMethod::None => form.push(("client_id".into(), credentials.client_id.clone())),
        TokenAuthMethod::ClientSecretPost => {
            form.push(("client_id".into(), credentials.client_id.clone()));
            form.push(("client_secret".into(), secret));
        }
        TokenAuthMethod::ClientSecretBasic => {
            // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic.
            let encode =
                |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(&credentials.client_id), encode(&secret));
            let value = HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(pair)))
                .map_err(|error| Error::Invalid {
                    what: "client credentials",
                    reason: error.to_string(),
                })?;
            headers.push((AUTHORIZATION, value));
        }
        TokenAuthMethod::PrivateKeyJwt => {
            let pem = credentials
                .private_key_pem
                .as_deref()
                .ok_or_else(|| Error::Signing("private_key_jwt needs a private key".to_owned()))?;
            let signer = signer
                .ok_or_else(|| Error::Signing("no assertion signer configured".to_owned()))?;
            let assertion = signer.client_assertion(&credentials.client_id, &server.issuer, pem)?;
            form.push(("client_id".into(), credentials.client_id.clone()));
            form.push((
                "client_assertion_type".into(),
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
            ));
            form.push(("client_assertion".into(), assertion));
        }
    }
    Ok(())
}

/// One token request.
#[derive(Debug)]
pub struct TokenRequest<'a> {
    /// The authorization server.
    pub server: &'a AuthorizationServer,
    /// Who the client is (`None`: no client authentication at all).
    pub credentials: Option<&'a ClientCredentials>,
    /// The grant's own form fields (`grant_type` first).
    pub grant: Vec<(String, String)>,
    /// Extra headers (a DPoP proof).
    pub headers: Vec<(http::HeaderName, HeaderValue)>,
    /// The scopes requested, recorded when the answer names none.
    pub requested_scopes: Vec<String>,
}

/// Sends a token request; on success returns the tokens, on an OAuth error
/// the error with any `DPoP-Nonce` the server sent.
pub async fn request_token(
    http: &Arc<dyn HttpFetch>,
    request: TokenRequest<'_>,
    signer: Option<&dyn AssertionSigner>,
) -> Result<StoredTokens, (Error, Option<String>)> {
    let mut form = request.grant;
    let mut headers = request.headers;
    if let Some(credentials) = request.credentials {
        let method = choose_auth_method(request.server, credentials);
        authenticate(
            &mut form,
            &mut headers,
            credentials,
            method,
            request.server,
            signer,
        )
        .map_err(|error| (error, None))?;
    }
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter())
        .finish();
    let (status, answer_headers, value) = post(
        http,
        &request.server.token_endpoint,
        "application/x-www-form-urlencoded",
        headers,
        body.into_bytes(),
    )
    .await
    .map_err(|error| (error, None))?;
    let nonce = answer_headers
        .get("dpop-nonce")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if !status.is_success() {
        let error = match serde_json::from_value::<ErrorResponse>(value) {
            Ok(error) => Error::OAuth {
                endpoint: "token endpoint",
                error: error.error,
                description: error.error_description,
            },
            Err(_) => Error::Status {
                url: request.server.token_endpoint.clone(),
                status,
            },
        };
        return Err((error, nonce));
    }
    let answer: TokenResponse = serde_json::from_value(value).map_err(|error| {
        (
            Error::Invalid {
                what: "the token response",
                reason: error.to_string(),
            },
            None,
        )
    })?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let scopes = match answer.scope {
        Some(scope) => scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        None => request.requested_scopes,
    };
    Ok(StoredTokens {
        issuer: request.server.issuer.clone(),
        access_token: answer.access_token,
        token_type: answer.token_type.unwrap_or_else(|| "Bearer".to_owned()),
        refresh_token: answer.refresh_token,
        expires_at: answer.expires_in.map(|seconds| now.saturating_add(seconds)),
        scopes,
    })
}

/// The `application_type` of a client (OpenID Connect Dynamic Client
/// Registration §2, required by MCP 2026-07-28 registrations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApplicationType {
    /// Runs on the user's device, redirecting to loopback or a custom scheme.
    Native,
    /// Runs on a web server, redirecting to an HTTPS URL.
    Web,
}

impl ApplicationType {
    /// What a redirect URI says about the client: loopback or a custom
    /// scheme means native, anything else web.
    pub fn for_redirect_uri(redirect_uri: &str) -> Self {
        match url::Url::parse(redirect_uri) {
            Ok(url) if url.scheme() == "https" && !super::fetch::is_loopback(&url) => Self::Web,
            _ => Self::Native,
        }
    }

    /// The registered value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Web => "web",
        }
    }
}

/// What the client says about itself when it registers.
#[derive(Clone, Debug)]
pub struct Registration {
    /// `client_name`.
    pub client_name: String,
    /// `redirect_uris` (one).
    pub redirect_uri: String,
    /// `application_type`.
    pub application_type: ApplicationType,
    /// `grant_types`.
    pub grant_types: Vec<String>,
    /// `scope`, when known.
    pub scope: Option<String>,
}

/// Registers the client at `server` (RFC 7591 §3), choosing a token
/// endpoint authentication method the server supports: `none` when it
/// allows public clients, else `client_secret_basic` or `client_secret_post`.
pub async fn register(
    http: &Arc<dyn HttpFetch>,
    server: &AuthorizationServer,
    registration: &Registration,
) -> Result<ClientCredentials, Error> {
    let endpoint = server
        .registration_endpoint
        .as_deref()
        .ok_or_else(|| Error::NoClientIdentity(server.issuer.clone()))?;
    let supported = server
        .metadata
        .as_ref()
        .map(crate::metadata::AuthorizationServerMetadata::token_auth_methods)
        .unwrap_or_else(|| vec!["none".to_owned()]);
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|method| supported.iter().any(|name| name == method))
        .unwrap_or("client_secret_basic");
    let mut body = json!({
        "client_name": registration.client_name,
        "redirect_uris": [registration.redirect_uri],
        "grant_types": registration.grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": registration.application_type.as_str(),
    });
    if let (Some(scope), Some(object)) = (&registration.scope, body.as_object_mut()) {
        object.insert("scope".into(), Value::String(scope.clone()));
    }
    let bytes = serde_json::to_vec(&body).map_err(|error| Error::Invalid {
        what: "the registration request",
        reason: error.to_string(),
    })?;
    let (status, _, answer) = post(http, endpoint, "application/json", Vec::new(), bytes).await?;
    if !status.is_success() {
        return Err(match serde_json::from_value::<ErrorResponse>(answer) {
            Ok(error) => Error::OAuth {
                endpoint: "registration endpoint",
                error: error.error,
                description: error.error_description,
            },
            Err(_) => Error::Status {
                url: endpoint.to_owned(),
                status,
            },
        });
    }
    let client_id = answer
        .get("client_id")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Invalid {
            what: "the registration response",
            reason: "no client_id".to_owned(),
        })?;
    let client_secret = answer
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let auth_method = answer
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .and_then(TokenAuthMethod::from_name)
        .or_else(|| TokenAuthMethod::from_name(method));
    Ok(ClientCredentials {
        client_id: client_id.to_owned(),
        client_secret,
        auth_method,
        private_key_pem: None,
    })
}
