//! The token endpoint: client authentication, the `authorization_code`
//! grant with PKCE verification and resource binding, and the
//! `refresh_token` grant with rotation (OAuth 2.1 §3.2, §4.1.3, §4.3).

use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, Response, StatusCode};
use http_body_util::Full;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::authorize::{requested_scopes, valid_resource};
use super::clients::{Client, TokenAuthMethod};
use super::service::{Params, no_store, oauth_error};
use super::state::{AuthorizationServer, Grant, RefreshRecord, unix_now};
use crate::random::random_token;

type HttpResponse = Response<Full<Bytes>>;

fn invalid_request(description: &str) -> HttpResponse {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_request", description)
}

fn invalid_grant(description: &str) -> HttpResponse {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

/// 401 `invalid_client`, with a Basic challenge when Basic was tried
/// (RFC 6749 §5.2).
fn invalid_client(description: &str, basic: bool) -> HttpResponse {
    let mut response = oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", description);
    if basic {
        response.headers_mut().insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"token\""),
        );
    }
    response
}

/// The credentials of HTTP Basic authentication, form-decoded (RFC 6749
/// §2.3.1 encodes id and secret before joining them).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let form = |text: &str| {
        url::form_urlencoded::parse(format!("v={text}").as_bytes())
            .next()
            .map(|(_, value)| value.into_owned())
    };
    Some((form(id)?, form(secret)?))
}

/// Whether two secrets are equal, compared through their digests so that
/// the time taken says nothing about where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    Sha256::digest(a.as_bytes()) == Sha256::digest(b.as_bytes())
}

/// Authenticates the client of a token request by the method it registered.
async fn authenticate(
    server: &AuthorizationServer,
    headers: &HeaderMap,
    params: &Params,
) -> Result<Client, HttpResponse> {
    let basic = basic_credentials(headers);
    let tried_basic = headers.contains_key(AUTHORIZATION);
    let body_id = params
        .single("client_id")
        .map_err(|e| invalid_request(&e))?;
    let body_secret = params
        .single("client_secret")
        .map_err(|e| invalid_request(&e))?;
    let (client_id, secret, method) = match (&basic, body_id, body_secret) {
        (Some(_), _, Some(_)) => {
            return Err(invalid_request("use one client authentication method only"));
        }
        (Some((id, secret)), body_id, None) => {
            if body_id.is_some_and(|body_id| body_id != id) {
                return Err(invalid_request(
                    "client_id differs from the Basic credentials",
                ));
            }
            (
                id.as_str(),
                Some(secret.as_str()),
                TokenAuthMethod::ClientSecretBasic,
            )
        }
        (None, Some(id), Some(secret)) => (id, Some(secret), TokenAuthMethod::ClientSecretPost),
        (None, Some(id), None) if !tried_basic => (id, None, TokenAuthMethod::None),
        _ => {
            return Err(invalid_client(
                "client authentication is missing",
                tried_basic,
            ));
        }
    };
    let client = server
        .client(client_id)
        .await
        .map_err(|refusal| invalid_client(&refusal.description(), tried_basic))?;
    if client.auth_method != method {
        return Err(invalid_client(
            &format!(
                "this client authenticates with {}",
                client.auth_method.as_str()
            ),
            tried_basic,
        ));
    }
    let secret_ok = match (&client.client_secret, secret) {
        (Some(expected), Some(given)) => same_secret(expected, given),
        (None, None) => true,
        _ => false,
    };
    if secret_ok {
        Ok(client)
    } else {
        Err(invalid_client(
            "the client credentials are wrong",
            tried_basic,
        ))
    }
}

