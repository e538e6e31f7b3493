//! Request checks before any MCP processing: `Host` and `Origin` against
//! DNS rebinding (HTTP-02, HTTP-03), and the media types of `Accept` and
//! `Content-Type`.
//!
//! A bad `Host` and a bad `Origin` both get **403 Forbidden**. The spec
//! prescribes 403 for `Origin`; for `Host` we use the same status rather
//! than 421 Misdirected Request, because 421 invites the client to retry on
//! another connection, which would not help: the name is refused, not the
//! connection.

use std::net::{IpAddr, SocketAddr};

use http::header::{ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::request::Parts;
use http::{HeaderMap, StatusCode};
use mcpwire_jsonrpc::ErrorObject;

use super::body::{HttpResponse, rpc_error};
use super::config::{Config, HostPolicy, OriginPolicy};

/// The local address of the connection a request arrived on.
///
/// [`serve`](super::serve()) inserts it into every request's extensions;
/// other hosts may insert it too. The default [`HostPolicy::Auto`] allows
/// only loopback names when it is a loopback address or absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalAddr(pub SocketAddr);

/// Refuses requests whose `Host` or `Origin` the configuration does not
/// allow, with 403 and a JSON-RPC error without id.
pub(crate) fn check_host_and_origin(
    config: &Config,
    parts: &Parts,
) -> Result<(), Box<HttpResponse>> {
    let loopback = parts
        .extensions
        .get::<LocalAddr>()
        .is_none_or(|local| local.0.ip().is_loopback());
    let authority = parts
        .headers
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| parts.uri.authority().map(|a| a.as_str().to_owned()));
    let host_ok = match &config.hosts {
        HostPolicy::Any => true,
        HostPolicy::Auto if !loopback => true,
        HostPolicy::Auto | HostPolicy::Loopback => authority
            .as_deref()
            .is_some_and(|a| is_loopback_name(split_host(a))),
        HostPolicy::List(allowed) => authority
            .as_deref()
            .is_some_and(|a| host_listed(allowed, a)),
    };
    if !host_ok {
        return Err(Box::new(forbidden(
            "the Host header names a host this server does not serve",
        )));
    }
    let Some(origin) = parts.headers.get(ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or_default().trim();
    let origin_ok = match &config.origins {
        OriginPolicy::Any => true,
        OriginPolicy::List(allowed) => allowed.iter().any(|o| o.eq_ignore_ascii_case(origin)),
        OriginPolicy::Auto => match origin_authority(origin) {
            None => false,
            Some(origin_authority) if loopback => is_loopback_name(split_host(origin_authority)),
            Some(origin_authority) => authority
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(origin_authority)),
        },
    };
    if origin_ok {
        Ok(())
    } else {
        Err(Box::new(forbidden(
            "the Origin header names an origin this server does not accept",
        )))
    }
}

fn forbidden(reason: &str) -> HttpResponse {
    rpc_error(
        StatusCode::FORBIDDEN,
        None,
        ErrorObject::invalid_request(format!("Forbidden: {reason}")),
    )
}

/// The host part of `host[:port]` (IPv6 literals keep no brackets).
fn split_host(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(host, _)| host);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

