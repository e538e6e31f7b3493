//! The SSE decoder gives the same events however the stream is cut into chunks.

use std::time::Duration;

use mcpwire_http::sse::{DecodeError, Decoder, Event};

/// A stream exercising every rule: a byte order mark, all three line ends,
/// comments, a field without a colon, multi-line data, an id with NUL, an
/// event without data, a retry, an oversized event and an unterminated tail.
const SAMPLE: &[u8] = b"\xEF\xBB\xBF: comment\r\n\
id: 1\r\nretry: 500\r\ndata:\r\n\r\n\
event: message\rdata: {\"a\":\rdata:  1}\r\r\
id: 2\0bad\ndata\ndata: x\n\n\
id: 3\nevent: ping\n\n\
data: 0123456789012345678901234567890123456789\ndata: z\n\n\
id: 4\ndata: last\n\n\
data: never dispatched\n";

const MAX_EVENT_SIZE: usize = 40;

fn expected() -> Vec<Result<Event, DecodeError>> {
    vec![
        Ok(Event::new("")
            .with_id("1")
            .with_retry(Duration::from_millis(500))),
        Ok(Event::new("{\"a\":\n 1}").with_event("message")),
        Ok(Event::new("\nx")),
        Err(DecodeError::EventTooLarge {
            limit: MAX_EVENT_SIZE,
        }),
        Ok(Event::new("last").with_id("4")),
    ]
}

/// Decodes `chunks` in turn and returns the events, the last event id and
/// the reconnection time.
fn decode(chunks: &[&[u8]]) -> (Vec<Result<Event, DecodeError>>, String, Option<Duration>) {
    let mut decoder = Decoder::with_max_event_size(MAX_EVENT_SIZE);
    let mut items = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk);
        items.extend(std::iter::from_fn(|| decoder.next_event()));
    }
    decoder.finish();
    items.extend(std::iter::from_fn(|| decoder.next_event()));
    (items, decoder.last_event_id().to_owned(), decoder.retry())
}

#[test]
fn the_sample_stream_decodes_to_the_expected_events() {
    let (items, last_id, retry) = decode(&[SAMPLE]);
    assert_eq!(items, expected());
    assert_eq!(last_id, "4");
    assert_eq!(retry, Some(Duration::from_millis(500)));
}

#[test]
fn every_single_split_point_gives_the_same_events() {
    let whole = decode(&[SAMPLE]);
    for at in 0..=SAMPLE.len() {
        let (left, right) = SAMPLE.split_at(at);
        assert_eq!(decode(&[left, right]), whole, "split at {at}");
    }
}

#[test]
fn every_pair_of_split_points_gives_the_same_events() {
    let whole = decode(&[SAMPLE]);
    for first in 0..=SAMPLE.len() {
        for second in first..=SAMPLE.len() {
            let chunks = [&SAMPLE[..first], &SAMPLE[first..second], &SAMPLE[second..]];
            assert_eq!(decode(&chunks), whole, "split at {first} and {second}");
        }
    }
}

#[test]
fn byte_by_byte_feeding_gives_the_same_events() {
    let chunks: Vec<&[u8]> = SAMPLE.chunks(1).collect();
    assert_eq!(decode(&chunks), decode(&[SAMPLE]));
}