/// Answers a token request.
pub(crate) async fn token(
    server: &AuthorizationServer,
    headers: &HeaderMap,
    params: &Params,
) -> HttpResponse {
    let client = match authenticate(server, headers, params).await {
        Ok(client) => client,
        Err(response) => return response,
    };
    match params.single("grant_type") {
        Ok(Some("authorization_code")) => authorization_code(server, &client, params),
        Ok(Some("refresh_token")) => refresh_token(server, &client, params),
        Ok(Some(other)) => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("the grant type {other:?} is not supported"),
        ),
        Ok(None) => invalid_request("grant_type is required"),
        Err(error) => invalid_request(&error),
    }
}

/// Whether `verifier` is a well-formed PKCE verifier whose S256 challenge
/// is `challenge` (RFC 7636 §4.1, §4.6).
fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-._~".contains(&byte));
    well_formed && URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge
}

fn authorization_code(
    server: &AuthorizationServer,
    client: &Client,
    params: &Params,
) -> HttpResponse {
    let read = |name: &str| params.single(name);
    let (code, redirect_uri, verifier, resource) = match (
        read("code"),
        read("redirect_uri"),
        read("code_verifier"),
        read("resource"),
    ) {
        (Ok(Some(code)), Ok(redirect_uri), Ok(verifier), Ok(resource)) => {
            (code, redirect_uri, verifier, resource)
        }
        (Ok(None), ..) => return invalid_request("code is required"),
        (Err(error), ..) | (_, Err(error), ..) | (.., Err(error), _) | (.., Err(error)) => {
            return invalid_request(&error);
        }
    };
    let mut tables = server.tables();
    // Room for the refresh token is checked first, so that a full table
    // leaves the code usable for a later try.
    if let Err(full) = tables.refresh_room(Instant::now()) {
        return unavailable(&full.description());
    }
    let Some(pending) = tables.codes.remove(code) else {
        // A second use of a code: refuse, and revoke what the first use
        // produced, since one of the two was an attacker (OAuth 2.1 §4.1.3).
        if let Some(family) = tables.used_codes.family(code) {
            tables.revoke_family(&family);
            return invalid_grant("the authorization code was already used");
        }
        return invalid_grant("the authorization code is unknown");
    };
    let Ok(family) = random_token() else {
        return oauth_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "no randomness",
        );
    };
    tables
        .used_codes
        .insert(code.to_owned(), family.clone(), pending.expires);
    drop(tables);
    if pending.grant.client_id != client.client_id {
        return invalid_grant("the code was issued to another client");
    }
    if pending.expires <= Instant::now() {
        return invalid_grant("the authorization code has expired");
    }
    if redirect_uri.is_some_and(|uri| uri != pending.redirect_uri) {
        return invalid_grant("redirect_uri differs from the authorization request's");
    }
    let Some(verifier) = verifier else {
        return invalid_request("code_verifier is required (PKCE)");
    };
    if !pkce_matches(verifier, &pending.code_challenge) {
        return invalid_grant("the code_verifier does not match the code_challenge");
    }
    let mut grant = pending.grant;
    match (resource, &grant.resource) {
        (Some(asked), _) if !valid_resource(asked) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_target",
                "resource is malformed",
            );
        }
        (Some(asked), Some(bound)) if asked != bound => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_target",
                "resource differs from the one authorized",
            );
        }
        (Some(asked), None) => grant.resource = Some(asked.to_owned()),
        _ => {}
    }
    issue(server, grant, family)
}

