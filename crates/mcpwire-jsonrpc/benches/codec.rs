//! Throughput of classification and encoding against a `serde_json::Value` baseline.
//!
//! For a small `tools/call` request and a `tools/call` response carrying
//! 64 KiB of text (prose, and for comparison text that needs no escaping),
//! it measures messages per second for: our decode and
//! classify (bytes to `Packet`), our encode (`Packet` to bytes), and, on the
//! same bytes, `serde_json::from_slice::<Value>` and `serde_json::to_vec`.
//! The four measurements run in interleaved rounds and the medians are
//! reported, so that drift in machine load touches all of them alike.
//!
//! Run with `cargo bench -p mcpwire-jsonrpc --bench codec`.

use std::error::Error;
use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use mcpwire_jsonrpc::Packet;
use serde_json::Value;

/// How long one measurement of one round runs.
const BUDGET: Duration = Duration::from_millis(120);
/// How many interleaved rounds are taken; the median is reported.
const ROUNDS: usize = 7;

/// A `tools/call` request of about 200 bytes.
fn small_request() -> Vec<u8> {
    br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"San Francisco, CA","units":"metric","days":3},"_meta":{"progressToken":"call-42"}}}"#
        .to_vec()
}

/// Prose as file contents or tool output usually look: lines of words, so a
/// line break (escaped as `\n` in JSON) every 90 bytes, and a quotation.
const PROSE: &str =
    "The quick brown fox jumps over the lazy dog; \"pack my box\" with five dozen liquor jugs.\n";
/// Text that needs no escaping at all, the best case for a `Value` parse.
const PLAIN: &str = "abcdefghijklmnopqrstuvwxyz0123456789 ";

/// A `tools/call` success response whose `content[0].text` holds 64 KiB of
/// `unit` repeated.
fn large_response(unit: &str) -> Result<Vec<u8>, serde_json::Error> {
    let mut text = unit.repeat(64 * 1024 / unit.len() + 1);
    text.truncate(64 * 1024);
    let response = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 42,
        "result": {"content": [{"type": "text", "text": text}], "isError": false},
    });
    serde_json::to_vec(&response)
}

/// Calls `work` repeatedly for about `BUDGET` and returns calls per second.
fn rate(mut work: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls: u64 = 0;
    let mut batch: u64 = 1;
    loop {
        for _ in 0..batch {
            work();
        }
        calls += batch;
        let elapsed = start.elapsed();
        if elapsed >= BUDGET {
            return calls as f64 / elapsed.as_secs_f64();
        }
        // Grow the batch so that reading the clock costs nothing noticeable.
        if elapsed < BUDGET / 100 {
            batch *= 2;
        }
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Medians, in messages per second, for one message.
struct Figures {
    decode: f64,
    value_parse: f64,
    encode: f64,
    value_serialize: f64,
}

impl Figures {
    /// Messages per second for a decode followed by an encode.
    fn combined(decode: f64, encode: f64) -> f64 {
        1.0 / (1.0 / decode + 1.0 / encode)
    }
}

fn measure(bytes: &[u8]) -> Result<Figures, Box<dyn Error>> {
    let packet = Packet::from_slice(bytes)?;
    let value: Value = serde_json::from_slice(bytes)?;
    // Both sides must agree on what the message is before their speed means anything.
    let ours: Value = serde_json::from_slice(&packet.to_vec())?;
    if ours != value {
        return Err("our encoding differs from the input".into());
    }

    let mut samples: [Vec<f64>; 4] = Default::default();
    for _ in 0..ROUNDS {
        samples[0].push(rate(|| {
            let _ = black_box(Packet::from_slice(black_box(bytes)));
        }));
        samples[1].push(rate(|| {
            let _ = black_box(serde_json::from_slice::<Value>(black_box(bytes)));
        }));
        samples[2].push(rate(|| {
            black_box(black_box(&packet).to_vec());
        }));
        samples[3].push(rate(|| {
            let _ = black_box(serde_json::to_vec(black_box(&value)));
        }));
    }
    let [decode, value_parse, encode, value_serialize] = samples.map(median);
    Ok(Figures {
        decode,
        value_parse,
        encode,
        value_serialize,
    })
}

/// Formats messages per second with a unit.
fn per_second(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2} M/s", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.1} k/s", rate / 1e3)
    } else {
        format!("{rate:.0} /s")
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let cases = [
        ("(a) tools/call request", small_request()),
        ("(b) tools/call result, 64 KiB text", large_response(PROSE)?),
        ("(b') same, text without escapes", large_response(PLAIN)?),
    ];
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "mcpwire-jsonrpc codec: median of {ROUNDS} interleaved rounds of {} ms each",
        BUDGET.as_millis()
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<36} {:>8} | {:>11} {:>11} {:>6} | {:>11} {:>11} {:>6} | {:>11} {:>11} {:>6}",
        "message",
        "bytes",
        "decode",
        "Value parse",
        "ratio",
        "encode",
        "Value ser.",
        "ratio",
        "dec+enc",
        "Value p+s",
        "ratio",
    )?;
    for (name, bytes) in &cases {
        let figures = measure(bytes)?;
        let ours_both = Figures::combined(figures.decode, figures.encode);
        let value_both = Figures::combined(figures.value_parse, figures.value_serialize);
        writeln!(
            out,
            "{:<36} {:>8} | {:>11} {:>11} {:>5.2}x | {:>11} {:>11} {:>5.2}x | {:>11} {:>11} {:>5.2}x",
            name,
            bytes.len(),
            per_second(figures.decode),
            per_second(figures.value_parse),
            figures.decode / figures.value_parse,
            per_second(figures.encode),
            per_second(figures.value_serialize),
            figures.encode / figures.value_serialize,
            per_second(ours_both),
            per_second(value_both),
            ours_both / value_both,
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "decode = mcpwire Packet::from_slice (bytes to classified Packet); encode = Packet::to_vec;"
    )?;
    writeln!(
        out,
        "Value parse / Value ser. = serde_json::from_slice::<Value> / serde_json::to_vec of the same message."
    )?;
    Ok(())
}
