//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).

use http::HeaderMap;
use http::header::WWW_AUTHENTICATE;

/// One authentication challenge: its scheme and parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme (`Bearer`, `DPoP`, ...), as sent.
    pub scheme: String,
    /// The parameters, names lower-cased, values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// `resource_metadata`: where the protected resource metadata is (RFC 9728 §5.1).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// `scope`: the scopes the resource asks for, split on spaces.
    pub fn scopes(&self) -> Option<Vec<String>> {
        self.param("scope").map(|scope| {
            scope
                .split(' ')
                .filter(|part| !part.is_empty())
                .map(str::to_owned)
                .collect()
        })
    }

    /// `error` (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ...).
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// Every challenge of every `WWW-Authenticate` header in `headers`.
pub fn parse_headers(headers: &HeaderMap) -> Vec<Challenge> {
    headers
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(parse)
        .collect()
}

/// The challenges in one header value. Malformed parts are skipped, never
/// fatal: the header comes from a server the client does not trust yet.
pub fn parse(value: &str) -> Vec<Challenge> {
    let mut challenges: Vec<Challenge> = Vec::new();
    let mut rest = value.trim_start();
    // Bounded by the input: every iteration consumes at least one byte.
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ', '\t']);
        let token_end = rest.find(['=', ',', ' ', '\t']).unwrap_or(rest.len());
        if token_end == 0 {
            // A lone '=' or similar: skip one character.
            let mut chars = rest.chars();
            chars.next();
            rest = chars.as_str();
            continue;
        }
        let token = &rest[..token_end];
        let after = rest[token_end..].trim_start_matches([' ', '\t']);
        if let Some(value_part) = after.strip_prefix('=')
            && !value_part.starts_with('=')
        {
            // An auth-param of the current challenge.
            let value_part = value_part.trim_start_matches([' ', '\t']);
            let (param_value, remaining) = read_value(value_part);
            if let Some(current) = challenges.last_mut() {
                current
                    .params
                    .push((token.to_ascii_lowercase(), param_value));
            }
            rest = remaining;
        } else if after.starts_with('=') {
            // token68 (`abc==`): kept as a parameter-less challenge body.
            let end = after.find(',').unwrap_or(after.len());
            rest = &after[end..];
        } else {
            challenges.push(Challenge {
                scheme: token.to_owned(),
                params: Vec::new(),
            });
            rest = after;
        }
    }
    challenges
}

/// Reads a token or quoted-string value; returns it and what follows.
fn read_value(input: &str) -> (String, &str) {
    if let Some(quoted) = input.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((index, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[index + 1..]),
                other => value.push(other),
            }
        }
        (value, "")
    } else {
        let end = input.find([',', ' ', '\t']).unwrap_or(input.len());
        (input[..end].to_owned(), &input[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-16: `WWW-Authenticate` parsed.
    #[test]
    fn a_bearer_challenge_yields_its_metadata_url_scope_and_error() {
        let challenges = parse(
            r#"Bearer error="invalid_token", error_description="No \"token\"", scope="mcp:basic mcp:read", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(challenges.len(), 1);
        let bearer = &challenges[0];
        assert_eq!(bearer.scheme, "Bearer");
        assert_eq!(bearer.error(), Some("invalid_token"));
        assert_eq!(bearer.param("ERROR_DESCRIPTION"), Some("No \"token\""));
        assert_eq!(
            bearer.scopes().unwrap(),
            vec!["mcp:basic".to_owned(), "mcp:read".to_owned()]
        );
        assert_eq!(
            bearer.resource_metadata(),
            Some("http://localhost:1/.well-known/oauth-protected-resource/mcp")
        );
    }

    // AUTH-16: several challenges in one header.
    #[test]
    fn several_challenges_in_one_header_are_split() {
        let challenges =
            parse(r#"DPoP error="use_dpop_nonce", algs="ES256", Bearer realm=x, Basic abc=="#);
        let schemes: Vec<_> = challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["DPoP", "Bearer", "Basic"]);
        assert_eq!(challenges[0].error(), Some("use_dpop_nonce"));
        assert_eq!(challenges[1].param("realm"), Some("x"));
    }

    // AUTH-16: any header parses without a panic.
    #[test]
    fn garbage_never_panics() {
        for input in [
            "",
            "=",
            "\"",
            "Bearer =",
            "Bearer a=\"unterminated",
            ",,,",
            "Bearer a=b=c",
        ] {
            let _ = parse(input);
        }
    }
}
