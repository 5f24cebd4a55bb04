//! The worker's HTTP endpoints: `/metrics` (Prometheus text), `/healthz` (alive), `/readyz`
//! (every assigned partition opened). A minimal HTTP/1 server on hyper.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::metrics::Metrics;

/// What the endpoints report.
#[derive(Clone)]
pub struct Status {
    /// The metrics served on `/metrics`.
    pub metrics: Metrics,
    /// Whether `/readyz` answers 200.
    pub ready: Arc<AtomicBool>,
}

/// Binds `addr` (port 0 picks a free one); returns the bound address and the listener.
pub async fn bind(addr: &str) -> std::io::Result<(SocketAddr, TcpListener)> {
    let listener = TcpListener::bind(addr).await?;
    Ok((listener.local_addr()?, listener))
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
        "/metrics" => {
            // urltree_ready reports exactly what /readyz answers at the moment of the scrape.
            let ready = status.ready.load(Ordering::Acquire);
            status.metrics.ready.set(i64::from(ready));
            text(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                status.metrics.render(),
            )
        }
        "/healthz" => text(StatusCode::OK, PLAIN, "ok\n".into()),
        "/readyz" if status.ready.load(Ordering::Acquire) => {
            text(StatusCode::OK, PLAIN, "ready\n".into())
        }
        "/readyz" => text(
            StatusCode::SERVICE_UNAVAILABLE,
            PLAIN,
            "not ready: partitions not assigned or not opened\n".into(),
        ),
        _ => text(StatusCode::NOT_FOUND, PLAIN, "not found\n".into()),
    }
}
