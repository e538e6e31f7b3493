//! The answers the bearer layer gives on its own: 401 and 403 with their
//! `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1), and the
//! protected resource metadata document.

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderValue, Response, StatusCode};
use http_body_util::Full;
use serde_json::json;

/// Why the layer refuses a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No `Authorization` header came: 401 without an error code (RFC 6750 §3.1).
    Missing,
    /// An `Authorization` header came that is not a well-formed bearer
    /// credential (another scheme, no token, not text): 400
    /// `invalid_request` (AUTH-57, RFC 6750 §3.1).
    Malformed,
    /// A token came and is not good: 401 `invalid_token`.
    InvalidToken(String),
    /// The token lacks scopes: 403 `insufficient_scope`.
    InsufficientScope,
}

/// A quoted-string value for an auth-param: backslash and quote escaped,
/// control characters dropped (they cannot appear in a header).
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for character in value.chars() {
        match character {
            '"' | '\\' => {
                out.push('\\');
                out.push(character);
            }
            c if c.is_control() || !c.is_ascii() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `WWW-Authenticate` value for `refusal`: the error (if any), the
/// metadata URL clients discover the authorization server with (MCP
/// authorization: resource servers MUST send it), and the scopes needed.
pub(crate) fn challenge(refusal: &Refusal, metadata_url: &str, scopes: &[String]) -> String {
    let mut params = Vec::new();
    match refusal {
        Refusal::Missing => {}
        Refusal::Malformed => {
            params.push(format!("error={}", quoted("invalid_request")));
            params.push(format!(
                "error_description={}",
                quoted("the Authorization header must be `Bearer <token>`")
            ));
        }
        Refusal::InvalidToken(description) => {
            params.push(format!("error={}", quoted("invalid_token")));
            params.push(format!("error_description={}", quoted(description)));
        }
        Refusal::InsufficientScope => {
            params.push(format!("error={}", quoted("insufficient_scope")));
            params.push(format!(
                "error_description={}",
                quoted("the access token lacks a required scope")
            ));
        }
    }
    params.push(format!("resource_metadata={}", quoted(metadata_url)));
    if !scopes.is_empty() {
        params.push(format!("scope={}", quoted(&scopes.join(" "))));
    }
    format!("Bearer {}", params.join(", "))
}

/// The 400, 401 or 403 response for `refusal`.
pub(crate) fn refusal_response(
    refusal: &Refusal,
    metadata_url: &str,
    scopes: &[String],
) -> Response<Full<Bytes>> {
    let (status, body) = match refusal {
        Refusal::Missing => (
            StatusCode::UNAUTHORIZED,
            json!({"error": "unauthorized", "error_description": "a bearer token is required"}),
        ),
        Refusal::Malformed => (
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_request",
                "error_description": "the Authorization header must be `Bearer <token>`"}),
        ),
        Refusal::InvalidToken(description) => (
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_token", "error_description": description}),
        ),
        Refusal::InsufficientScope => (
            StatusCode::FORBIDDEN,
            json!({"error": "insufficient_scope", "scope": scopes.join(" ")}),
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Ok(value) = HeaderValue::from_str(&challenge(refusal, metadata_url, scopes)) {
        headers.insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// A JSON document answered with 200 and open CORS, so that browser-based
/// clients can read it (RFC 9728 metadata is public).
pub(crate) fn json_document(document: &serde_json::Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(document.to_string())));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    headers.insert(
        http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-10, AUTH-12, AUTH-38: `resource_metadata`, `scope` and `error` in the challenge.
    #[test]
    fn challenges_carry_the_metadata_url_the_scopes_and_escaped_descriptions() {
        let scopes = vec!["read".to_owned(), "write".to_owned()];
        assert_eq!(
            challenge(
                &Refusal::Missing,
                "https://r/.well-known/oauth-protected-resource",
                &scopes
            ),
            "Bearer resource_metadata=\"https://r/.well-known/oauth-protected-resource\", scope=\"read write\""
        );
        let invalid = challenge(&Refusal::InvalidToken("bad \"sig\"".into()), "u", &[]);
        assert_eq!(
            invalid,
            "Bearer error=\"invalid_token\", error_description=\"bad \\\"sig\\\"\", resource_metadata=\"u\""
        );
        let scope = challenge(&Refusal::InsufficientScope, "u", &scopes);
        assert!(
            scope.starts_with("Bearer error=\"insufficient_scope\""),
            "{scope}"
        );
        assert!(scope.ends_with("scope=\"read write\""), "{scope}");
    }
}
