//! `OAuthClient`: the state of one client's authorization with one MCP
//! server, and the flows that renew it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderValue, StatusCode};
use url::Url;

use super::authorize::{check_callback, select_scopes};
use super::challenge::{Challenge, parse_headers};
use super::discovery::{AuthorizationServer, Discovered, discover};
use super::error::Error;
use super::fetch::{HttpFetch, checked_url};
use super::jwt::{Es256Key, dpop_proof};
use super::store::{ClientCredentials, StoredTokens, TokenAuthMethod, TokenStore};
use super::token::{
    ApplicationType, AssertionSigner, Registration, TokenRequest, register, request_token,
};
use super::user_agent::UserAgent;
use super::{Grant, OAuthConfig};
use crate::pkce::{CodeVerifier, S256};
use crate::random::random_token;

/// How long before expiry a token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// Obtains and keeps access tokens for one MCP server.
#[derive(Debug)]
pub struct OAuthClient {
    server: Url,
    config: OAuthConfig,
    http: Arc<dyn HttpFetch>,
    user_agent: Arc<dyn UserAgent>,
    store: Arc<dyn TokenStore>,
    signer: Option<Arc<dyn AssertionSigner>>,
    /// The DPoP key, when the client binds its tokens (RFC 9449).
    dpop: Option<Es256Key>,
    /// The last `DPoP-Nonce` of the authorization server and of the MCP
    /// server (RFC 9449 §8, §9).
    nonces: std::sync::Mutex<Nonces>,
    /// Authorizations since the MCP server last accepted a request.
    consecutive: AtomicU32,
    /// Held for the length of a flow, so that concurrent challenges run
    /// one authorization, not several.
    flow: tokio::sync::Mutex<FlowState>,
}

#[derive(Debug, Default)]
struct FlowState {
    discovered: Option<Discovered>,
    /// The scopes of the last authorization request.
    requested: Vec<String>,
}

impl OAuthClient {
    /// A client for the MCP server at `server_url`.
    ///
    /// # Errors
    ///
    /// The URL is not HTTPS (or HTTP to a loopback host).
    pub fn new(
        server_url: &str,
        config: OAuthConfig,
        http: Arc<dyn HttpFetch>,
        user_agent: Arc<dyn UserAgent>,
        store: Arc<dyn TokenStore>,
    ) -> Result<Self, Error> {
        Ok(Self {
            server: checked_url(server_url)?,
            config,
            http,
            user_agent,
            store,
            signer: Some(Arc::new(super::jwt::Es256AssertionSigner)),
            dpop: None,
            nonces: std::sync::Mutex::new(Nonces::default()),
            consecutive: AtomicU32::new(0),
            flow: tokio::sync::Mutex::new(FlowState::default()),
        })
    }

    /// Signs `private_key_jwt` client assertions with `signer`.
    #[must_use]
    pub fn with_assertion_signer(mut self, signer: Arc<dyn AssertionSigner>) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Binds tokens to `key` with DPoP (RFC 9449) at every authorization
    /// server that advertises ES256 for DPoP proofs.
    #[must_use]
    pub fn with_dpop(mut self, key: Es256Key) -> Self {
        self.dpop = Some(key);
        self
    }

