//! The embedded authorization server's signing keys: P-256 (ES256) keys it
//! generates itself, rotated on demand, published as a JWKS.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use serde::Serialize;

use crate::random::{NoRandomness, random_bytes};

/// Why a key could not be made or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The system's random number generator failed.
    #[error("no randomness available: {0}")]
    Random(String),
    /// Encoding or signing failed.
    #[error("signing failed: {0}")]
    Signing(String),
}

impl From<NoRandomness> for KeyError {
    fn from(error: NoRandomness) -> Self {
        Self::Random(error.0)
    }
}

/// One signing key and its public half as a JWK.
struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    public: Jwk,
}

impl SigningKey {
    fn generate() -> Result<Self, KeyError> {
        // A uniformly random 32-byte string is a valid P-256 scalar except
        // with negligible probability (zero or above the group order);
        // the bounded retry covers that case.
        let mut secret = None;
        for _ in 0..8 {
            if let Ok(key) = p256::SecretKey::from_slice(&random_bytes(32)?) {
                secret = Some(key);
                break;
            }
        }
        let secret =
            secret.ok_or_else(|| KeyError::Random("no valid P-256 scalar drawn".to_owned()))?;
        let der = secret
            .to_pkcs8_der()
            .map_err(|error| KeyError::Signing(error.to_string()))?;
        let point = secret.public_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(KeyError::Signing(
                "the public key has no coordinates".to_owned(),
            ));
        };
        let kid = URL_SAFE_NO_PAD.encode(&random_bytes(12)?);
        let public = serde_json::from_value(serde_json::json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
            "kid": kid,
            "use": "sig",
            "alg": "ES256",
        }))
        .map_err(|error| KeyError::Signing(error.to_string()))?;
        Ok(Self {
            kid,
            encoding: EncodingKey::from_ec_der(der.as_bytes()),
            public,
        })
    }
}

/// The current signing key and the retired ones still published, newest
/// first, so that tokens signed before a rotation keep verifying.
pub(crate) struct KeyRing {
    keys: Vec<SigningKey>,
    /// How many keys the JWKS keeps (the current one included).
    keep: usize,
}

impl KeyRing {
    /// A ring with one fresh key, publishing at most `keep` keys.
    pub(crate) fn new(keep: usize) -> Result<Self, KeyError> {
        Ok(Self {
            keys: vec![SigningKey::generate()?],
            keep: keep.max(1),
        })
    }

    /// Makes a fresh key current; the oldest beyond `keep` is dropped.
    pub(crate) fn rotate(&mut self) -> Result<(), KeyError> {
        self.keys.insert(0, SigningKey::generate()?);
        self.keys.truncate(self.keep);
        Ok(())
    }

    /// The published keys.
    pub(crate) fn jwks(&self) -> JwkSet {
        JwkSet {
            keys: self.keys.iter().map(|key| key.public.clone()).collect(),
        }
    }

    /// `claims` signed with the current key as an RFC 9068 JWT access token.
    pub(crate) fn sign(&self, claims: &impl Serialize) -> Result<String, KeyError> {
        let Some(key) = self.keys.first() else {
            return Err(KeyError::Signing("no signing key".to_owned()));
        };
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(key.kid.clone());
        header.typ = Some("at+jwt".to_owned());
        jsonwebtoken::encode(&header, claims, &key.encoding)
            .map_err(|error| KeyError::Signing(error.to_string()))
    }
}
