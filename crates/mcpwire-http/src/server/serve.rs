//! `serve`: any HTTP service on bare hyper over a `TcpListener`, HTTP/1.1
//! and HTTP/2, with graceful shutdown for services that say how they
//! drain ([`Drain`]).

use core::error::Error as StdError;
use core::future::{Future, IntoFuture};
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::TryFutureExt as _;
use futures_util::future::{Either, MapErr};
use http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::body::SendBody;
use super::config::ConnectionLimits;
use super::head_timer::HeadTimer;
use super::security::LocalAddr;
use super::service::StreamableHttp;
use super::sniff::Sniffed;

/// A boxed error, as hyper takes them from services and bodies.
type BoxError = Box<dyn StdError + Send + Sync>;

/// A future `serve` runs to its end.
use mcpwire_jsonrpc::BoxFuture;

/// A service's part in the graceful shutdown of [`serve`]: what it does
/// when the shutdown begins, and once the connections have drained.
///
/// Both methods do nothing by default, so a service without long-lived
/// streams or sessions opts in with an empty `impl Drain for MyService {}`.
/// [`StreamableHttp`] implements it, and so do the services of
/// `mcpwire-http-legacy`.
pub trait Drain {
    /// Called once the shutdown signal fired and the listener is closed,
    /// before connections drain: end the streams that would otherwise
    /// hold their connections open, and refuse new work.
    fn begin_drain(&self) {}

    /// Called once every connection has closed, or the drain timeout has
    /// passed and the rest were dropped: end what is left (sessions whose
    /// runtimes run in this process).
    fn drained(&self) -> impl Future<Output = ()> + Send {
        core::future::ready(())
    }
}

impl Drain for StreamableHttp {
    /// Ends the standalone GET streams and refuses new sessions and GET
    /// streams with 503 ([`StreamableHttp::shutdown`]); requests in flight
    /// go on until answered.
    fn begin_drain(&self) {
        self.shutdown();
    }

    /// Ends the sessions whose runtimes run here
    /// ([`StreamableHttp::close_sessions`]).
    fn drained(&self) -> impl Future<Output = ()> + Send {
        self.close_sessions()
    }
}

/// Serves `service` on every connection `listener` accepts; await the
/// result (it is [`IntoFuture`]) to run the server.
///
/// `service` is any `tower::Service` for `http::Request<Incoming>` that is
/// `Clone` and `Send`: typically a [`StreamableHttp`], or one that hosts it
/// beside other endpoints (`mcpwire-http-legacy`'s `LegacySse::beside`).
/// Every path goes to it. Each request carries the connection's
/// [`LocalAddr`], which the default host policy reads. Without
/// [`Serve::with_graceful_shutdown`] it runs until the listener fails.
///
/// Every connection is held to [`ConnectionLimits`]: a deadline for each
/// request head (and for the first bytes), a cap on connections at once,
/// and a bound on how long the peer may stop reading what the server
/// writes. When `service` is a [`StreamableHttp`] they come from its
/// [`Config`](super::Config); otherwise they are the defaults unless set
/// with [`Serve::connection_limits`].
///
/// ```no_run
/// # async fn run(server: mcpwire_http::server::StreamableHttp) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// // ... keep `stop`, and send on it (or drop it) to shut down ...
/// # drop(stop);
/// mcpwire_http::server::serve(listener, server)
///     .with_graceful_shutdown(async move { let _ = stopped.await; })
///     .await
/// # }
/// ```
pub fn serve<S, B>(listener: TcpListener, service: S) -> Serve<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    // The endpoint's own configuration carries the connection limits; a
    // service that wraps it passes them with `connection_limits`.
    let limits = (&service as &dyn core::any::Any)
        .downcast_ref::<StreamableHttp>()
        .map(|http| http.config().connection_limits())
        .unwrap_or_default();
    Serve {
        listener,
        service,
        shutdown: None,
        drain_timeout: Duration::from_secs(10),
        limits,
    }
}

