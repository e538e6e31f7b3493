//! The client side of the engine: connects in either era (probing with
//! `server/discover`, falling back to `initialize`), stamps 2026-07-28
//! requests with their `_meta`, and gates what it sends on the server's
//! declared capabilities.

mod connect;
mod extension;
mod inbound;

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire_jsonrpc::{ErrorObject, RequestId};
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ClientResult, ServerNotification, ServerRequest,
    ServerResult, method_info,
};
use mcpwire_types::{
    ClientCapabilities, ForRevision, Implementation, LoggingLevel, Meta, ProtocolVersion, meta_keys,
};

use crate::gating::check_client_request;
use crate::peer::Peer;
use crate::{Event, Limits, RequestOptions, SendError, ServerView, Timeouts, Transmit};

/// What the client engine reports: requests and notifications from the
/// server, answers to the client's requests, and the connection.
pub type ClientEvent = Event<ServerRequest, ServerNotification, ServerResult, ServerView>;

/// How a client picks the revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraChoice {
    /// Probe with `server/discover` (2026-07-28); fall back to `initialize`
    /// with the newest handshake revision on any error that is not a
    /// recognized modern one, or on no answer within the probe timeout.
    Auto,
    /// Speak exactly this revision, or fail.
    Pinned(ProtocolVersion),
}

/// Who the client is and how it connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The client's name and version.
    pub info: Implementation,
    /// What it offers the server.
    pub capabilities: ClientCapabilities,
    /// How it picks the revision.
    pub era: EraChoice,
    /// The revisions it speaks.
    pub versions: Vec<ProtocolVersion>,
    /// How long the `server/discover` probe may go unanswered before the
    /// client falls back to `initialize`.
    pub probe_timeout: Duration,
    /// For 2026-07-28 requests: the minimum level of log messages wanted
    /// (`io.modelcontextprotocol/logLevel`); `None` asks for none.
    pub log_level: Option<LoggingLevel>,
    /// Bounds on in-flight requests.
    pub limits: Limits,
    /// Timeouts of requests the client sends.
    pub timeouts: Timeouts,
    /// The request methods extensions add that the client may send, each
    /// with its extension: (method, extension).
    extension_methods: Vec<(&'static str, &'static str)>,
}

impl ClientConfig {
    /// A client called `name` at `version`, speaking every revision and
    /// declaring no optional capability (no sampling, elicitation or roots).
    pub fn named(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self::new(
            Implementation::new(name, version),
            ClientCapabilities::default(),
        )
    }

    /// A client speaking every revision, choosing automatically.
    pub fn new(info: Implementation, capabilities: ClientCapabilities) -> Self {
        Self {
            info,
            capabilities,
            era: EraChoice::Auto,
            versions: ProtocolVersion::ALL.to_vec(),
            probe_timeout: Duration::from_secs(10),
            log_level: None,
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            extension_methods: Vec::new(),
        }
    }

    /// Pins the revision.
    pub fn pinned(mut self, version: ProtocolVersion) -> Self {
        self.era = EraChoice::Pinned(version);
        self
    }

    /// Sets the probe timeout.
    pub fn with_probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Sets the timeouts of requests the client sends.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Asks 2026-07-28 servers for log messages at `level` and above.
    pub fn with_log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Declares the extension `extension` (under `capabilities.extensions`,
    /// with empty settings unless some are declared already) and lets the
    /// client send the request `methods` it adds with
    /// [`ClientSession::send_extension_request`].
    pub fn with_extension(mut self, extension: &'static str, methods: &[&'static str]) -> Self {
        self.capabilities
            .extensions
            .get_or_insert_with(serde_json::Map::new)
            .entry(extension)
            .or_insert_with(|| serde_json::json!({}));
        for method in methods {
            self.extension_methods.push((method, extension));
        }
        self
    }

    fn speaks(&self, version: ProtocolVersion) -> bool {
        match self.era {
            EraChoice::Pinned(pinned) => pinned == version,
            EraChoice::Auto => self.versions.contains(&version),
        }
    }
}

