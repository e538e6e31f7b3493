//! Latency summaries and the record of one measured run, written as one
//! JSON line under `target/bench/`.

use std::time::Duration;

use serde::Serialize;

/// The `q`-quantile (0..=1) of sorted latencies, in microseconds.
pub fn quantile_us(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let last = sorted.len() - 1;
    // Nearest rank: rounding the fractional index is precise enough for
    // tens of thousands of samples.
    let index = ((last as f64) * q).round() as usize;
    sorted
        .get(index.min(last))
        .map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// The median of some figures (the mean of the middle two for an even
/// count), or `None` when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted.get(middle).copied()
    } else {
        Some((sorted.get(middle - 1)? + sorted.get(middle)?) / 2.0)
    }
}

/// What one load run measured against one server.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Measurement {
    /// Calls answered in the measured window.
    pub calls: u64,
    /// Length of the measured window, in seconds.
    pub seconds: f64,
    /// Calls per second.
    pub calls_per_s: f64,
    /// Median latency, in microseconds.
    pub p50_us: f64,
    /// 99th-percentile latency, in microseconds.
    pub p99_us: f64,
    /// Server CPU time (user + system) per call, in microseconds.
    pub server_cpu_us_per_call: f64,
    /// Peak resident memory of the server, in KiB.
    pub peak_rss_kib: u64,
    /// From spawning the server to the answer of the first request, in
    /// milliseconds.
    pub cold_start_ms: f64,
}

impl Measurement {
    /// A measurement from latencies of calls answered over `window`.
    pub fn from_latencies(mut latencies: Vec<Duration>, window: Duration) -> Self {
        latencies.sort_unstable();
        let seconds = window.as_secs_f64().max(1e-9);
        Self {
            calls: latencies.len() as u64,
            seconds,
            calls_per_s: latencies.len() as f64 / seconds,
            p50_us: quantile_us(&latencies, 0.50),
            p99_us: quantile_us(&latencies, 0.99),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_nearest_ranks() {
        let sorted: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(quantile_us(&sorted, 0.5).round(), 51.0);
        assert_eq!(quantile_us(&sorted, 0.99).round(), 99.0);
        assert_eq!(quantile_us(&[], 0.5), 0.0);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn a_measurement_counts_calls_per_second() {
        let m = Measurement::from_latencies(
            vec![Duration::from_micros(10); 50],
            Duration::from_millis(500),
        );
        assert_eq!(m.calls, 50);
        assert!((m.calls_per_s - 100.0).abs() < 1e-6);
    }
}