fn is_loopback_name(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `authority` matches an entry: `name` matches any port,
/// `name:port` only that port.
fn host_listed(allowed: &[String], authority: &str) -> bool {
    let host = split_host(authority);
    allowed.iter().any(|entry| {
        entry.eq_ignore_ascii_case(authority)
            || (split_host(entry).len() == entry.len() && entry.eq_ignore_ascii_case(host))
            || entry
                .strip_prefix('[')
                .and_then(|e| e.strip_suffix(']'))
                .is_some_and(|e| e.eq_ignore_ascii_case(host))
    })
}

/// The `host[:port]` of a serialized origin `scheme://host[:port]`.
fn origin_authority(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    let valid = !scheme.is_empty() && !rest.is_empty() && !rest.contains(['/', '?', '#', '@']);
    valid.then_some(rest)
}

/// Whether the `Accept` headers admit `media` (`type/subtype`), directly or
/// through a wildcard, with a non-zero quality.
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|param| {
                let param = param.trim();
                param
                    .strip_prefix("q=")
                    .or_else(|| param.strip_prefix("Q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            let matches = range.eq_ignore_ascii_case(media)
                || range == "*/*"
                || range
                    .strip_suffix("/*")
                    .is_some_and(|t| t.eq_ignore_ascii_case(kind));
            matches && !refused
        })
}

/// Whether `Content-Type` is `application/json` (parameters allowed).
pub(crate) fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use http::{HeaderValue, Request};

    use super::*;

    fn parts(host: Option<&str>, origin: Option<&str>, local: Option<&str>) -> Parts {
        let mut request = Request::builder().uri("/mcp");
        if let Some(host) = host {
            request = request.header(HOST, host);
        }
        if let Some(origin) = origin {
            request = request.header(ORIGIN, origin);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        if let Some(local) = local {
            parts.extensions.insert(LocalAddr(local.parse().unwrap()));
        }
        parts
    }

    fn allowed(
        config: &Config,
        host: Option<&str>,
        origin: Option<&str>,
        local: Option<&str>,
    ) -> bool {
        check_host_and_origin(config, &parts(host, origin, local)).is_ok()
    }

    #[test]
    fn loopback_servers_accept_only_loopback_hosts_and_origins() {
        let config = Config::default();
        let local = Some("127.0.0.1:3000");
        assert!(allowed(
            &config,
            Some("localhost:3000"),
            Some("http://localhost:3000"),
            local
        ));
        assert!(allowed(&config, Some("127.0.0.1:3000"), None, local));
        assert!(allowed(
            &config,
            Some("[::1]:3000"),
            Some("http://[::1]:3000"),
            None
        ));
        assert!(!allowed(
            &config,
            Some("evil.example.com"),
            Some("http://evil.example.com"),
            local
        ));
        assert!(!allowed(
            &config,
            Some("localhost:3000"),
            Some("http://evil.example.com"),
            local
        ));
        assert!(!allowed(
            &config,
            Some("localhost:3000"),
            Some("null"),
            local
        ));
        assert!(!allowed(&config, None, None, local));
    }

    #[test]
    fn public_servers_accept_any_host_and_only_their_own_origin() {
        let config = Config::default();
        let local = Some("10.0.0.5:443");
        assert!(allowed(&config, Some("mcp.example.com"), None, local));
        assert!(allowed(
            &config,
            Some("mcp.example.com"),
            Some("https://mcp.example.com"),
            local
        ));
        assert!(!allowed(
            &config,
            Some("mcp.example.com"),
            Some("https://evil.example.com"),
            local
        ));
    }

    #[test]
    fn explicit_lists_match_names_with_or_without_ports() {
        let config = Config::default()
            .allowed_hosts(["example.com", "api.example.com:8443"])
            .allowed_origins(["https://app.example.com"]);
        assert!(allowed(&config, Some("EXAMPLE.com:1234"), None, None));
        assert!(allowed(&config, Some("api.example.com:8443"), None, None));
        assert!(!allowed(&config, Some("api.example.com:9999"), None, None));
        assert!(allowed(
            &config,
            Some("example.com"),
            Some("https://app.example.com"),
            None
        ));
        assert!(!allowed(
            &config,
            Some("example.com"),
            Some("https://example.com"),
            None
        ));
    }

    #[test]
    fn accept_matching_understands_lists_wildcards_and_zero_quality() {
        let headers = |value: &str| {
            let mut map = HeaderMap::new();
            map.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
            map
        };
        let both = headers("application/json, text/event-stream");
        assert!(accepts(&both, "application/json") && accepts(&both, "text/event-stream"));
        assert!(accepts(&headers("*/*"), "text/event-stream"));
        assert!(accepts(&headers("text/*;q=0.5"), "text/event-stream"));
        assert!(!accepts(
            &headers("text/event-stream;q=0"),
            "text/event-stream"
        ));
        assert!(!accepts(&headers("application/json"), "text/event-stream"));
        assert!(!accepts(&HeaderMap::new(), "application/json"));
        let mut json = HeaderMap::new();
        json.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("Application/JSON; charset=utf-8"),
        );
        assert!(is_json_content(&json));
        assert!(!is_json_content(&headers("x")));
    }
}
