//! `urltree bench --copies N`: the pipeline at steady state. One engine and one state take N copies
//! of a corpus as new pages (`copies`) in one stream, as a long-running worker would, so
//! the tree keeps learning and retention keeps forgetting; each copy is measured on its own.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::copies::Copier;
use super::{peak_rss_bytes, process_cpu_seconds, thread_cpu_seconds};
use crate::config::{Config, DomainCheck};
use crate::corpus::{self, CorpusError};
use crate::engine::{Engine, Input, Outcome};
use crate::record::Source;
use crate::state::{self, Rebuild, StateSizes, Store};

/// The numbers of one copy of the stream.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CopyReport {
    /// 1-based copy number.
    pub copy: u32,
    /// Pages accepted and classified in this copy.
    pub pages: u64,
    /// HTML bytes of the copy's records (duplicates included, as in the fresh-state benchmark).
    pub html_bytes: u64,
    /// CPU seconds of the process for this copy (RocksDB's background threads included; making
    /// the copy's records is not counted).
    pub cpu_seconds: f64,
    /// MB of HTML per CPU-second.
    pub mb_per_sec: f64,
    /// Records per CPU-second.
    pub pages_per_sec: f64,
    /// State bytes at the end of the copy, as the worker holds them (not compacted).
    pub state: StateSizes,
    /// The largest write-ahead log seen after any batch of this copy, in bytes.
    pub wal_bytes_max: u64,
    /// Documents retained at the end of the copy.
    pub docs_retained: u64,
    /// Documents forgotten by retention during the copy.
    pub forgotten: u64,
    /// Resident set size at the end of the copy, in bytes.
    pub rss_bytes: u64,
    /// Peak resident set size so far, in bytes.
    pub peak_rss_bytes: u64,
}

/// The result of a steady-state run (the JSON of `urltree bench --copies N --json`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SteadyReport {
    /// Corpus name.
    pub corpus: String,
    /// The heuristic used.
    pub heuristic: String,
    /// Records per copy.
    pub pages_per_copy: u64,
    /// Every copy, in stream order.
    pub copies: Vec<CopyReport>,
    /// Median MB/s per CPU-second over all copies.
    pub median_mb_per_sec: f64,
    /// Median MB/s of copies 2..N over the first copy's MB/s (1.0 with one copy).
    pub steady_vs_first: f64,
    /// The slowest copy's MB/s over the median.
    pub slowest_vs_median: f64,
    /// The largest write-ahead log seen after any batch, in bytes.
    pub wal_bytes_max: u64,
    /// Write-ahead log left when the stream ended (what a restart replays), in bytes.
    pub wal_bytes_at_end: u64,
    /// Seconds to open the state again after the stream, replaying that log (as after `kill -9`).
    pub reopen_seconds: f64,
    /// Table bytes of the streamed state after a full compaction.
    pub compacted_bytes: u64,
    /// Table bytes, after a full compaction, of a fresh state built from the retained documents
    /// alone (as a restore from the changelog builds it).
    pub fresh_bytes: u64,
    /// `compacted_bytes / fresh_bytes`: what the stream's history left behind (1.0: nothing).
    pub state_vs_fresh: f64,
    /// Documents retained at the end.
    pub docs_retained: u64,
    /// Peak resident set size of the process, in bytes.
    pub peak_rss_bytes: u64,
}

