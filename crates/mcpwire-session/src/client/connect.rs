//! How a client picks its revision: the `server/discover` probe, the
//! `initialize` handshake, and the fallbacks between them
//! (2026-07-28 versioning page, "Backward Compatibility").

use std::sync::Arc;
use std::time::Instant;

use mcpwire_jsonrpc::{ErrorObject, RawJson, RequestId};
use mcpwire_types::methods::ClientRequest;
use mcpwire_types::{
    DiscoverResult, ForRevision, InitializeRequestParams, InitializeResult, McpErrorCode, Meta,
    ProtocolVersion, RequestParams, UnsupportedProtocolVersionData,
};

use super::{ClientSession, EraChoice, State};
use crate::{Event, RequestOptions, ServerView};

impl ClientSession {
    /// Sends the first request: the probe, or `initialize` when the client
    /// speaks no stateless revision or is pinned to a handshake one.
    pub(super) fn start(&mut self, now: Instant) {
        let stateless = match self.config.era {
            EraChoice::Pinned(version) => version.is_stateless().then_some(version),
            EraChoice::Auto => self
                .config
                .versions
                .iter()
                .copied()
                .filter(|v| v.is_stateless())
                .max(),
        };
        match stateless {
            Some(version) => self.probe(version, now),
            None => self.initialize_newest(now),
        }
    }

    fn probe(&mut self, version: ProtocolVersion, now: Instant) {
        let mut meta = Meta::new();
        self.stamp_stateless(&mut meta, version);
        let params = RequestParams {
            meta: Some(meta),
            ..RequestParams::default()
        };
        let request = ClientRequest::Discover(Box::new(params));
        let options = RequestOptions::default().with_timeout(self.config.probe_timeout);
        match request.encode_params() {
            Ok(params) => {
                let id =
                    self.peer
                        .start_request("server/discover", Some(params), options, None, now);
                // An unanswered probe means a legacy server, to which the
                // client must send nothing but `ping` before `initialize`
                // (LIFE-05): so no `notifications/cancelled` for it on timeout.
                self.peer.never_cancel(&id);
                self.state = State::Probing { id };
            }
            Err(error) => self.fail(format!("could not encode server/discover: {error}")),
        }
    }

    /// Sends `initialize` with the newest handshake revision the client speaks.
    fn initialize_newest(&mut self, now: Instant) {
        let newest = match self.config.era {
            EraChoice::Pinned(version) => Some(version).filter(|v| v.has_handshake()),
            EraChoice::Auto => self
                .config
                .versions
                .iter()
                .copied()
                .filter(|v| v.has_handshake())
                .max(),
        };
        match newest {
            Some(version) => self.initialize(version, now),
            None => self.fail(
                "the server does not speak the stateless revision and the client speaks no other"
                    .to_owned(),
            ),
        }
    }

    fn initialize(&mut self, version: ProtocolVersion, now: Instant) {
        let mut capabilities = self.config.capabilities.clone();
        capabilities.fit_to(version);
        let mut info = self.config.info.clone();
        info.fit_to(version);
        let params = InitializeRequestParams::new(version, capabilities, info);
        match RawJson::from_serialize(&params) {
            Ok(params) => {
                // Never cancelled (CANCEL-02); its timeout is the default one.
                let options = RequestOptions::default();
                let id = self
                    .peer
                    .start_request("initialize", Some(params), options, None, now);
                self.state = State::Initializing { id };
            }
            Err(error) => self.fail(format!("could not encode initialize: {error}")),
        }
    }

    /// Whether `id` is the probe or `initialize`, whose answers the engine
    /// consumes itself.
    pub(super) fn is_connect_request(&self, id: &RequestId) -> bool {
        match &self.state {
            State::Probing { id: probe } | State::Initializing { id: probe } => probe == id,
            _ => false,
        }
    }

    /// Acts on the answer to the probe or `initialize`.
    pub(super) fn connect_answer(&mut self, outcome: Result<RawJson, ErrorObject>, now: Instant) {
        match (&self.state, outcome) {
            (State::Probing { .. }, Ok(raw)) => {
                match serde_json::from_str::<DiscoverResult>(raw.get()) {
                    Ok(result) => self.discovered(result, now),
                    // Not a DiscoverResult: not a modern server.
                    Err(_) => self.initialize_newest(now),
                }
            }
            (State::Probing { .. }, Err(error)) => self.probe_refused(&error, now),
            (State::Initializing { .. }, Ok(raw)) => {
                match serde_json::from_str::<InitializeResult>(raw.get()) {
                    Ok(result) => self.initialized(result),
                    Err(error) => self.fail(format!("the initialize result is malformed: {error}")),
                }
            }
            (State::Initializing { .. }, Err(error)) => {
                self.fail(format!(
                    "the server refused initialize: {} ({})",
                    error.message, error.code
                ));
            }
            _ => {}
        }
    }

