//! The headers a POST reads, found in one pass over the request's headers:
//! a lookup by name hashes the name (a custom one byte by byte), while a
//! request carries only a handful of headers to compare names with.

use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue};

use super::body::content_length;
use super::names::{PROTOCOL_VERSION, SESSION_ID};

/// The first value of each header a POST reads (what `HeaderMap::get`
/// would return), and whether `Accept` came more than once.
#[derive(Debug, Default)]
pub(crate) struct PostHeaders<'a> {
    pub(crate) accept: Option<&'a HeaderValue>,
    /// `Accept` has more values than the first.
    pub(crate) more_accept: bool,
    pub(crate) content_type: Option<&'a HeaderValue>,
    pub(crate) content_length: Option<&'a HeaderValue>,
    pub(crate) session_id: Option<&'a HeaderValue>,
    pub(crate) protocol_version: Option<&'a HeaderValue>,
}

impl<'a> PostHeaders<'a> {
    /// Reads `headers` once. Each name's values come together, the first
    /// one first, in the map's iteration: the first seen is `get`'s.
    pub(crate) fn scan(headers: &'a HeaderMap) -> Self {
        let mut found = Self::default();
        for (name, value) in headers {
            let slot = if name == ACCEPT {
                found.more_accept = found.accept.is_some();
                &mut found.accept
            } else if name == CONTENT_TYPE {
                &mut found.content_type
            } else if name == CONTENT_LENGTH {
                &mut found.content_length
            } else if name == SESSION_ID {
                &mut found.session_id
            } else if name == PROTOCOL_VERSION {
                &mut found.protocol_version
            } else {
                continue;
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        found
    }

    /// The length the `Content-Length` header declares, if any.
    pub(crate) fn declared_length(&self) -> Option<u64> {
        self.content_length.and_then(content_length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_finds_what_lookups_by_name_find() {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("localhost"));
        headers.append(ACCEPT, HeaderValue::from_static("application/json"));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(SESSION_ID, HeaderValue::from_static("abc"));
        headers.append(ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.insert(CONTENT_LENGTH, HeaderValue::from_static("12"));
        headers.append(PROTOCOL_VERSION, HeaderValue::from_static("2025-06-18"));
        headers.append(PROTOCOL_VERSION, HeaderValue::from_static("2025-03-26"));
        let found = PostHeaders::scan(&headers);
        assert_eq!(found.accept, headers.get(ACCEPT));
        assert!(found.more_accept);
        assert_eq!(found.content_type, headers.get(CONTENT_TYPE));
        assert_eq!(found.session_id, headers.get(SESSION_ID));
        assert_eq!(found.protocol_version, headers.get(PROTOCOL_VERSION));
        assert_eq!(found.declared_length(), Some(12));
        let empty = HeaderMap::new();
        let none = PostHeaders::scan(&empty);
        assert!(none.accept.is_none() && !none.more_accept && none.session_id.is_none());
        assert_eq!(none.declared_length(), None);
        for (text, length) in [
            ("0", Some(0)),
            ("007", Some(7)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("9999999999999999999", Some(9_999_999_999_999_999_999)),
            ("+1", Some(1)),
            ("+", None),
            ("1 ", None),
            ("", None),
        ] {
            let mut one = HeaderMap::new();
            one.insert(CONTENT_LENGTH, HeaderValue::from_str(text).unwrap());
            assert_eq!(
                PostHeaders::scan(&one).declared_length(),
                length,
                "{text:?}"
            );
        }
    }

    #[test]
    fn one_accept_value_is_not_more() {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("*/*"));
        let found = PostHeaders::scan(&headers);
        assert!(found.accept.is_some() && !found.more_accept);
    }
}
