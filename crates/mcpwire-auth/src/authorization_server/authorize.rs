//! The authorization endpoint: authorization code requests with PKCE S256
//! (OAuth 2.1 §4.1.1), the consent hook, and responses carrying `iss`
//! (RFC 9207).

use std::time::Instant;

use bytes::Bytes;
use http::header::{CACHE_CONTROL, LOCATION, RETRY_AFTER};
use http::{HeaderValue, Response, StatusCode};
use http_body_util::Full;
use url::Url;

use super::consent::{ConsentDecision, ConsentRequest};
use super::service::{Params, text};
use super::state::{AuthorizationServer, ClientRefusal, Grant, PendingCode};
use crate::random::random_token;

/// Whether `challenge` can be an S256 code challenge: 43 base64url
/// characters (a SHA-256 digest, unpadded; RFC 7636 §4.2).
fn valid_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

/// Whether `resource` can be an RFC 8707 resource indicator: an absolute
/// URI without a fragment.
pub(crate) fn valid_resource(resource: &str) -> bool {
    Url::parse(resource).is_ok_and(|url| url.fragment().is_none())
}

/// The scopes of a `scope` parameter, checked against what the server knows.
pub(crate) fn requested_scopes(
    server: &AuthorizationServer,
    scope: Option<&str>,
) -> Result<Vec<String>, String> {
    let scopes: Vec<String> = scope
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    if let Some(known) = &server.inner.settings.scopes_supported
        && let Some(unknown) = scopes.iter().find(|scope| !known.contains(scope))
    {
        return Err(format!("the scope {unknown:?} is unknown here"));
    }
    Ok(scopes)
}

/// A redirect back to the client with `params`, `state` and `iss` added.
fn redirect(
    server: &AuthorizationServer,
    redirect_uri: &str,
    state: Option<&str>,
    params: &[(&str, &str)],
) -> Response<Full<Bytes>> {
    let Ok(mut url) = Url::parse(redirect_uri) else {
        return text(StatusCode::BAD_REQUEST, "the redirect URI is not a URL");
    };
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in params {
            query.append_pair(name, value);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", server.issuer());
    }
    let Ok(location) = HeaderValue::from_str(url.as_str()) else {
        return text(StatusCode::BAD_REQUEST, "the redirect URI cannot be sent");
    };
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::FOUND;
    response.headers_mut().insert(LOCATION, location);
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Answers an authorization request.
///
/// Errors about the client or its redirect URI are shown here (redirecting
/// to an unverified URI would make the server an open redirector; OAuth 2.1
/// §4.1.2.1); every other error goes back to the client's redirect URI.
pub(crate) async fn authorize(
    server: &AuthorizationServer,
    params: &Params,
) -> Response<Full<Bytes>> {
    let bad = |message: String| text(StatusCode::BAD_REQUEST, &message);
    let (client_id, redirect_uri, state) = match (
        params.single("client_id"),
        params.single("redirect_uri"),
        params.single("state"),
    ) {
        (Ok(Some(client_id)), Ok(redirect_uri), Ok(state)) => (client_id, redirect_uri, state),
        (Ok(None), ..) => return bad("client_id is required".to_owned()),
        (Err(error), ..) | (_, Err(error), _) | (.., Err(error)) => return bad(error),
    };
    let client = match server.client(client_id).await {
        Ok(client) => client,
        Err(ClientRefusal::RateLimited(seconds)) => {
            let mut response = text(
                StatusCode::TOO_MANY_REQUESTS,
                &ClientRefusal::RateLimited(seconds).description(),
            );
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(seconds));
            return response;
        }
        Err(refusal) => return bad(refusal.description()),
    };
    let redirect_uri = match redirect_uri {
        Some(uri) if client.accepts_redirect(uri) => uri.to_owned(),
        Some(uri) => return bad(format!("{uri:?} is not a registered redirect URI")),
        None => match client.redirect_uris.as_slice() {
            [only] => only.clone(),
            _ => return bad("redirect_uri is required".to_owned()),
        },
    };
    let fail = |code: &str, description: &str| {
        redirect(
            server,
            &redirect_uri,
            state,
            &[("error", code), ("error_description", description)],
        )
    };
    let read = |name: &str| params.single(name);
    let (response_type, challenge, method, scope, resource) = match (
        read("response_type"),
        read("code_challenge"),
        read("code_challenge_method"),
        read("scope"),
        read("resource"),
    ) {
        (Ok(a), Ok(b), Ok(c), Ok(d), Ok(e)) => (a, b, c, d, e),
        (Err(error), ..)
        | (_, Err(error), ..)
        | (_, _, Err(error), ..)
        | (.., Err(error), _)
        | (.., Err(error)) => return fail("invalid_request", &error),
    };
    if response_type != Some("code") {
        return fail(
            "unsupported_response_type",
            "only response_type=code is supported",
        );
    }
    // PKCE is required, and S256 is the only method offered (a missing
    // method means `plain`, RFC 7636 §4.3, which is refused).
    let Some(challenge) = challenge else {
        return fail("invalid_request", "code_challenge is required (PKCE)");
    };
    if method != Some("S256") {
        return fail("invalid_request", "code_challenge_method must be S256");
    }
    if !valid_challenge(challenge) {
        return fail("invalid_request", "the code_challenge is malformed");
    }
    let scopes = match requested_scopes(server, scope) {
        Ok(scopes) => scopes,
        Err(error) => return fail("invalid_scope", &error),
    };
    if resource.is_some_and(|resource| !valid_resource(resource)) {
        return fail(
            "invalid_target",
            "resource must be an absolute URI without a fragment",
        );
    }
    let decision = server.inner.consent.decide(&ConsentRequest {
        client: &client,
        scopes: &scopes,
        resource,
        redirect_uri: &redirect_uri,
    });
    let ConsentDecision::Approve { subject, scopes } = decision else {
        return fail("access_denied", "the request was not approved");
    };
    let Ok(code) = random_token() else {
        return fail("server_error", "no randomness available");
    };
    let pending = PendingCode {
        grant: Grant::new(
            subject,
            client.client_id,
            scopes,
            resource.map(str::to_owned),
        ),
        redirect_uri: redirect_uri.clone(),
        code_challenge: challenge.to_owned(),
        expires: Instant::now() + server.inner.settings.code_lifetime,
    };
    let stored = server
        .tables()
        .insert_code(code.clone(), pending, Instant::now());
    match stored {
        Ok(()) => redirect(server, &redirect_uri, state, &[("code", &code)]),
        Err(full) => fail("temporarily_unavailable", &full.description()),
    }
}
