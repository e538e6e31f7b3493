//! Finding where a JSON string ends, with its escapes checked, a block of
//! 64 bytes at a time.
//!
//! Strings carry the bulk of a message (file contents, tool output), and
//! text has an escape every few dozen bytes (line breaks, quotes), so a
//! search that stops at each escape and steps over it spends most of its
//! time on branches. Here a block's quotes, backslashes and control bytes
//! become bit masks (vector compares and movemasks, through `wide`), and
//! when its escapes are simple the block is settled with a few bit
//! operations: the bytes a backslash escapes are the ones after it, so the
//! string ends at the first quote that is not among them.

use wide::u8x16;

use crate::scan::{
    BLOCK, block_lanes, find_string_special, gather, lane_mask, string_special_bits,
};

/// For each byte after a backslash, the length of the escape it starts:
/// 2 for the one-character escapes, 6 for `\u` with its four hex digits,
/// and 0 for a byte that may not follow a backslash.
const ESCAPE_LENGTH: [u8; 256] = {
    let mut table = [0u8; 256];
    let singles = b"\"\\/bfnrt";
    let mut index = 0;
    while index < singles.len() {
        table[singles[index] as usize] = 2;
        index += 1;
    }
    table[b'u' as usize] = 6;
    table
};

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
}

/// How many escape-free bytes of a string the word-at-a-time search reads
/// before going block by block: member names and short values end sooner,
/// and for them a whole-block mask would cost more than it saves.
const WORD_BYTES_BEFORE_BLOCKS: usize = 32;

/// The length of the escape whose backslash is at `at`, with its digits
/// checked, or why it is not one.
#[inline]
fn escape_length(bytes: &[u8], at: usize) -> Result<usize, StringEnd> {
    let next = bytes.get(at + 1).copied().unwrap_or_default();
    match ESCAPE_LENGTH[usize::from(next)] {
        2 => Ok(2),
        6 => {
            let digits = bytes.get(at + 2..at + 6).unwrap_or_default();
            if digits.len() == 4 && digits.iter().all(u8::is_ascii_hexdigit) {
                Ok(6)
            } else {
                Err(StringEnd::BadUnicodeEscape(at))
            }
        }
        _ => Err(StringEnd::BadEscape(at)),
    }
}

/// The string-special bytes of one block as bit masks (bit `i` for
/// `block[i]`): backslashes, quotes and control bytes.
#[derive(Clone, Copy)]
struct SpecialMasks {
    backslash: u64,
    quote: u64,
    control: u64,
}

impl SpecialMasks {
    /// The masks of `block`, or `None` when it holds no string-special byte.
    ///
    /// Sixteen bytes are compared at a time and gathered into bits with a
    /// vector movemask. Control bytes are refused, so they are rare: the
    /// block's smallest byte tells whether there is one, and only then is
    /// their mask gathered.
    #[inline]
    fn of(block: &[u8; BLOCK]) -> Option<Self> {
        let lanes = block_lanes(block);
        let backslashes = lanes.map(|bytes| bytes.simd_eq(u8x16::splat(b'\\')));
        let quotes = lanes.map(|bytes| bytes.simd_eq(u8x16::splat(b'"')));
        let smallest = lanes[0].min(lanes[1]).min(lanes[2].min(lanes[3]));
        let has_control = smallest.min(u8x16::splat(0x1f)).simd_eq(smallest);
        let any = backslashes[0]
            | backslashes[1]
            | backslashes[2]
            | backslashes[3]
            | quotes[0]
            | quotes[1]
            | quotes[2]
            | quotes[3]
            | has_control;
        if !any.any() {
            return None;
        }
        let control = if has_control.any() {
            gather(lanes.map(|bytes| bytes.min(u8x16::splat(0x1f)).simd_eq(bytes)))
        } else {
            0
        };
        Some(Self {
            backslash: gather(backslashes),
            quote: gather(quotes),
            control,
        })
    }

