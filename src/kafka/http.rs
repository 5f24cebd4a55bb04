//! The worker's HTTP endpoints: `/metrics` (Prometheus text), `/healthz` (alive), `/readyz`
//! (partitions assigned, every one opened and none restoring). A minimal HTTP/1 server on hyper,
//! `GET` and `HEAD`, that a hostile or broken client cannot take down ([`Limits`]): a client
//! gets [`Limits::header_read_timeout`] to send a request's headers and a connection is closed
//! after [`Limits::idle_timeout`] without a byte either way; at most
//! [`Limits::max_connections`] are open, and a new one closes the one idle the longest, so a
//! probe always gets through; a failed `accept` (no descriptor left) is retried after a pause
//! that doubles up to a second, and logged once per window with the count of the others.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

use super::metrics::Metrics;

/// Whether the worker is ready: the brokers are reachable, its partitions are assigned and opened
/// and none is restoring its state. Every change is mirrored into the `urltree_ready` and
/// `urltree_restoring_partitions` gauges, so they always agree with `/readyz`.
pub struct Readiness {
    state: Mutex<State>,
    metrics: Metrics,
}

#[derive(Default)]
struct State {
    assigned: bool,
    restoring: i64,
    /// Why no broker can be reached, while none can.
    unreachable: Option<String>,
}

impl State {
    fn ready(&self) -> bool {
        self.assigned && self.restoring == 0 && self.unreachable.is_none()
    }
}

impl Readiness {
    /// Not ready, nothing restoring.
    pub fn new(metrics: Metrics) -> Readiness {
        let r = Readiness {
            state: Mutex::new(State::default()),
            metrics,
        };
        r.update(|_| {});
        r
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut state);
        self.metrics.ready.set(i64::from(state.ready()));
        self.metrics.restoring_partitions.set(state.restoring);
    }

    /// Records whether the assignment is complete (all assigned partitions opened).
    pub fn set_assigned(&self, assigned: bool) {
        self.update(|s| s.assigned = assigned);
    }

    /// A partition starts restoring its state.
    pub fn restore_started(&self) {
        self.update(|s| s.restoring += 1);
    }

    /// A partition finished (or abandoned) restoring.
    pub fn restore_finished(&self) {
        self.update(|s| s.restoring = (s.restoring - 1).max(0));
    }

    /// No broker can be reached (`Some(why)`), or one can again (`None`).
    pub fn set_unreachable(&self, why: Option<String>) {
        self.update(|s| s.unreachable = why);
    }

    /// What `/readyz` reports.
    pub fn is_ready(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).ready()
    }

    /// Why the worker is not ready, for a person to read; `None` when it is.
    pub fn reason(&self) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(why) = &state.unreachable {
            Some(format!("no Kafka broker reachable: {why}"))
        } else if !state.assigned {
            Some("partitions not assigned yet (joining the consumer group) or not opened".into())
        } else if state.restoring > 0 {
            Some(format!(
                "{} partitions restoring their state from the changelog",
                state.restoring
            ))
        } else {
            None
        }
    }
}

/// What the endpoints report.
#[derive(Clone)]
pub struct Status {
    /// The metrics served on `/metrics`.
    pub metrics: Metrics,
    /// What `/readyz` answers.
    pub ready: Arc<Readiness>,
}

/// Binds `addr` (port 0 picks a free one); returns the bound address and the listener.
pub async fn bind(addr: &str) -> std::io::Result<(SocketAddr, TcpListener)> {
    let listener = TcpListener::bind(addr).await?;
    Ok((listener.local_addr()?, listener))
}

/// Serves `listener` on a thread and a single-threaded runtime of its own until `shutdown` turns
/// true, so `/healthz`, `/readyz` and `/metrics` answer even while every thread of the main
/// runtime waits in a blocking Kafka call (a broker outage, a slow rebalance).
pub fn spawn(
    listener: TcpListener,
    status: Status,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let listener = listener.into_std()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    std::thread::Builder::new()
        .name("urltree-http".into())
        .spawn(move || {
            runtime.block_on(async move {
                match TcpListener::from_std(listener) {
                    Ok(listener) => serve(listener, status, shutdown).await,
                    Err(e) => tracing::error!("http listener: {e}"),
                }
            })
        })
}

/// What the HTTP endpoint tolerates of its clients.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; a new one past it closes the one idle the longest.
    pub max_connections: usize,
    /// Time a client has to send a request's headers.
    pub header_read_timeout: Duration,
    /// A connection with no byte read or written for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            header_read_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// The longest pause after a failed `accept`.
const MAX_ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// Serves connections on `listener` until `shutdown` turns true, within the default [`Limits`].
pub async fn serve(listener: TcpListener, status: Status, shutdown: watch::Receiver<bool>) {
    serve_with(listener, status, shutdown, Limits::default()).await
}

