//! `serve` hosts any tower service, not only `StreamableHttp`: every
//! request carries the connection's `LocalAddr`, and a graceful shutdown
//! runs the service's `Drain` hooks around the draining of the requests
//! in flight.

#![cfg(feature = "server")]

use std::convert::Infallible;
use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use mcpwire_http::server::{Drain, LocalAddr, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};

/// How long any single step of a test may take.
const STEP: Duration = Duration::from_secs(10);

/// A service that answers with the local address it was told, after
/// `delay`, and records what happens to it.
#[derive(Clone)]
struct Recording {
    log: Arc<Mutex<Vec<&'static str>>>,
    delay: Duration,
    arrived: mpsc::UnboundedSender<()>,
}

impl Recording {
    fn new(delay: Duration) -> (Self, mpsc::UnboundedReceiver<()>) {
        let (arrived, arrivals) = mpsc::unbounded_channel();
        let service = Self {
            log: Arc::default(),
            delay,
            arrived,
        };
        (service, arrivals)
    }

    fn record(&self, event: &'static str) {
        self.log.lock().unwrap().push(event);
    }

    fn log(&self) -> Vec<&'static str> {
        self.log.lock().unwrap().clone()
    }
}

impl tower_service::Service<Request<Incoming>> for Recording {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future =
        std::pin::Pin<Box<dyn Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        let service = self.clone();
        Box::pin(async move {
            service.record("request");
            let _ = service.arrived.send(());
            tokio::time::sleep(service.delay).await;
            let local = request
                .extensions()
                .get::<LocalAddr>()
                .map_or_else(|| "none".to_owned(), |local| local.0.to_string());
            service.record("answered");
            Ok(Response::new(Full::new(Bytes::from(local))))
        })
    }
}

impl Drain for Recording {
    fn begin_drain(&self) {
        self.record("begin drain");
    }

    fn drained(&self) -> impl Future<Output = ()> + Send {
        self.record("drained");
        std::future::ready(())
    }
}

/// A service whose [`Drain::drained`] never ends (a store that stopped
/// answering while its sessions were being ended).
#[derive(Clone)]
struct StuckDrain(Recording);

impl tower_service::Service<Request<Incoming>> for StuckDrain {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = <Recording as tower_service::Service<Request<Incoming>>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        self.0.call(request)
    }
}

impl Drain for StuckDrain {
    fn drained(&self) -> impl Future<Output = ()> + Send {
        std::future::pending()
    }
}

/// Sends a GET on a connection of its own and returns the whole answer.
async fn get(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!("GET / HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test]
async fn any_tower_service_is_served_and_told_the_local_address() {
    let (service, _arrivals) = Recording::new(Duration::ZERO);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(serve(listener, service.clone()).into_future());
    let answer = tokio::time::timeout(STEP, get(addr)).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(&addr.to_string()), "{answer}");
    assert_eq!(service.log(), ["request", "answered"]);
    server.abort();
}

#[tokio::test]
async fn a_graceful_shutdown_drains_requests_in_flight_between_the_drain_hooks() {
    let (service, mut arrivals) = Recording::new(Duration::from_millis(200));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(
        serve(listener, service.clone())
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );
    let in_flight = tokio::spawn(get(addr));
    tokio::time::timeout(STEP, arrivals.recv()).await.unwrap();
    stop.send(()).unwrap();
    let answer = tokio::time::timeout(STEP, in_flight)
        .await
        .unwrap()
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    tokio::time::timeout(STEP, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        service.log(),
        ["request", "begin drain", "answered", "drained"]
    );
}

#[tokio::test]
async fn a_graceful_shutdown_ends_even_when_the_service_never_finishes_draining() {
    let (service, _arrivals) = Recording::new(Duration::ZERO);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(
        serve(listener, StuckDrain(service))
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .drain_timeout(Duration::from_millis(200))
            .into_future(),
    );
    stop.send(()).unwrap();
    tokio::time::timeout(STEP, server)
        .await
        .expect("the shutdown waited on the stuck drain")
        .unwrap()
        .unwrap();
}

/// A keep-alive connection that served requests and now waits for the
/// next one is closed by a graceful shutdown at once, not at the end of
/// the drain time: its task, woken by the requests it served, still heeds
/// the stop signal.
#[tokio::test]
async fn a_graceful_shutdown_closes_an_idle_keep_alive_connection_at_once() {
    let (service, _arrivals) = Recording::new(Duration::ZERO);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(
        serve(listener, service)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .drain_timeout(Duration::from_secs(60))
            .into_future(),
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!("GET / HTTP/1.1\r\nhost: {addr}\r\n\r\n");
    for _ in 0..3 {
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = [0_u8; 512];
        let read = tokio::time::timeout(STEP, stream.read(&mut answer))
            .await
            .unwrap()
            .unwrap();
        assert!(answer[..read].starts_with(b"HTTP/1.1 200"));
    }
    stop.send(()).unwrap();
    let mut rest = Vec::new();
    // STEP (10 s) is well under the 60 s drain time: an end within it is
    // the stop signal's, not the drain time's.
    tokio::time::timeout(STEP, stream.read_to_end(&mut rest))
        .await
        .expect("the idle connection was closed")
        .unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    tokio::time::timeout(STEP, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
