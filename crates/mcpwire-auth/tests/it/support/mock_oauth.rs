//! A hand-written authorization server and MCP resource server on one
//! 127.0.0.1 port, which misbehaves on request, for the OAuth client tests.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// How the mock misbehaves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Misbehaviour {
    /// The metadata claims another issuer.
    pub(crate) wrong_issuer: bool,
    /// The metadata does not list S256.
    pub(crate) no_s256: bool,
    /// The AS metadata URL redirects to another origin.
    pub(crate) redirect_metadata_elsewhere: bool,
    /// The authorization response carries a tampered `iss`.
    pub(crate) tampered_iss: bool,
    /// The resource metadata names another resource.
    pub(crate) wrong_resource: bool,
    /// Access tokens are issued already expired.
    pub(crate) expired_tokens: bool,
}

/// What the mock saw and holds.
#[derive(Debug, Default)]
pub(crate) struct Log {
    /// Every request, as `METHOD /path`.
    pub(crate) hits: Vec<String>,
    /// The last PKCE challenge sent to `/authorize`.
    pub(crate) challenge: Option<String>,
    /// Every `resource` parameter received (authorize and token).
    pub(crate) resources: Vec<String>,
    /// The access token the resource accepts now.
    pub(crate) valid_token: Option<String>,
    /// Tokens issued so far.
    pub(crate) issued: u32,
}

/// A running mock.
pub(crate) struct Mock {
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    /// What it saw.
    pub(crate) log: Arc<Mutex<Log>>,
}

impl Mock {
    /// The MCP endpoint.
    pub(crate) fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// Whether any request hit `needle` (`"GET /authorize"`...).
    pub(crate) fn hit(&self, needle: &str) -> bool {
        self.log
            .lock()
            .unwrap()
            .hits
            .iter()
            .any(|hit| hit == needle)
    }
}

/// Starts a mock on 127.0.0.1; it lives as long as the test's runtime.
pub(crate) async fn start(misbehaviour: Misbehaviour) -> Mock {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let log = Arc::new(Mutex::new(Log::default()));
    let state = Arc::new((base.clone(), misbehaviour, Arc::clone(&log)));
    tokio::spawn(async move {
        // Bounded: a test makes a few dozen requests at most.
        for _ in 0..200 {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let state = Arc::clone(&state);
                    async move {
                        Ok::<_, Infallible>(handle(&state.0, &state.1, &state.2, request).await)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Mock { base, log }
}

fn json_response(status: StatusCode, value: &Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())))
        .unwrap()
}

fn form(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

async fn handle(
    base: &str,
    misbehaviour: &Misbehaviour,
    log: &Mutex<Log>,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = request.into_body().collect().await.unwrap().to_bytes();
    log.lock().unwrap().hits.push(format!("{method} {path}"));
    match (method.as_str(), path.as_str()) {
        ("POST", "/mcp") => {
            let valid = log.lock().unwrap().valid_token.clone();
            if valid.is_some() && authorization == valid.map(|token| format!("Bearer {token}")) {
                json_response(
                    StatusCode::OK,
                    &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
                )
            } else {
                Response::builder()
                    .status(StatusCode::UNAUTHORIZED)
                    .header(
                        "www-authenticate",
                        format!(
                            r#"Bearer error="invalid_token", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
                        ),
                    )
                    .body(Full::new(Bytes::new()))
                    .unwrap()
            }
        }
        ("GET", "/.well-known/oauth-protected-resource/mcp") => {
            let resource = if misbehaviour.wrong_resource {
                "https://evil.example.com/mcp".to_owned()
            } else {
                format!("{base}/mcp")
            };
            json_response(
                StatusCode::OK,
                &json!({"resource": resource, "authorization_servers": [base], "scopes_supported": ["mcp"]}),
            )
        }
        ("GET", "/.well-known/oauth-authorization-server") => {
            if misbehaviour.redirect_metadata_elsewhere {
                let elsewhere = base.replace("127.0.0.1", "localhost");
                return Response::builder()
                    .status(StatusCode::FOUND)
                    .header(
                        "location",
                        format!("{elsewhere}/.well-known/oauth-authorization-server"),
                    )
                    .body(Full::new(Bytes::new()))
                    .unwrap();
            }
            let issuer = if misbehaviour.wrong_issuer {
                "https://attacker.example.com".to_owned()
            } else {
                base.to_owned()
            };
            let mut metadata = json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["none"],
                "authorization_response_iss_parameter_supported": true,
            });
            if !misbehaviour.no_s256 {
                metadata["code_challenge_methods_supported"] = json!(["S256"]);
            }
            json_response(StatusCode::OK, &metadata)
        }
        ("POST", "/register") => {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            assert!(request["redirect_uris"].is_array());
            json_response(
                StatusCode::CREATED,
                &json!({"client_id": "registered-client"}),
            )
        }
        ("GET", "/authorize") => {
            let pairs = form(query.as_bytes());
            let mut log = log.lock().unwrap();
            log.challenge = field(&pairs, "code_challenge").map(str::to_owned);
            log.resources
                .extend(field(&pairs, "resource").map(str::to_owned));
            assert_eq!(field(&pairs, "code_challenge_method"), Some("S256"));
            let iss = if misbehaviour.tampered_iss {
                "https://evil.example.com".to_owned()
            } else {
                base.to_owned()
            };
            let redirect = url::Url::parse_with_params(
                field(&pairs, "redirect_uri").unwrap(),
                [
                    ("code", "the-code"),
                    ("state", field(&pairs, "state").unwrap()),
                    ("iss", iss.as_str()),
                ],
            )
            .unwrap();
            Response::builder()
                .status(StatusCode::FOUND)
                .header("location", redirect.as_str())
                .body(Full::new(Bytes::new()))
                .unwrap()
        }
        ("POST", "/token") => {
            let pairs = form(&body);
            let mut log = log.lock().unwrap();
            log.resources
                .extend(field(&pairs, "resource").map(str::to_owned));
            let accepted = match field(&pairs, "grant_type") {
                Some("authorization_code") => {
                    let verifier = field(&pairs, "code_verifier").unwrap_or_default();
                    let challenge = log.challenge.clone().unwrap_or_default();
                    field(&pairs, "code") == Some("the-code")
                        && mcpwire_auth::pkce::verify_s256(verifier, &challenge)
                }
                Some("refresh_token") => {
                    field(&pairs, "refresh_token") == Some("the-refresh-token")
                }
                _ => false,
            };
            if !accepted {
                return json_response(StatusCode::BAD_REQUEST, &json!({"error": "invalid_grant"}));
            }
            log.issued += 1;
            let token = format!("token-{}", log.issued);
            log.valid_token = Some(token.clone());
            let expires_in = if misbehaviour.expired_tokens && log.issued == 1 {
                0
            } else {
                3600
            };
            json_response(
                StatusCode::OK,
                &json!({
                    "access_token": token,
                    "token_type": "Bearer",
                    "expires_in": expires_in,
                    "refresh_token": "the-refresh-token",
                    "scope": "mcp",
                }),
            )
        }
        _ => json_response(StatusCode::NOT_FOUND, &json!({"error": "not_found"})),
    }
}
