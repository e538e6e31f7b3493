//! The test PKI of the HTTPS tests (mcpwire-http's and mcpwire-http-legacy's):
//! a CA, a server certificate it signed for `localhost` and `127.0.0.1`, and
//! the server's key, all throwaway and valid from 2000 to 2100; and the
//! rustls server configuration presenting them.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The test CA's certificate (DER, hex): `CN=mcpwire test CA`, valid 2000-2100.
pub const CA_DER: &str = concat!(
    "308201673082010ea00302010202021000300a06082a8648ce3d040302301a3118301606035504030c0f6d63",
    "707769726520746573742043413020170d3030303130313030303030305a180f323130303031303130303030",
    "30305a301a3118301606035504030c0f6d63707769726520746573742043413059301306072a8648ce3d0201",
    "06082a8648ce3d03010703420004dc9506e2763580ac0ea3096797eeb8516ab319a13b4e97dd18964497a902",
    "cf830e5a037ae147a8f4cacced95e5ccb6c2db2f24b4df10575858af08259365e2dda3423040300f0603551d",
    "130101ff040530030101ff300e0603551d0f0101ff040403020204301d0603551d0e04160414484f780d56d8",
    "eaeeb32e199479e79a16439292ea300a06082a8648ce3d04030203470030440220013c021c8c9750d6052ae3",
    "1c676c50b4ac1fc1972df479704f6070cc6ab128bc022008fe790a7bd691c2e2856fc4be87669e923dfef4ac",
    "f0441dd8c4c0652fabdd27",
);

/// The server's certificate (DER, hex), signed by the CA, for `localhost` and `127.0.0.1`.
pub const LEAF_DER: &str = concat!(
    "308201b330820159a00302010202021001300a06082a8648ce3d040302301a3118301606035504030c0f6d63",
    "707769726520746573742043413020170d3030303130313030303030305a180f323130303031303130303030",
    "30305a30143112301006035504030c096c6f63616c686f73743059301306072a8648ce3d020106082a8648ce",
    "3d0301070342000486604ba362bde11b2e54d8c0573ac45579d1340cba656e7e8d4dea44e5dea9ca5e9b411c",
    "e26dc132231aff4381d49fedf3cea2bd86686a27322836170779546da3819230818f301a0603551d11041330",
    "1182096c6f63616c686f737487047f000001300c0603551d130101ff04023000300e0603551d0f0101ff0404",
    "0302078030130603551d25040c300a06082b06010505070301301d0603551d0e04160414f9216bb98ab4e7b4",
    "1542b905a56b108eef0ad8f3301f0603551d23041830168014484f780d56d8eaeeb32e199479e79a16439292",
    "ea300a06082a8648ce3d0403020348003045022100b2eb7a3822a4ea73812572ec6b94e535d7d14503973f50",
    "e9ef9533875085345d022030ef2d6670a1ca03b02781aa1058b98b4e6d3b2415850486c37ff01bdc986a04",
);

/// The server's P-256 private key (PKCS#8 DER, hex). A throwaway key made for this test only.
pub const LEAF_KEY_DER: &str = concat!(
    "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420346242bea1f79f93",
    "d4769ed83e9240841b3f1525a89af234dd3a87fc1d0bb566a1440342000486604ba362bde11b2e54d8c0573a",
    "c45579d1340cba656e7e8d4dea44e5dea9ca5e9b411ce26dc132231aff4381d49fedf3cea2bd86686a273228",
    "36170779546d",
);

/// Bytes from hex text (the constants above; a pair that is not hex
/// becomes 0, which no certificate check then accepts).
pub fn unhex(text: &str) -> Vec<u8> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .unwrap_or(0)
        })
        .collect()
}

/// The test CA's certificate, DER-encoded: the root a client must trust.
pub fn ca_der() -> Vec<u8> {
    unhex(CA_DER)
}

/// A rustls server configuration presenting the server certificate.
///
/// # Panics
///
/// If rustls refuses the constants above, which would be a bug here.
#[allow(
    clippy::expect_used,
    reason = "fixed constants, checked by the HTTPS tests"
)]
pub fn server_config() -> rustls::ServerConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(unhex(LEAF_KEY_DER)));
    let chain = vec![CertificateDer::from(unhex(LEAF_DER))];
    rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring offers the default protocol versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("the test certificate and key match")
}
