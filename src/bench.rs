//! `urltree bench`: the whole pipeline on one core (or over N shards, [`crate::shards`]) over an in-memory corpus — parse, key, dedup,
//! tree update in RocksDB, classify, serialize — with throughput, parse share, state size and peak
//! memory, over one or more rounds on fresh state, or ([`steady`]) over a stream of new copies of a
//! corpus at steady state.

mod copies;
pub mod steady;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::blocks::Tokenizer;
use crate::config::{Config, DomainCheck};
use crate::corpus::{self, CorpusError};
use crate::engine::{Engine, Input, Outcome};
use crate::record::{RawPage, Source};
use crate::shards::{layout, RunError, Sharded};
use crate::state::Store;

/// The numbers of one benchmark run (the JSON written by `urltree bench --json`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BenchReport {
    /// Corpus name.
    pub corpus: String,
    /// Pages in the corpus.
    pub pages: u64,
    /// HTML bytes in the corpus.
    pub html_bytes: u64,
    /// Wall-clock seconds of the pipeline pass.
    pub seconds: f64,
    /// Pages per CPU-second through the whole pipeline.
    pub pages_per_sec: f64,
    /// MB (10^6 bytes) of HTML per second through the whole pipeline: per CPU-second of the
    /// process (all its threads, RocksDB's background work included), so the figure is per core
    /// and does not depend on what else the machine runs.
    pub mb_per_sec: f64,
    /// MB of HTML per wall-clock second (lower than `mb_per_sec` on a busy machine, higher
    /// with several shards on several cores).
    pub mb_per_wall_sec: f64,
    /// Pages per wall-clock second.
    #[serde(default)]
    pub pages_per_wall_sec: f64,
    /// Shards the pipeline ran over (`--jobs`; 1: one engine on the benchmark's thread).
    #[serde(default = "one")]
    pub jobs: usize,
    /// CPU seconds of the process during the pipeline pass.
    pub cpu_seconds: f64,
    /// CPU time of a tokenizer-only pass over the same pages as a share of the pipeline's.
    pub parse_share: f64,
    /// MB per CPU-second of the tokenizer alone.
    pub parse_mb_per_sec: f64,
    /// State bytes (SST files and memtables, after compaction) per 1,000 retained documents.
    pub state_bytes_per_1000_docs: f64,
    /// Documents retained at the end.
    pub docs_retained: u64,
    /// Peak resident set size of the process in bytes (Linux; 0 elsewhere).
    pub peak_rss_bytes: u64,
    /// The heuristic used.
    pub heuristic: String,
    /// Pipeline passes run; the throughput fields are those of the median pass by CPU time.
    pub rounds: u32,
    /// MB of HTML per CPU-second of each pass, in the order they ran.
    pub mb_per_sec_rounds: Vec<f64>,
}

fn one() -> usize {
    1
}

/// Runs the benchmark on the corpus at `path`: `rounds` passes of the pipeline (at least one),
/// each on fresh state under a temporary directory over `jobs` shards, after one tokenizer-only
/// pass per round. The
/// throughput fields are those of the median round by CPU time, so one slow round on a shared
/// machine does not decide the figure; `mb_per_sec_rounds` lists every round.
pub fn run(
    path: &Path,
    base: &Config,
    rounds: u32,
    jobs: usize,
) -> Result<BenchReport, CorpusError> {
    let pages = corpus::load(path)?;
    let mut passes = Vec::new();
    let mut parse_seconds = Vec::new();
    let mut html_bytes = 0;
    for _ in 0..rounds.max(1) {
        let (seconds, bytes) = parse_pass(&pages, base);
        parse_seconds.push(seconds);
        html_bytes = bytes;
        passes.push(if jobs > 1 {
            sharded_pass(&pages, base, jobs)?
        } else {
            pipeline_pass(&pages, base)?
        });
    }
    let mb = html_bytes as f64 / 1e6;
    let mb_per_sec_rounds: Vec<f64> = passes.iter().map(|p| mb / p.cpu_seconds).collect();
    parse_seconds.sort_by(f64::total_cmp);
    let parse_seconds = parse_seconds[parse_seconds.len() / 2];
    passes.sort_by(|a, b| a.cpu_seconds.total_cmp(&b.cpu_seconds));
    let median = &passes[passes.len() / 2];
    Ok(BenchReport {
        corpus: corpus::corpus_name(path),
        pages: pages.len() as u64,
        html_bytes,
        seconds: median.seconds,
        pages_per_sec: pages.len() as f64 / median.cpu_seconds,
        mb_per_sec: mb / median.cpu_seconds,
        mb_per_wall_sec: mb / median.seconds,
        pages_per_wall_sec: pages.len() as f64 / median.seconds,
        jobs: jobs.max(1),
        cpu_seconds: median.cpu_seconds,
        parse_share: (parse_seconds / median.cpu_seconds).min(1.0),
        parse_mb_per_sec: mb / parse_seconds.max(1e-9),
        state_bytes_per_1000_docs: if median.docs_retained == 0 {
            0.0
        } else {
            median.state_bytes as f64 * 1000.0 / median.docs_retained as f64
        },
        docs_retained: median.docs_retained,
        peak_rss_bytes: peak_rss_bytes(),
        heuristic: base.tree.heuristic.to_string(),
        rounds: mb_per_sec_rounds.len() as u32,
        mb_per_sec_rounds,
    })
}

