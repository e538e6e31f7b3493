//! Opaque pagination cursors for the `*/list` methods (`tools/list`, `resources/list`, ...).
//!
//! The server pages a deterministic, ordered list. A cursor records where the next page starts:
//! a version byte, the offset (8 bytes, big-endian) and a 4-byte checksum of both, written as
//! unpadded base64url (18 characters). Clients must treat it as opaque; the server only has to
//! recognise its own cursors, so anything else (garbage, a truncated or edited cursor, a cursor
//! past the end of the list) is an [`InvalidCursor`], which the server answers with JSON-RPC
//! error -32602 (invalid params) as the pagination rules of the spec ask.
//!
//! The checksum detects corruption, not forgery: anyone can mint a cursor for any offset, which
//! is harmless because a cursor only selects where a page of a public list starts.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::ops::Range;

/// Page size a server uses when it is not configured otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// Bumped whenever the cursor layout changes, so that cursors from another layout are refused.
const VERSION: u8 = 1;

/// Version byte, 8 offset bytes, 4 checksum bytes.
const CURSOR_BYTES: usize = 13;

/// Mixed into the checksum so that other 13-byte strings are unlikely to pass for cursors.
const CHECKSUM_DOMAIN: &[u8] = b"mcpwire pagination cursor";

/// Why a cursor was refused. The server maps every variant to JSON-RPC error -32602.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidCursor {
    /// The text is not unpadded base64url.
    #[error("invalid cursor: not a cursor issued by this server")]
    Malformed,
    /// The text decodes to the wrong number of bytes (for instance a truncated cursor).
    #[error("invalid cursor: wrong length")]
    WrongLength,
    /// The cursor was made by an incompatible version of the server.
    #[error("invalid cursor: unknown cursor version {0}")]
    UnknownVersion(u8),
    /// The checksum does not match the contents: the cursor was altered or corrupted.
    #[error("invalid cursor: checksum mismatch")]
    ChecksumMismatch,
    /// The cursor points at or past the end of the list, which may have shrunk since it was
    /// issued; the client should list again from the start.
    #[error("invalid cursor: offset {offset} is past the end of the list ({len} items)")]
    OutOfRange {
        /// The offset the cursor holds.
        offset: u64,
        /// The current length of the list.
        len: usize,
    },
}

/// One page of a list, chosen by [`Page::of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<'a, T> {
    /// The items of this page.
    pub items: &'a [T],
    /// Where those items sit in the whole list.
    pub range: Range<usize>,
    /// The cursor for the following page; `None` on the last page.
    pub next_cursor: Option<String>,
}

impl<'a, T> Page<'a, T> {
    /// Picks the page of `all` that `cursor` points at (the first page when `None`), holding at
    /// most `page_size` items; a `page_size` of 0 is treated as 1 so that paging always advances.
    pub fn of(all: &'a [T], cursor: Option<&str>, page_size: usize) -> Result<Self, InvalidCursor> {
        let start = match cursor {
            None => 0,
            Some(cursor) => {
                let offset = decode_cursor(cursor)?;
                // Cursors are only issued for offsets inside the list, so one at or past the end
                // was not issued for this list as it is now.
                match usize::try_from(offset) {
                    Ok(start) if start < all.len() => start,
                    _ => {
                        return Err(InvalidCursor::OutOfRange {
                            offset,
                            len: all.len(),
                        });
                    }
                }
            }
        };
        let end = start.saturating_add(page_size.max(1)).min(all.len());
        let next_cursor = (end < all.len()).then(|| encode_cursor(end as u64));
        Ok(Self {
            items: &all[start..end],
            range: start..end,
            next_cursor,
        })
    }
}

/// Encodes an offset as an opaque cursor.
pub fn encode_cursor(offset: u64) -> String {
    let mut bytes = [0_u8; CURSOR_BYTES];
    bytes[0] = VERSION;
    bytes[1..9].copy_from_slice(&offset.to_be_bytes());
    let checksum = checksum(&bytes[..9]);
    bytes[9..].copy_from_slice(&checksum.to_be_bytes());
    base64url_encode(&bytes)
}

/// Decodes a cursor made by [`encode_cursor`] back into its offset.
pub fn decode_cursor(cursor: &str) -> Result<u64, InvalidCursor> {
    let decoded = base64url_decode(cursor).ok_or(InvalidCursor::Malformed)?;
    let bytes: [u8; CURSOR_BYTES] = decoded.try_into().map_err(|_| InvalidCursor::WrongLength)?;
    let [version, offset @ .., c0, c1, c2, c3] = bytes;
    if version != VERSION {
        return Err(InvalidCursor::UnknownVersion(version));
    }
    if checksum(&bytes[..9]) != u32::from_be_bytes([c0, c1, c2, c3]) {
        return Err(InvalidCursor::ChecksumMismatch);
    }
    Ok(u64::from_be_bytes(offset))
}

/// 32-bit FNV-1a over a domain tag and the cursor contents: tiny, and enough to catch
/// accidental corruption.
fn checksum(contents: &[u8]) -> u32 {
    const OFFSET_BASIS: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;
    CHECKSUM_DOMAIN
        .iter()
        .chain(contents)
        .fold(OFFSET_BASIS, |hash, byte| {
            (hash ^ u32::from(*byte)).wrapping_mul(PRIME)
        })
}

fn base64url_encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes unpadded base64url, refusing padding, foreign characters, impossible lengths and
/// non-zero leftover bits (the engine's defaults), so that every byte string has exactly one
/// accepted spelling.
fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc_4648_test_vectors() {
        let vectors: [(&[u8], &str); 7] = [
            (b"", ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
        ];
        for (bytes, text) in vectors {
            assert_eq!(base64url_encode(bytes), text);
            assert_eq!(base64url_decode(text).as_deref(), Some(bytes));
        }
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("-_8"), Some(vec![0xfb, 0xff]));
    }

    #[test]
    fn base64url_decode_refuses_padding_foreign_characters_and_bad_lengths() {
        for text in ["Zg==", "Zm9v!", "Z", "Zm9vY", "Zm+v", "Zm/v", "Zh"] {
            assert_eq!(base64url_decode(text), None, "{text:?}");
        }
    }

    #[test]
    fn checksum_depends_on_every_byte() {
        let base = [VERSION, 0, 0, 0, 0, 0, 0, 0, 7];
        for index in 0..base.len() {
            let mut changed = base;
            changed[index] ^= 1;
            assert_ne!(checksum(&changed), checksum(&base), "byte {index}");
        }
    }
}