/// Where the connection stands.
#[derive(Debug)]
enum State {
    /// `server/discover` sent as a probe.
    Probing { id: RequestId },
    /// `initialize` sent.
    Initializing { id: RequestId },
    /// Connected.
    Ready(ServerView),
    /// No revision in common, or the handshake failed.
    Failed(String),
}

/// One client connection to a server.
///
/// Sans-IO like [`ServerSession`](crate::ServerSession): the first packets
/// (the probe or `initialize`) are queued by [`ClientSession::new`]; wait for
/// [`Event::Established`] before sending requests.
#[derive(Debug)]
pub struct ClientSession {
    config: Arc<ClientConfig>,
    peer: Peer,
    state: State,
    /// Whether the probe was already repeated after an unsupported-version
    /// answer (at most once, so two peers cannot loop).
    reprobed: bool,
    events: VecDeque<ClientEvent>,
    /// The pending requests of extension methods, answered untyped.
    extension_requests: HashSet<RequestId>,
}

impl ClientSession {
    /// Starts connecting: queues the probe or `initialize`.
    pub fn new(config: Arc<ClientConfig>, now: Instant) -> Self {
        let peer = Peer::new(config.limits, config.timeouts);
        let mut session = Self {
            config,
            peer,
            state: State::Failed(String::new()),
            reprobed: false,
            events: VecDeque::new(),
            extension_requests: HashSet::new(),
        };
        session.start(now);
        session
    }

    /// The server, once connected.
    pub fn server(&self) -> Option<&ServerView> {
        match &self.state {
            State::Ready(view) => Some(view),
            _ => None,
        }
    }

    /// Why the session failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        match &self.state {
            State::Failed(reason) => Some(reason),
            _ => None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Arc<ClientConfig> {
        &self.config
    }

    /// The next event for the runtime.
    pub fn poll_event(&mut self) -> Option<ClientEvent> {
        self.events.pop_front()
    }

