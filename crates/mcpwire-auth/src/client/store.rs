//! Where tokens and client registrations are kept: a pluggable
//! [`TokenStore`], in memory by default, or in a JSON file readable only by
//! its owner.
//!
//! Tokens are keyed by the resource they are for, client registrations by
//! the issuer that made them, so that a client id issued by one
//! authorization server is never presented to another (MCP authorization,
//! SEP-2352).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::error::Error;

/// How the client authenticates at the token endpoint (RFC 8414 §2, RFC 7591 §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenAuthMethod {
    /// A public client: `client_id` in the body, no secret.
    None,
    /// HTTP Basic with the client id and secret.
    ClientSecretBasic,
    /// The client id and secret in the form body.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523).
    PrivateKeyJwt,
}

impl TokenAuthMethod {
    /// The method's registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method named `name`, if known.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "client_secret_basic" => Self::ClientSecretBasic,
            "client_secret_post" => Self::ClientSecretPost,
            "private_key_jwt" => Self::PrivateKeyJwt,
            _ => return None,
        })
    }
}

/// A client identity at one authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientCredentials {
    /// The client id (an HTTPS URL for a Client ID Metadata Document).
    pub client_id: String,
    /// The client secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How to authenticate at the token endpoint; `None` lets the client
    /// choose from the server's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<TokenAuthMethod>,
    /// A PKCS#8 PEM private key for `private_key_jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key_pem: Option<String>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("has_secret", &self.client_secret.is_some())
            .field("auth_method", &self.auth_method)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// A public client.
    pub fn public(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            auth_method: None,
            private_key_pem: None,
        }
    }

    /// A confidential client with a secret.
    pub fn with_secret(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            client_secret: Some(secret.into()),
            ..Self::public(client_id)
        }
    }
}

/// Tokens for one resource, from one issuer.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTokens {
    /// The issuer that granted them.
    pub issuer: String,
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The refresh token, if granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or requested, when the server did not say).
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredTokens")
            .field("issuer", &self.issuer)
            .field("token_type", &self.token_type)
            .field("has_refresh_token", &self.refresh_token.is_some())
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl StoredTokens {
    /// Whether the access token expires within `margin` of `now`.
    pub fn expires_within(&self, now: SystemTime, margin: Duration) -> bool {
        let Some(expires_at) = self.expires_at else {
            return false;
        };
        let now = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_add(margin)
            .as_secs();
        now >= expires_at
    }
}

/// Keeps tokens (by resource) and client registrations (by issuer).
pub trait TokenStore: Send + Sync + fmt::Debug {
    /// The tokens for `resource`.
    fn tokens(&self, resource: &str) -> Option<StoredTokens>;
    /// Keeps `tokens` for `resource`, or forgets them with `None`.
    ///
    /// # Errors
    ///
    /// The store could not be written.
    fn set_tokens(&self, resource: &str, tokens: Option<&StoredTokens>) -> Result<(), Error>;
    /// The client registration made at `issuer`.
    fn client(&self, issuer: &str) -> Option<ClientCredentials>;
    /// Keeps the client registration made at `issuer`.
    ///
    /// # Errors
    ///
    /// The store could not be written.
    fn set_client(&self, issuer: &str, client: &ClientCredentials) -> Result<(), Error>;
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    tokens: HashMap<String, StoredTokens>,
    #[serde(default)]
    clients: HashMap<String, ClientCredentials>,
}

/// A [`TokenStore`] in memory: everything is forgotten with the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    contents: Mutex<Contents>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Contents> {
        self.contents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TokenStore for MemoryStore {
    fn tokens(&self, resource: &str) -> Option<StoredTokens> {
        self.lock().tokens.get(resource).cloned()
    }

    fn set_tokens(&self, resource: &str, tokens: Option<&StoredTokens>) -> Result<(), Error> {
        let mut contents = self.lock();
        match tokens {
            Some(tokens) => contents.tokens.insert(resource.to_owned(), tokens.clone()),
            None => contents.tokens.remove(resource),
        };
        Ok(())
    }

    fn client(&self, issuer: &str) -> Option<ClientCredentials> {
        self.lock().clients.get(issuer).cloned()
    }

    fn set_client(&self, issuer: &str, client: &ClientCredentials) -> Result<(), Error> {
        self.lock()
            .clients
            .insert(issuer.to_owned(), client.clone());
        Ok(())
    }
}

