//! Fast byte searches over large buffers, written so the compiler vectorizes them.
//!
//! Lines and payloads can be megabytes long, and the standard library's
//! byte-at-a-time `position` would dominate the cost of framing them. Plain
//! byte searches (a line's end, line breaks in a payload) go to `memchr`,
//! which picks AVX2 at run time; the others look at a fixed-size block
//! without branching inside it, which the compiler turns into vector
//! compares, and only then narrow down within the block that matched. Where a block's matches are needed as a
//! bit mask, the compares and the movemask come from `wide`, safe SIMD that
//! works where the compiler cannot (this crate may not use `core::arch`).

use wide::u8x16;

/// Bytes examined per step; a multiple of every common vector width.
pub(crate) const BLOCK: usize = 64;

/// The index of the first `needle` in `haystack`.
///
/// `memchr` picks AVX2 at run time and ends without a byte-by-byte tail:
/// for a line of a few hundred bytes it costs about a third of the
/// instructions of a block search compiled for the default target.
pub(crate) fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    memchr::memchr(needle, haystack)
}

/// Whether `bytes` contains `\n` or `\r`: `memchr2` picks AVX2 at run
/// time, where a block scan is limited to what the build targets.
pub(crate) fn has_line_break(bytes: &[u8]) -> bool {
    memchr::memchr2(b'\n', b'\r', bytes).is_some()
}

/// How many clean words in a row make the string search go block by
/// block: prose has an escape every few dozen bytes, and a block search
/// that stops early costs more than the words it would have saved.
const CLEAN_WORDS_BEFORE_BLOCKS: u32 = 4;

/// `0x01` in every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Whether `byte` ends the plain run of a JSON string: a quote, a backslash
/// or a control character (which JSON refuses unescaped).
fn is_string_special(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// For the eight bytes of `word` (first byte lowest), a word whose lowest set
/// bit is the high bit of the first string-special byte, or 0 when there is
/// none.
///
/// This is the classic test for a zero byte, `(x - 0x01..) & !x & 0x80..`,
/// applied to `x ^ '"'` and `x ^ '\'`, with `(x - 0x20..) & !x` for control
/// bytes. A borrow can set bits above a true hit but never below one, so the
/// lowest set bit is exact, which is all the caller uses.
pub(crate) fn string_special_bits(word: u64) -> u64 {
    let control = word.wrapping_sub(LOW_BITS * 0x20) & !word;
    let quote = word ^ (LOW_BITS * u64::from(b'"'));
    let quote = quote.wrapping_sub(LOW_BITS) & !quote;
    let backslash = word ^ (LOW_BITS * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(LOW_BITS) & !backslash;
    (control | quote | backslash) & HIGH_BITS
}

/// The index of the first `"`, `\` or control byte at or after `from`, or
/// `bytes.len()` when there is none.
///
/// Escapes in text come every few dozen bytes, so the search goes a word
/// (eight bytes) at a time; after a few clean words in a row it switches to
/// whole blocks, which is what long runs of plain text need.
#[inline]
pub(crate) fn find_string_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    let mut clean_words = 0u32;
    loop {
        if clean_words >= CLEAN_WORDS_BEFORE_BLOCKS {
            while let Some(block) = bytes
                .get(at..at + BLOCK)
                .and_then(|block| block.first_chunk::<BLOCK>())
            {
                if block_has_string_special(block) {
                    break;
                }
                at += BLOCK;
            }
            clean_words = 0;
        }
        let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|word| word.first_chunk::<8>())
        else {
            let rest = bytes.get(at..).unwrap_or_default();
            return rest
                .iter()
                .position(|&byte| is_string_special(byte))
                .map_or(bytes.len(), |offset| at + offset);
        };
        let hits = string_special_bits(u64::from_le_bytes(*word));
        if hits != 0 {
            // The bit index of a byte's high bit, divided by eight, is the byte's index.
            return at + (hits.trailing_zeros() / 8) as usize;
        }
        at += 8;
        clean_words += 1;
    }
}

/// Bytes in one lane: the width of an SSE2 vector, which the default
/// target always has.
pub(crate) const LANE: usize = 16;

/// For the sixteen bytes of `bytes` from `at`, bit `i` set when byte
/// `at + i` is a quote, a backslash or a control byte, or lies past the
/// end of `bytes`: a string search that stops there finds no byte at that
/// index, so the text ended.
///
/// A lane is three compares, a minimum and one movemask. Near the end of
/// the text, the last sixteen bytes are read instead and the bits shifted
/// into place, so that the last string of a message (often followed by
/// only a few closing brackets) costs one more shift, not a copy.
#[inline(always)]
pub(crate) fn string_special_lane_bits(bytes: &[u8], at: usize) -> u32 {
    if let Some(lane) = bytes
        .get(at..at.saturating_add(LANE))
        .and_then(|lane| lane.first_chunk::<LANE>())
    {
        return string_special_lane(u8x16::new(*lane));
    }
    tail_lane_bits(bytes, at)
}