/// A server being set up by [`serve`]; await it to run it.
pub struct Serve<S = StreamableHttp> {
    listener: TcpListener,
    service: S,
    shutdown: Option<GracefulShutdown>,
    drain_timeout: Duration,
    limits: ConnectionLimits,
}

/// When to shut down, and the service's part in it ([`Drain`]).
struct GracefulShutdown {
    signal: BoxFuture<'static, ()>,
    begin_drain: Box<dyn FnOnce() + Send>,
    drained: Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .field("graceful_shutdown", &self.shutdown.is_some())
            .field("drain_timeout", &self.drain_timeout)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<S> Serve<S> {
    /// Shuts down gracefully when `signal` completes: stops accepting,
    /// lets the service begin draining ([`Drain::begin_drain`]; for
    /// [`StreamableHttp`], standalone SSE streams end), shuts idle
    /// connections, lets requests in flight finish (their POST streams end
    /// once answered) for up to the drain timeout, then lets the service
    /// end what is left ([`Drain::drained`]; the sessions whose runtimes
    /// run here).
    pub fn with_graceful_shutdown<F>(mut self, signal: F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
        S: Drain + Clone + Send + Sync + 'static,
    {
        let beginning = self.service.clone();
        let ending = self.service.clone();
        self.shutdown = Some(GracefulShutdown {
            signal: Box::pin(signal),
            begin_drain: Box::new(move || beginning.begin_drain()),
            drained: Box::new(move || Box::pin(async move { ending.drained().await })),
        });
        self
    }

    /// How long a graceful shutdown waits for requests in flight (default
    /// 10 s); then their connections are dropped. [`Drain::drained`] is
    /// given as long again.
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// The limits every connection is held to, typically
    /// `config.connection_limits()` of the endpoint's [`Config`](super::Config)
    /// when the served service wraps it.
    pub fn connection_limits(mut self, limits: ConnectionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The address the listener is bound to.
    ///
    /// # Errors
    ///
    /// As [`TcpListener::local_addr`].
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl<S, B> Serve<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    async fn run(self) -> io::Result<()> {
        let Self {
            listener,
            service,
            shutdown,
            drain_timeout,
            limits,
        } = self;
        let (mut signal, hooks) = match shutdown {
            Some(shutdown) => (
                shutdown.signal,
                Some((shutdown.begin_drain, shutdown.drained)),
            ),
            None => (
                Box::pin(core::future::pending()) as BoxFuture<'static, ()>,
                None,
            ),
        };
        let (stop, stopped) = watch::channel(false);
        let mut connections = JoinSet::new();
        // One permit per open connection: at the cap, new connections wait
        // in the listener's backlog until one closes.
        let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
        loop {
            let slot = tokio::select! {
                slot = slots.clone().acquire_owned() => slot,
                () = &mut signal => break,
            };
            // The semaphore is never closed.
            let Ok(slot) = slot else { break };
            // A finished connection's task (its cell is sized for the
            // connection's future, 1-2 KiB) stays allocated until the set
            // hands it out: reaped as connections end, not only at the next
            // accept, so that a server gone quiet after a burst holds none.
            let accepted = loop {
                tokio::select! {
                    accepted = listener.accept() => break Some(accepted),
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                    () = &mut signal => break None,
                }
            };
            let Some(accepted) = accepted else { break };
            match accepted {
                Ok((stream, _)) => {
                    // Without it an SSE event written after its headers
                    // waits for the peer's delayed ACK (about 40 ms).
                    if let Err(error) = stream.set_nodelay(true) {
                        tracing::debug!(%error, "setting TCP_NODELAY failed");
                    }
                    // Spawned as it is: an `async` block awaiting it would
                    // hold the connection's future twice (its capture and
                    // the awaited value), several KiB per open connection.
                    connections.spawn(connection(
                        stream,
                        service.clone(),
                        stopped.clone(),
                        limits,
                        slot,
                    ));
                }
                Err(error) => {
                    // Usually out of file descriptors: wait, then go on.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        drop(listener);
        // Without a shutdown signal the loop never ends, so the hooks are
        // always there when it does.
        let Some((begin_drain, drained)) = hooks else {
            return Ok(());
        };
        begin_drain();
        stop.send_replace(true);
        let drain = tokio::time::timeout(drain_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drain.is_err() {
            tracing::debug!("drain timeout: dropping the remaining connections");
            connections.abort_all();
        }
        // Ending what is left may wait on a store (a session's end touches
        // Redis, one session after another): bounded by the same time, so
        // that a lost store cannot hold the shutdown for ever.
        if tokio::time::timeout(drain_timeout, drained())
            .await
            .is_err()
        {
            tracing::warn!("drain timeout: the service did not finish ending its sessions");
        }
        Ok(())
    }
}

impl<S, B> IntoFuture for Serve<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// Serves one connection until it closes, shutting it down gracefully
/// when told to; `slot` is its place among `max_connections`, given back
/// when it ends.
async fn connection<S, B>(
    stream: TcpStream,
    service: S,
    mut stop: watch::Receiver<bool>,
    limits: ConnectionLimits,
    slot: OwnedSemaphorePermit,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    let local = stream.local_addr().ok();
    // Boxed, and freed once the first bytes are in: inline, the compiler
    // kept its 650 bytes beside hyper's connection below rather than in
    // the same room (`-Zprint-type-sizes`), for the life of the connection.
    let Some((stream, http2)) = Box::pin(first_bytes(stream, &mut stop, limits)).await else {
        return;
    };
    if http2 {
        // HTTP/2's connection state is several times HTTP/1's: boxed, so
        // that the task of every HTTP/1 connection (long-lived GET streams
        // among them) is not sized for it.
        Box::pin(http2_connection(stream, service, local, stop, limits)).await;
        return;
    }
    // hyper's own HTTP/1 builder: hyper-util's auto builder is an enum
    // sized for its HTTP/2 connection, and borrows a builder holding both.
    // hyper's header read timeout needs a timer; it also closes idle
    // HTTP/1.1 keep-alive connections, since it runs while the connection
    // waits for the next request head. Built here rather than in a function
    // of its own, whose future would keep its arguments beside it.
    let connection = http1::Builder::new()
        .timer(HeadTimer::default())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(TokioIo::new(stream), Hosted { service, local });
    tokio::pin!(connection);
    let stopped = stopped(&mut stop);
    tokio::pin!(stopped);
    // Biased: the connection first, the stop signal (rarely ready) after,
    // with no random draw at each of the two wake-ups per request.
    tokio::select! {
        biased;
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
            return;
        }
        () = stopped => {}
    }
    connection.as_mut().graceful_shutdown();
    if let Err(error) = connection.await {
        tracing::debug!(%error, "connection ended with an error");
    }
    drop(slot);
}

/// Resolves once `stop` turns true (or its sender is gone).
///
/// A connection's task wakes about twice per request, and polls this each
/// time; a watch's `wait_for` locks the watch's list of waiters at every
/// poll (~100 instructions). Once it is registered with the task's waker
/// that registration stands until the watch changes, so it is polled
/// again only when the watch changed (an atomic read) or the task's
/// waker is another.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let watching = stop.clone();
    let mut waiting = core::pin::pin!(stop.wait_for(|stop| *stop));
    let mut registered: Option<Waker> = None;
    core::future::poll_fn(|cx| {
        let same_waker = registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if same_waker && matches!(watching.has_changed(), Ok(false)) {
            return Poll::Pending;
        }
        // A poll refused by tokio's cooperative budget registers nothing.
        let budgeted = tokio::task::coop::has_budget_remaining();
        let stopped = waiting.as_mut().poll(cx).map(|_| ());
        registered = budgeted.then(|| cx.waker().clone());
        stopped
    })
    .await;
}

/// Reads a connection's first bytes (see `sniff`), unless the server
/// stops first; `None` when it did, or the connection failed or sent
/// nothing within the header read timeout.
async fn first_bytes(
    stream: TcpStream,
    stop: &mut watch::Receiver<bool>,
    limits: ConnectionLimits,
) -> Option<(Sniffed, bool)> {
    // Sniffed here rather than by hyper-util's auto builder, which would leave
    // hyper an 8 KiB larger read buffer on every HTTP/1 connection (see `sniff`).
    // A peer that connects and sends nothing is held to the same deadline
    // as one that trickles its request head.
    let sniffing = tokio::time::timeout(
        limits.header_read_timeout,
        super::sniff::sniff(stream, limits.write_stall_timeout),
    );
    let sniffed = tokio::select! {
        sniffed = sniffing => sniffed,
        _ = stop.wait_for(|stop| *stop) => return None,
    };
    match sniffed {
        Ok(Ok(sniffed)) => Some(sniffed),
        Ok(Err(error)) => {
            tracing::debug!(%error, "reading a connection's first bytes failed");
            None
        }
        Err(_) => {
            tracing::debug!("a connection sent no request within the header read timeout");
            None
        }
    }
}

/// Serves an HTTP/2 connection (prior knowledge) on hyper's HTTP/2 builder.
async fn http2_connection<S, B>(
    stream: Sniffed,
    service: S,
    local: Option<SocketAddr>,
    mut stop: watch::Receiver<bool>,
    limits: ConnectionLimits,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    // When the connection's last request began: one that starts none for
    // the idle bound is told to go away (below).
    let opened = tokio::time::Instant::now();
    let last_request = Arc::new(AtomicU64::new(0));
    let seen = last_request.clone();
    let service = service.map_request(move |request: Request<Incoming>| {
        seen.store(millis_since(opened), Ordering::Relaxed);
        request
    });
    // Pings find peers that vanished without closing.
    let connection = http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(
            limits.header_read_timeout.max(Duration::from_secs(1)) * 3,
        ))
        .keep_alive_timeout(limits.header_read_timeout)
        .serve_connection(TokioIo::new(stream), Hosted { service, local });
    tokio::pin!(connection);
    let mut stopping = false;
    // HTTP/2 has no keep-alive timeout of hyper's for a peer that answers
    // its pings but never sends a request: such a connection would hold one
    // of `max_connections` for ever. After the same bound as an idle
    // HTTP/1.1 connection it gets a GOAWAY; streams still open finish.
    let idle = limits.header_read_timeout;
    loop {
        let last = Duration::from_millis(last_request.load(Ordering::Relaxed));
        let idle_until = opened + last + idle;
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "connection ended with an error");
                }
                break;
            }
            _ = stop.wait_for(|stop| *stop), if !stopping => {
                stopping = true;
                connection.as_mut().graceful_shutdown();
            }
            () = tokio::time::sleep_until(idle_until), if !stopping => {
                // A request that began meanwhile moved the bound on.
                if millis_since(opened) >= last_request.load(Ordering::Relaxed) + millis(idle) {
                    tracing::debug!("an HTTP/2 connection started no request within the idle bound");
                    stopping = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// A tower service as hyper calls it, with the connection's [`LocalAddr`]
/// in each request's extensions.
///
/// hyper keeps a box the size of the service's future for the life of the
/// connection; hyper-util's `TowerToHyperService` answers with a `Oneshot`
/// that holds a clone of the service and the whole request until it is
/// ready (about 300 bytes per open connection). A service ready at once,
/// as [`StreamableHttp`] always is, is called at once instead, and its
/// future (a box for `StreamableHttp`) is all that is kept.
struct Hosted<S> {
    service: S,
    local: Option<SocketAddr>,
}

/// What [`Hosted`] answers with: the service's own future when it was
/// ready, or a boxed wait for it to be (or its readiness error).
type Hosting<S, B> = Either<
    MapErr<<S as tower_service::Service<Request<Incoming>>>::Future, IntoBoxError<S>>,
    BoxFuture<'static, Result<Response<B>, BoxError>>,
>;

/// The service's error as hyper takes it.
type IntoBoxError<S> = fn(<S as tower_service::Service<Request<Incoming>>>::Error) -> BoxError;

impl<S, B> hyper::service::Service<Request<Incoming>> for Hosted<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: SendBody,
{
    type Response = Response<B>;
    type Error = BoxError;
    type Future = Hosting<S, B>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        if let Some(local) = self.local {
            request.extensions_mut().insert(LocalAddr(local));
        }
        let mut service = self.service.clone();
        let into: IntoBoxError<S> = Into::into;
        // A readiness poll that finds the service busy registers a waker
        // that does nothing; the boxed `oneshot` polls it again with the
        // connection's own.
        match service.poll_ready(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Ok(())) => Either::Left(service.call(request).map_err(into)),
            Poll::Ready(Err(error)) => {
                Either::Right(Box::pin(core::future::ready(Err(into(error)))))
            }
            Poll::Pending => Either::Right(Box::pin(service.oneshot(request).map_err(into))),
        }
    }
}

/// Milliseconds since `start`, saturated.
fn millis_since(start: tokio::time::Instant) -> u64 {
    millis(start.elapsed())
}

/// `duration` in whole milliseconds, saturated.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
#[cfg(feature = "client")]
mod tests {
    use core::future::IntoFuture as _;
    use std::sync::atomic::AtomicUsize;

    use mcpwire_test::coop::{poll_refused_by_the_budget, woken_within};

    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Empty, Full};

    use super::*;

    /// A service that is busy at every other readiness poll (waking its
    /// caller at once), or fails its readiness poll when `fail` is set.
    #[derive(Clone)]
    struct Moody {
        polls: Arc<AtomicUsize>,
        fail: bool,
    }

    impl tower_service::Service<Request<Incoming>> for Moody {
        type Response = Response<Full<Bytes>>;
        type Error = io::Error;
        type Future = core::future::Ready<Result<Self::Response, io::Error>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
            if self.fail {
                return Poll::Ready(Err(io::Error::other("not ready, ever")));
            }
            if self.polls.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _request: Request<Incoming>) -> Self::Future {
            core::future::ready(Ok(Response::new(Full::new(Bytes::from_static(b"called")))))
        }
    }

    /// Sends one GET over HTTP/1.1 to a `serve`d `service`; its body, or
    /// `None` when the request failed.
    async fn get_once(service: Moody) -> Option<Bytes> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(serve(listener, service).into_future());
        let stream = TcpStream::connect(address).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        let request = Request::builder()
            .uri(format!("http://{address}/"))
            .body(Empty::<Bytes>::new())
            .unwrap();
        // Generous: a local answer takes milliseconds; this only bounds a hang.
        let answer = tokio::time::timeout(Duration::from_secs(10), sender.send_request(request))
            .await
            .expect("the request was neither answered nor failed");
        server.abort();
        let body = answer.ok()?.into_body().collect().await.ok()?;
        Some(body.to_bytes())
    }

    #[tokio::test]
    async fn a_service_busy_at_first_is_called_once_it_is_ready() {
        let polls = Arc::new(AtomicUsize::new(0));
        let service = Moody {
            polls: polls.clone(),
            fail: false,
        };
        assert_eq!(get_once(service).await.as_deref(), Some(&b"called"[..]));
        // The first poll (from `Hosted::call`) found it busy; `oneshot` polled again.
        assert!(polls.load(Ordering::Relaxed) >= 2);
    }

    #[tokio::test]
    async fn a_service_failing_its_readiness_fails_the_request_without_calling_it() {
        let service = Moody {
            polls: Arc::new(AtomicUsize::new(0)),
            fail: true,
        };
        assert_eq!(get_once(service).await, None);
    }

    #[tokio::test]
    async fn a_stop_poll_refused_by_the_cooperative_budget_registers_at_the_next_poll() {
        let (stop_tx, mut stop) = watch::channel(false);
        let mut waiting = core::pin::pin!(stopped(&mut stop));
        poll_refused_by_the_budget(waiting.as_mut()).await;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = stop_tx.send(true);
        });
        // Generous: the stop comes 20 ms on.
        assert!(
            woken_within(waiting).await.is_some(),
            "the stop never woke the task"
        );
    }
}
