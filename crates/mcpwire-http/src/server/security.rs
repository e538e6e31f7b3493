//! Request checks before any MCP processing: `Host` and `Origin` against
//! DNS rebinding (HTTP-02, HTTP-03), and the media types of `Accept` and
//! `Content-Type`.
//!
//! [`check_host_and_origin`] is public so that every endpoint of one
//! server (the legacy HTTP+SSE endpoints of `mcpwire-http-legacy` too)
//! applies the same [`HostPolicy`] and [`OriginPolicy`] rules.
//!
//! A bad `Host` and a bad `Origin` both get **403 Forbidden**. The spec
//! prescribes 403 for `Origin`; for `Host` we use the same status rather
//! than 421 Misdirected Request, because 421 invites the client to retry on
//! another connection, which would not help: the name is refused, not the
//! connection.

use std::net::{IpAddr, SocketAddr};

use http::header::{ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode};

use super::body::{HttpResponse, invalid_request};
use super::config::{HostPolicy, OriginPolicy};

/// The local address of the connection a request arrived on.
///
/// [`serve`](super::serve()) inserts it into every request's extensions;
/// other hosts may insert it too. The default [`HostPolicy::Auto`] allows
/// only loopback names when it is a loopback address or absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalAddr(pub SocketAddr);

/// Why [`check_host_and_origin`] refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// The `Host` header (or, without one, the request URI's authority) is
    /// missing or names a host the [`HostPolicy`] does not allow.
    #[error("the Host header names a host this server does not serve")]
    Host,
    /// The `Origin` header names an origin the [`OriginPolicy`] does not
    /// allow.
    #[error("the Origin header names an origin this server does not accept")]
    Origin,
}

impl Rejection {
    /// The answer to a refused request: 403 with a JSON-RPC Invalid
    /// Request error without id, `"Forbidden: {reason}"`.
    pub fn to_response(self) -> HttpResponse {
        invalid_request(StatusCode::FORBIDDEN, &format!("Forbidden: {self}"))
    }
}

/// Checks a request's `Host` and `Origin` headers against DNS rebinding.
///
/// The connection's local address comes from the request's [`LocalAddr`]
/// extension: on a loopback address, or when it is absent, the `Auto`
/// policies accept only loopback names; elsewhere [`HostPolicy::Auto`]
/// accepts any host and [`OriginPolicy::Auto`] only the server's own
/// origin (the `Host`). A request without `Origin` did not come from a
/// browser and passes the origin check. IPv4-mapped IPv6 addresses
/// (`::ffff:127.0.0.1`, what a dual-stack listener sees) count as the IPv4
/// address they map.
///
/// What `Auto` protects on a non-loopback address: only the origin check
/// applies (a browser page from another origin cannot call the server),
/// while any `Host` is accepted, because the names a public server is
/// reached by are not known to it. A rebinding attack against a server on
/// a private network address (a page whose name was rebound to
/// 10.0.0.5) is stopped only by [`HostPolicy::List`]: servers on such
/// addresses should list their names.
///
/// # Errors
///
/// The [`Rejection`] saying which header was refused; answer it with
/// [`Rejection::to_response`].
pub fn check_host_and_origin(
    parts: &Parts,
    hosts: &HostPolicy,
    origins: &OriginPolicy,
) -> Result<(), Rejection> {
    let loopback = parts
        .extensions
        .get::<LocalAddr>()
        .is_none_or(|local| is_loopback_ip(local.0.ip()));
    let (host, origin) = host_and_origin(&parts.headers);
    let authority = host
        .and_then(|value| value.to_str().ok())
        .or_else(|| parts.uri.authority().map(http::uri::Authority::as_str));
    let host_ok = match hosts {
        HostPolicy::Any => true,
        HostPolicy::Auto if !loopback => true,
        HostPolicy::Auto | HostPolicy::Loopback => {
            authority.is_some_and(|a| is_loopback_name(split_host(a)))
        }
        HostPolicy::List(allowed) => authority.is_some_and(|a| host_listed(allowed, a)),
    };
    if !host_ok {
        return Err(Rejection::Host);
    }
    let Some(origin) = origin else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or_default().trim();
    let origin_ok = match origins {
        OriginPolicy::Any => true,
        OriginPolicy::List(allowed) => allowed.iter().any(|o| o.eq_ignore_ascii_case(origin)),
        OriginPolicy::Auto => match origin_authority(origin) {
            None => false,
            Some(origin_authority) if loopback => is_loopback_name(split_host(origin_authority)),
            Some(origin_authority) => {
                authority.is_some_and(|a| a.eq_ignore_ascii_case(origin_authority))
            }
        },
    };
    if origin_ok {
        Ok(())
    } else {
        Err(Rejection::Origin)
    }
}

