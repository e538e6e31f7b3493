//! The session driver: one task owning a `ServerSession` and a transport,
//! feeding one into the other, running each request's handler (right here
//! when it finishes in its first poll, in a task of its own when it has to
//! wait), applying what handlers send back and writing the answers.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Instant;

use mcpwire_jsonrpc::{
    ErrorObject, Inbound, Message, RequestId, Transport, TransportContext, TransportReceiver,
    TransportSender,
};
use mcpwire_session::{
    ClientCall, Event, ExtensionCall, IncomingRequest, ServerEvent, ServerSession,
};
use mcpwire_types::ResourceUpdatedNotificationParams;
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ClientResult, ServerNotification, ServerResult,
};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::call::{Handling, Work};
use crate::change_log::{ChangeCursor, Missed};
use crate::context::{Command, SessionShared};
use crate::listen::Listens;
use crate::server::Change;
use crate::tool_call::ToolCall;
use crate::{Context, PeerRequestError, ServeError, Server};
use mcpwire_session::CancelHandle;
use mcpwire_session::Outbox;

pub(crate) mod waits;
use waits::{CommandInbox, QuietWatch, fired, next_command, ready_now};

/// How many handler messages may queue before handlers wait (back-pressure).
const COMMAND_QUEUE: usize = 256;

/// Tables keyed by the client's request ids: the engine's hasher, keyed
/// once per process (it resists chosen collisions, and a table holds no
/// key of its own).
type IdMap<K, V> = HashMap<K, V, mcpwire_session::ProcessKeyed>;

/// A request being handled by its own task.
struct Running {
    task: JoinHandle<()>,
    cancel: CancelHandle,
}

/// Per-session state the engine does not keep: running handlers, requests
/// the server sent on behalf of handlers, resource subscriptions (handshake
/// era) and open `subscriptions/listen` requests (2026-07-28).
///
/// An idle session holds this for its whole life, so what most sessions
/// never use is made on first use ([`Rare`], the command channel, the
/// scope), and what a quiet session no longer uses is given back
/// ([`Driver::shrink_to_fit`]).
struct Driver {
    server: Server,
    session: ServerSession,
    /// Where handlers talk back, made on first use ([`Driver::commands`]).
    commands: Option<mpsc::Sender<Command>>,
    /// What the requests' contexts share, made on first use ([`Driver::shared`]).
    shared: Option<std::sync::Arc<SessionShared>>,
    command_rx: Option<CommandInbox>,
    running: IdMap<RequestId, Running>,
    /// What the transport knew of the request of the packet being
    /// received (on HTTP, its POST's extensions), for the request's
    /// `Context`; a batch's go to [`Rare::batch_contexts`].
    transport_context: Option<(RequestId, TransportContext)>,
    /// The tables few sessions use, made on first use ([`Driver::rare`]).
    rare: Option<Box<Rare>>,
    /// A random name for this session, to which its tasks are bound; made
    /// with the first request's context, then kept.
    scope: Option<std::sync::Arc<str>>,
    /// Packets received so far: a session that received none for
    /// [`SHRINK_AFTER`] is quiet.
    received: u64,
}

/// The driver's tables that most sessions never use.
#[derive(Default)]
struct Rare {
    replies: IdMap<RequestId, oneshot::Sender<Result<ClientResult, PeerRequestError>>>,
    /// The requests to the client each client request's handler sent, so
    /// that they are cancelled when that request is (a handler's questions
    /// outlive it no longer).
    sent_for: IdMap<RequestId, Vec<RequestId>>,
    subscriptions: HashSet<String>,
    listens: Listens,
    /// What the transport knew of each request of a batch being received.
    batch_contexts: IdMap<RequestId, TransportContext>,
    /// Runs the application's hook on `notifications/roots/list_changed`.
    roots: crate::roots::RootsWatcher,
}

impl Rare {
    fn shrink_to_fit(&mut self) {
        self.replies.shrink_to_fit();
        self.sent_for.shrink_to_fit();
        self.subscriptions.shrink_to_fit();
        self.listens.shrink_to_fit();
        self.batch_contexts.shrink_to_fit();
    }