/// A [`TokenStore`] in one JSON file, created with permissions 0600 on Unix
/// (tokens and secrets are credentials) and rewritten whole on each change.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    contents: Mutex<Contents>,
}

impl FileStore {
    /// Opens (or prepares to create) the store at `path`.
    ///
    /// # Errors
    ///
    /// The file exists but cannot be read or parsed.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref().to_path_buf();
        let contents = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|error| Error::Store(format!("{}: {error}", path.display())))?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Contents::default(),
            Err(error) => return Err(Error::Store(format!("{}: {error}", path.display()))),
        };
        Ok(Self {
            path,
            contents: Mutex::new(contents),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Contents> {
        self.contents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self, contents: &Contents) -> Result<(), Error> {
        use std::io::Write as _;
        let bytes =
            serde_json::to_vec_pretty(contents).map_err(|error| Error::Store(error.to_string()))?;
        let fail =
            |error: std::io::Error| Error::Store(format!("{}: {error}", self.path.display()));
        let temporary = self.path.with_extension("tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(&temporary).map_err(fail)?;
        file.write_all(&bytes).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        std::fs::rename(&temporary, &self.path).map_err(fail)
    }
}

impl TokenStore for FileStore {
    fn tokens(&self, resource: &str) -> Option<StoredTokens> {
        self.lock().tokens.get(resource).cloned()
    }

    fn set_tokens(&self, resource: &str, tokens: Option<&StoredTokens>) -> Result<(), Error> {
        let mut contents = self.lock();
        match tokens {
            Some(tokens) => contents.tokens.insert(resource.to_owned(), tokens.clone()),
            None => contents.tokens.remove(resource),
        };
        self.write(&contents)
    }

    fn client(&self, issuer: &str) -> Option<ClientCredentials> {
        self.lock().clients.get(issuer).cloned()
    }

    fn set_client(&self, issuer: &str, client: &ClientCredentials) -> Result<(), Error> {
        let mut contents = self.lock();
        contents.clients.insert(issuer.to_owned(), client.clone());
        self.write(&contents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> StoredTokens {
        StoredTokens {
            issuer: "https://as.example".into(),
            access_token: "secret-token".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("refresh".into()),
            expires_at: Some(100),
            scopes: vec!["mcp".into()],
        }
    }

    // AUTH-59: tokens stored securely (mode 0600).
    #[test]
    fn the_file_store_survives_a_reopen_and_is_private_to_its_owner() {
        let dir = std::env::temp_dir().join(format!("mcpwire-auth-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_file(&path);
        let store = FileStore::open(&path).unwrap();
        store
            .set_tokens("https://rs.example/mcp", Some(&tokens()))
            .unwrap();
        store
            .set_client(
                "https://as.example",
                &ClientCredentials::with_secret("id", "s"),
            )
            .unwrap();
        let reopened = FileStore::open(&path).unwrap();
        assert_eq!(reopened.tokens("https://rs.example/mcp"), Some(tokens()));
        assert_eq!(
            reopened.client("https://as.example").unwrap().client_id,
            "id"
        );
        assert!(reopened.client("https://other.example").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // AUTH-59: secrets never printed.
    #[test]
    fn expiry_is_judged_with_a_margin_and_debug_hides_secrets() {
        let tokens = tokens();
        let at = |secs| UNIX_EPOCH + Duration::from_secs(secs);
        assert!(!tokens.expires_within(at(50), Duration::from_secs(10)));
        assert!(tokens.expires_within(at(95), Duration::from_secs(10)));
        assert!(!format!("{tokens:?}").contains("secret-token"));
        let credentials = ClientCredentials::with_secret("id", "hidden");
        assert!(!format!("{credentials:?}").contains("hidden"));
    }
}
