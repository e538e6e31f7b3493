//! PKCE (RFC 7636): code verifiers and their S256 challenges.
//!
//! MCP clients always use PKCE with `S256`; the `plain` method is never
//! produced. The authorization server side uses [`verify_s256`] to check a
//! verifier against the challenge it stored.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// The only challenge method MCP clients use.
pub const S256: &str = "S256";

/// Why a code verifier is not acceptable (RFC 7636 §4.1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifierError {
    /// It is shorter than 43 or longer than 128 characters.
    #[error("a code verifier must have 43 to 128 characters, this one has {0}")]
    Length(usize),
    /// It holds a character outside `[A-Za-z0-9-._~]`.
    #[error("a code verifier may only hold A-Z, a-z, 0-9, '-', '.', '_' and '~'")]
    Charset,
    /// The system's random source failed.
    #[error("the system's random source failed: {0}")]
    Random(String),
}

/// A PKCE code verifier: 43 to 128 unreserved characters.
#[derive(Clone, PartialEq, Eq)]
pub struct CodeVerifier(String);

impl std::fmt::Debug for CodeVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The verifier is a secret until the token request is made.
        f.write_str("CodeVerifier(..)")
    }
}

impl CodeVerifier {
    /// A fresh verifier: 32 random bytes, base64url-encoded (43 characters,
    /// the RFC 7636 §4.1 recommendation).
    ///
    /// # Errors
    ///
    /// The system's random source failed.
    pub fn generate() -> Result<Self, VerifierError> {
        crate::random::random_token()
            .map(Self)
            .map_err(|error| VerifierError::Random(error.0))
    }

    /// Checks a verifier received from elsewhere (RFC 7636 §4.1).
    ///
    /// # Errors
    ///
    /// Its length or characters are not allowed.
    pub fn parse(text: &str) -> Result<Self, VerifierError> {
        if !(43..=128).contains(&text.len()) {
            return Err(VerifierError::Length(text.len()));
        }
        if !text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(VerifierError::Charset);
        }
        Ok(Self(text.to_owned()))
    }

    /// The verifier, as sent in the token request.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its S256 challenge: `BASE64URL(SHA256(verifier))`.
    pub fn s256_challenge(&self) -> String {
        s256_challenge(&self.0)
    }
}

/// `BASE64URL(SHA256(verifier))`, without padding (RFC 7636 §4.2).
pub fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `verifier` matches an S256 `challenge` (RFC 7636 §4.6).
pub fn verify_s256(verifier: &str, challenge: &str) -> bool {
    CodeVerifier::parse(verifier).is_ok() && s256_challenge(verifier) == challenge
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-64, AUTH-65: S256 as RFC 7636 defines it.
    #[test]
    fn the_rfc_7636_appendix_b_example_matches() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(
            s256_challenge(verifier),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(verify_s256(
            verifier,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        ));
        assert!(!verify_s256(
            verifier,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"
        ));
    }

    // AUTH-64: fresh, unguessable verifiers.
    #[test]
    fn generated_verifiers_are_valid_and_distinct() {
        let first = CodeVerifier::generate().unwrap();
        let second = CodeVerifier::generate().unwrap();
        assert_ne!(first, second);
        assert!(CodeVerifier::parse(first.as_str()).is_ok());
        assert_eq!(first.as_str().len(), 43);
    }

    // AUTH-64: RFC 7636 §4.1 verifier syntax.
    #[test]
    fn short_long_and_odd_verifiers_are_refused() {
        assert_eq!(CodeVerifier::parse("abc"), Err(VerifierError::Length(3)));
        assert!(CodeVerifier::parse(&"a".repeat(129)).is_err());
        assert_eq!(
            CodeVerifier::parse(&format!("{}+", "a".repeat(43))),
            Err(VerifierError::Charset)
        );
    }
}