    /// Every string-special byte.
    fn all(self) -> u64 {
        self.backslash | self.quote | self.control
    }
}

/// What one block tells about the string it is part of.
enum BlockOutcome {
    /// The string goes on at this index.
    Continues(usize),
    /// The string ends (or fails) here.
    Ends(StringEnd),
}

/// Reads a block with string-special bytes in one go when its escapes are
/// simple: no two backslashes in a row, each escape a known one. Escaped
/// bytes are then exactly the ones after a backslash, so the string ends at
/// the first quote not among them (or fails at the first control byte).
/// `None` asks for the hit-by-hit walk, which handles everything else.
#[inline]
fn read_simple_block(
    bytes: &[u8],
    at: usize,
    block: &[u8; BLOCK],
    masks: SpecialMasks,
    escaped: &mut bool,
) -> Option<BlockOutcome> {
    let backslash = masks.backslash;
    let escaped_bytes = backslash << 1;
    if backslash & escaped_bytes != 0 {
        return None;
    }
    let ends = (masks.quote & !escaped_bytes) | masks.control;
    // A backslash in the last byte escapes a byte of the next block, so
    // that block starts on the backslash instead.
    let (limit, next) = if ends != 0 {
        (ends.trailing_zeros(), at + BLOCK)
    } else if backslash >> (BLOCK - 1) != 0 {
        (BLOCK as u32 - 1, at + BLOCK - 1)
    } else {
        (BLOCK as u32, at + BLOCK)
    };
    let below_limit = u64::MAX.checked_shl(limit).map_or(u64::MAX, |above| !above);
    let escapes = backslash & below_limit;
    *escaped |= escapes != 0;
    // What follows a backslash is most often a quote or an `n`, whose masks
    // cost a few vector operations; checking every escape one by one would
    // cost a hard-to-predict loop per block.
    let newlines = lane_mask(block, |bytes| bytes.simd_eq(u8x16::splat(b'n')));
    let mut unusual = (escapes << 1) & !(masks.quote | newlines);
    while unusual != 0 {
        let backslash_at = at + unusual.trailing_zeros() as usize - 1;
        if escape_length(bytes, backslash_at).is_err() {
            return None;
        }
        unusual &= unusual - 1;
    }
    if ends == 0 {
        return Some(BlockOutcome::Continues(next));
    }
    let end = at + limit as usize;
    Some(BlockOutcome::Ends(match block.get(limit as usize) {
        Some(b'"') => StringEnd::Closed {
            quote: end,
            escaped: *escaped,
        },
        _ => StringEnd::Control(end),
    }))
}

/// Walks the string-special bytes of a block one by one, from its start,
/// which is never inside an escape.
fn walk_block(bytes: &[u8], at: usize, mut mask: u64, escaped: &mut bool) -> BlockOutcome {
    while mask != 0 {
        let index = mask.trailing_zeros() as usize;
        let hit = at + index;
        match bytes.get(hit) {
            Some(b'"') => {
                return BlockOutcome::Ends(StringEnd::Closed {
                    quote: hit,
                    escaped: *escaped,
                });
            }
            Some(b'\\') => {
                let length = match escape_length(bytes, hit) {
                    Ok(length) => length,
                    Err(end) => return BlockOutcome::Ends(end),
                };
                *escaped = true;
                let consumed = index + length;
                if consumed >= BLOCK {
                    return BlockOutcome::Continues(hit + length);
                }
                // Drop this escape's bits: the bytes it consumed are text.
                mask &= u64::MAX << consumed;
            }
            _ => return BlockOutcome::Ends(StringEnd::Control(hit)),
        }
    }
    BlockOutcome::Continues(at + BLOCK)
}