/// Serves connections on `listener` until `shutdown` turns true, within `limits`.
pub async fn serve_with(
    listener: TcpListener,
    status: Status,
    mut shutdown: watch::Receiver<bool>,
    limits: Limits,
) {
    let open = Connections::new(limits.max_connections);
    let mut pause = Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.wait_for(|stop| *stop) => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                pause = Duration::ZERO;
                stream
            }
            Err(e) => {
                // Out of descriptors (EMFILE) or memory, or a connection reset before it was
                // taken: retrying at once would spin. Wait, longer each time in a row.
                pause = (pause * 2).clamp(Duration::from_millis(10), MAX_ACCEPT_PAUSE);
                super::logs::throttled_as(
                    "http accept",
                    &format!(
                        "http: accepting a connection failed: {e}; retrying in {} ms",
                        pause.as_millis()
                    ),
                    |line| tracing::warn!("{line}"),
                );
                tokio::select! {
                    _ = tokio::time::sleep(pause) => {}
                    _ = shutdown.wait_for(|stop| *stop) => return,
                }
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let connection = open.admit();
        let status = status.clone();
        tokio::spawn(serve_connection(stream, status, connection, limits));
    }
}

/// One connection until it ends, idles past the limit, or is evicted.
async fn serve_connection(stream: TcpStream, status: Status, connection: Admitted, limits: Limits) {
    let io = TokioIo::new(Tracked {
        inner: stream,
        activity: Arc::clone(&connection.activity),
        epoch: connection.epoch,
    });
    let service = service_fn(move |req| {
        let status = status.clone();
        async move { Ok::<_, Infallible>(route(&req, &status)) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    loop {
        let idle_for = connection.idle_for();
        let left = limits.idle_timeout.saturating_sub(idle_for);
        tokio::select! {
            result = &mut conn => {
                if let Err(e) = result {
                    tracing::debug!("http connection: {e}");
                }
                return;
            }
            _ = connection.evicted.notified() => return,
            _ = tokio::time::sleep(left) => {
                if connection.idle_for() >= limits.idle_timeout {
                    return;
                }
            }
        }
    }
}

/// The open connections, each with the time of its last byte, so that a new one past the cap
/// closes the one idle the longest.
#[derive(Clone)]
struct Connections {
    max: usize,
    epoch: Instant,
    inner: Arc<Mutex<ConnectionTable>>,
}

#[derive(Default)]
struct ConnectionTable {
    next_id: u64,
    open: HashMap<u64, (Arc<AtomicU64>, Arc<Notify>)>,
}

/// A connection's place in [`Connections`], given up when dropped.
struct Admitted {
    id: u64,
    epoch: Instant,
    activity: Arc<AtomicU64>,
    evicted: Arc<Notify>,
    table: Arc<Mutex<ConnectionTable>>,
}

impl Connections {
    fn new(max: usize) -> Connections {
        Connections {
            max: max.max(1),
            epoch: Instant::now(),
            inner: Arc::default(),
        }
    }

    /// Takes a new connection in, closing the one idle the longest when the table is full.
    fn admit(&self) -> Admitted {
        let mut table = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if table.open.len() >= self.max {
            let oldest = table
                .open
                .iter()
                .min_by_key(|(_, (activity, _))| activity.load(Ordering::Relaxed))
                .map(|(id, _)| *id);
            if let Some((_, evicted)) = oldest.and_then(|id| table.open.remove(&id)) {
                evicted.notify_one();
            }
        }
        let id = table.next_id;
        table.next_id += 1;
        let activity = Arc::new(AtomicU64::new(millis_since(self.epoch)));
        let evicted = Arc::new(Notify::new());
        table
            .open
            .insert(id, (Arc::clone(&activity), Arc::clone(&evicted)));
        Admitted {
            id,
            epoch: self.epoch,
            activity,
            evicted,
            table: Arc::clone(&self.inner),
        }
    }
}

impl Admitted {
    fn idle_for(&self) -> Duration {
        let last = self.activity.load(Ordering::Relaxed);
        Duration::from_millis(millis_since(self.epoch).saturating_sub(last))
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table.open.remove(&self.id);
    }
}

fn millis_since(epoch: Instant) -> u64 {
    epoch.elapsed().as_millis() as u64
}

/// A stream that notes the time of every byte read or written.
struct Tracked {
    inner: TcpStream,
    activity: Arc<AtomicU64>,
    epoch: Instant,
}

impl Tracked {
    fn touch(&self) {
        self.activity
            .store(millis_since(self.epoch), Ordering::Relaxed);
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

fn route(req: &Request<Incoming>, status: &Status) -> Response<Full<Bytes>> {
    let text = |code: StatusCode, content_type: &'static str, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = code;
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static(content_type),
        );
        response
    };
    const PLAIN: &str = "text/plain; charset=utf-8";
    // hyper sends a HEAD response's headers (its length included) without the body.
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            PLAIN,
            "GET or HEAD only\n".into(),
        );
        response.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("GET, HEAD"),
        );
        return response;
    }
    match req.uri().path() {
        "/metrics" => text(
            StatusCode::OK,
            "text/plain; version=0.0.4; charset=utf-8",
            status.metrics.render(),
        ),
        "/healthz" => text(StatusCode::OK, PLAIN, "ok\n".into()),
        "/readyz" => match status.ready.reason() {
            None => text(StatusCode::OK, PLAIN, "ready\n".into()),
            Some(why) => text(
                StatusCode::SERVICE_UNAVAILABLE,
                PLAIN,
                format!("not ready: {why}\n"),
            ),
        },
        _ => text(StatusCode::NOT_FOUND, PLAIN, "not found\n".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw HTTP/1.1 exchange on a new connection: the response's bytes until the server closes.
    fn exchange(addr: SocketAddr, request: &str) -> String {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        String::from_utf8_lossy(&response).into_owned()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idle_and_silent_connections_neither_block_a_probe_nor_stay_open() {
        let metrics = Metrics::new().unwrap();
        let status = Status {
            ready: Arc::new(Readiness::new(metrics.clone())),
            metrics,
        };
        let (addr, listener) = bind("127.0.0.1:0").await.unwrap();
        let (stop, shutdown) = watch::channel(false);
        let limits = Limits {
            max_connections: 8,
            header_read_timeout: Duration::from_millis(300),
            idle_timeout: Duration::from_millis(600),
        };
        let server = tokio::spawn(serve_with(listener, status, shutdown, limits));
        let client = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            // Twice the cap of connections that never send a byte.
            let idle: Vec<_> = (0..16)
                .map(|_| std::net::TcpStream::connect(addr).unwrap())
                .collect();
            let started = Instant::now();
            let ok = exchange(
                addr,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            );
            assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
            assert!(ok.ends_with("ok\n"), "{ok}");
            assert!(started.elapsed() < Duration::from_secs(1));
            // HEAD: the headers, the length of the body, no body.
            let head = exchange(
                addr,
                "HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            );
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            assert!(head.contains("content-length: 3"), "{head}");
            assert!(head.ends_with("\r\n\r\n"), "{head}");
            let post = exchange(addr, "POST /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
            assert!(post.starts_with("HTTP/1.1 405"), "{post}");
            assert!(post.contains("allow: GET, HEAD"), "{post}");
            // A header never finished is cut off after the header-read timeout.
            let slow = exchange(addr, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
            assert!(!slow.contains("200"), "{slow}");
            // Every idle connection is closed: evicted past the cap, or timed out.
            std::thread::sleep(Duration::from_millis(900));
            for mut stream in idle {
                stream
                    .set_read_timeout(Some(Duration::from_secs(2)))
                    .unwrap();
                let mut byte = [0u8; 1];
                let read = stream.read(&mut byte);
                assert!(
                    matches!(read, Ok(0))
                        || read
                            .as_ref()
                            .is_err_and(|e| e.kind() != std::io::ErrorKind::WouldBlock
                                && e.kind() != std::io::ErrorKind::TimedOut),
                    "an idle connection is still open: {read:?}"
                );
            }
        });
        let result = client.await;
        stop.send(true).unwrap();
        server.await.unwrap();
        result.unwrap();
    }

    #[test]
    fn not_ready_while_any_partition_restores_and_the_gauges_agree() {
        let metrics = Metrics::new().unwrap();
        let ready = Readiness::new(metrics.clone());
        let agree = |expected: bool| {
            assert_eq!(ready.is_ready(), expected);
            assert_eq!(metrics.ready.get(), i64::from(expected));
        };
        agree(false);
        ready.set_assigned(true);
        agree(true);
        ready.restore_started();
        ready.restore_started();
        agree(false);
        assert_eq!(metrics.restoring_partitions.get(), 2);
        ready.restore_finished();
        agree(false);
        ready.restore_finished();
        agree(true);
        assert_eq!(metrics.restoring_partitions.get(), 0);
        ready.set_assigned(false);
        agree(false);
        assert!(ready.reason().unwrap().contains("not assigned"));
        ready.set_assigned(true);
        ready.set_unreachable(Some("1/1 brokers are down".into()));
        agree(false);
        assert_eq!(
            ready.reason().unwrap(),
            "no Kafka broker reachable: 1/1 brokers are down"
        );
        ready.set_unreachable(None);
        agree(true);
        assert_eq!(ready.reason(), None);
    }
}