/// The first `Host` and `Origin` values, found in one pass over the
/// headers (a lookup by name hashes the name; a request carries only a
/// handful of headers).
fn host_and_origin(headers: &HeaderMap) -> (Option<&HeaderValue>, Option<&HeaderValue>) {
    let (mut host, mut origin) = (None, None);
    for (name, value) in headers {
        if name == HOST {
            host.get_or_insert(value);
        } else if name == ORIGIN {
            origin.get_or_insert(value);
        }
    }
    (host, origin)
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
    // The usual loopback hosts first, compared rather than parsed: this
    // runs on every request.
    host == "127.0.0.1"
        || host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(is_loopback_ip)
}

/// Whether `ip` is a loopback address, IPv4-mapped IPv6 ones included: on a
/// dual-stack (`[::]`) listener a connection to 127.0.0.1 has the local
/// address `::ffff:127.0.0.1`, which `is_loopback` alone does not see.
fn is_loopback_ip(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// Whether `authority` matches an entry: `name` matches any port,
/// `name:port` only that port, `[ipv6]` any port.
fn host_listed(allowed: &[String], authority: &str) -> bool {
    let host = split_host(authority);
    allowed.iter().any(|entry| {
        entry.eq_ignore_ascii_case(authority)
            || (split_host(entry).len() == entry.len() && entry.eq_ignore_ascii_case(host))
            || entry
                .strip_prefix('[')
                .and_then(|e| e.strip_suffix(']'))
                // An IPv6 literal holds no bracket: a malformed entry such
                // as `[a]b]` matches nothing rather than the host `a]b`.
                .filter(|e| !e.contains(']'))
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
    accepts_all(headers, &[media])
}

/// Whether the `Accept` headers admit both JSON and SSE answers, as a POST
/// to the MCP endpoint must (HTTP-07).
pub(crate) fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(ACCEPT).iter();
    let (first, more) = (values.next(), values.next().is_some());
    accepts_json_and_sse_given(headers, first, more)
}

/// [`accepts_json_and_sse`] given the first `Accept` value and whether
/// there are more (found by the caller).
pub(crate) fn accepts_json_and_sse_given(
    headers: &HeaderMap,
    first: Option<&HeaderValue>,
    more: bool,
) -> bool {
    // The value clients send, compared before any parsing: it is in
    // nearly every request. Anything else is parsed.
    const COMMON: &[u8] = b"application/json, text/event-stream";
    if !more && first.is_some_and(|only| only.as_bytes() == COMMON) {
        return true;
    }
    accepts_all(headers, &["application/json", "text/event-stream"])
}

/// Whether the `Accept` headers admit every one of `media` (each as
/// [`accepts`] says), reading the headers once whatever their number.
///
/// The items are split on bytes rather than with `str` patterns: this runs
/// on every POST, and the header is short, so the setup of a vectorised
/// search for each separator would cost more than the search.
pub(crate) fn accepts_all(headers: &HeaderMap, media: &[&str]) -> bool {
    // One bit per wanted type; more than 32 are never asked for.
    let wanted = media.iter().take(32).fold(0_u32, |bits, _| bits << 1 | 1);
    let mut admitted = 0_u32;
    for value in headers.get_all(ACCEPT) {
        // Values with bytes outside visible ASCII are ignored whole.
        let Ok(value) = value.to_str() else {
            continue;
        };
        for item in value.as_bytes().split(|&byte| byte == b',') {
            let (range, params) = match item.iter().position(|&byte| byte == b';') {
                Some(at) => (&item[..at], &item[at + 1..]),
                None => (item, &[][..]),
            };
            let range = range.trim_ascii();
            let matched = media
                .iter()
                .take(32)
                .enumerate()
                .filter(|(_, media)| admits(range, media.as_bytes()))
                .fold(0_u32, |bits, (index, _)| bits | 1 << index);
            // The quality is read only for a range that matters.
            if matched != 0 && !zero_quality(params) {
                admitted |= matched;
                if admitted == wanted {
                    return true;
                }
            }
        }
    }
    admitted == wanted
}

/// Whether the media range `range` (no parameters) covers `media`.
fn admits(range: &[u8], media: &[u8]) -> bool {
    if range.eq_ignore_ascii_case(media) || range == b"*/*" {
        return true;
    }
    let Some(range_kind) = range.strip_suffix(b"/*") else {
        return false;
    };
    let kind = media.split(|&byte| byte == b'/').next().unwrap_or(media);
    range_kind.eq_ignore_ascii_case(kind)
}

/// Whether the parameters of an `Accept` item (after its first `;`) give
/// it a quality of zero, which refuses the range.
fn zero_quality(params: &[u8]) -> bool {
    params.split(|&byte| byte == b';').any(|param| {
        let param = param.trim_ascii();
        param
            .strip_prefix(b"q=")
            .or_else(|| param.strip_prefix(b"Q="))
            .and_then(|q| core::str::from_utf8(q.trim_ascii()).ok())
            .and_then(|q| q.parse::<f32>().ok())
            .is_some_and(|q| q <= 0.0)
    })
}

/// Whether `Content-Type` is `application/json` (parameters allowed).
pub fn is_json_content(headers: &HeaderMap) -> bool {
    is_json_content_type(headers.get(CONTENT_TYPE))
}

/// [`is_json_content`] given the first `Content-Type` value.
pub(crate) fn is_json_content_type(value: Option<&HeaderValue>) -> bool {
    // The value clients send, compared before any validation or parsing.
    if value.is_some_and(|value| value.as_bytes() == b"application/json") {
        return true;
    }
    let Some(value) = value.and_then(|value| value.to_str().ok()) else {
        return false;
    };
    let value = value.as_bytes();
    let media = value
        .iter()
        .position(|&byte| byte == b';')
        .map_or(value, |at| &value[..at]);
    media.trim_ascii().eq_ignore_ascii_case(b"application/json")
}

#[cfg(test)]
mod tests {
    use http::{HeaderValue, Request};

    use super::*;
    use crate::server::Config;

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
        let parts = parts(host, origin, local);
        check_host_and_origin(&parts, &config.hosts, &config.origins).is_ok()
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
        assert!(allowed(
            &config,
            Some("[::1]:3000"),
            Some("http://127.0.0.1:9"),
            None
        ));
        assert!(!allowed(&config, Some("evil.example.com"), None, local));
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
        assert!(allowed(
            &config,
            Some("mcp.example.com"),
            Some("https://MCP.example.com"),
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
        assert!(!allowed(&config, Some("other.example.com"), None, None));
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
    fn bracketed_entries_match_ipv6_literals_on_any_port_and_nothing_else() {
        let config = Config::default().allowed_hosts(["[::1]", "[a]b]"]);
        assert!(allowed(&config, Some("[::1]:80"), None, None));
        assert!(allowed(&config, Some("[::1]"), None, None));
        assert!(!allowed(&config, Some("[::2]:80"), None, None));
        assert!(!allowed(&config, Some("a]b"), None, None));
        assert!(!allowed(&config, Some("a]b:80"), None, None));
    }

    #[test]
    fn refusals_name_the_header_in_a_403_json_rpc_error() {
        let config = Config::default();
        let local = Some("127.0.0.1:3000");
        let refused = |host, origin| {
            let parts = parts(Some(host), origin, local);
            check_host_and_origin(&parts, &config.hosts, &config.origins).unwrap_err()
        };
        assert_eq!(refused("evil.example.com", None), Rejection::Host);
        let origin = refused("localhost", Some("http://evil.example.com"));
        assert_eq!(origin, Rejection::Origin);
        let response = origin.to_response();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(response.headers()[CONTENT_TYPE], "application/json");
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
        let mcp = ["application/json", "text/event-stream"];
        assert!(accepts_all(&both, &mcp));
        assert!(accepts_all(&headers("*/*"), &mcp));
        assert!(accepts_all(
            &headers("text/event-stream;q=0, application/*, text/*"),
            &mcp
        ));
        assert!(!accepts_all(
            &headers("text/event-stream, application/json;q=0"),
            &mcp
        ));
        assert!(!accepts_all(&headers("application/json"), &mcp));
        assert!(!accepts_all(&HeaderMap::new(), &mcp));
        assert!(accepts_json_and_sse(&both));
        assert!(accepts_json_and_sse(&headers(
            "text/event-stream, application/*"
        )));
        assert!(!accepts_json_and_sse(&headers("application/json")));
        assert!(!accepts_json_and_sse(&HeaderMap::new()));
        let mut split = HeaderMap::new();
        split.append(ACCEPT, HeaderValue::from_static("text/event-stream"));
        split.append(ACCEPT, HeaderValue::from_static("application/json"));
        assert!(accepts_all(&split, &mcp));
        let mut json = HeaderMap::new();
        json.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("Application/JSON; charset=utf-8"),
        );
        assert!(is_json_content(&json));
        assert!(!is_json_content(&headers("x")));
    }
}
