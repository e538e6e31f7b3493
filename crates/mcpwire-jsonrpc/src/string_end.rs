//! Finding where a JSON string ends, with its escapes checked, a block of
//! 64 bytes at a time (short strings: a 16-byte lane at a time).
//!
//! Strings carry the bulk of a message (file contents, tool output), and
//! text has an escape every few dozen bytes (line breaks, quotes), so a
//! search that stops at each escape and steps over it spends most of its
//! time on branches. Here a block's quotes, backslashes and control bytes
//! become bit masks (vector compares and movemasks, through `wide`), and
//! when its escapes are simple the block is settled with a few bit
//! operations: the bytes a backslash escapes are the ones after it, so the
//! string ends at the first quote that is not among them. Long runs
//! without escapes (code, data, plain words) are handed to `memchr2`,
//! whose run-time choice of AVX2 reads twice as much per step as the SSE2
//! of the default target this crate is compiled for.

use wide::u8x16;

use crate::scan::{
    BLOCK, LANE, block_lanes, find_control_byte, gather, lane_mask, string_special_lane_bits,
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
    /// The search reached the index it was asked to pause at and stopped
    /// at `at`, outside any escape; `escaped` tells whether the bytes
    /// before it held an escape. [`resume_string_end`] goes on from there.
    Paused { at: usize, escaped: bool },
}

/// How many bytes of a string the lane-at-a-time search reads before
/// going block by block: member names and short values (ids, method
/// names, a sentence of text) end sooner, and for them a block's four
/// masks would cost more than they save.
const LANE_BYTES_BEFORE_BLOCKS: usize = 128;

