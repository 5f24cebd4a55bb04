//! The worker's HTTP endpoints: `/metrics` (Prometheus text), `/healthz` (alive), `/readyz`
//! (partitions assigned, every one opened and none restoring). A minimal HTTP/1 server on hyper.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

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

/// Serves connections on `listener` until `shutdown` turns true.
pub async fn serve(listener: TcpListener, status: Status, mut shutdown: watch::Receiver<bool>) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.wait_for(|stop| *stop) => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("http accept: {e}");
                continue;
            }
        };
        let status = status.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let status = status.clone();
                async move { Ok::<_, Infallible>(route(&req, &status)) }
            });
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!("http connection: {e}");
            }
        });
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
    if req.method() != Method::GET {
        return text(StatusCode::METHOD_NOT_ALLOWED, PLAIN, "GET only\n".into());
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
