//! The embedded authorization server's tables (clients, codes, refresh
//! tokens and the tombstones of used ones), their bounds, and the pruning
//! that expires their entries: nothing a caller sends grows them without
//! limit (issue 17 item 8).

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::clients::Client;
use super::state::{PendingCode, RefreshRecord};

/// How often the tables are swept for expired entries when nothing forces
/// a sweep (a full table always sweeps first): a sweep visits every entry,
/// so sweeping on every insert would make N inserts cost O(N²).
const SWEEP_INTERVAL: Duration = Duration::from_secs(10);

/// The bounds of the tables and of the unauthenticated endpoints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Clients that registered (`/register`) or were fetched (metadata
    /// documents) held at once; clients given to the builder do not count.
    pub(crate) max_clients: usize,
    /// How long a dynamically registered client is kept without being used.
    pub(crate) registered_client_idle: Duration,
    /// Registrations and uncached metadata-document fetches per minute.
    pub(crate) registrations_per_minute: u32,
    /// Authorization codes waiting to be exchanged.
    pub(crate) max_pending_codes: usize,
    /// Live refresh tokens; also the tombstones of rotated-out tokens and
    /// of used codes kept (each), the oldest forgotten first.
    pub(crate) max_refresh_tokens: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_clients: 1_000,
            registered_client_idle: Duration::from_secs(7 * 86_400),
            registrations_per_minute: 60,
            max_pending_codes: 10_000,
            max_refresh_tokens: 100_000,
        }
    }
}

/// Where a known client came from, which decides when it is forgotten.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ClientOrigin {
    /// Given to the builder or to `register_client`: kept for good.
    Configured,
    /// Dynamically registered: forgotten after an idle lifetime.
    Registered {
        /// When it was last used (registered, authorized, authenticated).
        last_used: Instant,
    },
    /// A fetched client ID metadata document: trusted for a while.
    Fetched {
        /// When it was fetched.
        at: Instant,
    },
}

/// A full table: the caller is answered `temporarily_unavailable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    /// What is full, for the error description.
    pub(crate) what: &'static str,
    /// Its bound.
    pub(crate) limit: usize,
}

impl Full {
    /// The error description sent to the caller.
    pub(crate) fn description(self) -> String {
        format!(
            "the server holds its maximum of {} {}; try again later",
            self.limit, self.what
        )
    }
}

/// Everything that changes while serving.
pub(crate) struct Tables {
    pub(crate) limits: Limits,
    /// How long a fetched metadata document is trusted.
    pub(crate) document_ttl: Duration,
    pub(crate) clients: HashMap<String, (Client, ClientOrigin)>,
    /// Clients that are not `Configured` (the ones `max_clients` counts).
    dynamic_clients: usize,
    pub(crate) codes: HashMap<String, PendingCode>,
    /// Codes already exchanged: the refresh family each produced, kept
    /// until the code would have expired (a later replay is refused as
    /// unknown anyway).
    pub(crate) used_codes: Tombstones,
    pub(crate) refresh_tokens: HashMap<String, RefreshRecord>,
    /// Refresh tokens rotated out: their family, kept until the token
    /// would have expired.
    pub(crate) rotated_out: Tombstones,
    next_sweep: Instant,
    /// The current one-minute window of registrations and its count.
    window: (Instant, u32),
}

impl Tables {
    pub(crate) fn new(limits: Limits, document_ttl: Duration) -> Self {
        let now = Instant::now();
        Self {
            limits,
            document_ttl,
            clients: HashMap::new(),
            dynamic_clients: 0,
            codes: HashMap::new(),
            used_codes: Tombstones::new(limits.max_refresh_tokens),
            refresh_tokens: HashMap::new(),
            rotated_out: Tombstones::new(limits.max_refresh_tokens),
            next_sweep: now + SWEEP_INTERVAL,
            window: (now, 0),
        }
    }

    /// Revokes every refresh token of `family`.
    pub(crate) fn revoke_family(&mut self, family: &str) {
        self.refresh_tokens
            .retain(|_, record| record.family != family);
    }

    /// Whether a client entry is still to be kept at `now`.
    fn client_alive(&self, origin: ClientOrigin, now: Instant) -> bool {
        match origin {
            ClientOrigin::Configured => true,
            ClientOrigin::Registered { last_used } => {
                now.duration_since(last_used) < self.limits.registered_client_idle
            }
            ClientOrigin::Fetched { at } => now.duration_since(at) < self.document_ttl,
        }
    }

    /// The live client `client_id`, marking a registered one used.
    pub(crate) fn client(&mut self, client_id: &str, now: Instant) -> Option<Client> {
        let origin = self.clients.get(client_id)?.1;
        if !self.client_alive(origin, now) {
            return None;
        }
        let entry = self.clients.get_mut(client_id)?;
        if let ClientOrigin::Registered { last_used } = &mut entry.1 {
            *last_used = now;
        }
        Some(entry.0.clone())
    }

