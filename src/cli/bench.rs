//! `urltree bench`: throughput, parse share, state size and peak memory on a corpus.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use urltree::config::Config;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Corpus: a `docs.jsonl.gz` file or a folder holding one.
    #[arg(long)]
    corpus: PathBuf,
    /// Write the numbers as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Passes of the pipeline, each on fresh state; the median pass by CPU time is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
    /// Steady state: stream N copies of the corpus as new pages (new URLs, later times, new article
    /// text) through one state, and report every copy.
    #[arg(long, conflicts_with = "rounds", value_parser = clap::value_parser!(u32).range(1..=100))]
    copies: Option<u32>,
    /// Shards (engines on threads of their own) the pipeline runs over. Default 1, so the
    /// figures per CPU-second stay those of one core and comparable between runs and machines.
    #[arg(long, short = 'j', default_value_t = 1, conflicts_with = "copies", value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: u16,
}

pub fn run(args: Args, config: Config) -> anyhow::Result<ExitCode> {
    if let Some(copies) = args.copies {
        return run_steady(&args, &config, copies);
    }
    let report = urltree::bench::run(&args.corpus, &config, args.rounds, args.jobs.into())
        .with_context(|| format!("benchmarking {}", args.corpus.display()))?;
    println!(
        "{}: {} pages, {:.1} MB HTML in {:.2} s ({:.2} CPU s): {:.0} pages/s, {:.1} MB/s per core ({:.0} pages/s, {:.1} MB/s wall{}); tokenizer alone {:.1} MB/s (parse share {:.0}%); state {:.2} MB per 1,000 docs ({} retained); peak RSS {:.0} MB",
        report.corpus,
        report.pages,
        report.html_bytes as f64 / 1e6,
        report.seconds,
        report.cpu_seconds,
        report.pages_per_sec,
        report.mb_per_sec,
        report.pages_per_wall_sec,
        report.mb_per_wall_sec,
        if report.jobs > 1 {
            format!(" over {} shards", report.jobs)
        } else {
            String::new()
        },
        report.parse_mb_per_sec,
        report.parse_share * 100.0,
        report.state_bytes_per_1000_docs / 1e6,
        report.docs_retained,
        report.peak_rss_bytes as f64 / 1e6,
    );
    if report.rounds > 1 {
        let runs: Vec<String> = report
            .mb_per_sec_rounds
            .iter()
            .map(|r| format!("{r:.1}"))
            .collect();
        println!(
            "median of {} rounds; MB/s per core by round: {}",
            report.rounds,
            runs.join(", ")
        );
    }
    if let Some(json) = &args.json {
        std::fs::write(json, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", json.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_steady(args: &Args, config: &Config, copies: u32) -> anyhow::Result<ExitCode> {
    let report = urltree::bench::steady::run(&args.corpus, config, copies)
        .with_context(|| format!("benchmarking {}", args.corpus.display()))?;
    let mb = |bytes: u64| bytes as f64 / 1e6;
    println!(
        "{}: {} copies of {} pages as new pages, one state ({})",
        report.corpus,
        report.copies.len(),
        report.pages_per_copy,
        report.heuristic
    );
    println!("copy  MB/s  pages/s  CPU s  SST MB  memtable MB  WAL MB (max)  retained  forgotten  RSS MB (peak)");
    for c in &report.copies {
        println!(
            "{:>4}  {:>4.1}  {:>7.0}  {:>5.2}  {:>6.1}  {:>11.1}  {:>5.1} ({:>4.1})  {:>8}  {:>9}  {:>4.0} ({:>4.0})",
            c.copy,
            c.mb_per_sec,
            c.pages_per_sec,
            c.cpu_seconds,
            mb(c.state.sst_bytes),
            mb(c.state.memtable_bytes),
            mb(c.state.wal_bytes),
            mb(c.wal_bytes_max),
            c.docs_retained,
            c.forgotten,
            mb(c.rss_bytes),
            mb(c.peak_rss_bytes),
        );
    }
    println!(
        "median {:.1} MB/s; copies 2..N {:.2} x the first; slowest {:.2} x the median",
        report.median_mb_per_sec, report.steady_vs_first, report.slowest_vs_median
    );
    println!(
        "state after compaction {:.2} MB vs {:.2} MB fresh from the {} retained documents ({:.2} x); WAL at most {:.1} MB, {:.1} MB at the end, replayed on reopening in {:.2} s; peak RSS {:.0} MB",
        mb(report.compacted_bytes),
        mb(report.fresh_bytes),
        report.docs_retained,
        report.state_vs_fresh,
        mb(report.wal_bytes_max),
        mb(report.wal_bytes_at_end),
        report.reopen_seconds,
        mb(report.peak_rss_bytes),
    );
    if let Some(json) = &args.json {
        std::fs::write(json, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", json.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
