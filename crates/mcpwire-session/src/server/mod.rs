//! The server side of the engine: answers `initialize` (handshake era) and
//! per-request `_meta` (stateless era) on one instance, routes requests to
//! the runtime, and gates what the server sends on what both sides declared.

mod extension;
mod inbound;
mod interned;

pub use extension::{ExtensionCall, ExtensionMethod};

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, RawJson, RequestId};
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ClientResult, ServerNotification, ServerRequest,
    ServerResult, method_info,
};
use mcpwire_types::{
    ForRevision, Implementation, LoggingLevel, LoggingMessageNotificationParams, Meta,
    ProgressNotificationParams, ProtocolVersion, ServerCapabilities, meta_keys,
};

use crate::gating::{check_server_notification, check_server_request};
use crate::log::RateLimit;
use crate::peer::Peer;
use crate::{ClientView, Event, Limits, RequestOptions, SendError, Timeouts, Transmit};

/// What the server engine reports: requests and notifications from the
/// client, answers to the server's own requests, and the handshake.
pub type ServerEvent = Event<ClientCall, ClientNotification, ClientResult, ClientView>;

/// A client request as the runtime receives it: decoded by its method, and
/// its params as they came.
///
/// The decoded request moves into its handler. The raw params ride along,
/// moved and never copied, for a runtime that must read part of them again
/// (the arguments of a tool whose handler runs a second time after an
/// input round): decoding them again then costs that rare second run
/// instead of a copy of the decoded value on every call.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientCall {
    /// The request, routed and decoded by method.
    pub request: ClientRequest,
    /// The params as the client sent them (`None` when it sent none).
    pub params: Option<RawJson>,
}

/// Who the server is and what it offers; shared by every session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The server's name and version.
    pub info: Implementation,
    /// What it offers.
    pub capabilities: ServerCapabilities,
    /// Instructions for the model on how to use the server.
    pub instructions: Option<String>,
    /// The revisions it speaks, in any order; the newest handshake one is
    /// answered to clients asking for one it does not speak (LIFE-10, LIFE-11).
    pub versions: Vec<ProtocolVersion>,
    /// Bounds on in-flight requests and log rate.
    pub limits: Limits,
    /// Timeouts of requests the server sends.
    pub timeouts: Timeouts,
    /// The cache hint of `server/discover` (2026-07-28); `None` leaves the
    /// protocol default (immediately stale, private).
    pub discover_cache_hint: Option<mcpwire_types::CacheHint>,
    /// Methods extensions add to the stateless revision, served to clients
    /// that declare the extension (others get -32021).
    pub extension_methods: Vec<ExtensionMethod>,
    /// The bytes of requests its sessions are handling, all together
    /// ([`Limits::max_server_inbound_bytes_in_flight`](crate::Limits));
    /// clones of the config share it.
    inbound_bytes: crate::budget::SharedBytes,
}

impl ServerConfig {
    /// The bytes of params of the requests its sessions are handling now,
    /// all together (bounded by
    /// [`Limits::max_server_inbound_bytes_in_flight`](crate::Limits)).
    pub fn inbound_bytes_in_flight(&self) -> usize {
        self.inbound_bytes.get()
    }

    /// A server speaking every revision, offering `capabilities`.
    pub fn new(info: Implementation, capabilities: ServerCapabilities) -> Self {
        Self {
            info,
            capabilities,
            instructions: None,
            versions: ProtocolVersion::ALL.to_vec(),
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            discover_cache_hint: None,
            extension_methods: Vec::new(),
            inbound_bytes: crate::budget::SharedBytes::default(),
        }
    }

    /// Serves `method` of the extension `extension` in stateless requests.
    pub fn with_extension_method(mut self, method: ExtensionMethod) -> Self {
        self.extension_methods.push(method);
        self
    }

