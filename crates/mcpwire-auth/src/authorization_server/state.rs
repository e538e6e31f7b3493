//! The embedded authorization server's state (clients, codes, refresh
//! tokens, keys), its builder, and the operations its endpoints share.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::JwkSet;
use serde_json::json;

use super::clients::{self, Client};
use super::consent::{AutoApprove, Consent};
use super::keys::{KeyError, KeyRing};
use super::tables::{ClientOrigin, Full, Limits, Tables};
use crate::metadata::AuthorizationServerMetadata;
use crate::random::random_token;
use crate::resource::fetch::{DEFAULT_FETCH_TIMEOUT, get_within};
use crate::resource::{BoxFuture, DocumentFetch, FetchError, KeySource};

/// How long a fetched client ID metadata document is trusted.
const METADATA_DOCUMENT_TTL: Duration = Duration::from_secs(300);

/// What a token is issued for: the user, the client, the scopes and the
/// resource it is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grant {
    /// The resource owner (`sub`).
    pub subject: String,
    /// The client (`client_id`).
    pub client_id: String,
    /// The granted scopes (`scope`).
    pub scopes: Vec<String>,
    /// The resource (RFC 8707), which becomes the token's `aud`.
    pub resource: Option<String>,
}

impl Grant {
    /// A grant for `subject` through `client_id`.
    pub fn new(
        subject: impl Into<String>,
        client_id: impl Into<String>,
        scopes: Vec<String>,
        resource: Option<String>,
    ) -> Self {
        Self {
            subject: subject.into(),
            client_id: client_id.into(),
            scopes,
            resource,
        }
    }
}

/// An authorization code waiting to be exchanged.
pub(crate) struct PendingCode {
    pub(crate) grant: Grant,
    pub(crate) redirect_uri: String,
    pub(crate) code_challenge: String,
    pub(crate) expires: Instant,
}

/// A live refresh token.
pub(crate) struct RefreshRecord {
    pub(crate) grant: Grant,
    /// Every token rotated out of one code shares a family, revoked whole
    /// when a rotated-out token is replayed.
    pub(crate) family: String,
    pub(crate) expires: Instant,
}

pub(crate) struct Settings {
    pub(crate) issuer: String,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) access_token_lifetime: Duration,
    pub(crate) refresh_token_lifetime: Duration,
    pub(crate) code_lifetime: Duration,
    pub(crate) allow_loopback_metadata_documents: bool,
    /// How long one client ID metadata document fetch may take.
    pub(crate) metadata_document_timeout: Duration,
    /// How long a request body may take to arrive once its head has.
    pub(crate) body_read_timeout: Duration,
    pub(crate) limits: Limits,
}

pub(crate) struct Inner {
    pub(crate) settings: Settings,
    pub(crate) consent: Arc<dyn Consent>,
    pub(crate) fetch: Option<Arc<dyn DocumentFetch>>,
    keys: Mutex<KeyRing>,
    tables: Mutex<Tables>,
}

/// The embedded authorization server (development and tests only; see the
/// [module documentation](super)). Cheap to clone: clones share state.
#[derive(Clone)]
pub struct AuthorizationServer {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for AuthorizationServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationServer")
            .field("issuer", &self.inner.settings.issuer)
            .finish_non_exhaustive()
    }
}

/// Builds an [`AuthorizationServer`].
pub struct AuthorizationServerBuilder {
    settings: Settings,
    consent: Arc<dyn Consent>,
    fetch: Option<Arc<dyn DocumentFetch>>,
    clients: Vec<Client>,
    keep_keys: usize,
}

impl std::fmt::Debug for AuthorizationServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationServerBuilder")
            .field("issuer", &self.settings.issuer)
            .finish_non_exhaustive()
    }
}

impl AuthorizationServerBuilder {
    /// The scopes the server knows; requests for others are refused with
    /// `invalid_scope`. Without this, any scope is granted as asked.
    #[must_use]
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.settings.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Who approves authorization requests (default: [`AutoApprove`]).
    #[must_use]
    pub fn consent(mut self, consent: Arc<dyn Consent>) -> Self {
        self.consent = consent;
        self
    }

