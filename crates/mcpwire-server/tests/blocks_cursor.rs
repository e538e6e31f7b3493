//! Tests of `mcpwire_server::cursor`: paging walks, cursor opacity and rejection of bad cursors.

use mcpwire_server::cursor::{InvalidCursor, Page, decode_cursor, encode_cursor};

#[path = "blocks_cursor/fuzz_corpus.rs"]
mod fuzz_corpus;

/// Follows `next_cursor` from the first page to the last, returning the pages' items.
fn walk(items: &[u32], page_size: usize) -> Result<Vec<Vec<u32>>, InvalidCursor> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = Page::of(items, cursor.as_deref(), page_size)?;
        assert_eq!(page.items, &items[page.range.clone()]);
        pages.push(page.items.to_vec());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(pages),
        }
    }
}

#[test]
fn walking_every_page_yields_each_item_once_in_order() {
    for len in 0..=23_u32 {
        let items: Vec<u32> = (0..len).collect();
        for page_size in 1..=8 {
            let pages = walk(&items, page_size).unwrap();
            let expected_pages = (len as usize).div_ceil(page_size).max(1);
            assert_eq!(
                pages.len(),
                expected_pages,
                "len {len}, page size {page_size}"
            );
            assert!(pages.iter().all(|page| page.len() <= page_size));
            assert_eq!(pages.concat(), items, "len {len}, page size {page_size}");
        }
    }
}

#[test]
fn a_page_size_of_zero_still_advances() {
    let items = [1, 2, 3];
    assert_eq!(walk(&items, 0).unwrap(), [vec![1], vec![2], vec![3]]);
}

#[test]
fn the_last_page_has_no_next_cursor() {
    let items = [1, 2, 3, 4];
    let first = Page::of(&items, None, 2).unwrap();
    assert_eq!(first.range, 0..2);
    let second = Page::of(&items, first.next_cursor.as_deref(), 2).unwrap();
    assert_eq!(second.range, 2..4);
    assert_eq!(second.next_cursor, None);
    let everything = Page::of(&items, None, 100).unwrap();
    assert_eq!((everything.range, everything.next_cursor), (0..4, None));
}

#[test]
fn cursors_are_short_url_safe_text_that_round_trips() {
    for offset in [0, 1, 49, 50, 1_000_000, u64::MAX] {
        let cursor = encode_cursor(offset);
        assert_eq!(cursor.len(), 18, "{cursor}");
        assert!(
            cursor
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'),
            "{cursor}"
        );
        assert_eq!(decode_cursor(&cursor), Ok(offset));
    }
    assert_ne!(encode_cursor(1), encode_cursor(2));
}

#[test]
fn garbage_cursors_are_rejected() {
    let items = [1, 2, 3];
    for garbage in [
        "not a cursor",
        "!!!!",
        "%%%",
        "AAAAAAAAAAAAAAAAA=",
        "🙂",
        "1",
    ] {
        assert_eq!(
            Page::of(&items, Some(garbage), 1).unwrap_err(),
            InvalidCursor::Malformed,
            "{garbage}"
        );
    }
    for wrong_length in ["", "AAAA", "AAAAAAAAAAAAAAAAAAAAAAAA"] {
        assert_eq!(
            Page::of(&items, Some(wrong_length), 1).unwrap_err(),
            InvalidCursor::WrongLength,
            "{wrong_length}"
        );
    }
    // Right length, wrong contents.
    assert!(Page::of(&items, Some("AQAAAAAAAAABAAAAAA"), 1).is_err());
}

#[test]
fn truncated_cursors_are_rejected() {
    let cursor = encode_cursor(2);
    for cut in 0..cursor.len() {
        assert!(decode_cursor(&cursor[..cut]).is_err(), "{}", &cursor[..cut]);
    }
    assert!(decode_cursor(&format!("{cursor}A")).is_err());
}

#[test]
fn changing_any_single_character_is_detected() {
    let cursor = encode_cursor(2);
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for position in 0..cursor.len() {
        for replacement in alphabet.chars() {
            if cursor[position..].starts_with(replacement) {
                continue;
            }
            let mut altered = cursor.clone();
            altered.replace_range(position..=position, &replacement.to_string());
            assert!(decode_cursor(&altered).is_err(), "{altered}");
        }
    }
}

#[test]
fn cursors_past_the_end_of_the_list_are_rejected() {
    let items = [1, 2, 3];
    for offset in [3, 4, u64::MAX] {
        assert_eq!(
            Page::of(&items, Some(&encode_cursor(offset)), 2).unwrap_err(),
            InvalidCursor::OutOfRange { offset, len: 3 }
        );
    }
    let empty: [u32; 0] = [];
    assert_eq!(
        Page::of(&empty, Some(&encode_cursor(0)), 2).unwrap_err(),
        InvalidCursor::OutOfRange { offset: 0, len: 0 }
    );
    assert_eq!(
        InvalidCursor::OutOfRange { offset: 3, len: 3 }.to_string(),
        "invalid cursor: offset 3 is past the end of the list (3 items)"
    );
}
