//! The JWTs the client signs, all ES256: `private_key_jwt` client
//! assertions (RFC 7523 §2.2) and DPoP proofs (RFC 9449 §4). Keys come
//! from `p256`, signatures from `jsonwebtoken`; nothing here is
//! cryptography of its own.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk,
};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::ecdsa::SigningKey;
use p256::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::error::Error;
use super::token::AssertionSigner;
use crate::random::random_token;

/// How long a client assertion is valid.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// A P-256 key pair for ES256 signatures.
#[derive(Clone)]
pub struct Es256Key {
    pkcs8: Vec<u8>,
    x: String,
    y: String,
}

impl fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Es256Key")
            .field("x", &self.x)
            .field("y", &self.y)
            .finish_non_exhaustive()
    }
}

fn signing(error: impl fmt::Display) -> Error {
    Error::Signing(error.to_string())
}

impl Es256Key {
    /// A fresh key pair.
    ///
    /// # Errors
    ///
    /// The system's random source failed.
    pub fn generate() -> Result<Self, Error> {
        // A random scalar is out of range with probability about 2^-128;
        // a few draws are plenty.
        for _ in 0..4 {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret).map_err(signing)?;
            if let Ok(key) = SigningKey::from_slice(&secret) {
                let der = key.to_pkcs8_der().map_err(signing)?;
                return Self::from_pkcs8_der(der.as_bytes());
            }
        }
        Err(signing("cannot generate a P-256 key"))
    }

    /// A key from PKCS#8 DER.
    ///
    /// # Errors
    ///
    /// It is not a P-256 PKCS#8 key.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        let key = SigningKey::from_pkcs8_der(der)
            .map_err(|error| signing(format!("not a P-256 PKCS#8 key: {error}")))?;
        let point = key.verifying_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err(signing("unexpected public key encoding"));
        };
        Ok(Self {
            pkcs8: der.to_vec(),
            x: URL_SAFE_NO_PAD.encode(x),
            y: URL_SAFE_NO_PAD.encode(y),
        })
    }

    /// A key from a PKCS#8 PEM document (`-----BEGIN PRIVATE KEY-----`).
    ///
    /// # Errors
    ///
    /// The PEM is malformed or holds another kind of key.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let body: String = pem
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with("-----"))
            .collect();
        let der = STANDARD
            .decode(body)
            .map_err(|error| signing(format!("malformed PEM: {error}")))?;
        Self::from_pkcs8_der(&der)
    }

    /// The public key as a JWK (RFC 7517), without private members.
    pub fn jwk(&self) -> Jwk {
        Jwk {
            common: CommonParameters::default(),
            algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                key_type: EllipticCurveKeyType::EC,
                curve: EllipticCurve::P256,
                x: self.x.clone(),
                y: self.y.clone(),
            }),
        }
    }

    /// The JWK SHA-256 thumbprint (RFC 7638), base64url: what a DPoP-bound
    /// token's `cnf.jkt` names.
    pub fn thumbprint(&self) -> String {
        // RFC 7638 §3.2: the required members in lexicographic order.
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            self.x, self.y
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// Signs `claims` under `header` (whose `alg` is set to ES256).
    ///
    /// # Errors
    ///
    /// Signing failed.
    pub fn sign(&self, mut header: Header, claims: &Value) -> Result<String, Error> {
        header.alg = Algorithm::ES256;
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_der(&self.pkcs8))
            .map_err(signing)
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// Signs `private_key_jwt` assertions with a P-256 PKCS#8 PEM key (ES256).
#[derive(Clone, Copy, Debug, Default)]
pub struct Es256AssertionSigner;

impl AssertionSigner for Es256AssertionSigner {
    fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
        pem: &str,
    ) -> Result<String, Error> {
        let key = Es256Key::from_pem(pem)?;
        let now = now_secs();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": random_token()?,
        });
        key.sign(Header::new(Algorithm::ES256), &claims)
    }
}

/// A DPoP proof (RFC 9449 §4.2) for a `method` request to `url` (query
/// and fragment left out), bound to `access_token` (`ath`) when one is
/// presented, carrying the server's `nonce` when it asked for one.
///
/// # Errors
///
/// Signing failed.
pub fn dpop_proof(
    key: &Es256Key,
    method: &str,
    url: &str,
    access_token: Option<&str>,
    nonce: Option<&str>,
) -> Result<String, Error> {
    let htu = match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            String::from(parsed)
        }
        Err(_) => url.to_owned(),
    };
    let mut claims = json!({
        "jti": random_token()?,
        "htm": method,
        "htu": htu,
        "iat": now_secs(),
    });
    if let Some(object) = claims.as_object_mut() {
        if let Some(token) = access_token {
            let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
            object.insert("ath".into(), Value::String(ath));
        }
        if let Some(nonce) = nonce {
            object.insert("nonce".into(), Value::String(nonce.to_owned()));
        }
    }
    let mut header = Header::new(Algorithm::ES256);
    header.typ = Some("dpop+jwt".to_owned());
    header.jwk = Some(key.jwk());
    key.sign(header, &claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_part(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    // AUTH-58 (sender-constrained tokens, OAuth 2.1 §7): DPoP proofs per RFC 9449.
    #[test]
    fn a_dpop_proof_carries_the_public_key_and_binds_method_url_and_token() {
        let key = Es256Key::generate().unwrap();
        let proof = dpop_proof(
            &key,
            "POST",
            "https://rs.example/mcp?x=1#f",
            Some("tok"),
            Some("n1"),
        )
        .unwrap();
        let parts: Vec<_> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode_part(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private member");
        let claims = decode_part(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs.example/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"tok"))
        );
        let second = dpop_proof(&key, "POST", "https://rs.example/mcp", None, None).unwrap();
        assert_ne!(
            decode_part(second.split('.').nth(1).unwrap())["jti"],
            claims["jti"]
        );
    }

    // AUTH-35: pre-registered credentials authenticating by `private_key_jwt`.
    #[test]
    fn a_client_assertion_names_the_client_and_the_audience() {
        let key = Es256Key::generate().unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(&key.pkcs8)
        );
        let jwt = Es256AssertionSigner
            .client_assertion("client-1", "https://as.example", &pem)
            .unwrap();
        let claims = decode_part(jwt.split('.').nth(1).unwrap());
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://as.example");
        assert!(claims["exp"].as_u64().unwrap() > claims["iat"].as_u64().unwrap());
        assert!(
            Es256Key::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
                .is_err()
        );
    }
}