    /// Whether it holds nothing a session needs kept (then it is dropped
    /// when the session is quiet, and made again if needed).
    fn is_unused(&self) -> bool {
        self.replies.is_empty()
            && self.sent_for.is_empty()
            && self.subscriptions.is_empty()
            && self.listens.len() == 0
            && self.batch_contexts.is_empty()
            && !self.roots.is_running()
    }
}

/// How long a session receives nothing before it gives back the spare
/// room of its queues and tables ([`Driver::shrink_to_fit`]). A busy
/// session keeps it (it would only allocate it again); one that went quiet
/// holds only its state, which is what many idle sessions cost.
const SHRINK_AFTER: std::time::Duration = std::time::Duration::from_millis(100);

/// The ids of the requests in `inbound`.
fn request_ids(inbound: &Inbound) -> Vec<RequestId> {
    let id = |message: &Message| match message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    match inbound {
        Inbound::Single(message) => id(message).into_iter().collect(),
        Inbound::Batch(items) => items.iter().flatten().filter_map(id).collect(),
        Inbound::Invalid(_) => Vec::new(),
    }
}

impl Server {
    /// Serves one client over `transport` until the client closes it.
    ///
    /// Requests run concurrently (a handler that has to wait goes on in a
    /// task of its own; one that finishes in its first poll is answered at
    /// once, and holds up the session only while it is polled: a handler
    /// that computes for long without awaiting should hand the work to
    /// `tokio::task::spawn_blocking`); notifications are applied in the
    /// order they arrived. When the client stops sending,
    /// requests already received are still answered (for at most the
    /// builder's drain timeout); then running handlers are cancelled.
    ///
    /// The future does not borrow the server, so it can be made before it
    /// is spawned: `let serving = server.serve(transport);
    /// tokio::spawn(serving)` holds the transport once, where an `async
    /// move` block around `server.serve(transport)` holds it twice for the
    /// session's life (its capture, and the future's copy).
    ///
    /// # Errors
    ///
    /// When the transport fails.
    pub fn serve<T: Transport>(
        &self,
        transport: T,
    ) -> impl Future<Output = Result<(), ServeError>> + use<T> {
        // Everything is made here and moved into the future once: an
        // `async fn` would keep its argument beside what it was split into.
        let (sender, receiver) = transport.split();
        let mut serving = Serving {
            changes: self.inner.changes.cursor(),
            driver: Driver::new(self.clone()),
            outbox: Outbox::new(sender),
            receiver,
        };
        async move {
            let drain_timeout = serving.driver.server.inner.drain_timeout;
            serving.run().await?;
            // The last answers go out before the sending half closes. Boxed:
            // made once at the end, it would otherwise widen the future
            // every idle session holds.
            tokio::time::timeout(drain_timeout, Box::pin(serving.outbox.finish()))
                .await
                .unwrap_or(Ok(()))
                .map_err(ServeError::Transport)
        }
    }
}

/// One session being served: the driver, and the transport's halves.
struct Serving<S: TransportSender, R> {
    driver: Driver,
    outbox: Outbox<S>,
    receiver: R,
    changes: ChangeCursor,
}