    /// Adds (or replaces) a client; a dynamic one only below `max_clients`.
    pub(crate) fn insert_client(
        &mut self,
        client: Client,
        origin: ClientOrigin,
        now: Instant,
    ) -> Result<(), Full> {
        let replaced = self.clients.get(&client.client_id).map(|entry| entry.1);
        let dynamic = !matches!(origin, ClientOrigin::Configured);
        let replaces_dynamic = replaced.is_some_and(|old| !matches!(old, ClientOrigin::Configured));
        if dynamic && !replaces_dynamic {
            self.make_room(now, |tables| {
                (tables.dynamic_clients < tables.limits.max_clients)
                    .then_some(())
                    .ok_or(Full {
                        what: "registered clients",
                        limit: tables.limits.max_clients,
                    })
            })?;
        }
        self.dynamic_clients =
            self.dynamic_clients + usize::from(dynamic) - usize::from(replaces_dynamic);
        self.clients
            .insert(client.client_id.clone(), (client, origin));
        Ok(())
    }

    /// Counts one registration (or uncached document fetch) against the
    /// per-minute budget; `Err` holds the seconds until the next window.
    pub(crate) fn take_registration(&mut self, now: Instant) -> Result<(), u64> {
        let minute = Duration::from_secs(60);
        let (start, count) = &mut self.window;
        if now.duration_since(*start) >= minute {
            *start = now;
            *count = 0;
        }
        if *count >= self.limits.registrations_per_minute {
            let left = minute.saturating_sub(now.duration_since(*start));
            return Err(left.as_secs().max(1));
        }
        *count += 1;
        Ok(())
    }

    /// Stores a pending code, below `max_pending_codes`.
    pub(crate) fn insert_code(
        &mut self,
        code: String,
        pending: PendingCode,
        now: Instant,
    ) -> Result<(), Full> {
        self.make_room(now, |tables| {
            (tables.codes.len() < tables.limits.max_pending_codes)
                .then_some(())
                .ok_or(Full {
                    what: "pending authorization codes",
                    limit: tables.limits.max_pending_codes,
                })
        })?;
        self.codes.insert(code, pending);
        Ok(())
    }

    /// Whether one more live refresh token fits (a rotation, which
    /// replaces one, always does).
    pub(crate) fn refresh_room(&mut self, now: Instant) -> Result<(), Full> {
        self.make_room(now, |tables| {
            let max = tables.limits.max_refresh_tokens;
            (tables.refresh_tokens.len() < max)
                .then_some(())
                .ok_or(Full {
                    what: "refresh tokens",
                    limit: max,
                })
        })
    }

    /// Sweeps when due, then asks `fits`; when it says no, sweeps at once
    /// and asks again.
    fn make_room(
        &mut self,
        now: Instant,
        fits: impl Fn(&Self) -> Result<(), Full>,
    ) -> Result<(), Full> {
        if now >= self.next_sweep {
            self.sweep(now);
        }
        if fits(self).is_ok() {
            return Ok(());
        }
        self.sweep(now);
        fits(self)
    }

    /// Drops every expired entry of every table.
    pub(crate) fn sweep(&mut self, now: Instant) {
        self.next_sweep = now + SWEEP_INTERVAL;
        self.codes.retain(|_, pending| pending.expires > now);
        self.used_codes.sweep(now);
        self.refresh_tokens.retain(|_, record| record.expires > now);
        self.rotated_out.sweep(now);
        let (registered_idle, document_ttl) =
            (self.limits.registered_client_idle, self.document_ttl);
        self.clients.retain(|_, (_, origin)| match *origin {
            ClientOrigin::Configured => true,
            ClientOrigin::Registered { last_used } => {
                now.duration_since(last_used) < registered_idle
            }
            ClientOrigin::Fetched { at } => now.duration_since(at) < document_ttl,
        });
        self.dynamic_clients = self
            .clients
            .values()
            .filter(|(_, origin)| !matches!(origin, ClientOrigin::Configured))
            .count();
    }
}

/// Tokens no longer usable, remembered with the refresh family they
/// belong to so that a replay revokes it: each until its own expiry, and
/// at most `max`, the oldest forgotten first (a forgotten one replayed is
/// refused as unknown, just without revoking its family).
pub(crate) struct Tombstones {
    families: HashMap<String, (String, Instant)>,
    order: VecDeque<String>,
    max: usize,
}

impl Tombstones {
    fn new(max: usize) -> Self {
        Self {
            families: HashMap::new(),
            order: VecDeque::new(),
            max,
        }
    }

    /// The family of `token`, if remembered.
    pub(crate) fn family(&self, token: &str) -> Option<String> {
        self.families.get(token).map(|(family, _)| family.clone())
    }

    /// Remembers `token` of `family` until `until`.
    pub(crate) fn insert(&mut self, token: String, family: String, until: Instant) {
        while self.families.len() >= self.max.max(1) {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.families.remove(&oldest);
        }
        if self
            .families
            .insert(token.clone(), (family, until))
            .is_none()
        {
            self.order.push_back(token);
        }
    }

    fn sweep(&mut self, now: Instant) {
        self.families.retain(|_, (_, until)| *until > now);
        let families = &self.families;
        self.order.retain(|token| families.contains_key(token));
    }
}
