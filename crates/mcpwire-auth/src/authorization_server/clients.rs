//! Clients of the embedded authorization server: pre-registered ones,
//! dynamic client registration (RFC 7591) and client ID metadata documents
//! (an HTTPS URL as `client_id`, fetched and checked).

use serde_json::{Map, Value, json};
use url::Url;

use crate::address;

/// The most redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 16;
/// The longest redirect URI or client name kept.
const MAX_FIELD_LENGTH: usize = 2_048;

/// How a client authenticates at the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenAuthMethod {
    /// A public client: no secret, PKCE alone protects the code.
    None,
    /// The secret in HTTP Basic authentication.
    ClientSecretBasic,
    /// The secret in the form body.
    ClientSecretPost,
}

impl TokenAuthMethod {
    /// The registered name of the method.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::None),
            "client_secret_basic" => Some(Self::ClientSecretBasic),
            "client_secret_post" => Some(Self::ClientSecretPost),
            _ => None,
        }
    }
}

/// A client the server knows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Client {
    /// Its identifier (an opaque string, or the URL of its metadata document).
    pub client_id: String,
    /// Its secret, for confidential clients.
    pub client_secret: Option<String>,
    /// Where authorization responses may be sent.
    pub redirect_uris: Vec<String>,
    /// How it authenticates at the token endpoint.
    pub auth_method: TokenAuthMethod,
    /// Its display name.
    pub client_name: Option<String>,
}

impl Client {
    /// A public client (`token_endpoint_auth_method` `none`) with `redirect_uris`.
    pub fn public(client_id: impl Into<String>, redirect_uris: Vec<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            redirect_uris,
            auth_method: TokenAuthMethod::None,
            client_name: None,
        }
    }

    /// A confidential client authenticating with `secret` by `auth_method`.
    pub fn confidential(
        client_id: impl Into<String>,
        secret: impl Into<String>,
        auth_method: TokenAuthMethod,
        redirect_uris: Vec<String>,
    ) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: Some(secret.into()),
            redirect_uris,
            auth_method,
            client_name: None,
        }
    }

    /// Whether `presented` is one of the registered redirect URIs. A
    /// loopback `http` URI matches whatever its port (RFC 8252 §7.3: native
    /// clients listen on an ephemeral port).
    pub fn accepts_redirect(&self, presented: &str) -> bool {
        self.redirect_uris
            .iter()
            .any(|registered| redirect_matches(registered, presented))
    }
}

fn is_loopback_host(url: &Url) -> bool {
    matches!(url.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"))
}

fn redirect_matches(registered: &str, presented: &str) -> bool {
    if registered == presented {
        return true;
    }
    let (Ok(registered), Ok(presented)) = (Url::parse(registered), Url::parse(presented)) else {
        return false;
    };
    registered.scheme() == "http"
        && presented.scheme() == "http"
        && is_loopback_host(&registered)
        && registered.host_str() == presented.host_str()
        && registered.path() == presented.path()
        && registered.query() == presented.query()
        && presented.fragment().is_none()
}

/// A redirect URI a client may register: absolute, no fragment, and
/// `https`, loopback `http`, or a private-use scheme with a dot in it
/// (RFC 8252 §7.1; OAuth 2.1 §2.3.1).
fn valid_redirect(uri: &str) -> bool {
    let Ok(url) = Url::parse(uri) else {
        return false;
    };
    if url.fragment().is_some() {
        return false;
    }
    match url.scheme() {
        "https" => url.host_str().is_some(),
        "http" => is_loopback_host(&url),
        scheme => scheme.contains('.'),
    }
}

/// A registration or metadata document refused (RFC 7591 §3.2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MetadataError {
    /// `invalid_redirect_uri` or `invalid_client_metadata`.
    pub(crate) code: &'static str,
    pub(crate) description: String,
}

fn invalid(description: impl Into<String>) -> MetadataError {
    MetadataError {
        code: "invalid_client_metadata",
        description: description.into(),
    }
}

/// The redirect URIs of client metadata: a non-empty array of valid URIs.
fn redirect_uris(metadata: &Map<String, Value>) -> Result<Vec<String>, MetadataError> {
    let uris: Vec<String> = metadata
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if uris.len() > MAX_REDIRECT_URIS || uris.iter().any(|uri| uri.len() > MAX_FIELD_LENGTH) {
        return Err(MetadataError {
            code: "invalid_redirect_uri",
            description: format!(
                "at most {MAX_REDIRECT_URIS} redirect URIs of {MAX_FIELD_LENGTH} bytes each"
            ),
        });
    }
    if uris.is_empty() {
        return Err(MetadataError {
            code: "invalid_redirect_uri",
            description: "redirect_uris must list at least one URI".to_owned(),
        });
    }
    if let Some(bad) = uris.iter().find(|uri| !valid_redirect(uri)) {
        return Err(MetadataError {
            code: "invalid_redirect_uri",
            description: format!(
                "{bad:?} is not an https, loopback http or private-use redirect URI"
            ),
        });
    }
    Ok(uris)
}