/// How many clean blocks in a row (no quote, backslash or control byte)
/// make the search hand the rest of the run to `memchr2`. Text with an
/// escape every few dozen bytes rarely has two clean blocks in a row and
/// stays with the blocks, whose masks settle several escapes at once;
/// long escape-free text (code, data, plain words) gets `memchr2`, which
/// picks 32-byte AVX2 compares at run time where this crate is held to
/// the 16-byte SSE2 ones of the default target.
const CLEAN_BLOCKS_BEFORE_MEMCHR: u32 = 2;

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
    /// vector movemask. Most blocks of text hold a quote or a backslash, so
    /// their masks are gathered straight away: a first test for any hit
    /// would mostly find one and only add work. Control bytes are refused,
    /// so they are rare: the block's smallest byte tells whether there is
    /// one, and only then is their mask gathered.
    #[inline]
    fn of(block: &[u8; BLOCK]) -> Option<Self> {
        let lanes = block_lanes(block);
        let backslash = gather(lanes.map(|bytes| bytes.simd_eq(u8x16::splat(b'\\'))));
        let quote = gather(lanes.map(|bytes| bytes.simd_eq(u8x16::splat(b'"'))));
        let smallest = lanes[0].min(lanes[1]).min(lanes[2].min(lanes[3]));
        let control = if smallest.min(u8x16::splat(0x1f)).simd_eq(smallest).any() {
            gather(lanes.map(|bytes| bytes.min(u8x16::splat(0x1f)).simd_eq(bytes)))
        } else {
            0
        };
        (backslash | quote | control != 0).then_some(Self {
            backslash,
            quote,
            control,
        })
    }

    /// Whether the block is the common case of text, which the string
    /// simply goes on past: every escape a single backslash before a quote
    /// or an `n`, all within the block, and no closing quote or control
    /// byte. That case is settled with one branch; the others go to
    /// [`read_simple_block`], which handles every simple block.
    ///
    /// The answer is a branch, not an amount to advance by: the next
    /// block's address then does not wait on this block's masks, and the
    /// processor reads ahead while they are computed.
    #[inline]
    fn is_common(self, block: &[u8; BLOCK]) -> bool {
        let escaped_bytes = self.backslash << 1;
        let newlines = lane_mask(block, |bytes| bytes.simd_eq(u8x16::splat(b'n')));
        let ends = (self.quote & !escaped_bytes) | self.control;
        // An escaped backslash (`\\`) counts as unusual too, which sends
        // runs of backslashes to the careful path.
        let unusual = escaped_bytes & !(self.quote | newlines);
        // A backslash in the last byte escapes a byte of the next block.
        let straddles = self.backslash >> (BLOCK - 1);
        ends | unusual | straddles == 0
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

/// The search without pauses.
#[cfg(test)]
pub(crate) fn find_string_end(bytes: &[u8], from: usize) -> StringEnd {
    find_string_end_pausing(bytes, from, usize::MAX)
}

/// Finds the end of the string body that starts at `from` (just after the
/// opening quote), checking every escape and refusing control bytes; if
/// the string goes on past `pause_at`, the search pauses there (or a
/// block or so further) so that the caller can copy what was read while
/// it is still in cache.
///
/// Short strings are searched sixteen bytes at a time ([`search_lanes`]).
/// Past the first hundred bytes or so the search goes by 64-byte blocks
/// ([`search_blocks`]): a block with hits gets bit masks, read in one go
/// when its escapes are simple and otherwise walked hit by hit, and long
/// clean runs go to `memchr2`.
#[inline(always)]
pub(crate) fn find_string_end_pausing(bytes: &[u8], from: usize, pause_at: usize) -> StringEnd {
    // Most strings of an envelope (member names, versions, method names,
    // ids) end in their first lane without an escape: that case is settled
    // where the search is called, and everything else out of line.
    let hits = string_special_lane_bits(bytes, from);
    if hits != 0 {
        let hit = from + hits.trailing_zeros() as usize;
        if bytes.get(hit) == Some(&b'"') {
            return StringEnd::Closed {
                quote: hit,
                escaped: false,
            };
        }
    }
    find_string_end_slow(bytes, from, pause_at)
}

/// [`find_string_end_pausing`] past its first lane's quick answer.
#[inline(never)]
fn find_string_end_slow(bytes: &[u8], from: usize, pause_at: usize) -> StringEnd {
    let mut escaped = false;
    match search_lanes(
        bytes,
        from,
        &mut escaped,
        from.saturating_add(LANE_BYTES_BEFORE_BLOCKS),
    ) {
        BlockOutcome::Ends(end) => end,
        BlockOutcome::Continues(at) => search_blocks(bytes, at, escaped, pause_at),
    }
}

/// Searches a string two lanes (32 bytes) at a time from `at` until it
/// ends or the search reaches `limit`; `escaped` tells, and is updated
/// with, whether the string held an escape.
///
/// Each lane costs three compares, a minimum and a movemask, against four
/// times that and the mask bookkeeping for a block: short strings, the
/// dozen member names and scalars of an envelope, end in their first lane.
/// The search stops at every escape, which suits short text; prose with an
/// escape every few dozen bytes is read faster by the blocks. Past the end
/// of the text the lane's bits are set ([`string_special_lane_bits`]): the
/// search stops at an index the text does not have, and the string is
/// unterminated.
#[inline(always)]
fn search_lanes(bytes: &[u8], mut at: usize, escaped: &mut bool, limit: usize) -> BlockOutcome {
    while at < limit {
        // Two lanes a step halve the loop's own work; where the first lane
        // reaches past the text, its bits cover the second too.
        let hits = string_special_lane_bits(bytes, at)
            | string_special_lane_bits(bytes, at + LANE) << LANE;
        if hits == 0 {
            at += 2 * LANE;
            continue;
        }
        let hit = at + hits.trailing_zeros() as usize;
        match bytes.get(hit) {
            Some(b'"') => {
                return BlockOutcome::Ends(StringEnd::Closed {
                    quote: hit,
                    escaped: *escaped,
                });
            }
            Some(b'\\') => match escape_length(bytes, hit) {
                Ok(length) => {
                    *escaped = true;
                    at = hit + length;
                }
                Err(end) => return BlockOutcome::Ends(end),
            },
            Some(_) => return BlockOutcome::Ends(StringEnd::Control(hit)),
            None => return BlockOutcome::Ends(StringEnd::Unterminated),
        }
    }
    BlockOutcome::Continues(at)
}

/// Goes on with a search that returned [`StringEnd::Paused`] at `at`.
pub(crate) fn resume_string_end(
    bytes: &[u8],
    at: usize,
    escaped: bool,
    pause_at: usize,
) -> StringEnd {
    search_blocks(bytes, at, escaped, pause_at)
}

/// Goes on with the search from `at` a block at a time; `escaped` tells
/// whether the string held an escape before `at`.
///
/// Blocks start wherever the previous one's last escape ended, so a block
/// never starts inside an escape. Most blocks of text are settled by
/// [`SpecialMasks::is_common`]; runs of clean blocks are handed to
/// `memchr2`, and the rest goes to the slower readers.
fn search_blocks(bytes: &[u8], mut at: usize, mut escaped: bool, pause_at: usize) -> StringEnd {
    let mut clean_blocks = 0;
    // The backslashes of common blocks, gathered here so that the loop
    // needs no test for them.
    let mut common_backslashes = 0u64;
    while at < pause_at
        && let Some(block) = bytes
            .get(at..at + BLOCK)
            .and_then(|block| block.first_chunk::<BLOCK>())
    {
        let Some(masks) = SpecialMasks::of(block) else {
            at += BLOCK;
            clean_blocks += 1;
            if clean_blocks >= CLEAN_BLOCKS_BEFORE_MEMCHR {
                clean_blocks = 0;
                match skip_plain_run(bytes, at, pause_at) {
                    Ok(next) => at = next,
                    Err(control) => return StringEnd::Control(control),
                }
            }
            continue;
        };
        clean_blocks = 0;
        if masks.is_common(block) {
            common_backslashes |= masks.backslash;
            at += BLOCK;
            continue;
        }
        escaped |= common_backslashes != 0;
        let outcome = match read_simple_block(bytes, at, block, masks, &mut escaped) {
            Some(outcome) => outcome,
            None => walk_block(bytes, at, masks.all(), &mut escaped),
        };
        match outcome {
            BlockOutcome::Continues(next) => at = next,
            BlockOutcome::Ends(end) => return end,
        }
    }
    let escaped = escaped || common_backslashes != 0;
    if at >= pause_at {
        return StringEnd::Paused { at, escaped };
    }
    finish_string_tail(bytes, at, escaped)
}

/// How much text `memchr2` searches at a time in a long run, so that the
/// control-byte check after it reads bytes still in the L1 cache: a
/// 64 KiB string does not fit there, and two passes over it from L2 cost
/// a sixth more than two passes piece by piece.
const RUN_PIECE: usize = 16 * 1024;

/// Skips the run of string text from `from` to the next quote or
/// backslash (or the end of the text, or `pause_at`), which is where the
/// block search resumes; fails with the index of the first control byte
/// in the run.
///
/// `memchr2` finds the run's end, and the control bytes it does not look
/// for are checked over the run afterwards, a vector minimum per sixteen
/// bytes: two passes with wide vectors cost less than one with the three
/// tests of the block search on narrow ones.
fn skip_plain_run(bytes: &[u8], from: usize, pause_at: usize) -> Result<usize, usize> {
    let mut at = from;
    while at < pause_at {
        let rest = bytes.get(at..).unwrap_or_default();
        let piece = rest.get(..RUN_PIECE.min(pause_at - at)).unwrap_or(rest);
        let found = memchr::memchr2(b'"', b'\\', piece);
        let run = piece
            .get(..found.unwrap_or(piece.len()))
            .unwrap_or_default();
        if let Some(control) = find_control_byte(run) {
            return Err(at + control);
        }
        at += run.len();
        if found.is_some() || run.len() == rest.len() {
            break;
        }
    }
    Ok(at)
}

/// Finishes a string body in the last bytes of the text, where no whole
/// block is left: a few lanes, the last one padded.
fn finish_string_tail(bytes: &[u8], at: usize, mut escaped: bool) -> StringEnd {
    match search_lanes(bytes, at, &mut escaped, usize::MAX) {
        BlockOutcome::Ends(end) => end,
        // Without a limit the search only stops where the string ends: at
        // the latest, the lane past the end of the text finds its padding.
        BlockOutcome::Continues(_) => StringEnd::Unterminated,
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

    /// Where the search stops reading blocks and hands a clean run to
    /// `memchr2`: after the lane search and the clean blocks before it.
    const MEMCHR_FROM: usize =
        LANE_BYTES_BEFORE_BLOCKS + CLEAN_BLOCKS_BEFORE_MEMCHR as usize * BLOCK;

    /// Text of `length` bytes without string-special bytes, with two- and
    /// three-byte characters so that pieces split characters.
    fn clean_run(length: usize) -> Vec<u8> {
        filler("plain text é – ".as_bytes(), length)
    }

    #[test]
    fn every_piece_around_the_switch_to_memchr_reads_as_byte_by_byte() {
        for pattern in [&b"a"[..], "é – ".as_bytes()] {
            for piece in PIECES {
                for offset in MEMCHR_FROM - 70..MEMCHR_FROM + 140 {
                    // After the piece: dense escapes (back to blocks), a
                    // long clean run (back to memchr2), then the end.
                    let mut text = filler(pattern, offset);
                    text.extend_from_slice(piece);
                    text.extend(filler(b"ab\\\"cd\\n", 150));
                    text.extend(clean_run(400));
                    assert_same_reading(&text, 0);
                    text.push(b'"');
                    assert_same_reading(&text, 0);
                }
            }
        }
    }

    #[test]
    fn every_piece_around_the_memchr_piece_boundaries_reads_as_byte_by_byte() {
        for boundary in [MEMCHR_FROM + RUN_PIECE, MEMCHR_FROM + 2 * RUN_PIECE] {
            for piece in PIECES {
                for offset in boundary - 20..boundary + 20 {
                    let mut text = clean_run(offset);
                    text.extend_from_slice(piece);
                    text.extend(clean_run(300));
                    assert_same_reading(&text, 0);
                    text.push(b'"');
                    assert_same_reading(&text, 0);
                }
            }
        }
    }

    #[test]
    fn a_control_byte_anywhere_in_a_long_clean_run_is_found_first() {
        let length = MEMCHR_FROM + RUN_PIECE + 700;
        let clean = clean_run(length);
        // Every offset up to the switch and around the first piece end;
        // every 31st in between.
        let near = |at: usize| at < MEMCHR_FROM + 300 || at.abs_diff(MEMCHR_FROM + RUN_PIECE) < 300;
        for at in (0..length).filter(|&at| near(at) || at % 31 == 0) {
            let mut text = clean.clone();
            // The character the control byte lands in is cut, which the
            // scan, reading bytes, does not mind.
            text[at] = if at % 3 == 0 { 0x00 } else { 0x1f };
            // A later quote must not end the string first.
            text.extend_from_slice(b"\"}");
            assert_eq!(find_string_end(&text, 0), StringEnd::Control(at), "{at}");
        }
    }

    #[test]
    fn a_string_ending_in_a_long_clean_run_ends_at_its_quote() {
        for length in [
            MEMCHR_FROM,
            RUN_PIECE,
            RUN_PIECE + MEMCHR_FROM,
            3 * RUN_PIECE + 5,
        ] {
            for from in 0..3 {
                let mut text = clean_run(length);
                assert_eq!(find_string_end(&text, from), StringEnd::Unterminated);
                text.extend_from_slice(b"\"\x01");
                let expected = StringEnd::Closed {
                    quote: length,
                    escaped: false,
                };
                assert_eq!(find_string_end(&text, from), expected, "{length} {from}");
            }
        }
    }

    #[test]
    fn pausing_anywhere_and_resuming_reads_as_without_pauses() {
        let pattern = b"Lorem \\\"ipsum\\\" dolor\\n\\\\ \\u00e9";
        // Whole patterns: a cut `\u` escape would end the string early.
        let mut prose = filler(pattern, 22 * pattern.len());
        prose.extend(clean_run(RUN_PIECE + 300));
        prose.extend(filler(b"ab\\ncd", 200));
        for ending in [&b"\""[..], b"\x01", b"\\q", b""] {
            let mut text = prose.clone();
            text.extend_from_slice(ending);
            let expected = find_string_end(&text, 0);
            for step in [1, 7, 63, 64, 65, 1000, RUN_PIECE] {
                let mut end = find_string_end_pausing(&text, 0, step);
                let mut pauses = 0;
                while let StringEnd::Paused { at, escaped } = end {
                    pauses += 1;
                    assert!(pauses <= text.len(), "no progress at {at}");
                    end = resume_string_end(&text, at, escaped, at + step);
                }
                // A pause inside an escape would read differently.
                assert_eq!(end, expected, "step {step}");
                assert!(
                    pauses >= text.len() / (step + 2 * BLOCK),
                    "{pauses} pauses, step {step}"
                );
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
        // Runs long enough to be handed to `memchr2`, now and then.
        let run = (0usize..600).prop_map(|length| b"x".repeat(length));
        let part = prop_oneof![40 => piece.prop_map(<[u8]>::to_vec), 1 => run];
        proptest::collection::vec(part, 0..120).prop_map(|parts| parts.concat())
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
