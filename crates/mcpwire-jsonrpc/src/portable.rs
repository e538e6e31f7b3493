//! The JSON engine's portable stand-ins, used when the `fast-json` feature
//! is off: byte searches, the UTF-8 check and the string-end search a byte
//! at a time on `core` alone, and the writer handed to `serde_json`. Same
//! answers as the vectorized engine (its tests compare the two), fewer
//! dependencies, slower on long text.

/// The index of the first `needle` in `haystack`.
pub(crate) fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    haystack.iter().position(|&byte| byte == needle)
}

/// Whether `bytes` contains `\n` or `\r`.
pub(crate) fn has_line_break(bytes: &[u8]) -> bool {
    bytes.iter().any(|&byte| byte == b'\n' || byte == b'\r')
}

/// `bytes` as text, or the length of its longest valid UTF-8 prefix.
pub(crate) fn checked_text(bytes: &[u8]) -> Result<&str, usize> {
    core::str::from_utf8(bytes).map_err(|error| error.valid_up_to())
}

/// How the body of a JSON string (the text after its opening quote) ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StringEnd {
    /// The closing quote is at `quote`; `escaped` tells whether the body
    /// held an escape.
    Closed { quote: usize, escaped: bool },
    /// The backslash at this index starts an escape JSON does not have.
    BadEscape(usize),
    /// The `\u` escape at this index lacks its four hex digits.
    BadUnicodeEscape(usize),
    /// An unescaped control byte at this index.
    Control(usize),
    /// The text ends before the closing quote.
    Unterminated,
    /// Never returned here (the search does not pause); kept so that the
    /// parser reads the same with either engine.
    #[allow(
        dead_code,
        reason = "the vectorized engine pauses; this one never does"
    )]
    Paused { at: usize, escaped: bool },
}

/// Finds the end of the string body that starts at `from` (just after the
/// opening quote), checking every escape and refusing control bytes. The
/// search never pauses: `pause_at` only matters to the vectorized engine.
pub(crate) fn find_string_end_pausing(bytes: &[u8], from: usize, pause_at: usize) -> StringEnd {
    resume_string_end(bytes, from, false, pause_at)
}

/// Goes on with a search from `at`; `escaped` tells whether the string
/// held an escape before `at`.
pub(crate) fn resume_string_end(
    bytes: &[u8],
    mut at: usize,
    mut escaped: bool,
    _pause_at: usize,
) -> StringEnd {
    loop {
        match bytes.get(at) {
            None => return StringEnd::Unterminated,
            Some(b'"') => return StringEnd::Closed { quote: at, escaped },
            Some(b'\\') => {
                match bytes.get(at + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                    Some(b'u') => {
                        let digits = bytes.get(at + 2..at + 6).unwrap_or_default();
                        if digits.len() == 4 && digits.iter().all(u8::is_ascii_hexdigit) {
                            at += 6;
                        } else {
                            return StringEnd::BadUnicodeEscape(at);
                        }
                    }
                    _ => return StringEnd::BadEscape(at),
                }
                escaped = true;
            }
            Some(&byte) if byte < 0x20 => return StringEnd::Control(at),
            Some(_) => at += 1,
        }
    }
}

/// `value` as compact JSON: `serde_json::to_vec`.
///
/// # Errors
///
/// As `serde_json::to_vec`.
pub fn to_json_vec<T: serde::Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(value)
}

/// `value` as compact JSON text: `serde_json::to_string`.
///
/// # Errors
///
/// As [`to_json_vec`].
pub fn to_json_string<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<String, serde_json::Error> {
    serde_json::to_string(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_ends_escapes_and_control_bytes_are_found() {
        assert_eq!(
            find_string_end_pausing(br#"abc" tail"#, 0, usize::MAX),
            StringEnd::Closed {
                quote: 3,
                escaped: false
            }
        );
        assert_eq!(
            find_string_end_pausing(br#"a\"b\u00e9" "#, 0, usize::MAX),
            StringEnd::Closed {
                quote: 10,
                escaped: true
            }
        );
        assert_eq!(
            find_string_end_pausing(br#"a\x""#, 0, 9),
            StringEnd::BadEscape(1)
        );
        assert_eq!(
            find_string_end_pausing(br#"a\u12""#, 0, 9),
            StringEnd::BadUnicodeEscape(1)
        );
        assert_eq!(
            find_string_end_pausing(b"a\nb\"", 0, 9),
            StringEnd::Control(1)
        );
        assert_eq!(
            find_string_end_pausing(b"abc", 0, 9),
            StringEnd::Unterminated
        );
    }

    #[test]
    fn searches_and_text_checks_answer_like_core() {
        assert_eq!(find_byte(b"ab\ncd", b'\n'), Some(2));
        assert!(has_line_break(b"a\rb"));
        assert!(!has_line_break(b"ab"));
        assert_eq!(checked_text(b"ok"), Ok("ok"));
        assert_eq!(checked_text(b"ok\xff"), Err(2));
        assert_eq!(to_json_string(&["a", "b"]).unwrap(), r#"["a","b"]"#);
    }
}
