//! `urltree run`: the Kafka worker, until SIGTERM or SIGINT.

use std::process::ExitCode;

use anyhow::Context;
use urltree::config::Config;
use urltree::kafka::Worker;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Worker threads of the async runtime (the partitions' processing runs on threads of its own).
    #[arg(long, default_value_t = 2)]
    io_threads: usize,
}

pub fn run(args: Args, config: Config) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.io_threads.max(1))
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let worker = Worker::new(config)
            .await
            .context("starting the Kafka worker")?;
        tracing::info!(http = %worker.http_addr(), "serving /metrics, /healthz, /readyz");
        worker
            .run(shutdown_signal())
            .await
            .context("running the Kafka worker")?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Completes on SIGTERM or SIGINT.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM received"),
                    _ = interrupt => tracing::info!("SIGINT received"),
                }
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