    /// Sets the instructions.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Restricts the revisions spoken.
    pub fn with_versions(mut self, versions: impl IntoIterator<Item = ProtocolVersion>) -> Self {
        self.versions = versions.into_iter().collect();
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the timeouts of requests the server sends.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The revisions spoken, newest first.
    pub fn versions_newest_first(&self) -> Vec<ProtocolVersion> {
        let mut versions = self.versions.clone();
        versions.sort_unstable_by(|a, b| b.cmp(a));
        versions.dedup();
        versions
    }

    /// The revision to answer an `initialize` asking for `requested`: that
    /// one when spoken (LIFE-09), else the newest handshake revision spoken.
    fn negotiate(&self, requested: &str) -> Option<ProtocolVersion> {
        let spoken = |v: &ProtocolVersion| v.has_handshake() && self.versions.contains(v);
        match ProtocolVersion::parse(requested) {
            Ok(version) if spoken(&version) => Some(version),
            _ => self.versions.iter().copied().filter(spoken).max(),
        }
    }

    /// Whether a stateless request may speak `version`.
    fn speaks_stateless(&self, version: ProtocolVersion) -> bool {
        version.is_stateless() && self.versions.contains(&version)
    }
}

/// The state of the handshake.
#[derive(Debug)]
enum Handshake {
    /// No `initialize` yet: only `ping` and stateless requests are served.
    Awaiting,
    /// `initialize` answered; `initialized` is `true` once the client's
    /// `notifications/initialized` arrived.
    Negotiated {
        client: ClientView,
        initialized: bool,
    },
}

/// One server session: a stdio process, a Streamable HTTP session, or the
/// stateless endpoint of a server.
///
/// Sans-IO: feed it what the transport received ([`ServerSession::handle_inbound`]),
/// send what [`ServerSession::poll_transmit`] gives, act on
/// [`ServerSession::poll_event`], and call [`ServerSession::handle_timeout`]
/// at [`ServerSession::poll_timeout`]. Time comes in as `now`; it reads no clock.
#[derive(Debug)]
pub struct ServerSession {
    config: Arc<ServerConfig>,
    peer: Peer,
    handshake: Handshake,
    /// The level set by `logging/setLevel` (handshake era).
    log_level: Option<LoggingLevel>,
    log_rate: RateLimit,
    events: VecDeque<ServerEvent>,
    /// The method table's entry of the last request's method.
    last_method: Option<&'static mcpwire_types::methods::MethodInfo>,
}

impl ServerSession {
    /// A session of a server configured by `config`.
    pub fn new(config: Arc<ServerConfig>) -> Self {
        let peer = Peer::new(config.limits, config.timeouts)
            .with_server_inbound_bytes(config.inbound_bytes.clone());
        let log_rate = RateLimit::per_second(config.limits.log_messages_per_second);
        Self {
            config,
            peer,
            handshake: Handshake::Awaiting,
            log_level: None,
            log_rate,
            events: VecDeque::new(),
            last_method: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Arc<ServerConfig> {
        &self.config
    }

    /// The client, once `initialize` was answered (handshake era).
    pub fn client(&self) -> Option<&ClientView> {
        match &self.handshake {
            Handshake::Negotiated { client, .. } => Some(client),
            Handshake::Awaiting => None,
        }
    }

    /// Whether the client sent `notifications/initialized`.
    pub fn is_initialized(&self) -> bool {
        matches!(
            self.handshake,
            Handshake::Negotiated {
                initialized: true,
                ..
            }
        )
    }

    /// The next event for the runtime.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.events.pop_front()
    }

    /// The next packet to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.peer.poll_transmit()
    }

    /// Gives back the memory its queues and in-flight tables hold beyond
    /// their contents. A session keeps what they grew to, so that a busy
    /// one allocates nothing per message; a runtime serving many sessions
    /// calls this once one has been quiet for a while, so that an idle
    /// session holds only its state (about 2 KiB less than after its
    /// first requests).
    pub fn shrink_to_fit(&mut self) {
        self.events.shrink_to_fit();
        self.peer.shrink_to_fit();
    }

    /// When [`ServerSession::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.peer.next_deadline()
    }

    /// Fails the server's requests whose time is up (each gets
    /// `notifications/cancelled` and a `TimedOut` response event).
    pub fn handle_timeout(&mut self, now: Instant) {
        for id in self.peer.expire(now) {
            let result = Err(crate::ResponseError::TimedOut);
            self.emit(Event::Response { id, result });
        }
    }