impl<S: TransportSender, R: TransportReceiver> Serving<S, R> {
    /// Serves until the client stops sending and what it asked is answered
    /// (`Ok`: the outbox is then to be finished) or the transport fails.
    async fn run(&mut self) -> Result<(), ServeError> {
        let Self {
            driver,
            outbox,
            receiver,
            changes,
        } = self;
        let drain_timeout = driver.server.inner.drain_timeout;
        let max_backlog_bytes = driver.server.inner.config.limits.max_backlog_bytes;
        let max_backlog_wait = driver.server.inner.config.limits.max_backlog_wait;
        // Back-pressure: while the client does not read what we send,
        // stop reading what it sends (each request would add an answer),
        // by count and by bytes (a few large answers are as much memory
        // as many small ones).
        let room = |outbox: &Outbox<_>| !outbox.is_backed_up(max_backlog_bytes);
        // One timer for the engine's next deadline, the end of draining and
        // the shrinking of a quiet session, moved rather than made anew
        // each turn, and held only while one of them is due (an idle
        // session holds none).
        let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
        let mut timer_at: Option<tokio::time::Instant> = None;
        // The waker the timer was last polled with (see `fired`).
        let mut timer_waker: Option<std::task::Waker> = None;
        // Set when the client stops sending: requests already received are
        // still answered, until they finish or the drain time is up.
        let mut draining: Option<tokio::time::Instant> = None;
        let mut quiet = QuietWatch::default();
        let outcome = 'serve: loop {
            driver.drain_events();
            while let Some(transmit) = driver.session.poll_transmit() {
                outbox.push(transmit);
            }
            if draining.is_some() && driver.running.is_empty() {
                break Ok(());
            }
            let deadline = driver
                .session
                .poll_timeout()
                .map(tokio::time::Instant::from_std);
            // Reading has stopped while the client reads nothing, but
            // handlers' progress and change announcements still queue: a
            // client that takes none of it for `max_backlog_wait` loses
            // the session.
            let stalled_at = outbox
                .stall_deadline(max_backlog_bytes, max_backlog_wait, now)
                .map(tokio::time::Instant::from_std);
            if stalled_at.is_some_and(|at| at <= tokio::time::Instant::now()) {
                break Err(ServeError::Transport(
                    format!(
                        "the client took none of the messages sent to it for {max_backlog_wait:?}"
                    )
                    .into(),
                ));
            }
            let wake = [deadline, draining, quiet.arm(driver.received), stalled_at]
                .into_iter()
                .flatten()
                .min();
            match (wake, &mut timer) {
                (None, _) => timer = None,
                (Some(wake), Some(timer)) if timer_at != Some(wake) => {
                    timer.as_mut().reset(wake);
                    timer_waker = None;
                }
                (Some(_), Some(_)) => {}
                (Some(wake), None) => {
                    timer = Some(Box::pin(tokio::time::sleep_until(wake)));
                    timer_waker = None;
                }
            }
            timer_at = wake;
            // What is queued usually goes out at once (a pipe, a POST's
            // stream): written here, not on a turn of its own, which would
            // first poll every other branch again (~750 instructions of an
            // HTTP call's ~42,000). Polled without a waker, like
            // `ready_now`: a write that has to wait is polled again by the
            // turn below, which registers the task.
            if outbox.busy()
                && matches!(
                    outbox.poll_advance(&mut std::task::Context::from_waker(
                        std::task::Waker::noop()
                    )),
                    Poll::Ready(Err(()))
                )
            {
                break Err(ServeError::Transport(outbox.failure()));
            }
            let may_read = draining.is_none() && room(outbox);
            tokio::select! {
                advanced = outbox.advance(), if outbox.busy() => {
                    if advanced.is_err() {
                        break Err(ServeError::Transport(outbox.failure()));
                    }
                }
                inbound = receiver.recv(), if may_read => {
                    // What the transport already holds is taken in one go
                    // (at most `READ_BATCH` packets, and never past the
                    // backlog bound), so that the answers to it go out
                    // together, with one write. Each packet is served
                    // before the next is taken: a handler that finishes at
                    // once frees its request's memory before the next
                    // request's is allocated, which keeps the allocator on
                    // its fast path (64 requests decoded before any is
                    // served cost ~1,500 more instructions per call).
                    let mut next = Some(inbound);
                    let mut taken = 0;
                    // The packets taken here were all there at once: one
                    // reading of the clock is when each was received (a
                    // reading per packet was ~1% of a stdio call's CPU at
                    // 64 in flight).
                    let received_at = now();
                    while let Some(inbound) = next.take() {
                        match inbound {
                            Some(Ok(inbound)) => {
                                driver.receive(receiver, inbound, received_at);
                                driver.drain_events();
                                driver.forget_transport_contexts();
                                while let Some(transmit) = driver.session.poll_transmit() {
                                    outbox.push(transmit);
                                }
                            }
                            Some(Err(error)) => break 'serve Err(ServeError::Transport(Box::new(error))),
                            None => {
                                draining = Some(tokio::time::Instant::now() + drain_timeout);
                            }
                        }
                        taken += 1;
                        if draining.is_none()
                            && taken < READ_BATCH
                            && room(outbox)
                            && receiver.may_have_more()
                        {
                            next = ready_now(receiver.recv());
                        }
                    }
                }
                Some(command) = next_command(&mut driver.command_rx) => match command {
                    // Only the transport knows the request's connection;
                    // the closing (a bus publish) runs beside the session.
                    Command::CloseStream { id, reply } => {
                        let closing = receiver.close_stream(&id);
                        tokio::spawn(async move {
                            let _ = reply.send(closing.await);
                        });
                    }
                    command => driver.apply(command),
                },
                change = std::future::poll_fn(|cx| changes.poll_change(cx)) => driver.announce(change),
                () = fired(&mut timer, &mut timer_waker), if timer_at.is_some() => {
                    // A fired timer stays ready until it is set again.
                    timer_at = None;
                    let now = tokio::time::Instant::now();
                    if draining.is_some_and(|end| end <= now) {
                        break Ok(());
                    }
                    if deadline.is_some_and(|deadline| deadline <= now) {
                        driver.session.handle_timeout(now.into_std());
                    }
                    if quiet.due(now, driver.received) {
                        driver.shrink_to_fit(outbox);
                    }
                }
            }
        };
        driver.shut_down();
        while let Some(transmit) = driver.session.poll_transmit() {
            outbox.push(transmit);
        }
        outcome
    }
}