/// Streams `copies` copies of the corpus at `path` through one engine on fresh state and
/// measures each copy, then the state the stream leaves. The corpus is read from its file for every
/// copy, one batch at a time, so the measured process holds no more of it than a worker would.
pub fn run(path: &Path, base: &Config, copies: u32) -> Result<SteadyReport, CorpusError> {
    let copier = Copier::new(
        |each| corpus::for_each_page(path, each),
        base.retention.max_age_secs,
    )?;
    let state_dir = tempfile::tempdir().map_err(CorpusError::TempDir)?;
    let mut config = base.clone();
    config.state.path = state_dir.path().join("streamed");
    config.input.domain_check = DomainCheck::TrustRecord;
    let mut stream = Stream {
        engine: Engine::open(&config)?,
        pipeline_cpu: 0.0,
        wal_max: 0,
    };
    let mut reports = Vec::new();
    let mut wal_max_all = 0;
    for k in 0..copies.max(1) {
        let before = stream.engine.stats();
        let (process_start, thread_start) = (process_cpu_seconds(), thread_cpu_seconds());
        stream.pipeline_cpu = 0.0;
        stream.wal_max = 0;
        let mut batch = Vec::with_capacity(config.input.batch_size);
        let mut index = 0;
        corpus::for_each_page(path, |page| {
            if let Some(record) = copier.record(&page, index, k) {
                batch.push((record, page.line));
            }
            index += 1;
            if batch.len() == config.input.batch_size {
                stream.batch(&batch)?;
                batch.clear();
            }
            Ok(())
        })?;
        stream.batch(&batch)?;
        // The main thread's time outside the pipeline (reading the corpus, making the copies) is
        // not counted; RocksDB's background threads are, whenever their work runs.
        let making = (thread_cpu_seconds() - thread_start - stream.pipeline_cpu).max(0.0);
        let cpu_seconds = (process_cpu_seconds() - process_start - making).max(1e-9);
        let after = stream.engine.stats();
        let html_bytes = copier.html_bytes();
        wal_max_all = stream.wal_max.max(wal_max_all);
        reports.push(CopyReport {
            copy: k + 1,
            pages: after.pages - before.pages,
            html_bytes,
            cpu_seconds,
            mb_per_sec: html_bytes as f64 / 1e6 / cpu_seconds,
            pages_per_sec: (after.records - before.records) as f64 / cpu_seconds,
            state: stream.engine.store().sizes()?,
            wal_bytes_max: stream.wal_max,
            // Counted in the state: a new version of a page replaces its old one there.
            docs_retained: stream.engine.store().retained()?.len() as u64,
            forgotten: after.forgotten - before.forgotten,
            rss_bytes: rss_bytes(),
            peak_rss_bytes: peak_rss_bytes(),
        });
    }
    let peak_rss_bytes = peak_rss_bytes();
    let docs_retained = reports.last().map_or(0, |r| r.docs_retained);
    let wal_bytes_at_end = state::wal_bytes(&config.state.path);
    // Closing does not flush: opening again replays the log, as a restart after `kill -9` does.
    drop(stream);
    let start = Instant::now();
    let streamed = Store::open(&config.state)?;
    let reopen_seconds = start.elapsed().as_secs_f64();
    streamed.compact()?;
    let compacted_bytes = streamed.sizes()?.sst_bytes;
    let fresh_bytes = fresh_state_bytes(&streamed, &config, &state_dir.path().join("fresh"))?;
    let mb: Vec<f64> = reports.iter().map(|r| r.mb_per_sec).collect();
    let median_mb_per_sec = median(&mb);
    Ok(SteadyReport {
        corpus: corpus::corpus_name(path),
        heuristic: base.tree.heuristic.to_string(),
        pages_per_copy: copier.pages() as u64,
        median_mb_per_sec,
        steady_vs_first: if mb.len() > 1 {
            median(&mb[1..]) / mb[0]
        } else {
            1.0
        },
        slowest_vs_median: mb.iter().copied().fold(f64::INFINITY, f64::min) / median_mb_per_sec,
        copies: reports,
        wal_bytes_max: wal_max_all,
        wal_bytes_at_end,
        reopen_seconds,
        compacted_bytes,
        fresh_bytes,
        state_vs_fresh: compacted_bytes as f64 / fresh_bytes.max(1) as f64,
        docs_retained,
        peak_rss_bytes,
    })
}

/// The engine of a steady-state run and what it measures across batches.
struct Stream {
    engine: Engine,
    /// Main-thread CPU seconds inside the pipeline during the current copy.
    pipeline_cpu: f64,
    /// The largest write-ahead log seen after a batch of the current copy.
    wal_max: u64,
}

impl Stream {
    /// Runs `records` (each with its corpus line) through the pipeline as one batch, serializing
    /// every output as the worker would.
    fn batch(&mut self, records: &[(Vec<u8>, u64)]) -> Result<(), CorpusError> {
        let inputs: Vec<Input<'_>> = records
            .iter()
            .map(|(bytes, line)| Input::new(bytes, Source::line("bench", *line)))
            .collect();
        let start = thread_cpu_seconds();
        let mut sink = std::io::sink();
        for outcome in self.engine.process_batch(&inputs, None)? {
            let _ = match outcome {
                Outcome::Clean(record) => serde_json::to_writer(&mut sink, &record),
                Outcome::Rejected(dead) => serde_json::to_writer(&mut sink, &dead),
                Outcome::Duplicate { .. } => Ok(()),
            };
            let _ = sink.write_all(b"\n");
        }
        self.pipeline_cpu += thread_cpu_seconds() - start;
        let wal = state::wal_bytes(self.engine.store().path());
        self.wal_max = self.wal_max.max(wal);
        Ok(())
    }
}

/// Table bytes of a fresh state at `dir` holding `streamed`'s retained documents alone, fully
/// compacted.
fn fresh_state_bytes(streamed: &Store, config: &Config, dir: &Path) -> Result<u64, CorpusError> {
    let retained = streamed.retained()?;
    let mut rebuild = Rebuild::new(retained.len() as u64);
    for (offset, (domain, bytes)) in retained.iter().enumerate() {
        let fp = crate::tree::Fingerprint::decode(bytes).map_err(|e| {
            CorpusError::State(state::StateError::Corrupt {
                cf: "docs",
                detail: e.to_string(),
            })
        })?;
        let key = state::keys::seen_key(*domain, &fp.url_key);
        rebuild.push(&key, Some(bytes), offset as i64);
    }
    let mut options = config.state.clone();
    options.path = dir.to_owned();
    let fresh = Store::open(&options)?;
    rebuild.apply(&fresh, "bench", config.kafka.restore_batch_size)?;
    fresh.compact()?;
    Ok(fresh.sizes()?.sst_bytes)
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Resident set size (`VmRSS`) of this process in bytes; 0 where `/proc` is unavailable.
fn rss_bytes() -> u64 {
    super::proc_status_kb("VmRSS:") * 1024
}