    /// Queues `event` for [`poll_event`](Self::poll_event), with room for
    /// one when the queue has none (see `push_back_lean`).
    fn emit(&mut self, event: ServerEvent) {
        crate::peer::push_back_lean(&mut self.events, event);
    }

    /// Ends the session: every request the server sent fails with `Closed`.
    pub fn close(&mut self) {
        for id in self.peer.drain_outbound() {
            self.emit(Event::Response {
                id,
                result: Err(crate::ResponseError::Closed),
            });
        }
    }

    /// How many client requests are being handled.
    pub fn requests_in_flight(&self) -> usize {
        self.peer.inbound_len()
    }

    /// How many server requests await answers.
    pub fn requests_awaiting_answers(&self) -> usize {
        self.peer.outbound_len()
    }

    /// How many log messages the rate limit dropped.
    pub fn log_messages_dropped(&self) -> u64 {
        self.log_rate.dropped()
    }

    /// Whether the client request `id` is still being handled (not answered,
    /// not cancelled).
    pub fn is_active(&self, id: &RequestId) -> bool {
        self.peer.active(id).is_some()
    }

    /// Answers the client request `id`. The result is fitted to the request's
    /// revision first. The answer to a cancelled request is dropped.
    ///
    /// # Errors
    ///
    /// [`SendError::UnknownRequest`] when `id` is not being handled.
    pub fn respond(
        &mut self,
        id: &RequestId,
        result: Result<ServerResult, ErrorObject>,
    ) -> Result<(), SendError> {
        // A cancelled request is still tracked; its answer is dropped
        // unencoded.
        self.peer.answer_with(id, |version| {
            let mut result = result?;
            result.fit_to(version);
            result
                .encode()
                .map_err(|e| ErrorObject::internal_error(e.to_string()))
        })
    }

    /// Sends a request to the client (handshake era), optionally on behalf
    /// of the client request `related` (so that it travels on that request's
    /// stream). Its answer arrives as an [`Event::Response`].
    ///
    /// # Errors
    ///
    /// When the session is not initialized (only `ping` may go earlier:
    /// LIFE-06), the method is not in the negotiated revision, or the client
    /// did not declare the capability it needs.
    pub fn send_request(
        &mut self,
        mut request: ServerRequest,
        options: RequestOptions,
        related: Option<&RequestId>,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        let method = request.method();
        // A stateless request has no session to carry a server request:
        // 2026-07-28 asks for input with multi round-trip results instead.
        // Without this the request would go out under the handshake
        // session's revision, to a client that never asked for it.
        if let Some(info) = related.and_then(|id| self.peer.active(id))
            && info.version.is_stateless()
        {
            let version = info.version;
            return Err(SendError::NotInRevision { method, version });
        }
        let client = match &self.handshake {
            Handshake::Negotiated {
                client,
                initialized,
            } => {
                if !initialized && method != "ping" {
                    return Err(SendError::NotInitialized);
                }
                client
            }
            Handshake::Awaiting => return Err(SendError::NotInitialized),
        };
        let version = client.version;
        if !method_info(method).is_some_and(|info| info.in_revision(version)) {
            return Err(SendError::NotInRevision { method, version });
        }
        check_server_request(&request, &client.capabilities)?;
        self.peer.check_outbound_room()?;
        request.fit_to(version);
        if options.progress {
            let (_, token) = self.peer.next_request_id();
            let meta = request.meta_mut().get_or_insert_with(Meta::new);
            meta.insert(
                meta_keys::PROGRESS_TOKEN,
                serde_json::to_value(&token).unwrap_or_default(),
            );
        }
        let params = request
            .encode_params()
            .map_err(|e| SendError::Serialize(e.to_string()))?;
        let related = related.cloned();
        Ok(self
            .peer
            .start_request(method, Some(params), options, related, now))
    }

    /// Stops waiting for a request the server sent and tells the client
    /// (`notifications/cancelled`). Returns whether it was pending.
    pub fn cancel(&mut self, id: &RequestId, reason: Option<String>) -> bool {
        self.peer.cancel_outbound(id, reason)
    }

