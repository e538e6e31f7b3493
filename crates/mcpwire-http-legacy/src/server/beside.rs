//! `Beside`: the legacy endpoints next to another service (the Streamable
//! HTTP endpoint) on one listener, dispatched by path (LEG-07).

use core::future::poll_fn;
use core::task::{Context, Poll};

use http::{Request, Response};
use http_body_util::Either;
use mcpwire_http::server::body::SendBody;
use mcpwire_http::server::{Drain, ResponseBody};
use mcpwire_jsonrpc::BoxFuture;

use super::service::LegacySse;

/// A service answering the legacy paths with a [`LegacySse`] and every
/// other request with `inner`; made by [`LegacySse::beside`].
///
/// Its responses carry either body ([`Either`]). It is what a bare hyper
/// server, or mcpwire-http's `serve`, needs to host both transports on one
/// port: `serve(listener, legacy.beside(streamable))`, whose graceful
/// shutdown drains both ([`Drain`]). With axum, route the two legacy paths
/// to the [`LegacySse`] instead.
#[derive(Clone, Debug)]
pub struct Beside<S> {
    legacy: LegacySse,
    inner: S,
}

impl LegacySse {
    /// This service for its two paths, and `inner` (typically
    /// mcpwire-http's `StreamableHttp`) for every other request.
    pub fn beside<S>(self, inner: S) -> Beside<S> {
        Beside {
            legacy: self,
            inner,
        }
    }
}

impl<S, B, InnerBody> tower_service::Service<Request<B>> for Beside<S>
where
    S: tower_service::Service<Request<B>, Response = Response<InnerBody>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: 'static,
    B: SendBody,
    InnerBody: 'static,
{
    type Response = Response<Either<ResponseBody, InnerBody>>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        // Readiness is awaited per call, on the clone that serves it.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if self.legacy.handles_path(request.uri().path()) {
            let legacy = self.legacy.clone();
            return Box::pin(async move {
                let response = legacy.handle(request).await;
                Ok(response.map(Either::Left))
            });
        }
        let mut inner = self.inner.clone();
        Box::pin(async move {
            poll_fn(|cx| inner.poll_ready(cx)).await?;
            let response = inner.call(request).await?;
            Ok(response.map(Either::Right))
        })
    }
}

impl<S: Drain + Sync> Drain for Beside<S> {
    /// Begins draining both services: the legacy sessions end, and `inner`
    /// does what it does (for `StreamableHttp`, its standalone streams end
    /// and new sessions are refused).
    fn begin_drain(&self) {
        self.legacy.begin_drain();
        self.inner.begin_drain();
    }

    async fn drained(&self) {
        self.legacy.drained().await;
        self.inner.drained().await;
    }
}