/// How many inbound packets the driver takes from the transport in a row
/// when they are there without waiting, before it writes their answers.
///
/// Small enough that a peer with many requests in flight gets the first
/// answers while the rest are served, and sends its next requests
/// meanwhile: with 64 (a whole window of the stdio benchmark's client)
/// the two sides took turns, each idle while the other worked, and a
/// server on the other core was woken from deep idle for every batch.
/// Measured with 64 stdio calls in flight (session 20, `stdio-one`): 64
/// made ~300,000 calls/s, 32 ~500,000, 16 ~530,000, 8 ~430,000; the CPU
/// per call barely moves (2.2-2.5 µs), one write per 16 answers instead of
/// 64 costing about what the shorter waits save.
const READ_BATCH: usize = 16;

/// The engine's clock: tokio's, so that paused-time tests control it.
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

impl Driver {
    fn new(server: Server) -> Self {
        Self {
            session: ServerSession::new(server.inner.config.clone()),
            server,
            commands: None,
            shared: None,
            command_rx: None,
            running: IdMap::default(),
            transport_context: None,
            rare: None,
            scope: None,
            received: 0,
        }
    }

    /// The tables few sessions use, made now if they are not yet.
    fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Gives back the spare room of the engine's and the driver's queues
    /// and tables, and what no handler uses any more (the command channel,
    /// the rare tables), once the session has been quiet for
    /// [`SHRINK_AFTER`]: an idle session then holds its state and little
    /// else. What is given back is made again on the next use.
    fn shrink_to_fit<S: TransportSender>(&mut self, outbox: &mut Outbox<S>) {
        self.session.shrink_to_fit();
        outbox.shrink_to_fit();
        self.running.shrink_to_fit();
        if let Some(rare) = &mut self.rare {
            if rare.is_unused() {
                self.rare = None;
            } else {
                rare.shrink_to_fit();
            }
        }
        // The channel goes when nothing but the driver can send on it (no
        // context, no handler's task, no hook holds a sender) and nothing
        // waits in it: tokio allocates a block of 32 commands with it.
        let unshared = self
            .shared
            .as_ref()
            .is_none_or(|shared| std::sync::Arc::strong_count(shared) == 1);
        let senders = usize::from(self.shared.is_some()) + 1;
        let idle_channel = self.commands.as_ref().is_some_and(|commands| {
            commands.strong_count() == senders
                && self
                    .command_rx
                    .as_ref()
                    .is_some_and(|inbox| inbox.receiver.is_empty())
        });
        if unshared && idle_channel {
            self.shared = None;
            self.commands = None;
            self.command_rx = None;
        }
    }