    /// Fetches client ID metadata documents with `fetch`; without it the
    /// server supports registered clients only.
    #[must_use]
    pub fn metadata_documents(mut self, fetch: Arc<dyn DocumentFetch>) -> Self {
        self.fetch = Some(fetch);
        self
    }

    /// How long fetching one client ID metadata document may take (default
    /// 10 s), whatever bound the fetcher has of its own: the caller of
    /// `/authorize` picks the URL, so it also picks how slowly it answers.
    /// A slower fetch fails as any failed fetch does (the client is
    /// unknown).
    #[must_use]
    pub fn metadata_document_timeout(mut self, timeout: Duration) -> Self {
        self.settings.metadata_document_timeout = timeout;
        self
    }

    /// How long a request body (`/token`, `/register`) may take to arrive
    /// once its head has (default 30 s); a slower one is answered 408. It
    /// bounds how long a client trickling its body holds a connection.
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.settings.body_read_timeout = timeout;
        self
    }

    /// Test mode: also accept `http://127.0.0.1…`/`localhost` client ID
    /// metadata document URLs (normally only `https` ones).
    #[must_use]
    pub fn allow_loopback_metadata_documents(mut self, allow: bool) -> Self {
        self.settings.allow_loopback_metadata_documents = allow;
        self
    }

    /// Registers `client` up front.
    #[must_use]
    pub fn client(mut self, client: Client) -> Self {
        self.clients.push(client);
        self
    }

    /// How long access tokens live (default 1 hour).
    #[must_use]
    pub fn access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.settings.access_token_lifetime = lifetime;
        self
    }

    /// How long refresh tokens live (default 1 day).
    #[must_use]
    pub fn refresh_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.settings.refresh_token_lifetime = lifetime;
        self
    }

    /// How long authorization codes live (default 60 s).
    #[must_use]
    pub fn code_lifetime(mut self, lifetime: Duration) -> Self {
        self.settings.code_lifetime = lifetime;
        self
    }

    /// How many clients registered at `/register` or described by fetched
    /// metadata documents are held at once (default 1,000; clients given
    /// with [`client`](Self::client) do not count). At the bound, after
    /// expired ones are dropped, registration is answered 503
    /// `temporarily_unavailable`.
    #[must_use]
    pub fn max_clients(mut self, max: usize) -> Self {
        self.settings.limits.max_clients = max;
        self
    }

    /// How long a dynamically registered client that is not used is kept
    /// (default 7 days); it must register again afterwards.
    #[must_use]
    pub fn registered_client_idle_lifetime(mut self, lifetime: Duration) -> Self {
        self.settings.limits.registered_client_idle = lifetime;
        self
    }

    /// How many registrations, and fetches of metadata documents not
    /// cached, the unauthenticated endpoints do per minute, all callers
    /// together (default 60); beyond, 429 with `Retry-After`.
    #[must_use]
    pub fn registrations_per_minute(mut self, max: u32) -> Self {
        self.settings.limits.registrations_per_minute = max;
        self
    }

    /// How many authorization codes may wait to be exchanged (default
    /// 10,000; each lives [`code_lifetime`](Self::code_lifetime)). Beyond,
    /// `/authorize` redirects with `temporarily_unavailable`.
    #[must_use]
    pub fn max_pending_codes(mut self, max: usize) -> Self {
        self.settings.limits.max_pending_codes = max;
        self
    }

    /// How many refresh tokens are live at once (default 100,000; the
    /// tombstones of rotated-out tokens and used codes, kept to detect
    /// replays, have the same bound). Beyond, the token endpoint answers
    /// 503 `temporarily_unavailable`.
    #[must_use]
    pub fn max_refresh_tokens(mut self, max: usize) -> Self {
        self.settings.limits.max_refresh_tokens = max;
        self
    }

    /// How many signing keys the JWKS publishes across rotations (default 2).
    #[must_use]
    pub fn published_keys(mut self, keep: usize) -> Self {
        self.keep_keys = keep;
        self
    }

    /// The server, with a freshly generated signing key.
    ///
    /// # Errors
    ///
    /// When no randomness is available for the key.
    pub fn build(self) -> Result<AuthorizationServer, KeyError> {
        let mut tables = Tables::new(self.settings.limits, METADATA_DOCUMENT_TTL);
        let now = Instant::now();
        for client in self.clients {
            // Configured clients are never refused (no bound applies).
            let _ = tables.insert_client(client, ClientOrigin::Configured, now);
        }
        Ok(AuthorizationServer {
            inner: Arc::new(Inner {
                settings: self.settings,
                consent: self.consent,
                fetch: self.fetch,
                keys: Mutex::new(KeyRing::new(self.keep_keys)?),
                tables: Mutex::new(tables),
            }),
        })
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl AuthorizationServer {
    /// A builder for a server whose issuer identifier is `issuer` (an
    /// absolute URL without query or fragment, e.g. `http://127.0.0.1:8080`;
    /// the endpoints live under its path).
    pub fn builder(issuer: impl Into<String>) -> AuthorizationServerBuilder {
        AuthorizationServerBuilder {
            settings: Settings {
                issuer: issuer.into().trim_end_matches('/').to_owned(),
                scopes_supported: None,
                access_token_lifetime: Duration::from_secs(3600),
                refresh_token_lifetime: Duration::from_secs(86_400),
                code_lifetime: Duration::from_secs(60),
                allow_loopback_metadata_documents: false,
                metadata_document_timeout: DEFAULT_FETCH_TIMEOUT,
                body_read_timeout: Duration::from_secs(30),
                limits: Limits::default(),
            },
            consent: Arc::new(AutoApprove::default()),
            fetch: None,
            clients: Vec::new(),
            keep_keys: 2,
        }
    }

    /// The issuer identifier.
    pub fn issuer(&self) -> &str {
        &self.inner.settings.issuer
    }

    fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.inner.settings.issuer)
    }

    /// The RFC 8414 metadata document the server publishes.
    pub fn metadata(&self) -> AuthorizationServerMetadata {
        let strings = |items: &[&str]| items.iter().map(|item| (*item).to_owned()).collect();
        let mut metadata = AuthorizationServerMetadata {
            issuer: self.inner.settings.issuer.clone(),
            authorization_endpoint: Some(self.endpoint("/authorize")),
            token_endpoint: Some(self.endpoint("/token")),
            registration_endpoint: Some(self.endpoint("/register")),
            jwks_uri: Some(self.endpoint("/jwks")),
            scopes_supported: self.inner.settings.scopes_supported.clone(),
            response_types_supported: strings(&["code"]),
            grant_types_supported: Some(strings(&["authorization_code", "refresh_token"])),
            token_endpoint_auth_methods_supported: Some(strings(&[
                "none",
                "client_secret_basic",
                "client_secret_post",
            ])),
            code_challenge_methods_supported: Some(strings(&["S256"])),
            authorization_response_iss_parameter_supported: Some(true),
            client_id_metadata_document_supported: Some(self.inner.fetch.is_some()),
            ..AuthorizationServerMetadata::default()
        };
        metadata
            .extra
            .insert("response_modes_supported".into(), json!(["query"]));
        metadata
    }

    /// The published signing keys.
    pub fn jwks(&self) -> JwkSet {
        self.keys().jwks()
    }

    /// Makes a fresh signing key current; the previous one stays published
    /// (up to [`AuthorizationServerBuilder::published_keys`]) so that tokens
    /// it signed keep verifying until they expire.
    ///
    /// # Errors
    ///
    /// When no randomness is available.
    pub fn rotate_keys(&self) -> Result<(), KeyError> {
        self.keys().rotate()
    }

    /// Registers (or replaces) `client`, kept for good like the builder's.
    pub fn register_client(&self, client: Client) {
        // Configured clients are never refused (no bound applies).
        let _ = self
            .tables()
            .insert_client(client, ClientOrigin::Configured, Instant::now());
    }

    /// Adds a dynamically registered client, within the bounds.
    pub(crate) fn add_registered_client(&self, client: Client) -> Result<(), Full> {
        let now = Instant::now();
        self.tables()
            .insert_client(client, ClientOrigin::Registered { last_used: now }, now)
    }

    /// Signs an access token for `grant` expiring at `expires_at` (seconds
    /// since the Unix epoch): what the token endpoint issues, also handy for
    /// tests that need a token of a given shape (an expired one, another
    /// audience).
    ///
    /// # Errors
    ///
    /// When signing fails.
    pub fn mint_access_token(&self, grant: &Grant, expires_at: u64) -> Result<String, KeyError> {
        let now = unix_now();
        let mut claims = json!({
            "iss": self.inner.settings.issuer,
            "sub": grant.subject,
            "client_id": grant.client_id,
            "iat": now,
            "exp": expires_at,
            "jti": random_token()?,
        });
        if !grant.scopes.is_empty() {
            claims["scope"] = json!(grant.scopes.join(" "));
        }
        if let Some(resource) = &grant.resource {
            claims["aud"] = json!(resource);
        }
        self.keys().sign(&claims)
    }

    pub(crate) fn keys(&self) -> MutexGuard<'_, KeyRing> {
        // A panic while holding the lock cannot leave the ring half-changed
        // (every change is one assignment), so a poisoned lock is used as is.
        self.inner
            .keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn tables(&self) -> MutexGuard<'_, Tables> {
        self.inner
            .tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The client `client_id`: a registered one, or one described by the
    /// metadata document at that URL (fetched, then cached for 5 minutes).
    ///
    /// The error is safe to show the caller: why a fetch failed (which
    /// says what answers on the server's network) is only logged.
    pub(crate) async fn client(&self, client_id: &str) -> Result<Client, ClientRefusal> {
        let now = Instant::now();
        if let Some(client) = self.tables().client(client_id, now) {
            return Ok(client);
        }
        let settings = &self.inner.settings;
        let fetch = match &self.inner.fetch {
            Some(fetch)
                if clients::is_metadata_document_url(
                    client_id,
                    settings.allow_loopback_metadata_documents,
                ) =>
            {
                fetch
            }
            _ => {
                return Err(ClientRefusal::Unknown(format!(
                    "unknown client {client_id:?}"
                )));
            }
        };
        if let Err(retry_after) = self.tables().take_registration(now) {
            return Err(ClientRefusal::RateLimited(retry_after));
        }
        let timeout = settings.metadata_document_timeout;
        let body = get_within(fetch.as_ref(), client_id, timeout).await.map_err(|error| {
            tracing::warn!(client_id, %error, "a client metadata document could not be fetched");
            ClientRefusal::Unknown("the client metadata document could not be fetched".to_owned())
        })?;
        let client = clients::from_metadata_document(client_id, &body)
            .map_err(|error| ClientRefusal::Unknown(error.description))?;
        // At the bound the client is still served, just not cached.
        let cached = self.tables().insert_client(
            client.clone(),
            ClientOrigin::Fetched { at: Instant::now() },
            Instant::now(),
        );
        if let Err(full) = cached {
            tracing::debug!(client_id, "{}", full.description());
        }
        Ok(client)
    }
}

/// Why a client id was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClientRefusal {
    /// Unknown, or its metadata document unusable: the description says which.
    Unknown(String),
    /// Too many uncached metadata documents fetched this minute: retry
    /// after this many seconds.
    RateLimited(u64),
}

impl ClientRefusal {
    /// The description shown to the caller.
    pub(crate) fn description(&self) -> String {
        match self {
            Self::Unknown(description) => description.clone(),
            Self::RateLimited(seconds) => {
                format!("too many client metadata documents fetched; try again in {seconds} s")
            }
        }
    }
}

impl KeySource for AuthorizationServer {
    /// The server's own key set, without HTTP: for a resource server in the
    /// same process.
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, FetchError>> {
        let keys = self.jwks();
        Box::pin(async move { Ok(keys) })
    }
}