    /// The next packet to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.peer.poll_transmit()
    }

    /// When [`ClientSession::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.peer.next_deadline()
    }

    /// Fails requests whose time is up; an unanswered probe falls back to
    /// `initialize`.
    pub fn handle_timeout(&mut self, now: Instant) {
        for id in self.peer.expire(now) {
            self.extension_requests.remove(&id);
            self.timed_out(id, now);
        }
    }

    /// Ends the session: every pending request fails with `Closed`, and a
    /// connection still being set up fails with [`Event::Failed`].
    pub fn close(&mut self) {
        self.extension_requests.clear();
        for id in self.peer.drain_outbound() {
            // The probe and `initialize` are the engine's own requests: the
            // runtime never saw their ids, so it learns of the failed
            // connection instead of an answer to an unknown request.
            if self.is_connect_request(&id) {
                self.fail("the session closed before it was connected".to_owned());
                continue;
            }
            self.events.push_back(Event::Response {
                id,
                result: Err(crate::ResponseError::Closed),
            });
        }
    }

    /// How many requests await answers.
    pub fn requests_awaiting_answers(&self) -> usize {
        self.peer.outbound_len()
    }

    /// How many server requests are being handled.
    pub fn requests_in_flight(&self) -> usize {
        self.peer.inbound_len()
    }

    /// Sends a request to the server; its answer arrives as an
    /// [`Event::Response`]. In 2026-07-28 its `_meta` gets the protocol
    /// version, the client's capabilities and identity, and the log level.
    ///
    /// # Errors
    ///
    /// Before the session is established (only `ping` may go earlier:
    /// LIFE-05), when the method is not in the revision, or when the server
    /// did not declare the capability it needs.
    pub fn send_request(
        &mut self,
        mut request: ClientRequest,
        options: RequestOptions,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        let method = request.method();
        let version = match &self.state {
            State::Ready(view) => {
                check_client_request(&request, view.version, &view.capabilities)?;
                view.version
            }
            State::Failed(reason) => return Err(SendError::Failed(reason.clone())),
            _ if method == "ping" => ProtocolVersion::LATEST_HANDSHAKE,
            _ => return Err(SendError::NotInitialized),
        };
        let known = method_info(method)
            .is_some_and(|info| info.direction.client_sends() && info.in_revision(version));
        if !known || method == "initialize" {
            return Err(SendError::NotInRevision { method, version });
        }
        self.peer.check_outbound_room()?;
        request.fit_to(version);
        if version.is_stateless() {
            let meta = request.meta_mut().get_or_insert_with(Meta::new);
            self.stamp_stateless(meta, version);
        }
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
        Ok(self
            .peer
            .start_request(method, Some(params), options, None, now))
    }

    /// Stops waiting for a request and tells the server
    /// (`notifications/cancelled`). Returns whether it was pending and could
    /// be cancelled: `initialize` never can (CANCEL-02) and stays pending.
    pub fn cancel(&mut self, id: &RequestId, reason: Option<String>) -> bool {
        self.extension_requests.remove(id);
        self.peer.cancel_outbound(id, reason)
    }

    /// Sends a notification to the server.
    ///
    /// # Errors
    ///
    /// Before the session is established, when the method is not in the
    /// revision, or when the client did not declare `roots.listChanged` for
    /// `notifications/roots/list_changed`.
    pub fn notify(&mut self, mut notification: ClientNotification) -> Result<(), SendError> {
        let method = notification.method();
        let version = match &self.state {
            State::Ready(view) => view.version,
            _ => return Err(SendError::NotInitialized),
        };
        if !method_info(method).is_some_and(|info| info.in_revision(version)) {
            return Err(SendError::NotInRevision { method, version });
        }
        if matches!(notification, ClientNotification::RootsListChanged(_))
            && !self.config.capabilities.supports_roots_list_changed()
        {
            let capability = "roots.listChanged";
            return Err(SendError::OwnCapabilityMissing { method, capability });
        }
        notification.fit_to(version);
        let params = notification
            .encode_params()
            .map_err(|e| SendError::Serialize(e.to_string()))?;
        self.peer.notify_raw(method, Some(params), None);
        Ok(())
    }

    /// Answers the server request `id` (sampling, elicitation, roots). The
    /// answer to a cancelled request is dropped.
    ///
    /// # Errors
    ///
    /// [`SendError::UnknownRequest`] when `id` is not being handled.
    pub fn respond(
        &mut self,
        id: &RequestId,
        result: Result<ClientResult, ErrorObject>,
    ) -> Result<(), SendError> {
        // A cancelled request's answer is dropped unencoded.
        self.peer.answer_with(id, |version| {
            let mut result = result?;
            result.fit_to(version);
            result
                .encode()
                .map_err(|e| ErrorObject::internal_error(e.to_string()))
        })
    }

    /// Reports progress on the server request `id`, if it asked for progress.
    ///
    /// # Errors
    ///
    /// As [`ServerSession::progress`](crate::ServerSession::progress).
    pub fn progress(
        &mut self,
        id: &RequestId,
        progress: f64,
        total: Option<f64>,
    ) -> Result<(), SendError> {
        let info = self.peer.active(id).ok_or(SendError::UnknownRequest)?;
        let token = info
            .progress_token
            .clone()
            .ok_or(SendError::NoProgressToken)?;
        let mut params = mcpwire_types::ProgressNotificationParams::new(token, progress);
        params.total = total;
        self.peer.progress(id, params)
    }

    /// Writes the per-request fields of 2026-07-28 into `meta`.
    fn stamp_stateless(&self, meta: &mut Meta, version: ProtocolVersion) {
        let mut capabilities = self.config.capabilities.clone();
        capabilities.fit_to(version);
        let mut info = self.config.info.clone();
        info.fit_to(version);
        meta.insert(meta_keys::PROTOCOL_VERSION, version.as_str());
        meta.insert(
            meta_keys::CLIENT_CAPABILITIES,
            serde_json::to_value(capabilities).unwrap_or_default(),
        );
        meta.insert(
            meta_keys::CLIENT_INFO,
            serde_json::to_value(info).unwrap_or_default(),
        );
        if let Some(level) = self.config.log_level {
            meta.insert(meta_keys::LOG_LEVEL, level.as_str());
        }
    }
}
