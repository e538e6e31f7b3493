//! `serve`: the server on bare hyper over a `TcpListener`, HTTP/1.1 and
//! HTTP/2, with graceful shutdown.

use core::future::{Future, IntoFuture};
use core::pin::Pin;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::security::LocalAddr;
use super::service::StreamableHttp;

/// Serves `service` on every connection `listener` accepts; await the
/// result (it is [`IntoFuture`]) to run the server.
///
/// Every path is the MCP endpoint. Each request carries the connection's
/// [`LocalAddr`], which the default host policy reads. Without
/// [`Serve::with_graceful_shutdown`] it runs until the listener fails.
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
pub fn serve(listener: TcpListener, service: StreamableHttp) -> Serve {
    Serve {
        listener,
        service,
        signal: Box::pin(std::future::pending()),
        drain_timeout: Duration::from_secs(10),
    }
}

/// A server being set up by [`serve`]; await it to run it.
pub struct Serve {
    listener: TcpListener,
    service: StreamableHttp,
    signal: Pin<Box<dyn Future<Output = ()> + Send>>,
    drain_timeout: Duration,
}

impl std::fmt::Debug for Serve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener)
            .field("drain_timeout", &self.drain_timeout)
            .finish_non_exhaustive()
    }
}

impl Serve {
    /// Shuts down gracefully when `signal` completes: stops accepting,
    /// ends standalone SSE streams and idle connections, lets requests in
    /// flight finish (their POST streams end once answered) for up to the
    /// drain timeout, then ends the sessions whose runtimes run here.
    pub fn with_graceful_shutdown<F>(mut self, signal: F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.signal = Box::pin(signal);
        self
    }

    /// How long a graceful shutdown waits for requests in flight (default
    /// 10 s); then their connections are dropped.
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
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

    async fn run(self) -> io::Result<()> {
        let Self {
            listener,
            service,
            mut signal,
            drain_timeout,
        } = self;
        let (stop, stopped) = watch::channel(false);
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        connections.spawn(connection(stream, service.clone(), stopped.clone()));
                    }
                    Err(error) => {
                        // Usually out of file descriptors: wait, then go on.
                        tracing::warn!(%error, "accepting a connection failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                () = &mut signal => break,
            }
            while connections.try_join_next().is_some() {}
        }
        drop(listener);
        service.shutdown();
        stop.send_replace(true);
        let drained = tokio::time::timeout(drain_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::debug!("drain timeout: dropping the remaining connections");
            connections.abort_all();
        }
        service.close_sessions().await;
        Ok(())
    }
}

impl IntoFuture for Serve {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// Serves one connection until it closes, shutting it down gracefully
/// when told to.
async fn connection(stream: TcpStream, service: StreamableHttp, mut stop: watch::Receiver<bool>) {
    let local = stream.local_addr().ok();
    let service = service.map_request(move |mut request: Request<Incoming>| {
        if let Some(local) = local {
            request.extensions_mut().insert(LocalAddr(local));
        }
        request
    });
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection =
        builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
    tokio::pin!(connection);
    let mut stopping = false;
    loop {
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
        }
    }
}