    /// The probe was answered: speak the newest common revision.
    fn discovered(&mut self, result: DiscoverResult, now: Instant) {
        let ours: Vec<ProtocolVersion> = self
            .config
            .versions
            .iter()
            .copied()
            .filter(|v| self.config.speaks(*v))
            .collect();
        match result.best_common_version(&ours) {
            Some(version) if version.is_stateless() => {
                let view = ServerView {
                    version,
                    info: result.server_info().map(Arc::new),
                    capabilities: Arc::new(result.capabilities),
                    instructions: result.instructions,
                };
                self.established(view);
            }
            Some(version) => self.initialize(version, now),
            None => self.fail(format!(
                "no protocol revision in common: the server speaks {:?}",
                result.supported_versions
            )),
        }
    }

    /// The probe got an error. A recognized modern error (unsupported
    /// version, -32022) names what the server speaks; anything else means
    /// a handshake-era server.
    fn probe_refused(&mut self, error: &ErrorObject, now: Instant) {
        let modern = McpErrorCode::UnsupportedProtocolVersion.error_code();
        if error.code == modern {
            let supported = UnsupportedProtocolVersionData::from_error(error)
                .map(|data| data.supported)
                .unwrap_or_default();
            let spoken: Vec<ProtocolVersion> = supported
                .iter()
                .filter_map(|v| ProtocolVersion::parse(v).ok())
                .filter(|v| self.config.speaks(*v))
                .collect();
            // A stateless revision we speak: probe again with it, once (the
            // server may refuse a first request whatever it carried).
            let stateless = spoken.iter().copied().filter(|v| v.is_stateless()).max();
            if let Some(version) = stateless
                && !self.reprobed
            {
                self.reprobed = true;
                return self.probe(version, now);
            }
            let best = spoken.into_iter().filter(|v| v.has_handshake()).max();
            match best {
                Some(version) => self.initialize(version, now),
                None => self.fail(format!(
                    "no protocol revision in common: the server speaks {supported:?}"
                )),
            }
        } else if matches!(self.config.era, EraChoice::Pinned(_)) {
            self.fail(format!(
                "the server refused the pinned revision: {}",
                error.message
            ));
        } else {
            self.initialize_newest(now);
        }
    }

    /// `initialize` was answered: accept the revision the server chose or
    /// give up (LIFE-12).
    fn initialized(&mut self, result: InitializeResult) {
        let chosen = ProtocolVersion::parse(&result.protocol_version).ok();
        match chosen.filter(|v| v.has_handshake() && self.config.speaks(*v)) {
            Some(version) => {
                self.peer
                    .notify_raw("notifications/initialized", None, None);
                let view = ServerView {
                    version,
                    info: Some(Arc::new(result.server_info)),
                    capabilities: Arc::new(result.capabilities),
                    instructions: result.instructions,
                };
                self.established(view);
            }
            None => self.fail(format!(
                "the server chose protocol revision {:?}, which this client does not speak",
                result.protocol_version
            )),
        }
    }

    fn established(&mut self, view: ServerView) {
        self.state = State::Ready(view.clone());
        self.events.push_back(Event::Established(view));
    }

    pub(super) fn fail(&mut self, reason: String) {
        self.state = State::Failed(reason.clone());
        self.events.push_back(Event::Failed(reason));
    }

    /// A request timed out: the probe falls back to `initialize`;
    /// `initialize` fails the session; others fail alone.
    pub(super) fn timed_out(&mut self, id: RequestId, now: Instant) {
        match &self.state {
            State::Probing { id: probe } if *probe == id => {
                if matches!(self.config.era, EraChoice::Pinned(_)) {
                    self.fail("the server did not answer server/discover".to_owned());
                } else {
                    self.initialize_newest(now);
                }
            }
            State::Initializing { id: init } if *init == id => {
                self.fail("the server did not answer initialize in time".to_owned());
            }
            _ => {
                let result = Err(crate::ResponseError::TimedOut);
                self.events.push_back(Event::Response { id, result });
            }
        }
    }
}