    /// Sends a notification, optionally on behalf of the client request
    /// `related`. Use [`ServerSession::log`] and [`ServerSession::progress`]
    /// for log messages and progress, which have rules of their own.
    ///
    /// # Errors
    ///
    /// When there is no revision to speak (no handshake and no live
    /// `related` request), the client has not sent `notifications/initialized`
    /// yet (only log messages may go earlier: LIFE-06), the method is not in
    /// the revision, or a capability is missing.
    pub fn notify(
        &mut self,
        mut notification: ServerNotification,
        related: Option<&RequestId>,
    ) -> Result<(), SendError> {
        let method = notification.method();
        let version = self.version_for(related)?;
        // LIFE-06: between the answer to `initialize` and the client's
        // `notifications/initialized`, a handshake session gets log messages
        // only (LOG-07); a stateless request has no such phase.
        let awaiting_initialized = matches!(
            self.handshake,
            Handshake::Negotiated {
                initialized: false,
                ..
            }
        );
        if awaiting_initialized
            && version.has_handshake()
            && !matches!(notification, ServerNotification::LoggingMessage(_))
        {
            return Err(SendError::NotInitialized);
        }
        if !method_info(method).is_some_and(|info| info.in_revision(version)) {
            return Err(SendError::NotInRevision { method, version });
        }
        let empty = Default::default();
        let client_caps = self.client().map_or(&empty, |c| &*c.capabilities);
        check_server_notification(&notification, &self.config.capabilities, client_caps)?;
        notification.fit_to(version);
        let params = notification
            .encode_params()
            .map_err(|e| SendError::Serialize(e.to_string()))?;
        self.peer.notify_raw(method, Some(params), related.cloned());
        Ok(())
    }

    /// Sends a log message if the client wants it: at or above the level set
    /// with `logging/setLevel` (handshake era) or the related request's
    /// `io.modelcontextprotocol/logLevel` (2026-07-28, where a request
    /// without it gets no log messages), and within the rate limit.
    /// Returns whether it was sent.
    ///
    /// # Errors
    ///
    /// When the server did not declare `logging`, or there is no revision to speak.
    pub fn log(
        &mut self,
        params: LoggingMessageNotificationParams,
        related: Option<&RequestId>,
        now: Instant,
    ) -> Result<bool, SendError> {
        if !self.config.capabilities.supports_logging() {
            let method = "notifications/message";
            return Err(SendError::OwnCapabilityMissing {
                method,
                capability: "logging",
            });
        }
        let version = self.version_for(related)?;
        let threshold = match related.and_then(|id| self.peer.active(id)) {
            Some(info) if version.is_stateless() => match info.log_level {
                Some(level) => Some(level),
                None => return Ok(false),
            },
            _ => self.log_level,
        };
        if threshold.is_some_and(|min| params.level < min) || !self.log_rate.allow(now) {
            return Ok(false);
        }
        self.notify(
            ServerNotification::LoggingMessage(Box::new(params)),
            related,
        )?;
        Ok(true)
    }

    /// Reports progress on the client request `id`, if it asked for progress.
    ///
    /// # Errors
    ///
    /// When `id` is not live, carried no progress token, or `progress` does
    /// not exceed the last value sent (PROG-03).
    pub fn progress(
        &mut self,
        id: &RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<(), SendError> {
        let info = self.peer.active(id).ok_or(SendError::UnknownRequest)?;
        let token = info
            .progress_token
            .clone()
            .ok_or(SendError::NoProgressToken)?;
        let version = info.version;
        let mut params = ProgressNotificationParams::new(token, progress);
        params.total = total;
        params.message = message.filter(|_| version.has_progress_message());
        self.peer.progress(id, params)
    }

    /// The revision to speak for a message related to `related`, or for the
    /// session as a whole.
    fn version_for(&self, related: Option<&RequestId>) -> Result<ProtocolVersion, SendError> {
        if let Some(info) = related.and_then(|id| self.peer.active(id)) {
            return Ok(info.version);
        }
        match &self.handshake {
            Handshake::Negotiated { client, .. } => Ok(client.version),
            Handshake::Awaiting => Err(SendError::NotInitialized),
        }
    }
}