/// Finds the end of the string body that starts at `from` (just after the
/// opening quote), checking every escape and refusing control bytes.
///
/// Short strings are searched a word at a time. Past the first few dozen
/// bytes the search goes by 64-byte blocks: a clean block is skipped after
/// one branch-free test, and a block with hits gets a bit mask that is
/// walked hit by hit, an escape clearing the bits of the bytes it consumes.
pub(crate) fn find_string_end(bytes: &[u8], from: usize) -> StringEnd {
    let mut at = from;
    let mut escaped = false;
    // The word search: until the string ends or proves long.
    while at < from + WORD_BYTES_BEFORE_BLOCKS {
        let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|word| word.first_chunk::<8>())
        else {
            return finish_string_tail(bytes, at, escaped);
        };
        let hits = string_special_bits(u64::from_le_bytes(*word));
        if hits == 0 {
            at += 8;
            continue;
        }
        // The bit index of a byte's high bit, divided by eight, is the byte's index.
        let hit = at + (hits.trailing_zeros() / 8) as usize;
        match bytes.get(hit) {
            Some(b'"') => {
                return StringEnd::Closed {
                    quote: hit,
                    escaped,
                };
            }
            Some(b'\\') => match escape_length(bytes, hit) {
                Ok(length) => {
                    escaped = true;
                    at = hit + length;
                }
                Err(end) => return end,
            },
            _ => return StringEnd::Control(hit),
        }
    }
    // The block search. Blocks start wherever the previous one's last
    // escape ended, so a block never starts inside an escape.
    while let Some(block) = bytes
        .get(at..at + BLOCK)
        .and_then(|block| block.first_chunk::<BLOCK>())
    {
        let Some(masks) = SpecialMasks::of(block) else {
            at += BLOCK;
            continue;
        };
        let outcome = match read_simple_block(bytes, at, block, masks, &mut escaped) {
            Some(outcome) => outcome,
            None => walk_block(bytes, at, masks.all(), &mut escaped),
        };
        match outcome {
            BlockOutcome::Continues(next) => at = next,
            BlockOutcome::Ends(end) => return end,
        }
    }
    finish_string_tail(bytes, at, escaped)
}

