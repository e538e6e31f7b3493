//! Fast byte searches over large buffers, written so the compiler vectorizes them.
//!
//! Lines and payloads can be megabytes long, and the standard library's
//! byte-at-a-time `position` would dominate the cost of framing them. Each
//! search here looks at a fixed-size block without branching inside it,
//! which the compiler turns into vector compares, and only then narrows down
//! within the block that matched.

/// Bytes examined per step; a multiple of every common vector width.
const BLOCK: usize = 64;

/// The index of the first `needle` in `haystack`.
pub(crate) fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    let mut blocks = haystack.chunks_exact(BLOCK);
    let mut offset = 0;
    for block in &mut blocks {
        // A byte accumulator, not a `bool`, is what the compiler vectorizes.
        let mut found = 0u8;
        for &byte in block {
            found |= u8::from(byte == needle);
        }
        if found != 0 {
            return block
                .iter()
                .position(|&byte| byte == needle)
                .map(|at| offset + at);
        }
        offset += BLOCK;
    }
    blocks
        .remainder()
        .iter()
        .position(|&byte| byte == needle)
        .map(|at| offset + at)
}

/// Whether `bytes` contains `\n` or `\r`.
pub(crate) fn has_line_break(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(BLOCK);
    for block in &mut blocks {
        let mut found = 0u8;
        for &byte in block {
            found |= u8::from(byte == b'\n') | u8::from(byte == b'\r');
        }
        if found != 0 {
            return true;
        }
    }
    blocks
        .remainder()
        .iter()
        .any(|&byte| byte == b'\n' || byte == b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

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
