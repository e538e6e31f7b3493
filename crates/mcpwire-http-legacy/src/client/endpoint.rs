//! Resolving the `endpoint` event's URI against the SSE URL (RFC 3986,
//! section 5), and refusing one on another origin.

use http::Uri;

use super::error::Error;

/// The URI the client POSTs to: `reference` (the `endpoint` event's data)
/// resolved against `base` (the SSE URL), which must keep `base`'s origin
/// (scheme, host and port).
pub(crate) fn resolve(base: &Uri, reference: &str) -> Result<Uri, Error> {
    let invalid = |reason: &str| Error::InvalidEndpoint {
        uri: reference.to_owned(),
        reason: reason.to_owned(),
    };
    let trimmed = reference.trim();
    // A fragment never reaches the server.
    let trimmed = trimmed
        .split_once('#')
        .map_or(trimmed, |(before, _)| before);
    if trimmed.is_empty() {
        return Err(invalid("it is empty"));
    }
    let (Some(scheme), Some(authority)) = (base.scheme_str(), base.authority()) else {
        return Err(invalid("the SSE URL is not absolute"));
    };
    let target = if let Some(theirs) = scheme_of(trimmed) {
        if !theirs.eq_ignore_ascii_case(scheme) {
            return Err(Error::CrossOriginEndpoint(reference.to_owned()));
        }
        trimmed.to_owned()
    } else if trimmed.starts_with("//") {
        format!("{scheme}:{trimmed}")
    } else if trimmed.starts_with('/') {
        let (path, query) = split_query(trimmed);
        format!("{scheme}://{authority}{}{query}", remove_dot_segments(path))
    } else if trimmed.starts_with('?') {
        format!("{scheme}://{authority}{}{trimmed}", base.path())
    } else {
        let (path, query) = split_query(trimmed);
        let directory = base.path().rsplit_once('/').map_or("", |(dir, _)| dir);
        let merged = format!("{directory}/{path}");
        format!(
            "{scheme}://{authority}{}{query}",
            remove_dot_segments(&merged)
        )
    };
    let resolved: Uri = target
        .parse()
        .map_err(|error: http::uri::InvalidUri| invalid(&error.to_string()))?;
    if same_origin(base, &resolved) {
        Ok(resolved)
    } else {
        Err(Error::CrossOriginEndpoint(reference.to_owned()))
    }
}

/// The scheme `reference` starts with (`ALPHA *( ALPHA / DIGIT / "+" /
/// "-" / "." ) ":"`), if it is an absolute URI rather than a path.
fn scheme_of(reference: &str) -> Option<&str> {
    let (scheme, _) = reference.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

fn split_query(reference: &str) -> (&str, &str) {
    match reference.find('?') {
        Some(at) => reference.split_at(at),
        None => (reference, ""),
    }
}

/// Whether two absolute URIs share scheme, host and port (the default
/// port counting as given).
fn same_origin(a: &Uri, b: &Uri) -> bool {
    let scheme = |uri: &Uri| uri.scheme_str().map(str::to_ascii_lowercase);
    let port = |uri: &Uri| {
        uri.port_u16().or(match uri.scheme_str() {
            Some(s) if s.eq_ignore_ascii_case("http") => Some(80),
            Some(s) if s.eq_ignore_ascii_case("https") => Some(443),
            _ => None,
        })
    };
    let host = |uri: &Uri| uri.host().map(str::to_ascii_lowercase);
    scheme(a).is_some() && scheme(a) == scheme(b) && host(a) == host(b) && port(a) == port(b)
        // Credentials in a URI could redirect through an attacker's proxy
        // login page; the origin check refuses them outright.
        && b.authority().is_some_and(|auth| !auth.as_str().contains('@'))
}

/// RFC 3986, section 5.2.4: drops `.` segments and applies `..` ones.
fn remove_dot_segments(path: &str) -> String {
    let mut output: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (index, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if index == last {
                    output.push("");
                }
            }
            ".." => {
                if output.len() > 1 {
                    output.pop();
                }
                if index == last {
                    output.push("");
                }
            }
            other => output.push(other),
        }
    }
    let joined = output.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(base: &str, reference: &str) -> Result<String, Error> {
        resolve(&base.parse().unwrap(), reference).map(|uri| uri.to_string())
    }

    #[test]
    fn relative_references_resolve_against_the_sse_url() {
        let base = "http://127.0.0.1:8080/api/sse";
        let cases = [
            (
                "/message?sessionId=a",
                "http://127.0.0.1:8080/message?sessionId=a",
            ),
            (
                "message?sessionId=a",
                "http://127.0.0.1:8080/api/message?sessionId=a",
            ),
            ("./message", "http://127.0.0.1:8080/api/message"),
            ("../message", "http://127.0.0.1:8080/message"),
            ("../../../message", "http://127.0.0.1:8080/message"),
            ("?sessionId=b", "http://127.0.0.1:8080/api/sse?sessionId=b"),
            ("//127.0.0.1:8080/m", "http://127.0.0.1:8080/m"),
            ("http://127.0.0.1:8080/m#frag", "http://127.0.0.1:8080/m"),
            (" /message \n", "http://127.0.0.1:8080/message"),
        ];
        for (reference, expected) in cases {
            assert_eq!(resolved(base, reference).unwrap(), expected, "{reference}");
        }
    }

    #[test]
    fn default_ports_and_host_case_keep_the_origin() {
        assert!(resolved("http://Example.com/sse", "http://example.COM:80/m").is_ok());
        assert!(resolved("HTTP://example.com:80/sse", "http://example.com/m").is_ok());
    }

    #[test]
    fn other_origins_are_refused() {
        let base = "http://127.0.0.1:8080/sse";
        for reference in [
            "http://evil.example.com/message",
            "//evil.example.com/message",
            "https://127.0.0.1:8080/message",
            "http://127.0.0.1:9090/message",
            "http://user@127.0.0.1:8080/message",
            "mailto:someone@example.com",
        ] {
            assert!(
                matches!(
                    resolved(base, reference),
                    Err(Error::CrossOriginEndpoint(_))
                ),
                "{reference}"
            );
        }
    }

    #[test]
    fn unusable_references_are_invalid() {
        let base = "http://127.0.0.1:8080/sse";
        for reference in ["", "  ", "#only", "/with space"] {
            assert!(
                matches!(
                    resolved(base, reference),
                    Err(Error::InvalidEndpoint { .. })
                ),
                "{reference:?}"
            );
        }
    }
}