/// Finishes a string body in the last bytes of the text, where no whole
/// word or block is left.
fn finish_string_tail(bytes: &[u8], mut at: usize, mut escaped: bool) -> StringEnd {
    loop {
        at = find_string_special(bytes, at);
        match bytes.get(at) {
            Some(b'"') => return StringEnd::Closed { quote: at, escaped },
            Some(b'\\') => match escape_length(bytes, at) {
                Ok(length) => {
                    escaped = true;
                    at += length;
                }
                Err(end) => return end,
            },
            Some(_) => return StringEnd::Control(at),
            None => return StringEnd::Unterminated,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The same reading, byte by byte: what the block search must agree
    /// with everywhere.
    fn byte_by_byte(bytes: &[u8], from: usize) -> StringEnd {
        let mut at = from;
        let mut escaped = false;
        loop {
            match bytes.get(at) {
                None => return StringEnd::Unterminated,
                Some(b'"') => return StringEnd::Closed { quote: at, escaped },
                Some(b'\\') => {
                    escaped = true;
                    match bytes.get(at + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                        Some(b'u') => {
                            let digits = bytes.get(at + 2..at + 6);
                            if digits.is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
                            {
                                at += 6;
                            } else {
                                return StringEnd::BadUnicodeEscape(at);
                            }
                        }
                        _ => return StringEnd::BadEscape(at),
                    }
                }
                Some(&byte) if byte < 0x20 => return StringEnd::Control(at),
                Some(_) => at += 1,
            }
        }
    }

    /// Escapes, runs of escaped backslashes, the end quote and every kind
    /// of error, each of which must be read the same at every offset.
    const PIECES: [&[u8]; 16] = [
        b"\\\"",
        b"\\\\",
        b"\\\\\\\\",
        b"\\\\\\\\\\\\\\\"",
        b"\\n",
        b"\\/\\b\\f\\r\\t",
        b"\\u00e9",
        b"\\uD83D\\uDE00",
        b"\"",
        b"\x01",
        b"\x1f",
        b"\x00",
        b"\\q",
        b"\\u12G4",
        b"\\u12",
        b"\\",
    ];

    /// Text around the piece: plain, and prose with an escape every few
    /// bytes (so that blocks take the mask path, not the clean one).
    const FILLERS: [&[u8]; 3] = [b"a", b"Lorem \\\"ipsum\\\" dolor\\n", b"\xc3\xa9t\\u00e9 "];

    fn filler(pattern: &[u8], length: usize) -> Vec<u8> {
        pattern.iter().copied().cycle().take(length).collect()
    }

    fn assert_same_reading(text: &[u8], from: usize) {
        assert_eq!(
            find_string_end(text, from),
            byte_by_byte(text, from),
            "{:?} from {from}",
            String::from_utf8_lossy(text)
        );
    }

    #[test]
    fn every_piece_at_every_offset_reads_as_byte_by_byte() {
        for pattern in FILLERS {
            for piece in PIECES {
                // Offsets cover the word search, the first blocks, and an
                // escape straddling each of the first block boundaries.
                for offset in 0..200 {
                    for tail in [0, 1, 5, 63, 64, 130] {
                        // A filler pattern cut in the middle of an escape
                        // would be a different test: end the prefix on a
                        // byte that is not a backslash.
                        let mut text = filler(pattern, offset);
                        if text.last() == Some(&b'\\') {
                            text.pop();
                        }
                        text.extend_from_slice(piece);
                        text.extend(filler(b"x", tail));
                        assert_same_reading(&text, 0);
                        text.push(b'"');
                        text.extend_from_slice(b",\"more\":1}");
                        assert_same_reading(&text, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn every_start_within_a_message_reads_as_byte_by_byte() {
        let mut text = filler(b"Lorem \\\"ipsum\\\" dolor\\n\\\\ \\u00e9", 500);
        text.extend_from_slice(b"\"}");
        for from in 0..text.len() {
            if text.get(from.wrapping_sub(1)) != Some(&b'\\') {
                assert_same_reading(&text, from);
            }
        }
    }

    #[test]
    fn a_quote_or_control_byte_at_each_block_offset_ends_the_scan_there() {
        for length in [64, 65, 127, 128, 200, 300] {
            for at in 0..length {
                for special in [b'"', 0x00, 0x0a, 0x1f] {
                    let mut text = filler(b"a", length);
                    text[at] = special;
                    let expected = if special == b'"' {
                        StringEnd::Closed {
                            quote: at,
                            escaped: false,
                        }
                    } else {
                        StringEnd::Control(at)
                    };
                    assert_eq!(find_string_end(&text, 0), expected, "{length} {at}");
                }
            }
        }
    }

    /// Pieces of string text, the ones that end or break a string rare
    /// enough that most strings run over several blocks.
    fn string_pieces() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            40 => Just(&b"a"[..]),
            8 => Just(&b"lorem ipsum "[..]),
            6 => Just(&b"\\\""[..]),
            6 => Just(&b"\\n"[..]),
            3 => Just(&b"\\\\"[..]),
            2 => Just(&b"\\u00e9"[..]),
            2 => Just(&b"\\t\\/"[..]),
            2 => Just(&b"\xc3\xa9"[..]),
            1 => Just(&b"\""[..]),
            1 => Just(&b"\x01"[..]),
            1 => Just(&b"\\x"[..]),
            1 => Just(&b"\\u0g00"[..]),
        ];
        proptest::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn random_strings_read_as_byte_by_byte(text in string_pieces(), from in 0usize..8) {
            let from = from.min(text.len());
            prop_assert_eq!(find_string_end(&text, from), byte_by_byte(&text, from));
        }

        #[test]
        fn random_bytes_read_as_byte_by_byte(
            text in proptest::collection::vec(
                prop::sample::select(b"aZ \"\\\\nnu0Fg/\x01\x1f\xc3\xa9".to_vec()),
                0..400,
            ),
            from in 0usize..8,
        ) {
            let from = from.min(text.len());
            prop_assert_eq!(find_string_end(&text, from), byte_by_byte(&text, from));
        }
    }
}