/// [`string_special_lane_bits`] where fewer than sixteen bytes are left.
fn tail_lane_bits(bytes: &[u8], at: usize) -> u32 {
    let left = bytes.len().saturating_sub(at);
    // Every bit from `left` up: those bytes are past the end.
    let past_end = u32::MAX.checked_shl(left as u32).unwrap_or(0);
    let window_start = bytes.len().saturating_sub(LANE);
    let window = bytes
        .get(window_start..)
        .and_then(|window| window.first_chunk::<LANE>());
    let found = match window {
        // The window ends where the text does; the lane's first byte is
        // `at - window_start` bytes into it.
        Some(window) => string_special_lane(u8x16::new(*window))
            .checked_shr((at - window_start) as u32)
            .unwrap_or(0),
        // A text shorter than a lane: byte by byte.
        None => bytes
            .get(at..)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, byte)| is_string_special(**byte))
            .fold(0, |bits, (index, _)| bits | 1 << index),
    };
    found | past_end
}

/// Bit `i` set when byte `i` of `lane` is string-special.
#[inline(always)]
fn string_special_lane(lane: u8x16) -> u32 {
    is_string_special_lane(lane).to_bitmask()
}

/// A mask with bit `i` set when `test` marks byte `i` of `block`: `test`
/// compares sixteen bytes at a time, and a vector movemask gathers the
/// results into bits (through `wide`, since this crate may not use
/// `core::arch` itself).
#[inline(always)]
pub(crate) fn lane_mask(block: &[u8; BLOCK], test: impl Fn(u8x16) -> u8x16) -> u64 {
    let mut mask = 0u64;
    for (index, sixteen) in block.chunks_exact(16).enumerate() {
        let mut array = [0u8; 16];
        array.copy_from_slice(sixteen);
        mask |= u64::from(test(u8x16::new(array)).to_bitmask()) << (index * 16);
    }
    mask
}

/// Whether `test` marks any byte of `block`: one movemask for the block.
#[inline(always)]
fn lanes_any(block: &[u8; BLOCK], test: impl Fn(u8x16) -> u8x16) -> bool {
    let mut any = u8x16::ZERO;
    for sixteen in block.chunks_exact(16) {
        let mut array = [0u8; 16];
        array.copy_from_slice(sixteen);
        any |= test(u8x16::new(array));
    }
    any.any()
}

/// All ones in the lanes of `bytes` that hold a string-special byte.
#[inline(always)]
fn is_string_special_lane(bytes: u8x16) -> u8x16 {
    let control = bytes.min(u8x16::splat(0x1f)).simd_eq(bytes);
    bytes.simd_eq(u8x16::splat(b'"')) | bytes.simd_eq(u8x16::splat(b'\\')) | control
}

/// Whether `block` holds a string-special byte.
#[inline]
fn block_has_string_special(block: &[u8; BLOCK]) -> bool {
    lanes_any(block, is_string_special_lane)
}

/// Bytes whose smallest value is taken before it is tested: the test and
/// its movemask cost as much as four vector minimums, so they are paid
/// once per four blocks.
const CONTROL_CHUNK: usize = 4 * BLOCK;

/// The index of the first control byte (below 0x20) in `bytes`.
///
/// Used on runs of string text already known to hold no quote or
/// backslash, where control bytes (which JSON refuses unescaped) are
/// almost never found: a chunk's bytes are folded into their smallest
/// value, one vector minimum per sixteen bytes, and only a chunk whose
/// smallest byte is a control byte is searched byte by byte.
pub(crate) fn find_control_byte(bytes: &[u8]) -> Option<usize> {
    let is_control = |byte: &u8| *byte < 0x20;
    let mut chunks = bytes.chunks_exact(CONTROL_CHUNK);
    let mut offset = 0;
    for chunk in &mut chunks {
        if chunk_smallest_is_control(chunk) {
            return chunk.iter().position(is_control).map(|at| offset + at);
        }
        offset += CONTROL_CHUNK;
    }
    chunks
        .remainder()
        .iter()
        .position(is_control)
        .map(|at| offset + at)
}

/// Whether the smallest byte of `chunk` is below 0x20, with four running
/// minimums so that consecutive vector operations do not wait on each other.
#[inline]
fn chunk_smallest_is_control(chunk: &[u8]) -> bool {
    let mut smallest = [u8x16::splat(u8::MAX); 4];
    for lanes in chunk.chunks_exact(BLOCK) {
        let Some(block) = lanes.first_chunk::<BLOCK>() else {
            continue;
        };
        for (running, lane) in smallest.iter_mut().zip(block_lanes(block)) {
            *running = running.min(lane);
        }
    }
    let [first, second, third, fourth] = smallest;
    let least = first.min(second).min(third.min(fourth));
    least.min(u8x16::splat(0x1f)).simd_eq(least).any()
}

