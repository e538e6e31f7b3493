//! Which URLs point inside the machine or its network: the rules the OAuth
//! client and the embedded authorization server share for what they fetch
//! (server-side request forgery).

#[cfg(feature = "authorization-server")]
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// Whether `url` names a loopback host (`localhost`, `*.localhost`,
/// 127.0.0.0/8, `::1`, `::ffff:127.0.0.1`).
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(domain)) => {
            let domain = domain.trim_end_matches('.').to_ascii_lowercase();
            domain == "localhost" || domain.ends_with(".localhost")
        }
        Some(Host::Ipv4(address)) => address.is_loopback(),
        Some(Host::Ipv6(address)) => address.to_canonical().is_loopback(),
        None => false,
    }
}

#[cfg(feature = "authorization-server")]
/// Whether `url`'s host is an IP literal of the machine or of a private,
/// link-local (cloud metadata services), shared, reserved or multicast
/// range, or a loopback name: an address a fetch made on a caller's behalf
/// must not reach. Names are not resolved here; a fetcher that resolves
/// them applies its own check to the addresses it connects to.
pub(crate) fn is_internal(url: &Url) -> bool {
    if is_loopback(url) {
        return true;
    }
    match url.host() {
        Some(Host::Ipv4(address)) => is_internal_ip(IpAddr::V4(address)),
        Some(Host::Ipv6(address)) => is_internal_ip(IpAddr::V6(address)),
        Some(Host::Domain(_)) => false,
        None => true,
    }
}

#[cfg(feature = "authorization-server")]
/// Whether `address` is not a public unicast address.
pub(crate) fn is_internal_ip(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => match v6.to_canonical() {
            IpAddr::V4(v4) => internal_v4(v4),
            IpAddr::V6(v6) => internal_v6(v6),
        },
    }
}

#[cfg(feature = "authorization-server")]
fn internal_v4(address: Ipv4Addr) -> bool {
    let [a, b, ..] = address.octets();
    address.is_unspecified()
        || address.is_loopback()
        || address.is_private()
        || address.is_link_local()
        || address.is_broadcast()
        || address.is_documentation()
        || address.is_multicast()
        // 100.64.0.0/10 (carrier-grade NAT), 192.0.0.0/24 (protocol
        // assignments), 198.18.0.0/15 (benchmarking), 240.0.0.0/4 (reserved).
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && address.octets()[2] == 0)
        || (a == 198 && (18..20).contains(&b))
        || a >= 240
        || a == 0
}

#[cfg(feature = "authorization-server")]
fn internal_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    address.is_unspecified()
        || address.is_loopback()
        || address.is_multicast()
        // fc00::/7 (unique local), fe80::/10 (link-local), 2001:db8::/32
        // (documentation), 64:ff9b::/96 (NAT64, may map internal IPv4).
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first == 0x2001 && address.segments()[1] == 0x0db8)
        || (first == 0x0064 && address.segments()[1] == 0xff9b)
}

#[cfg(all(test, feature = "authorization-server"))]
mod tests {
    use super::*;

    // AUTH-71: the SSRF guard of client metadata document fetches.
    #[test]
    fn internal_literals_and_loopback_names_are_internal_public_ones_not() {
        for internal in [
            "https://127.0.0.1/c.json",
            "https://127.1.2.3/c.json",
            "https://10.0.0.1/c.json",
            "https://172.16.5.4/c.json",
            "https://192.168.1.1/c.json",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/c.json",
            "https://0.0.0.0/c.json",
            "https://[::1]/c.json",
            "https://[::]/c.json",
            "https://[::ffff:10.0.0.1]/c.json",
            "https://[fd00::1]/c.json",
            "https://[fe80::1]/c.json",
            "https://localhost/c.json",
            "https://api.localhost./c.json",
        ] {
            assert!(is_internal(&Url::parse(internal).unwrap()), "{internal}");
        }
        for public in [
            "https://app.example/c.json",
            "https://8.8.8.8/c.json",
            "https://[2606:4700::1111]/c.json",
        ] {
            assert!(!is_internal(&Url::parse(public).unwrap()), "{public}");
        }
    }
}
