//! Server instances for the multi-instance tests: each runs in its own
//! thread and tokio runtime with its own Redis stores, so that killing one
//! (dropping its runtime) ends its sockets, its session runtimes and its
//! bus listener at once, as a crashed process would.

use std::net::SocketAddr;
use std::thread::JoinHandle;
use std::time::Duration;

use mcpwire_http::server::{Config, StreamableHttp, serve};
use mcpwire_redis::{RedisConfig, RedisStores};
use mcpwire_server::Server;
use tokio::sync::oneshot;

/// One running server instance.
pub struct Instance {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Instance {
    /// Starts an instance serving `server` with stores on `redis`, or the
    /// in-memory defaults when `redis` is `None`.
    pub fn start(redis: Option<RedisConfig>, server: Server, http: Config) -> Self {
        Self::start_with(redis, move |_| server, http)
    }

    /// Like `start`, with the server built from the instance's own stores
    /// (to give it the Redis task store, say).
    pub fn start_with<F>(redis: Option<RedisConfig>, build: F, http: Config) -> Self
    where
        F: FnOnce(Option<&RedisStores>) -> Server + Send + 'static,
    {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let stores = match redis {
                    Some(redis) => Some(RedisStores::connect(redis).await.unwrap()),
                    None => None,
                };
                let server = build(stores.as_ref());
                let config = match &stores {
                    Some(stores) => stores.apply(http),
                    None => http,
                };
                let service = StreamableHttp::new(config, move |transport| {
                    let server = server.clone();
                    tokio::spawn(async move {
                        let _ = server.serve(transport).await;
                    });
                });
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                tokio::select! {
                    _ = serve(listener, service) => {}
                    _ = stopped => {}
                }
            });
            // Dropping the runtime here kills every task of the instance.
            drop(runtime);
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the instance started within 10 s");
        Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Kills the instance: its connections drop mid-stream.
    pub fn kill(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `count` instances of `server` sharing the Redis of `redis`.
pub fn instances(
    count: usize,
    redis: &RedisConfig,
    server: &Server,
    http: &Config,
) -> Vec<Instance> {
    (0..count)
        .map(|_| Instance::start(Some(redis.clone()), server.clone(), http.clone()))
        .collect()
}
