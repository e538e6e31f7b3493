//! The property of the `server_tokens` fuzz target, shared with the test
//! that replays its corpus (`tests/blocks_cursor.rs`).
//!
//! The opaque strings a server hands out and a client echoes: pagination
//! cursors (`*/list`), `tasks/list` cursors and sealed `requestState`
//! (2026-07-28 multi round-trip requests). Beyond "never panics" on any
//! text a client sends back:
//! * a cursor that opens has exactly one spelling (it is what encoding its
//!   offset gives), and every offset survives encode then decode;
//! * a page chosen by any cursor lies inside the list, holds at most the
//!   page size, and its next cursor opens to where it ends;
//! * a `tasks/list` cursor round-trips any task id, and one that opens is
//!   the encoding of what it opened to;
//! * no text the input spells opens as a `requestState` (it would take the
//!   server's key); a state sealed for one request opens to the same bytes
//!   for that request only, not under another key, and not once any one
//!   character of it is changed.

use mcpwire_server::StateKeyRing;
use mcpwire_server::cursor::{Page, decode_cursor, encode_cursor};
use mcpwire_server::fuzz_hooks::{
    decode_task_cursor, encode_task_cursor, open_request_state, seal_request_state,
};

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    check_cursor(&text, data);
    if let Some(id) = decode_task_cursor(&text) {
        assert_eq!(
            encode_task_cursor(&id),
            text,
            "a task cursor with two spellings"
        );
    }
    assert_eq!(
        decode_task_cursor(&encode_task_cursor(&text)).as_deref(),
        Some(&*text)
    );
    check_request_state(&text, data);
}

fn check_cursor(text: &str, data: &[u8]) {
    if let Ok(offset) = decode_cursor(text) {
        assert_eq!(encode_cursor(offset), text, "a cursor with two spellings");
    }
    let offset = data
        .iter()
        .take(8)
        .fold(0_u64, |offset, &byte| offset << 8 | u64::from(byte));
    assert_eq!(decode_cursor(&encode_cursor(offset)), Ok(offset));
    let list: Vec<usize> = (0..usize::from(data.first().copied().unwrap_or(0))).collect();
    let page_size = usize::from(data.get(1).copied().unwrap_or(0) % 16);
    for cursor in [Some(text), None] {
        let Ok(page) = Page::of(&list, cursor, page_size) else {
            continue;
        };
        assert!(page.range.start <= page.range.end && page.range.end <= list.len());
        assert!(page.items.len() <= page_size.max(1));
        assert_eq!(page.items, &list[page.range.clone()]);
        match &page.next_cursor {
            Some(next) => assert_eq!(decode_cursor(next), Ok(page.range.end as u64)),
            None => assert_eq!(page.range.end, list.len()),
        }
    }
}

fn check_request_state(text: &str, data: &[u8]) {
    let ring = StateKeyRing::new([7; 32]);
    let (name, state) = match data.iter().position(|&byte| byte == b'\n') {
        Some(at) => (String::from_utf8_lossy(&data[..at]), &data[at + 1..]),
        None => (String::from_utf8_lossy(data), data),
    };
    assert_eq!(
        open_request_state(&ring, "tools/call", &name, text),
        None,
        "a forged state opened"
    );
    let sealed = seal_request_state(&ring, "tools/call", &name, state);
    let opened = open_request_state(&ring, "tools/call", &name, &sealed);
    assert_eq!(
        opened.as_deref(),
        Some(state),
        "a sealed state did not open"
    );
    assert_eq!(
        open_request_state(&ring, "prompts/get", &name, &sealed),
        None
    );
    assert_eq!(
        open_request_state(&ring, "tools/call", &format!("{name}x"), &sealed),
        None
    );
    assert_eq!(
        open_request_state(&StateKeyRing::new([8; 32]), "tools/call", &name, &sealed),
        None
    );
    // One character changed, at a place and to a letter the input picks.
    let at = usize::from(data.first().copied().unwrap_or(0)) % sealed.len();
    let replacement = if sealed.as_bytes()[at] == b'A' {
        'B'
    } else {
        'A'
    };
    let mut changed: String = sealed.clone();
    changed.replace_range(at..=at, &replacement.to_string());
    assert_eq!(
        open_request_state(&ring, "tools/call", &name, &changed),
        None,
        "a changed state opened"
    );
}