    /// Hands one inbound packet, received `at`, to the engine, keeping what
    /// the transport knew of each request in it.
    fn receive<R: TransportReceiver>(&mut self, receiver: &mut R, inbound: Inbound, at: Instant) {
        self.received += 1;
        if let Inbound::Single(Message::Request(request)) = &inbound {
            // The common case, without collecting ids nor a table.
            self.transport_context = receiver
                .request_context(&request.id)
                .map(|context| (request.id.clone(), context));
        } else {
            for id in request_ids(&inbound) {
                if let Some(context) = receiver.request_context(&id) {
                    self.rare().batch_contexts.insert(id, context);
                }
            }
        }
        self.session.handle_inbound(inbound, at);
    }

    /// Drops what the transport knew of the requests of the packet just
    /// received that did not start: the engine answered them itself
    /// (`initialize`, `ping`) or refused them. Every request it releases
    /// is started while its packet is received.
    fn forget_transport_contexts(&mut self) {
        self.transport_context = None;
        if let Some(rare) = &mut self.rare {
            rare.batch_contexts.clear();
        }
    }

    fn drain_events(&mut self) {
        while let Some(event) = self.session.poll_event() {
            self.on_event(event);
        }
    }

    fn on_event(&mut self, event: ServerEvent) {
        match event {
            Event::Request(request) => self.start(request),
            Event::ExtensionRequest(request) => self.start_extension(request),
            Event::Cancelled { id, reason } => {
                tracing::debug!(%id, reason = reason.as_deref().unwrap_or(""), "request cancelled by the client");
                if let Some(rare) = &mut self.rare {
                    rare.listens.remove(&id);
                }
                if let Some(running) = self.running.remove(&id) {
                    running.cancel.cancel();
                    running.task.abort();
                }
                self.cancel_sent_for(&id);
                // The engine drops the answer; this frees its entry.
                let _ = self
                    .session
                    .respond(&id, Err(ErrorObject::internal_error("cancelled")));
            }
            Event::Response { id, result } => {
                let reply = self.rare.as_mut().and_then(|rare| rare.replies.remove(&id));
                if let Some(reply) = reply {
                    let _ = reply.send(result.map_err(PeerRequestError::Failed));
                }
            }
            Event::Established(client) => {
                tracing::info!(version = %client.version, client = %client.info.name, "session initialized");
            }
            Event::Notification(notification) => {
                tracing::debug!(
                    method = notification.method(),
                    "notification from the client"
                );
                if matches!(notification, ClientNotification::RootsListChanged(_)) {
                    self.roots_changed();
                }
            }
            // The server asks for no progress on its own requests, and
            // `Failed` is a client-side event.
            _ => {}
        }
    }

    /// Hands a `notifications/roots/list_changed` to the application's
    /// hook, if it set one, behind the ones before it.
    fn roots_changed(&mut self) {
        let (Some(hook), Some(client)) = (&self.server.inner.roots_changed, self.session.client())
        else {
            return;
        };
        let (hook, version) = (hook.clone(), client.version);
        let capabilities = client.capabilities.clone();
        let commands = self.commands().clone();
        self.rare()
            .roots
            .changed(&hook, &commands, version, capabilities);
    }

    /// Where handlers talk back to the driver. The channel is made on first use: tokio allocates
    /// a block of 32 slots with each channel, and a session that never runs a handler (an idle
    /// one) then holds none.
    fn commands(&mut self) -> &mpsc::Sender<Command> {
        let receiver = &mut self.command_rx;
        self.commands.get_or_insert_with(|| {
            let (commands, received) = mpsc::channel(COMMAND_QUEUE);
            *receiver = Some(CommandInbox {
                receiver: received,
                registered: None,
            });
            commands
        })
    }

    /// What every request's context shares (a reference to it), made with
    /// the first request.
    fn shared(&mut self) -> std::sync::Arc<SessionShared> {
        if let Some(shared) = &self.shared {
            return std::sync::Arc::clone(shared);
        }
        let shared = std::sync::Arc::new(SessionShared {
            commands: self.commands().clone(),
            server: self.server.clone(),
            scope: std::sync::Arc::clone(self.scope.get_or_insert_with(session_scope)),
        });
        self.shared = Some(std::sync::Arc::clone(&shared));
        shared
    }