/// CPU seconds of the tokenizer alone over the pages (only the tokenizer calls are timed), and
/// the HTML bytes of the pages that decode.
fn parse_pass(pages: &[corpus::CorpusPage], config: &Config) -> (f64, u64) {
    let mut tokenizer = Tokenizer::new(config.parse.clone());
    let mut seconds = 0.0;
    let mut html_bytes = 0;
    let mut blocks = 0usize;
    for page in pages {
        let Ok(raw) = RawPage::decode(&page.record, usize::MAX) else {
            continue;
        };
        html_bytes += raw.html.len() as u64;
        let start = thread_cpu_seconds();
        blocks += tokenizer
            .blocks_str(&raw.html)
            .map(|b| b.len())
            .unwrap_or(0);
        seconds += thread_cpu_seconds() - start;
    }
    std::hint::black_box(blocks);
    (seconds.max(1e-9), html_bytes)
}

/// The numbers of one pipeline pass.
struct Pass {
    seconds: f64,
    cpu_seconds: f64,
    state_bytes: u64,
    docs_retained: u64,
}

/// One pass of the whole pipeline over the pages, on fresh state.
fn pipeline_pass(pages: &[corpus::CorpusPage], base: &Config) -> Result<Pass, CorpusError> {
    let state_dir = tempfile::tempdir().map_err(CorpusError::TempDir)?;
    let mut config = base.clone();
    config.state.path = state_dir.path().to_owned();
    config.input.domain_check = DomainCheck::TrustRecord;
    let mut engine = Engine::open(&config)?;
    let mut sink = std::io::sink();
    let start = Instant::now();
    let cpu_start = process_cpu_seconds();
    for chunk in pages.chunks(config.input.batch_size) {
        let inputs: Vec<Input<'_>> = chunk
            .iter()
            .map(|p| Input::new(&p.record, Source::line("bench", p.line)))
            .collect();
        for outcome in engine.process_batch(&inputs, None)? {
            // Serializing the output is part of the pipeline.
            let _ = match outcome {
                Outcome::Clean(record) => serde_json::to_writer(&mut sink, &record),
                Outcome::Rejected(dead) => serde_json::to_writer(&mut sink, &dead),
                Outcome::Duplicate { .. } => Ok(()),
            };
            let _ = sink.write_all(b"\n");
        }
    }
    // Flushing is part of the cost of the writes: wait for it before reading the clocks.
    engine.store().flush()?;
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let cpu_seconds = (process_cpu_seconds() - cpu_start).max(1e-9);
    engine.store().compact()?;
    let state_bytes = engine.store().size_bytes()?;
    Ok(Pass {
        seconds,
        cpu_seconds,
        state_bytes,
        // Counted in the state: a new version of a page replaces its old one there.
        docs_retained: engine.store().retained()?.len() as u64,
    })
}

/// One pass over `jobs` shards on fresh state: the records are copied to the shards as a reader
/// hands them over, and the outcomes serialized in input order. The clocks stop once every shard
/// has ended (its engine closed); state size and retained documents are read afterwards.
fn sharded_pass(
    pages: &[corpus::CorpusPage],
    base: &Config,
    jobs: usize,
) -> Result<Pass, CorpusError> {
    let state_dir = tempfile::tempdir().map_err(CorpusError::TempDir)?;
    let mut config = base.clone();
    config.state.path = state_dir.path().to_owned();
    config.input.domain_check = DomainCheck::TrustRecord;
    let mut shards = Sharded::open(&config, jobs)?;
    let mut sink = std::io::sink();
    let mut serialize = |outcome: Outcome| -> Result<(), std::convert::Infallible> {
        let _ = match outcome {
            Outcome::Clean(record) => serde_json::to_writer(&mut sink, &record),
            Outcome::Rejected(dead) => serde_json::to_writer(&mut sink, &dead),
            Outcome::Duplicate { .. } => Ok(()),
        };
        let _ = sink.write_all(b"\n");
        Ok(())
    };
    let shard_error = |e: RunError<std::convert::Infallible>| match e {
        RunError::Shard(e) => CorpusError::Shard(e),
        RunError::Emit(never) => match never {},
    };
    let start = Instant::now();
    let cpu_start = process_cpu_seconds();
    for page in pages {
        let source = Source::line("bench", page.line);
        shards
            .push(page.record.clone(), source, &mut serialize)
            .map_err(shard_error)?;
    }
    shards.finish(&mut serialize).map_err(shard_error)?;
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let cpu_seconds = (process_cpu_seconds() - cpu_start).max(1e-9);
    let (mut state_bytes, mut docs_retained) = (0, 0);
    for shard in 0..jobs {
        let mut options = config.state.clone();
        options.path = layout::shard_dir(&config.state.path, shard, jobs);
        let store = Store::open(&options)?;
        store.compact()?;
        state_bytes += store.size_bytes()?;
        docs_retained += store.retained()?.len() as u64;
    }
    Ok(Pass {
        seconds,
        cpu_seconds,
        state_bytes,
        docs_retained,
    })
}

/// CPU seconds used by this process, all threads (user + system).
pub fn process_cpu_seconds() -> f64 {
    cpu_seconds(libc::RUSAGE_SELF)
}

/// CPU seconds used by the calling thread (user + system).
pub fn thread_cpu_seconds() -> f64 {
    cpu_seconds(libc::RUSAGE_THREAD)
}

fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: rusage is plain data; all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage for getrusage to fill.
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Peak resident set size (`VmHWM`) of this process in bytes; 0 where `/proc` is unavailable.
pub fn peak_rss_bytes() -> u64 {
    proc_status_kb("VmHWM:") * 1024
}

/// The kB figure of one line of `/proc/self/status`; 0 where it is unavailable.
fn proc_status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                let rest = line.strip_prefix(field)?;
                rest.trim().trim_end_matches("kB").trim().parse().ok()
            })
        })
        .unwrap_or(0)
}