/// Checks that a metadata array member, if present, only holds `allowed`.
fn only(metadata: &Map<String, Value>, name: &str, allowed: &[&str]) -> Result<(), MetadataError> {
    let Some(value) = metadata.get(name) else {
        return Ok(());
    };
    let Some(list) = value.as_array() else {
        return Err(invalid(format!("{name} must be an array")));
    };
    match list
        .iter()
        .find(|item| !item.as_str().is_some_and(|text| allowed.contains(&text)))
    {
        Some(item) => Err(invalid(format!("{name} holds {item}, unsupported here"))),
        None => Ok(()),
    }
}

/// Reads a dynamic registration request into a client with a fresh id
/// (and secret, for a confidential method), and the registration response.
pub(crate) fn register(
    request: &Value,
    client_id: String,
    secret: String,
    issued_at: u64,
) -> Result<(Client, Value), MetadataError> {
    let Some(metadata) = request.as_object() else {
        return Err(invalid("the registration request must be a JSON object"));
    };
    let redirect_uris = redirect_uris(metadata)?;
    only(
        metadata,
        "grant_types",
        &["authorization_code", "refresh_token"],
    )?;
    only(metadata, "response_types", &["code"])?;
    // RFC 7591 §2: the default method is client_secret_basic.
    let auth_method = match metadata.get("token_endpoint_auth_method") {
        None => TokenAuthMethod::ClientSecretBasic,
        Some(value) => value
            .as_str()
            .and_then(TokenAuthMethod::parse)
            .ok_or_else(|| invalid(format!("token_endpoint_auth_method {value} is unsupported")))?,
    };
    if metadata
        .get("client_name")
        .and_then(Value::as_str)
        .is_some_and(|name| name.len() > MAX_FIELD_LENGTH)
    {
        return Err(invalid(format!(
            "client_name is longer than {MAX_FIELD_LENGTH} bytes"
        )));
    }
    let client_secret = (auth_method != TokenAuthMethod::None).then_some(secret);
    let client = Client {
        client_id,
        client_secret,
        redirect_uris,
        auth_method,
        client_name: metadata
            .get("client_name")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    let mut response = metadata.clone();
    response.insert("client_id".into(), json!(client.client_id));
    response.insert("client_id_issued_at".into(), json!(issued_at));
    response.insert("redirect_uris".into(), json!(client.redirect_uris));
    response.insert(
        "token_endpoint_auth_method".into(),
        json!(auth_method.as_str()),
    );
    response
        .entry("grant_types")
        .or_insert_with(|| json!(["authorization_code", "refresh_token"]));
    response
        .entry("response_types")
        .or_insert_with(|| json!(["code"]));
    if let Some(secret) = &client.client_secret {
        response.insert("client_secret".into(), json!(secret));
        response.insert("client_secret_expires_at".into(), json!(0));
    }
    Ok((client, Value::Object(response)))
}

/// Whether `client_id` is a client ID metadata document URL this server
/// fetches: `https` with a host and a path, no fragment, no credentials
/// and no dot segments, and no internal address (loopback, private,
/// link-local IP literals, `localhost`: AUTH-71's SSRF guard); loopback
/// hosts, over `http` too, only when `allow_loopback` (tests).
pub(crate) fn is_metadata_document_url(client_id: &str, allow_loopback: bool) -> bool {
    let Ok(url) = Url::parse(client_id) else {
        return false;
    };
    let loopback_allowed = allow_loopback && is_loopback_host(&url);
    let scheme_ok = match url.scheme() {
        "https" => url.host_str().is_some() && (loopback_allowed || !address::is_internal(&url)),
        "http" => loopback_allowed,
        _ => false,
    };
    // `Url` removes dot segments while parsing, so they are looked for in
    // the text as sent (also percent-encoded).
    let before_query = client_id.split(['?', '#']).next().unwrap_or("");
    let raw_path_kept = !before_query.split('/').any(|segment| {
        let segment = segment.to_ascii_lowercase().replace("%2e", ".");
        segment == "." || segment == ".."
    });
    scheme_ok
        && url.path() != "/"
        && raw_path_kept
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
}

/// Reads a fetched client ID metadata document: its `client_id` must be
/// the URL it came from, it must list redirect URIs, and it cannot use a
/// shared secret (there is nobody to share it with).
pub(crate) fn from_metadata_document(url: &str, body: &[u8]) -> Result<Client, MetadataError> {
    // What the fetched body held is not echoed (it could be any document
    // the URL reaches): the parse error goes to the log only.
    let document: Value = serde_json::from_slice(body).map_err(|error| {
        tracing::debug!(url, %error, "a client metadata document is not JSON");
        invalid("the client metadata document is not a JSON object")
    })?;
    let Some(metadata) = document.as_object() else {
        return Err(invalid(
            "the client metadata document must be a JSON object",
        ));
    };
    if metadata.get("client_id").and_then(Value::as_str) != Some(url) {
        return Err(invalid(
            "the document's client_id differs from the URL it was fetched from",
        ));
    }
    let auth_method = metadata
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .unwrap_or("none");
    if auth_method != "none" {
        return Err(invalid(format!(
            "token_endpoint_auth_method {auth_method:?} is not available to metadata-document clients here"
        )));
    }
    let mut client = Client::public(url, redirect_uris(metadata)?);
    client.client_name = metadata
        .get("client_name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-69: redirect URIs match exactly, a loopback one on any port (RFC 8252 §7.3); AUTH-63.
    #[test]
    fn loopback_redirects_match_on_any_port_and_others_exactly() {
        let client = Client::public(
            "c",
            vec![
                "http://127.0.0.1/callback".into(),
                "https://app.example/cb".into(),
            ],
        );
        assert!(client.accepts_redirect("http://127.0.0.1:4312/callback"));
        assert!(!client.accepts_redirect("http://127.0.0.1:4312/other"));
        assert!(!client.accepts_redirect("http://localhost:4312/callback"));
        assert!(client.accepts_redirect("https://app.example/cb"));
        assert!(!client.accepts_redirect("https://app.example:8443/cb"));
    }

    // AUTH-06 (RFC 7591 registration), AUTH-63 (redirect URIs loopback or HTTPS).
    #[test]
    fn registration_defaults_to_client_secret_basic_and_refuses_bad_redirects() {
        let (client, response) = register(
            &json!({"redirect_uris": ["http://localhost:3000/cb"], "client_name": "x"}),
            "id".into(),
            "secret".into(),
            7,
        )
        .unwrap();
        assert_eq!(client.auth_method, TokenAuthMethod::ClientSecretBasic);
        assert_eq!(response["client_secret"], "secret");
        assert_eq!(response["client_id_issued_at"], 7);
        let public = register(
            &json!({"redirect_uris": ["com.example.app:/cb"], "token_endpoint_auth_method": "none"}),
            "id".into(),
            "secret".into(),
            7,
        )
        .unwrap();
        assert_eq!(public.0.client_secret, None);
        assert!(public.1.get("client_secret").is_none());
        for bad in [
            json!({}),
            json!({"redirect_uris": ["http://evil.example/cb"]}),
            json!({"redirect_uris": ["https://a/cb#f"]}),
        ] {
            let error = register(&bad, "id".into(), "s".into(), 0).unwrap_err();
            assert_eq!(error.code, "invalid_redirect_uri", "{bad}");
        }
        let error = register(
            &json!({"redirect_uris": ["https://a/cb"], "grant_types": ["implicit"]}),
            "id".into(),
            "s".into(),
            0,
        )
        .unwrap_err();
        assert_eq!(error.code, "invalid_client_metadata");
    }

    // AUTH-24, AUTH-25 (an HTTPS URL with a path), AUTH-71 (no internal addresses).
    #[test]
    fn metadata_document_urls_are_https_with_a_path_unless_loopback_is_allowed() {
        assert!(is_metadata_document_url(
            "https://app.example/client.json",
            false
        ));
        assert!(!is_metadata_document_url("https://app.example/", false));
        assert!(!is_metadata_document_url(
            "https://app.example/a/../client.json",
            false
        ));
        assert!(!is_metadata_document_url(
            "https://u:p@app.example/c.json",
            false
        ));
        assert!(!is_metadata_document_url(
            "http://127.0.0.1:9/c.json",
            false
        ));
        assert!(is_metadata_document_url("http://127.0.0.1:9/c.json", true));
        assert!(!is_metadata_document_url("http://app.example/c.json", true));
        assert!(!is_metadata_document_url("plain-id", true));
        // AUTH-71: no internal address, unless loopback is allowed (tests).
        for internal in [
            "https://127.0.0.1/c.json",
            "https://10.1.2.3/c.json",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/c.json",
            "https://localhost/c.json",
        ] {
            assert!(!is_metadata_document_url(internal, false), "{internal}");
        }
        assert!(is_metadata_document_url("https://127.0.0.1/c.json", true));
        assert!(!is_metadata_document_url("https://10.1.2.3/c.json", true));
    }

    // AUTH-29 (client_id equals the URL), AUTH-32 (valid JSON with the required fields).
    #[test]
    fn a_metadata_document_must_name_its_own_url_and_stay_public() {
        let url = "https://app.example/client.json";
        let good = json!({"client_id": url, "redirect_uris": ["http://127.0.0.1/cb"]}).to_string();
        assert_eq!(
            from_metadata_document(url, good.as_bytes())
                .unwrap()
                .client_id,
            url
        );
        let other =
            json!({"client_id": "https://x/c.json", "redirect_uris": ["http://127.0.0.1/cb"]});
        assert!(from_metadata_document(url, other.to_string().as_bytes()).is_err());
        let secret = json!({"client_id": url, "redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "client_secret_post"});
        assert!(from_metadata_document(url, secret.to_string().as_bytes()).is_err());
    }
}
