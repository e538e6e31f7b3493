//! Property: whatever the encoder writes, the decoder reads back, however it is chunked.

use std::time::Duration;

use bytes::BytesMut;
use mcpwire_http::sse::{Decoder, Event, encode_comment};
use proptest::prelude::*;

/// Text without CR, which a reader turns into LF (a line end is a line end).
fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-Z0-9 :{}\"\\n\u{e9}\u{1F600}\u{feff}]{0,40}").unwrap()
}

/// A one-line field value.
fn field() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-Z0-9 :_\u{e9}-]{0,12}").unwrap()
}

fn event() -> impl Strategy<Value = Event> {
    (
        proptest::option::of(field()),
        proptest::option::of(field()),
        text(),
        proptest::option::of(0u64..100_000),
    )
        .prop_map(|(id, event, data, retry)| Event {
            id,
            // An empty type is the default type, which decodes as `None`.
            event: event.filter(|event| !event.is_empty()),
            data,
            retry: retry.map(Duration::from_millis),
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(256)
    })]

    #[test]
    fn encoded_events_decode_to_themselves(
        events in proptest::collection::vec(event(), 0..8),
        comment in text(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut wire = BytesMut::new();
        encode_comment(&comment, &mut wire);
        for event in &events {
            event.encode(&mut wire).unwrap();
        }
        let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(wire.len() + 1)).collect();
        points.sort_unstable();
        let mut decoder = Decoder::new();
        let mut start = 0;
        for point in points.into_iter().chain([wire.len()]) {
            decoder.feed(&wire[start..point]);
            start = point;
        }
        let decoded: Vec<Event> = std::iter::from_fn(|| decoder.next_event())
            .map(Result::unwrap)
            .collect();
        prop_assert_eq!(&decoded, &events);
        let last_id = events.iter().rev().find_map(|event| event.id.clone()).unwrap_or_default();
        prop_assert_eq!(decoder.last_event_id(), last_id.as_str());
    }
}
