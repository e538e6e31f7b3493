//! The CPU limit of one call: serde_json parsing the same request and
//! serializing the same answer, on one core, with nothing else around.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::messages::{CallTemplate, Era};
use crate::stats::Measurement;

/// Parses an `echo` request of about `size` bytes and serializes its
/// answer, as fast as one core can, for `duration`.
pub fn run(size: usize, duration: Duration) -> Measurement {
    let line = CallTemplate::new(size, Era::Handshake).with_id(1);
    let started = Instant::now();
    let mut calls: u64 = 0;
    let mut bytes: usize = 0;
    // Check the clock only every few calls: reading it costs about as much
    // as a small call.
    while started.elapsed() < duration {
        for _ in 0..64 {
            bytes += call(black_box(line.as_bytes())).len();
            calls += 1;
        }
    }
    black_box(bytes);
    let seconds = started.elapsed().as_secs_f64();
    let per_call = seconds / calls.max(1) as f64;
    Measurement {
        calls,
        seconds,
        calls_per_s: calls as f64 / seconds.max(1e-9),
        p50_us: per_call * 1e6,
        p99_us: per_call * 1e6,
        server_cpu_us_per_call: per_call * 1e6,
        ..Measurement::default()
    }
}

/// One call: the request parsed to a `Value`, the answer serialized.
fn call(request: &[u8]) -> Vec<u8> {
    let Ok(mut request) = serde_json::from_slice::<Value>(request) else {
        return Vec::new();
    };
    let id = request["id"].take();
    let text = request["params"]["arguments"]["text"].take();
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"content": [{"type": "text", "text": text}]}
    });
    serde_json::to_vec(&answer).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_echoes_the_text_under_the_same_id() {
        let line = CallTemplate::new(200, Era::Handshake).with_id(9);
        let answer: Value = serde_json::from_slice(&call(line.as_bytes())).unwrap();
        let request: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], 9);
        assert_eq!(
            answer["result"]["content"][0]["text"],
            request["params"]["arguments"]["text"]
        );
    }
}