fn refresh_token(server: &AuthorizationServer, client: &Client, params: &Params) -> HttpResponse {
    let (token, scope, resource) = match (
        params.single("refresh_token"),
        params.single("scope"),
        params.single("resource"),
    ) {
        (Ok(Some(token)), Ok(scope), Ok(resource)) => (token, scope, resource),
        (Ok(None), ..) => return invalid_request("refresh_token is required"),
        (Err(error), ..) | (_, Err(error), _) | (.., Err(error)) => return invalid_request(&error),
    };
    let now = Instant::now();
    let mut tables = server.tables();
    let Some(record) = tables.refresh_tokens.get(token) else {
        // A rotated-out token came back: it leaked, so its whole family goes.
        if let Some(family) = tables.rotated_out.family(token) {
            tables.revoke_family(&family);
            return invalid_grant("the refresh token was already used");
        }
        return invalid_grant("the refresh token is unknown or revoked");
    };
    if record.grant.client_id != client.client_id {
        // Not this client's: left untouched.
        return invalid_grant("the refresh token was issued to another client");
    }
    if record.expires <= now {
        tables.refresh_tokens.remove(token);
        return invalid_grant("the refresh token has expired");
    }
    // Everything the request asks is checked before the token is consumed,
    // so that a bad request leaves the token (and its family) usable.
    let grant = match refreshed_grant(server, &record.grant, scope, resource) {
        Ok(grant) => grant,
        Err((code, description)) => {
            return oauth_error(StatusCode::BAD_REQUEST, code, &description);
        }
    };
    let Some(record) = tables.refresh_tokens.remove(token) else {
        return invalid_grant("the refresh token is unknown or revoked");
    };
    tables
        .rotated_out
        .insert(token.to_owned(), record.family.clone(), record.expires);
    drop(tables);
    issue(server, grant, record.family)
}

/// The grant a refresh asks for: the scopes may narrow, never widen (OAuth
/// 2.1 §4.3.1), and the resource must be the one authorized. The error is
/// the OAuth error code and its description.
fn refreshed_grant(
    server: &AuthorizationServer,
    granted: &Grant,
    scope: Option<&str>,
    resource: Option<&str>,
) -> Result<Grant, (&'static str, String)> {
    let mut grant = granted.clone();
    if scope.is_some() {
        let asked = requested_scopes(server, scope).map_err(|error| ("invalid_scope", error))?;
        if asked.iter().any(|scope| !grant.scopes.contains(scope)) {
            return Err(("invalid_scope", "a refresh cannot add scopes".to_owned()));
        }
        grant.scopes = asked;
    }
    if resource.is_some_and(|asked| grant.resource.as_deref() != Some(asked)) {
        return Err((
            "invalid_target",
            "resource differs from the one authorized".to_owned(),
        ));
    }
    Ok(grant)
}

/// 503 `temporarily_unavailable`: a table is full.
fn unavailable(description: &str) -> HttpResponse {
    oauth_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        description,
    )
}

/// Issues an access token and a fresh refresh token of `family`.
fn issue(server: &AuthorizationServer, grant: Grant, family: String) -> HttpResponse {
    let settings = &server.inner.settings;
    let lifetime = settings.access_token_lifetime.as_secs();
    let access = server.mint_access_token(&grant, unix_now() + lifetime);
    let (Ok(access), Ok(refresh)) = (access, random_token()) else {
        return oauth_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "signing failed",
        );
    };
    let mut body = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": refresh,
    });
    if !grant.scopes.is_empty() {
        body["scope"] = json!(grant.scopes.join(" "));
    }
    let record = RefreshRecord {
        grant,
        family,
        expires: Instant::now() + settings.refresh_token_lifetime,
    };
    server.tables().refresh_tokens.insert(refresh, record);
    no_store(StatusCode::OK, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-64, AUTH-65: the S256 verifier check of the token endpoint.
    #[test]
    fn pkce_accepts_only_the_verifier_of_the_challenge() {
        // RFC 7636 Appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(&verifier.replace('d', "e"), challenge));
        assert!(!pkce_matches("short", challenge));
    }

    // AUTH-04: confidential clients authenticate (RFC 6749 §2.3.1 encoding).
    #[test]
    fn basic_credentials_are_form_decoded() {
        let mut headers = HeaderMap::new();
        let encoded = STANDARD.encode("my%20id:s%3Acret");
        headers.insert(AUTHORIZATION, format!("Basic {encoded}").parse().unwrap());
        assert_eq!(
            basic_credentials(&headers),
            Some(("my id".to_owned(), "s:cret".to_owned()))
        );
    }
}
