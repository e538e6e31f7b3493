//! Cache hints (2026-07-28): how long and by whom a result may be cached,
//! as one value a server configures and a client reads.

use std::time::Duration;

use crate::CacheScope;

/// A result's `ttlMs` and `cacheScope` together.
///
/// The protocol's default, when a server says nothing, is
/// [`CacheHint::STALE`]: immediately stale and private.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheHint {
    /// How long, in milliseconds, the result stays fresh.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Immediately stale and private: what a client assumes without hints.
    pub const STALE: Self = Self {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };

    /// Fresh for `ttl` (rounded down to milliseconds), reusable by anyone.
    pub fn public(ttl: Duration) -> Self {
        Self {
            ttl_ms: millis(ttl),
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl` (rounded down to milliseconds), reusable only within
    /// the same authorization context.
    pub fn private(ttl: Duration) -> Self {
        Self {
            ttl_ms: millis(ttl),
            scope: CacheScope::Private,
        }
    }

    /// The hint of a result made of parts hinted `self` and `other`: the
    /// shorter lifetime, and private when either part is private.
    #[must_use]
    pub fn combine(self, other: Self) -> Self {
        let scope = if self.scope == CacheScope::Private || other.scope == CacheScope::Private {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        Self {
            ttl_ms: self.ttl_ms.min(other.ttl_ms),
            scope,
        }
    }

    /// The hint a result carries, reading absent fields as the protocol's
    /// defaults (0, private).
    pub fn of(ttl_ms: Option<u64>, scope: Option<CacheScope>) -> Self {
        Self {
            ttl_ms: ttl_ms.unwrap_or(0),
            scope: scope.unwrap_or(CacheScope::Private),
        }
    }

    /// Writes this hint into a result's fields (removed again when the
    /// result is fitted to a revision without cache hints).
    pub fn write_to(self, ttl_ms: &mut Option<u64>, scope: &mut Option<CacheScope>) {
        *ttl_ms = Some(self.ttl_ms);
        *scope = Some(self.scope);
    }

    /// The lifetime as a [`Duration`].
    pub fn ttl(self) -> Duration {
        Duration::from_millis(self.ttl_ms)
    }
}

impl Default for CacheHint {
    fn default() -> Self {
        Self::STALE
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combining_keeps_the_shorter_life_and_the_narrower_scope() {
        let long_public = CacheHint::public(Duration::from_secs(60));
        let short_private = CacheHint::private(Duration::from_millis(500));
        assert_eq!(
            long_public.combine(short_private),
            CacheHint {
                ttl_ms: 500,
                scope: CacheScope::Private
            }
        );
        assert_eq!(long_public.combine(long_public), long_public);
        assert_eq!(CacheHint::of(None, None), CacheHint::STALE);
    }
}
