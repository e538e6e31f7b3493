//! Random tokens from the operating system's CSPRNG: the one source of the
//! codes, refresh tokens, secrets, `state` values and `jti`s this crate makes.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The system's random number generator failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoRandomness(pub(crate) String);

/// `len` bytes from the operating system's CSPRNG.
pub(crate) fn random_bytes(len: usize) -> Result<Vec<u8>, NoRandomness> {
    let mut bytes = vec![0; len];
    getrandom::fill(&mut bytes).map_err(|error| NoRandomness(error.to_string()))?;
    Ok(bytes)
}

/// A random, URL-safe token of 256 bits (base64url, 43 characters).
pub(crate) fn random_token() -> Result<String, NoRandomness> {
    Ok(URL_SAFE_NO_PAD.encode(random_bytes(32)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-04, AUTH-70: unguessable codes, tokens and `state` values.
    #[test]
    fn tokens_are_43_url_safe_characters_and_differ() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 43);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
        assert_ne!(a, b);
    }
}
