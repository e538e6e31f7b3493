//! The authorization request's scopes and the checks on its response:
//! scope selection (MCP authorization, "Scope Selection Strategy",
//! SEP-2207), and the redirect's `error`, `state` and `iss` (RFC 9207).

use url::Url;

use super::discovery::{AuthorizationServer, Discovered};
use super::error::Error;

/// The scope that asks for a refresh token (OpenID Connect Core §11).
const OFFLINE_ACCESS: &str = "offline_access";

/// The scopes of a first authorization (MCP authorization, "Scope
/// Selection Strategy"): the challenge's, else the resource's
/// `scopes_supported`, else none; plus `offline_access` only when the
/// authorization server lists it and `offline` is wanted, and never
/// otherwise (SEP-2207).
pub(crate) fn select_scopes(
    challenge: Option<Vec<String>>,
    discovered: &Discovered,
    offline: bool,
) -> Vec<String> {
    let mut scopes = challenge
        .or_else(|| {
            discovered
                .resource_metadata
                .as_ref()
                .and_then(|metadata| metadata.scopes_supported.clone())
        })
        .unwrap_or_default();
    let server_offers_offline = discovered
        .server
        .scopes_supported()
        .is_some_and(|supported| supported.iter().any(|scope| scope == OFFLINE_ACCESS));
    if server_offers_offline && offline {
        if !scopes.iter().any(|scope| scope == OFFLINE_ACCESS) {
            scopes.push(OFFLINE_ACCESS.to_owned());
        }
    } else {
        scopes.retain(|scope| scope != OFFLINE_ACCESS);
    }
    scopes
}

/// Checks the authorization response at the redirect URI and returns the
/// code: no `error`, the `state` sent, and `iss` per RFC 9207 as MCP
/// applies it: compared (exactly, without normalisation) whenever present,
/// and required when the server advertises it.
pub(crate) fn check_callback(
    callback: &str,
    expected_state: &str,
    server: &AuthorizationServer,
) -> Result<String, Error> {
    let url = Url::parse(callback)
        .map_err(|error| Error::AuthorizationResponse(format!("unreadable redirect: {error}")))?;
    let find = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    match find("iss") {
        Some(iss) if iss != server.issuer => {
            return Err(Error::AuthorizationResponse(format!(
                "iss {iss:?} is not the issuer {:?}",
                server.issuer
            )));
        }
        None if server.advertises_iss() => {
            return Err(Error::AuthorizationResponse(
                "the server advertises iss but the response has none".to_owned(),
            ));
        }
        _ => {}
    }
    if let Some(error) = find("error") {
        return Err(Error::OAuth {
            endpoint: "authorization endpoint",
            error,
            description: find("error_description"),
        });
    }
    if find("state").as_deref() != Some(expected_state) {
        return Err(Error::AuthorizationResponse(
            "state does not match".to_owned(),
        ));
    }
    find("code").ok_or_else(|| Error::AuthorizationResponse("no code".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};

    fn discovered(
        prm_scopes: Option<&[&str]>,
        as_scopes: Option<&[&str]>,
        iss: bool,
    ) -> Discovered {
        let owned = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let metadata = AuthorizationServerMetadata {
            issuer: "https://as.example".into(),
            scopes_supported: as_scopes.map(owned),
            authorization_response_iss_parameter_supported: iss.then_some(true),
            ..AuthorizationServerMetadata::default()
        };
        let mut prm =
            ProtectedResourceMetadata::new("https://rs.example/mcp", "https://as.example");
        prm.scopes_supported = prm_scopes.map(owned);
        Discovered {
            resource: prm.resource.clone(),
            resource_metadata: Some(prm),
            server: AuthorizationServer {
                issuer: "https://as.example".into(),
                metadata: Some(metadata),
                authorization_endpoint: Some("https://as.example/authorize".into()),
                token_endpoint: "https://as.example/token".into(),
                registration_endpoint: None,
            },
        }
    }

    // AUTH-37, AUTH-14, AUTH-17: scope selection order.
    #[test]
    fn scopes_come_from_the_challenge_then_the_resource_then_nowhere() {
        let found = discovered(Some(&["a", "b"]), None, false);
        assert_eq!(select_scopes(Some(vec!["c".into()]), &found, true), ["c"]);
        assert_eq!(select_scopes(None, &found, true), ["a", "b"]);
        let bare = discovered(None, None, false);
        assert!(select_scopes(None, &bare, true).is_empty());
    }

    // AUTH-37, AUTH-13: no scope assumed beyond what the servers name.
    #[test]
    fn offline_access_is_asked_for_only_where_the_server_lists_it() {
        let offers = discovered(
            Some(&["mcp:basic"]),
            Some(&["mcp:basic", "offline_access"]),
            false,
        );
        assert_eq!(
            select_scopes(None, &offers, true),
            ["mcp:basic", "offline_access"]
        );
        assert_eq!(select_scopes(None, &offers, false), ["mcp:basic"]);
        let lacks = discovered(
            Some(&["mcp:basic", "offline_access"]),
            Some(&["mcp:basic"]),
            false,
        );
        assert_eq!(select_scopes(None, &lacks, true), ["mcp:basic"]);
    }

    // AUTH-58 (OAuth 2.1 §7 mix-up defence, RFC 9207), AUTH-70 (`state`).
    #[test]
    fn the_iss_of_an_authorization_response_is_compared_exactly() {
        let advertised = discovered(None, None, true).server;
        let silent = discovered(None, None, false).server;
        let ok = "http://127.0.0.1/cb?code=c&state=s&iss=https%3A%2F%2Fas.example";
        assert_eq!(check_callback(ok, "s", &advertised).unwrap(), "c");
        assert_eq!(check_callback(ok, "s", &silent).unwrap(), "c");
        let missing = "http://127.0.0.1/cb?code=c&state=s";
        assert!(
            check_callback(missing, "s", &advertised).is_err(),
            "RFC 9207 §2.4"
        );
        assert_eq!(check_callback(missing, "s", &silent).unwrap(), "c");
        for wrong in [
            "https://evil.example.com",
            "https://as.example/",
            "HTTPS://as.example",
        ] {
            let url = format!(
                "http://127.0.0.1/cb?code=c&state=s&iss={}",
                url::form_urlencoded::byte_serialize(wrong.as_bytes()).collect::<String>()
            );
            assert!(check_callback(&url, "s", &advertised).is_err(), "{wrong}");
            assert!(
                check_callback(&url, "s", &silent).is_err(),
                "unadvertised {wrong}"
            );
        }
        assert!(check_callback(ok, "other", &advertised).is_err(), "state");
    }
}