    /// Starts handling a request: per-session methods right here, the
    /// rest in a task of its own.
    fn start(&mut self, incoming: IncomingRequest<ClientCall>) {
        let IncomingRequest {
            id,
            request:
                ClientCall {
                    request,
                    params: raw_params,
                },
            context,
        } = incoming;
        let version = context.version;
        match &request {
            ClientRequest::Subscribe(params) => {
                let limit = self.server.inner.config.limits.max_subscriptions;
                let known = self.server.catalog().knows_uri(&params.uri);
                let subscriptions = &mut self.rare().subscriptions;
                let result = if subscriptions.len() >= limit && !subscriptions.contains(&params.uri)
                {
                    Err(too_many_subscriptions(limit))
                } else if known {
                    subscriptions.insert(params.uri.clone());
                    Ok(ServerResult::Subscribe(Box::default()))
                } else {
                    Err(crate::dispatch::resource_not_found(version, &params.uri))
                };
                let _ = self.session.respond(&id, result);
                return;
            }
            // Held open by the driver, not a task: it ends when the client
            // cancels it or the session ends.
            ClientRequest::SubscriptionsListen(params) => {
                let limit = self.server.inner.config.limits.max_subscriptions;
                if self.rare.as_ref().map_or(0, |rare| rare.listens.len()) >= limit {
                    let _ = self
                        .session
                        .respond(&id, Err(too_many_subscriptions(limit)));
                    return;
                }
                let capabilities = &self.server.inner.config.capabilities;
                let rare = self.rare.get_or_insert_with(Box::default);
                rare.listens.open(
                    &mut self.session,
                    id,
                    &params.notifications,
                    capabilities,
                    limit,
                );
                return;
            }
            ClientRequest::Unsubscribe(params) => {
                if let Some(rare) = &mut self.rare {
                    rare.subscriptions.remove(&params.uri);
                }
                let _ = self
                    .session
                    .respond(&id, Ok(ServerResult::Unsubscribe(Box::default())));
                return;
            }
            _ => {}
        }
        let span = tracing::info_span!(
            "mcp.request",
            method = request.method(),
            id = %id,
            version = %version,
            name = request_name(&request).unwrap_or_default(),
            traceparent = context.trace.traceparent.as_deref().unwrap_or_default(),
        );
        let (cancel, cancellation) = CancelHandle::new();
        let meta = request.meta().cloned();
        let ctx = Context::new(id.clone(), context, meta, cancellation, self.shared())
            .with_transport(self.take_transport_context(&id));
        let server = self.server.clone();
        let work = match request {
            // Only a tool call reads its raw params again (`ToolArguments`);
            // the others let them go now rather than hold them while they run.
            ClientRequest::CallTool(params) => {
                Work::Tool(ToolCall::new(server, params, raw_params, ctx))
            }
            request => Work::boxed(async move { server.dispatch(request, ctx).await }),
        };
        let mut handling = Handling::new(id.clone(), span, work);
        // Most handlers finish at once: answered here, the call costs no
        // task and no hand-off. One that waits goes on in a task of its own.
        if let Poll::Ready(answer) = handling.poll_now() {
            self.answer_now(answer, cancel);
            return;
        }
        let commands = self.commands().clone();
        let task = tokio::spawn(async move {
            let answer = handling.await;
            let _ = commands.send(answer).await;
        });
        self.running.insert(id, Running { task, cancel });
    }

    /// What the transport knew of request `id` (nothing over stdio: the
    /// table is then empty and not even hashed into).
    fn take_transport_context(&mut self, id: &RequestId) -> Option<TransportContext> {
        if let Some((known, _)) = &self.transport_context
            && known == id
        {
            return self.transport_context.take().map(|(_, context)| context);
        }
        let rare = self.rare.as_mut()?;
        if rare.batch_contexts.is_empty() {
            return None;
        }
        rare.batch_contexts.remove(id)
    }

