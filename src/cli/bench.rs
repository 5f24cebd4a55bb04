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
}

pub fn run(args: Args, config: Config) -> anyhow::Result<ExitCode> {
    let report = urltree::bench::run(&args.corpus, &config, args.rounds)
        .with_context(|| format!("benchmarking {}", args.corpus.display()))?;
    println!(
        "{}: {} pages, {:.1} MB HTML in {:.2} s ({:.2} CPU s): {:.0} pages/s, {:.1} MB/s per core ({:.1} MB/s wall); tokenizer alone {:.1} MB/s (parse share {:.0}%); state {:.2} MB per 1,000 docs ({} retained); peak RSS {:.0} MB",
        report.corpus,
        report.pages,
        report.html_bytes as f64 / 1e6,
        report.seconds,
        report.cpu_seconds,
        report.pages_per_sec,
        report.mb_per_sec,
        report.mb_per_wall_sec,
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