    /// The DPoP key to use with `server`, if both sides do DPoP.
    fn dpop_for(&self, server: &AuthorizationServer) -> Option<&Es256Key> {
        let advertised = server
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.dpop_signing_alg_values_supported.as_ref())
            .is_some_and(|algs| algs.iter().any(|alg| alg == "ES256"));
        self.dpop.as_ref().filter(|_| advertised)
    }

    fn nonces(&self) -> std::sync::MutexGuard<'_, Nonces> {
        self.nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Notes a successful answer of the MCP server: it resets the count of
    /// consecutive authorizations, and keeps the server's `DPoP-Nonce`,
    /// which it may rotate at any time (RFC 9449 §8.2).
    pub fn observe_response(&self, headers: &HeaderMap) {
        self.consecutive.store(0, Ordering::Relaxed);
        if let Some(nonce) = dpop_nonce(headers) {
            self.nonces().resource = Some(nonce);
        }
    }

    /// The key tokens are stored under: the MCP server URL as given.
    fn key(&self) -> &str {
        self.server.as_str()
    }

    /// The tokens currently held.
    pub fn tokens(&self) -> Option<StoredTokens> {
        self.store.tokens(self.key())
    }

    /// The headers to add to a request to the MCP server: `Authorization`
    /// with the current token, refreshed first when it is about to expire.
    /// Empty before any authorization.
    ///
    /// # Errors
    ///
    /// The token store failed.
    pub async fn authorization_headers(&self, method: &str, url: &str) -> Result<HeaderMap, Error> {
        let mut headers = HeaderMap::new();
        let Some(mut tokens) = self.tokens() else {
            return Ok(headers);
        };
        if tokens.expires_within(SystemTime::now(), REFRESH_MARGIN) {
            let mut state = self.flow.lock().await;
            match self.refresh(&mut state, &tokens).await {
                Ok(fresh) => tokens = fresh,
                Err(error) => {
                    tracing::debug!(%error, "OAuth: refresh before expiry failed");
                }
            }
        }
        let invalid = |error: http::header::InvalidHeaderValue| Error::Invalid {
            what: "the access token",
            reason: error.to_string(),
        };
        let bound = tokens.token_type.eq_ignore_ascii_case("dpop");
        match self.dpop.as_ref().filter(|_| bound) {
            Some(key) => {
                let nonce = self.nonces().resource.clone();
                let proof = dpop_proof(
                    key,
                    method,
                    url,
                    Some(&tokens.access_token),
                    nonce.as_deref(),
                )?;
                let value = HeaderValue::from_str(&format!("DPoP {}", tokens.access_token))
                    .map_err(invalid)?;
                headers.insert(AUTHORIZATION, value);
                headers.insert(DPOP, HeaderValue::from_str(&proof).map_err(invalid)?);
            }
            None => {
                let value = HeaderValue::from_str(&format!("Bearer {}", tokens.access_token))
                    .map_err(invalid)?;
                headers.insert(AUTHORIZATION, value);
            }
        }
        Ok(headers)
    }

    /// Handles a 401 or 403 answer from the MCP server. `Ok(true)`: new
    /// credentials are in place, retry the request; `Ok(false)`: nothing
    /// more can be done (the answer stands).
    ///
    /// # Errors
    ///
    /// A flow was attempted and failed (discovery, a refused server,
    /// registration, the user agent, the token request).
    pub async fn handle_challenge(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Result<bool, Error> {
        let challenges = parse_headers(headers);
        let challenge = challenges
            .iter()
            .find(|c| {
                c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop")
            })
            .or_else(|| challenges.first())
            .cloned();
        // A DPoP nonce challenge (RFC 9449 §9): retry with the new nonce,
        // once per nonce value.
        let nonce_challenge = challenges
            .iter()
            .any(|c| c.scheme.eq_ignore_ascii_case("dpop") && c.error() == Some("use_dpop_nonce"));
        if status == StatusCode::UNAUTHORIZED
            && nonce_challenge
            && let Some(nonce) = dpop_nonce(headers)
        {
            let mut nonces = self.nonces();
            if nonces.resource.as_deref() != Some(nonce.as_str()) {
                nonces.resource = Some(nonce);
                return Ok(true);
            }
        }
        let mut state = self.flow.lock().await;
        match status {
            StatusCode::UNAUTHORIZED => self.unauthorized(&mut state, challenge.as_ref()).await,
            StatusCode::FORBIDDEN => self.forbidden(&mut state, challenge.as_ref()).await,
            _ => Ok(false),
        }
    }

    async fn unauthorized(
        &self,
        state: &mut FlowState,
        challenge: Option<&Challenge>,
    ) -> Result<bool, Error> {
        // Discovery runs again on every 401: the resource may have moved to
        // another authorization server (SEP-2352).
        let discovered = discover(&self.http, &self.server, challenge).await?;
        let held = self.tokens();
        if let Some(tokens) = &held {
            if tokens.issuer == discovered.server.issuer
                && tokens.refresh_token.is_some()
                && self.consecutive.load(Ordering::Relaxed) == 0
            {
                state.discovered = Some(discovered.clone());
                if self.refresh(state, tokens).await.is_ok() {
                    self.consecutive.fetch_add(1, Ordering::Relaxed);
                    return Ok(true);
                }
            }
            if tokens.issuer != discovered.server.issuer {
                tracing::info!(
                    old = tokens.issuer.as_str(),
                    new = discovered.server.issuer.as_str(),
                    "OAuth: the resource names another authorization server; authorizing again"
                );
                state.requested.clear();
            }
            self.store.set_tokens(self.key(), None)?;
        }
        let scopes = select_scopes(
            challenge.and_then(Challenge::scopes),
            &discovered,
            self.config.request_offline_access && self.config.grant == Grant::AuthorizationCode,
        );
        state.discovered = Some(discovered.clone());
        self.obtain(state, &discovered, scopes).await?;
        Ok(true)
    }

    async fn forbidden(
        &self,
        state: &mut FlowState,
        challenge: Option<&Challenge>,
    ) -> Result<bool, Error> {
        let Some(challenge) = challenge.filter(|c| c.error() == Some("insufficient_scope")) else {
            return Ok(false);
        };
        let Some(needed) = challenge.scopes() else {
            return Ok(false);
        };
        // Already asked for every scope the server wants: asking again would
        // loop (the retry limit of the step-up flow).
        if needed.iter().all(|scope| state.requested.contains(scope)) {
            tracing::info!(
                ?needed,
                "OAuth: insufficient scope persists after step-up; giving up"
            );
            return Ok(false);
        }
        let discovered = match state.discovered.clone() {
            Some(discovered) => discovered,
            None => discover(&self.http, &self.server, Some(challenge)).await?,
        };
        // The union with what was held, so earlier permissions survive.
        let mut scopes = state.requested.clone();
        if let Some(tokens) = self.tokens() {
            for scope in tokens.scopes {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
        }
        for scope in needed {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        state.discovered = Some(discovered.clone());
        self.obtain(state, &discovered, scopes).await?;
        Ok(true)
    }

    /// Runs the configured grant and stores its tokens.
    async fn obtain(
        &self,
        state: &mut FlowState,
        discovered: &Discovered,
        scopes: Vec<String>,
    ) -> Result<(), Error> {
        let consecutive = self.consecutive.load(Ordering::Relaxed);
        if consecutive >= self.config.max_authorizations {
            return Err(Error::TooManyAuthorizations(consecutive));
        }
        self.consecutive.fetch_add(1, Ordering::Relaxed);
        state.requested.clone_from(&scopes);
        let tokens = match &self.config.grant {
            Grant::AuthorizationCode => self.authorization_code(discovered, &scopes).await?,
            Grant::ClientCredentials => {
                let credentials = self.identity(&discovered.server, &scopes).await?;
                let mut grant = vec![("grant_type".to_owned(), "client_credentials".to_owned())];
                push_common(&mut grant, &scopes, &discovered.resource);
                self.token(&discovered.server, Some(&credentials), grant, &scopes)
                    .await?
            }
            Grant::JwtBearer { assertion } => {
                let credentials = self
                    .config
                    .preregistered
                    .clone()
                    .ok_or_else(|| Error::NoClientIdentity(discovered.server.issuer.clone()))?;
                let mut grant = vec![
                    (
                        "grant_type".to_owned(),
                        "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
                    ),
                    ("assertion".to_owned(), assertion.clone()),
                ];
                push_common(&mut grant, &scopes, &discovered.resource);
                self.token(&discovered.server, Some(&credentials), grant, &scopes)
                    .await?
            }
            Grant::IdentityAssertion {
                idp_token_endpoint,
                id_token,
                idp_client_id,
            } => {
                let credentials = self
                    .config
                    .preregistered
                    .clone()
                    .ok_or_else(|| Error::NoClientIdentity(discovered.server.issuer.clone()))?;
                let exchange = IdJagExchange {
                    endpoint: idp_token_endpoint,
                    id_token,
                    client_id: idp_client_id.as_deref(),
                };
                let assertion = self
                    .exchange_for_id_jag(&exchange, discovered, &scopes)
                    .await?;
                let mut grant = vec![
                    (
                        "grant_type".to_owned(),
                        "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
                    ),
                    ("assertion".to_owned(), assertion),
                ];
                push_common(&mut grant, &scopes, &discovered.resource);
                self.token(&discovered.server, Some(&credentials), grant, &scopes)
                    .await?
            }
        };
        self.store.set_tokens(self.key(), Some(&tokens))
    }

    /// Exchanges the user's ID token at the identity provider for an
    /// ID-JAG addressed to the authorization server (RFC 8693 §2.1).
    async fn exchange_for_id_jag(
        &self,
        exchange: &IdJagExchange<'_>,
        discovered: &Discovered,
        scopes: &[String],
    ) -> Result<String, Error> {
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag",
            ),
            ("audience", discovered.server.issuer.as_str()),
            ("resource", discovered.resource.as_str()),
            ("subject_token", exchange.id_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
        ];
        let scope = scopes.join(" ");
        if !scope.is_empty() {
            form.push(("scope", scope.as_str()));
        }
        if let Some(client_id) = exchange.client_id {
            form.push(("client_id", client_id));
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let (status, _, answer) = super::fetch::post(
            &self.http,
            exchange.endpoint,
            "application/x-www-form-urlencoded",
            Vec::new(),
            body.into_bytes(),
        )
        .await?;
        let token = answer
            .get("access_token")
            .and_then(serde_json::Value::as_str);
        match token {
            Some(token) if status.is_success() => Ok(token.to_owned()),
            _ => Err(Error::OAuth {
                endpoint: "identity provider token endpoint",
                error: answer
                    .get("error")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("no access_token")
                    .to_owned(),
                description: answer
                    .get("error_description")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned),
            }),
        }
    }

    async fn token(
        &self,
        server: &AuthorizationServer,
        credentials: Option<&ClientCredentials>,
        grant: Vec<(String, String)>,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let dpop = self.dpop_for(server);
        // At most one retry, after a `use_dpop_nonce` answer (RFC 9449 §8).
        let mut retried = false;
        loop {
            let mut headers = Vec::new();
            if let Some(key) = dpop {
                let nonce = self.nonces().authorization_server.clone();
                let proof =
                    dpop_proof(key, "POST", &server.token_endpoint, None, nonce.as_deref())?;
                let value = HeaderValue::from_str(&proof)
                    .map_err(|error| Error::Signing(error.to_string()))?;
                headers.push((DPOP, value));
            }
            let request = TokenRequest {
                server,
                credentials,
                grant: grant.clone(),
                headers,
                requested_scopes: scopes.to_vec(),
            };
            match request_token(&self.http, request, self.signer.as_deref()).await {
                Ok(tokens) => return Ok(tokens),
                Err((Error::OAuth { error, .. }, Some(nonce)))
                    if error == "use_dpop_nonce" && dpop.is_some() && !retried =>
                {
                    retried = true;
                    self.nonces().authorization_server = Some(nonce);
                }
                Err((error, _)) => return Err(error),
            }
        }
    }

    /// The authorization code grant with PKCE S256 (OAuth 2.1 §4.1).
    async fn authorization_code(
        &self,
        discovered: &Discovered,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let server = &discovered.server;
        if let Some(metadata) = &server.metadata
            && !metadata.supports_s256()
        {
            return Err(Error::NoS256(server.issuer.clone()));
        }
        let endpoint =
            server
                .authorization_endpoint
                .as_deref()
                .ok_or_else(|| Error::MissingEndpoint {
                    issuer: server.issuer.clone(),
                    endpoint: "authorization_endpoint",
                })?;
        let credentials = self.identity(server, scopes).await?;
        let verifier =
            CodeVerifier::generate().map_err(|error| Error::Signing(error.to_string()))?;
        let state_value = random_token()?;
        let mut url = checked_url(endpoint)?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &credentials.client_id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("state", &state_value)
                .append_pair("code_challenge", &verifier.s256_challenge())
                .append_pair("code_challenge_method", S256);
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
            query.append_pair("resource", &discovered.resource);
        }
        let callback = self
            .user_agent
            .authorize(url.as_str(), &self.config.redirect_uri)
            .await?;
        let code = check_callback(&callback, &state_value, server)?;
        let mut grant = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code),
            ("redirect_uri".to_owned(), self.config.redirect_uri.clone()),
            ("code_verifier".to_owned(), verifier.as_str().to_owned()),
        ];
        grant.push(("resource".to_owned(), discovered.resource.clone()));
        self.token(server, Some(&credentials), grant, scopes).await
    }

    /// Who the client is at `server`: its stored registration, the
    /// pre-registered credentials, its metadata document URL, or a new
    /// registration.
    async fn identity(
        &self,
        server: &AuthorizationServer,
        scopes: &[String],
    ) -> Result<ClientCredentials, Error> {
        if let Some(stored) = self.store.client(&server.issuer) {
            return Ok(stored);
        }
        if let Some(preregistered) = &self.config.preregistered {
            return Ok(preregistered.clone());
        }
        let cimd = server
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.client_id_metadata_document_supported)
            == Some(true);
        if cimd && let Some(url) = &self.config.client_metadata_url {
            let mut credentials = ClientCredentials::public(url.clone());
            credentials.auth_method = Some(TokenAuthMethod::None);
            return Ok(credentials);
        }
        if server.registration_endpoint.is_none() {
            return Err(Error::NoClientIdentity(server.issuer.clone()));
        }
        let mut grant_types = vec!["authorization_code".to_owned(), "refresh_token".to_owned()];
        if self.config.grant == Grant::ClientCredentials {
            grant_types = vec!["client_credentials".to_owned()];
        }
        let registration = Registration {
            client_name: self.config.client_name.clone(),
            redirect_uri: self.config.redirect_uri.clone(),
            application_type: self
                .config
                .application_type
                .unwrap_or_else(|| ApplicationType::for_redirect_uri(&self.config.redirect_uri)),
            grant_types,
            scope: (!scopes.is_empty()).then(|| scopes.join(" ")),
        };
        let credentials = register(&self.http, server, &registration).await?;
        self.store.set_client(&server.issuer, &credentials)?;
        Ok(credentials)
    }

    /// Refreshes `tokens` at their issuer (OAuth 2.1 §4.3).
    async fn refresh(
        &self,
        state: &mut FlowState,
        tokens: &StoredTokens,
    ) -> Result<StoredTokens, Error> {
        let refresh_token = tokens.refresh_token.clone().ok_or_else(|| Error::Invalid {
            what: "the stored tokens",
            reason: "no refresh token".to_owned(),
        })?;
        let discovered = match state.discovered.clone() {
            Some(discovered) if discovered.server.issuer == tokens.issuer => discovered,
            _ => discover(&self.http, &self.server, None).await?,
        };
        if discovered.server.issuer != tokens.issuer {
            return Err(Error::IssuerMismatch {
                expected: tokens.issuer.clone(),
                claimed: discovered.server.issuer,
            });
        }
        let credentials = self.identity(&discovered.server, &tokens.scopes).await?;
        let grant = vec![
            ("grant_type".to_owned(), "refresh_token".to_owned()),
            ("refresh_token".to_owned(), refresh_token.clone()),
            ("resource".to_owned(), discovered.resource.clone()),
        ];
        let mut fresh = self
            .token(
                &discovered.server,
                Some(&credentials),
                grant,
                &tokens.scopes,
            )
            .await?;
        // A server may keep the refresh token without sending it again.
        if fresh.refresh_token.is_none() {
            fresh.refresh_token = Some(refresh_token);
        }
        self.store.set_tokens(self.key(), Some(&fresh))?;
        state.discovered = Some(discovered);
        Ok(fresh)
    }
}

/// The `DPoP` request header.
const DPOP: http::HeaderName = http::HeaderName::from_static("dpop");

/// The last DPoP nonces received.
#[derive(Debug, Default)]
struct Nonces {
    authorization_server: Option<String>,
    resource: Option<String>,
}

/// The `DPoP-Nonce` header of an answer.
fn dpop_nonce(headers: &HeaderMap) -> Option<String> {
    headers
        .get("dpop-nonce")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// Where and what to exchange for an ID-JAG.
struct IdJagExchange<'a> {
    endpoint: &'a str,
    id_token: &'a str,
    client_id: Option<&'a str>,
}

/// Adds `scope` (when any) and `resource` to a grant's fields.
fn push_common(grant: &mut Vec<(String, String)>, scopes: &[String], resource: &str) {
    if !scopes.is_empty() {
        grant.push(("scope".to_owned(), scopes.join(" ")));
    }
    grant.push(("resource".to_owned(), resource.to_owned()));
}
