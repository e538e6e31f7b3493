//! The gate `notifications/message` passes: level thresholds and a rate limit.

use std::time::Instant;

/// A token bucket allowing `rate` messages per second with bursts of `rate`.
///
/// It reads no clock: the caller passes `now`.
#[derive(Debug)]
pub(crate) struct RateLimit {
    rate: f64,
    tokens: f64,
    refilled_at: Option<Instant>,
    dropped: u64,
}

impl RateLimit {
    pub(crate) fn per_second(rate: u32) -> Self {
        let rate = f64::from(rate);
        Self {
            rate,
            tokens: rate,
            refilled_at: None,
            dropped: 0,
        }
    }

    /// Whether one more message may go now; counts it if not.
    pub(crate) fn allow(&mut self, now: Instant) -> bool {
        if let Some(then) = self.refilled_at {
            let elapsed = now.saturating_duration_since(then).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.rate).min(self.rate);
        }
        self.refilled_at = Some(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// How many messages were dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_beyond_the_rate_is_dropped_and_refills_with_time() {
        let start = Instant::now();
        let mut limit = RateLimit::per_second(3);
        let allowed = (0..5).filter(|_| limit.allow(start)).count();
        assert_eq!(allowed, 3);
        assert_eq!(limit.dropped(), 2);
        assert!(limit.allow(start + Duration::from_millis(400)));
        assert!(!limit.allow(start + Duration::from_millis(400)));
    }
}
