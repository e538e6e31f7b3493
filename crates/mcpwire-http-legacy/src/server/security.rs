//! `Host` and `Origin` checks against DNS rebinding (LEG-01), with the
//! policies of mcpwire-http so that both endpoints of one server are
//! configured alike.
//!
//! mcpwire-http keeps its own check private, so this is a compact
//! re-statement of the same rules: on a loopback address (or when the
//! local address is unknown) only loopback names are served; elsewhere any
//! `Host`, and only the server's own `Origin`. A request without `Origin`
//! did not come from a browser and is accepted.

use std::net::IpAddr;

use http::header::{HOST, ORIGIN};
use http::request::Parts;
use mcpwire_http::server::{HostPolicy, LocalAddr, OriginPolicy};

use super::config::Config;

/// Why a request was refused, for the 403 body.
pub(crate) type Refusal = &'static str;

/// Refuses a request whose `Host` or `Origin` the configuration does not
/// allow. Policies this crate does not know yet refuse everything, which
/// errs on the safe side.
pub(crate) fn check(config: &Config, parts: &Parts) -> Result<(), Refusal> {
    let loopback = parts
        .extensions
        .get::<LocalAddr>()
        .is_none_or(|local| local.0.ip().is_loopback());
    let authority = parts
        .headers
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| parts.uri.authority().map(http::uri::Authority::as_str));
    let host_ok = match &config.hosts {
        HostPolicy::Any => true,
        HostPolicy::Auto if !loopback => true,
        HostPolicy::Auto | HostPolicy::Loopback => authority.is_some_and(is_loopback_authority),
        HostPolicy::List(allowed) => authority.is_some_and(|a| host_listed(allowed, a)),
        _ => false,
    };
    if !host_ok {
        return Err("the Host header names a host this server does not serve");
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
            Some(theirs) if loopback => is_loopback_authority(theirs),
            Some(theirs) => authority.is_some_and(|ours| ours.eq_ignore_ascii_case(theirs)),
        },
        _ => false,
    };
    if origin_ok {
        Ok(())
    } else {
        Err("the Origin header names an origin this server does not accept")
    }
}

/// The host and port of `host[:port]`, without the brackets of an IPv6
/// literal.
fn split_authority(authority: &str) -> (&str, Option<&str>) {
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((host, tail)) => (host, tail.strip_prefix(':')),
            None => (rest, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => (host, Some(port)),
        _ => (authority, None),
    }
}

fn is_loopback_authority(authority: &str) -> bool {
    let (host, _) = split_authority(authority);
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `authority` matches an entry: `name` matches any port,
/// `name:port` only that port.
fn host_listed(allowed: &[String], authority: &str) -> bool {
    let (host, port) = split_authority(authority);
    allowed.iter().any(|entry| match split_authority(entry) {
        (entry_host, None) => entry_host.eq_ignore_ascii_case(host),
        (entry_host, Some(entry_port)) => {
            entry_host.eq_ignore_ascii_case(host) && port == Some(entry_port)
        }
    })
}

/// The `host[:port]` of a serialized origin `scheme://host[:port]`.
fn origin_authority(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    let valid = !scheme.is_empty() && !rest.is_empty() && !rest.contains(['/', '?', '#', '@']);
    valid.then_some(rest)
}

#[cfg(test)]
mod tests {
    use http::Request;

    use super::*;

    fn parts(host: Option<&str>, origin: Option<&str>, local: Option<&str>) -> Parts {
        let mut request = Request::builder().uri("/sse");
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
        check(config, &parts(host, origin, local)).is_ok()
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
        assert!(allowed(
            &config,
            Some("[::1]:3000"),
            Some("http://127.0.0.1:9"),
            None
        ));
        assert!(!allowed(&config, Some("evil.example.com"), None, local));
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
    fn host_lists_match_names_with_or_without_ports() {
        let config = Config::default().hosts(HostPolicy::List(vec![
            "example.com".to_owned(),
            "api.example.com:8443".to_owned(),
            "[::1]".to_owned(),
        ]));
        assert!(allowed(&config, Some("EXAMPLE.com:1234"), None, None));
        assert!(allowed(&config, Some("api.example.com:8443"), None, None));
        assert!(!allowed(&config, Some("api.example.com:9999"), None, None));
        assert!(allowed(&config, Some("[::1]:80"), None, None));
        assert!(!allowed(&config, Some("other.example.com"), None, None));
    }

    #[test]
    fn origin_lists_are_exact() {
        let config = Config::default()
            .hosts(HostPolicy::Any)
            .origins(OriginPolicy::List(vec![
                "https://app.example.com".to_owned(),
            ]));
        assert!(allowed(
            &config,
            Some("x"),
            Some("https://app.example.com"),
            None
        ));
        assert!(!allowed(
            &config,
            Some("x"),
            Some("https://example.com"),
            None
        ));
    }
}