/// The four sixteen-byte vectors of `block`.
#[inline(always)]
pub(crate) fn block_lanes(block: &[u8; BLOCK]) -> [u8x16; 4] {
    let mut lanes = [u8x16::ZERO; 4];
    for (lane, sixteen) in lanes.iter_mut().zip(block.chunks_exact(16)) {
        let mut array = [0u8; 16];
        array.copy_from_slice(sixteen);
        *lane = u8x16::new(array);
    }
    lanes
}

/// One bit per lane byte (bit `i` for byte `i` of the block) from compare
/// results, which are all ones or all zeros: a vector movemask per lane.
#[inline(always)]
pub(crate) fn gather(lanes: [u8x16; 4]) -> u64 {
    lanes.iter().enumerate().fold(0u64, |mask, (index, lane)| {
        mask | u64::from(lane.to_bitmask()) << (index * 16)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_test_finds_exactly_the_first_string_special_byte() {
        for byte in 0..=255u8 {
            for at in 0..8 {
                // Fill with bytes that could set borrows, in front of and behind the probe.
                for filler in [b'a', 0x21, 0x5d, 0xff, b' '] {
                    let mut word = [filler; 8];
                    word[at] = byte;
                    let expected = word.iter().position(|&b| is_string_special(b));
                    let hits = string_special_bits(u64::from_le_bytes(word));
                    let found = (hits != 0).then(|| (hits.trailing_zeros() / 8) as usize);
                    assert_eq!(found, expected, "{byte:#x} at {at} among {filler:#x}");
                }
            }
        }
    }

    #[test]
    fn string_special_search_finds_the_first_hit_at_every_position() {
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 150, 300] {
            let clean = vec![b'a'; len];
            for from in [0, 1, 5] {
                assert_eq!(find_string_special(&clean, from), len, "{len} {from}");
            }
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut text = clean.clone();
                    text[at] = special;
                    if at + 3 < len {
                        text[len - 1] = b'"';
                    }
                    assert_eq!(find_string_special(&text, 0), at, "{len} {at} {special}");
                    assert_eq!(find_string_special(&text, at), at, "{len} {at} {special}");
                }
            }
        }
    }

    #[test]
    fn lane_bits_mark_special_bytes_and_everything_past_the_end() {
        // Texts shorter than a lane, around one and two lanes, and longer;
        // starts up to past the end, where every bit must be set.
        for len in [0, 1, 7, 15, 16, 17, 31, 32, 33, 40] {
            for special_at in 0..=len {
                let mut text: Vec<u8> = (0..len).map(|index| b'a' + (index % 26) as u8).collect();
                if let Some(byte) = text.get_mut(special_at) {
                    *byte = [b'"', b'\\', 0x00, 0x1f][special_at % 4];
                }
                for at in 0..len + 20 {
                    let expected =
                        (0..32u32).fold(0u32, |bits, index| match text.get(at + index as usize) {
                            Some(&byte) if !is_string_special(byte) => bits,
                            _ => bits | 1 << index,
                        });
                    let found = string_special_lane_bits(&text, at);
                    // Only the lane's sixteen bits are promised past the text's end too.
                    assert_eq!(found & 0xffff, expected & 0xffff, "{len} {special_at} {at}");
                }
            }
        }
    }

    #[test]
    fn control_byte_search_finds_the_first_one_at_every_position() {
        // Lengths around the chunk size, and past several chunks.
        for len in [0, 1, 63, 64, 255, 256, 257, 600, 1100] {
            let clean = vec![b'a'; len];
            assert_eq!(find_control_byte(&clean), None, "{len}");
            for at in 0..len {
                for control in [0x00, 0x0a, 0x1f] {
                    let mut text = clean.clone();
                    text[at] = control;
                    // A later control byte must not be found instead.
                    text[len - 1] = 0x01;
                    assert_eq!(find_control_byte(&text), Some(at), "{len} {at} {control}");
                }
            }
        }
        // The bytes just above the control range, and high bytes, are text.
        let text: Vec<u8> = (0x20..=0xffu8).cycle().take(700).collect();
        assert_eq!(find_control_byte(&text), None);
    }

    #[test]
    fn find_byte_returns_the_first_match_at_every_position() {
        for len in [0, 1, 63, 64, 65, 128, 200] {
            let clean = vec![b'a'; len];
            assert_eq!(find_byte(&clean, b'\n'), None);
            for at in 0..len {
                let mut haystack = clean.clone();
                haystack[at] = b'\n';
                if at + 1 < len {
                    haystack[len - 1] = b'\n';
                }
                assert_eq!(find_byte(&haystack, b'\n'), Some(at), "{len} {at}");
            }
        }
    }

    #[test]
    fn line_break_search_finds_breaks_at_every_position() {
        for len in [0, 1, 63, 64, 65, 130] {
            let clean = vec![b'a'; len];
            assert!(!has_line_break(&clean));
            for at in 0..len {
                let mut with_break = clean.clone();
                with_break[at] = if at % 2 == 0 { b'\n' } else { b'\r' };
                assert!(has_line_break(&with_break), "{len} {at}");
            }
        }
    }
}