    /// Applies the answer of a handler that finished in its first poll,
    /// behind what it sent before finishing: when its progress, logs or
    /// notifications still wait in the command queue, the answer queues
    /// behind them (and counts as running until it is applied, so that a
    /// draining session waits for it).
    fn answer_now(&mut self, answer: Command, cancel: CancelHandle) {
        let queue_empty = self
            .commands
            .as_ref()
            .is_none_or(|commands| commands.capacity() == commands.max_capacity());
        if queue_empty {
            self.apply(answer);
            return;
        }
        let id = match &answer {
            Command::Respond { id, .. } | Command::RespondRaw { id, .. } => id.clone(),
            _ => return self.apply(answer),
        };
        let commands = self.commands().clone();
        let task = tokio::spawn(async move {
            let _ = commands.send(answer).await;
        });
        self.running.insert(id, Running { task, cancel });
    }

    /// Starts serving a request of an extension's method (the tasks
    /// extension of 2026-07-28) in a task of its own.
    fn start_extension(&mut self, incoming: IncomingRequest<ExtensionCall>) {
        let IncomingRequest {
            id,
            request,
            context,
        } = incoming;
        let span = tracing::info_span!(
            "mcp.request",
            method = request.method.as_str(),
            id = %id,
            version = %context.version,
        );
        let (cancel, _cancellation) = CancelHandle::new();
        let server = self.server.clone();
        let commands = self.commands().clone();
        let task_id = id.clone();
        let transport = self.take_transport_context(&id);
        let task = tokio::spawn(
            async move {
                let result = server
                    .serve_extension(request, context.version, transport.as_deref())
                    .await;
                let _ = commands
                    .send(Command::RespondRaw {
                        id: task_id,
                        result,
                    })
                    .await;
            }
            .instrument(span),
        );
        self.running.insert(id, Running { task, cancel });
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::Respond { id, result } => {
                self.forget_running(&id);
                self.cancel_sent_for(&id);
                if let Err(error) = self.session.respond(&id, result) {
                    tracing::debug!(%id, %error, "answer not sent");
                }
            }
            Command::RespondRaw { id, result } => {
                self.forget_running(&id);
                self.cancel_sent_for(&id);
                if let Err(error) = self.session.respond_raw(&id, result) {
                    tracing::debug!(%id, %error, "answer not sent");
                }
            }
            Command::Progress {
                id,
                progress,
                total,
                message,
            } => {
                if let Err(error) = self.session.progress(&id, progress, total, message) {
                    tracing::debug!(%id, %error, "progress not sent");
                }
            }
            Command::Log { params, related } => {
                if let Err(error) = self.session.log(params, related.as_ref(), now()) {
                    tracing::debug!(%error, "log message not sent");
                }
            }
            Command::Notify {
                notification,
                related,
            } => {
                if let Err(error) = self.session.notify(notification, related.as_ref()) {
                    tracing::debug!(%error, "notification not sent");
                }
            }
            Command::Request {
                request,
                options,
                related,
                reply,
            } => {
                match self
                    .session
                    .send_request(request, options, related.as_ref(), now())
                {
                    Ok(id) => {
                        let rare = self.rare();
                        if let Some(related) = related {
                            rare.sent_for.entry(related).or_default().push(id.clone());
                        }
                        rare.replies.insert(id, reply);
                    }
                    Err(error) => {
                        let _ = reply.send(Err(PeerRequestError::Refused(error)));
                    }
                }
            }
            // The serving loop, which holds the transport, takes these
            // before they reach the driver; one that got here closes nothing.
            Command::CloseStream { reply, .. } => {
                let _ = reply.send(false);
            }
        }
    }

    /// Drops the entry of a request whose answer is being applied (none
    /// when its handler finished in its first poll).
    fn forget_running(&mut self, id: &RequestId) {
        if !self.running.is_empty() {
            self.running.remove(id);
        }
    }

    /// Cancels the requests to the client that the handler of `request`
    /// sent and that are still unanswered (CANCEL-01: they were believed
    /// running), now that `request` is over.
    fn cancel_sent_for(&mut self, request: &RequestId) {
        // Most handlers ask the client nothing: no lookup then.
        let Some(rare) = self.rare.as_mut().filter(|rare| !rare.sent_for.is_empty()) else {
            return;
        };
        for id in rare.sent_for.remove(request).unwrap_or_default() {
            if rare.replies.remove(&id).is_some() {
                let reason = "the request it was sent for has ended".to_owned();
                self.session.cancel(&id, Some(reason));
            }
        }
    }

    /// Tells this session's client about a change to the catalog: a
    /// handshake-era client once initialized (resource updates only if
    /// subscribed), and every open `subscriptions/listen` whose filter asks.
    fn announce(&mut self, change: Result<Change, Missed>) {
        let changes = match change {
            Ok(change) if change != Change::Missed => vec![change],
            // Missed some (here, or a change feed did): announce every list
            // and an update of every subscribed resource (harmless: clients
            // re-list and re-read), since a lost update would leave a
            // client with stale contents.
            Ok(_) | Err(Missed) => {
                let lists = [Change::Tools, Change::Prompts, Change::Resources];
                let mut uris = std::collections::BTreeSet::new();
                if let Some(rare) = &self.rare {
                    uris = rare.listens.subscribed_uris();
                    uris.extend(rare.subscriptions.iter().cloned());
                }
                lists
                    .into_iter()
                    .chain(uris.into_iter().map(Change::ResourceUpdated))
                    .collect()
            }
        };
        for change in changes {
            if let Some(rare) = &self.rare {
                rare.listens.announce(&mut self.session, &change);
            }
            if self.session.is_initialized() {
                self.announce_to_handshake_client(change);
            }
        }
    }

    fn announce_to_handshake_client(&mut self, change: Change) {
        let notification = match change {
            Change::Tools => ServerNotification::ToolListChanged(Box::default()),
            Change::Prompts => ServerNotification::PromptListChanged(Box::default()),
            Change::Resources => ServerNotification::ResourceListChanged(Box::default()),
            Change::ResourceUpdated(uri) => {
                let subscribed = self
                    .rare
                    .as_ref()
                    .is_some_and(|rare| rare.subscriptions.contains(&uri));
                if !subscribed {
                    return;
                }
                ServerNotification::ResourceUpdated(Box::new(
                    ResourceUpdatedNotificationParams::new(uri),
                ))
            }
            // `Missed` is announced as every change by the caller; a kind a
            // newer store crate may add has nothing to say here.
            _ => return,
        };
        if let Err(error) = self.session.notify(notification, None) {
            tracing::debug!(%error, "change not announced");
        }
    }

    fn shut_down(&mut self) {
        for (_, running) in self.running.drain() {
            running.cancel.cancel();
            running.task.abort();
        }
        // Subscriptions end gracefully: each gets its completion result.
        if let Some(rare) = &mut self.rare {
            rare.listens.close_all(&mut self.session);
        }
        self.session.close();
        self.drain_events();
    }
}

/// A random name for one session: tasks bound to it are invisible to others.
fn session_scope() -> std::sync::Arc<str> {
    let mut bytes = [0u8; 16];
    // Without randomness the session still gets a name of its own.
    if getrandom::fill(&mut bytes).is_err() {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        return format!("session-{}-{n}", std::process::id()).into();
    }
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .into()
}

/// The tool, prompt or resource a request names, for its span.
fn request_name(request: &ClientRequest) -> Option<&str> {
    match request {
        ClientRequest::CallTool(params) => Some(&params.name),
        ClientRequest::GetPrompt(params) => Some(&params.name),
        ClientRequest::ReadResource(params) => Some(&params.uri),
        _ => None,
    }
}

/// The refusal of a subscription past the session's limit
/// ([`Limits::max_subscriptions`](mcpwire_session::Limits)).
fn too_many_subscriptions(limit: usize) -> ErrorObject {
    let error = ErrorObject::invalid_request(format!(
        "this session holds the most subscriptions allowed ({limit}); unsubscribe from some first"
    ));
    // A map of one number always serializes.
    error
        .clone()
        .with_data(&serde_json::json!({ "limit": limit }))
        .unwrap_or(error)
}
