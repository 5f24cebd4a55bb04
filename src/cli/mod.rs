//! Command-line interface: argument parsing, logging set-up and the subcommands.

mod bench;
mod engines;
mod eval;
mod extract;
mod input;
mod produce;
mod progress;
mod run;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use urltree::config::Config;

/// urltree: clean article text from streams of crawled HTML, learning each site's template.
#[derive(Parser, Debug)]
#[command(name = "urltree", version, about, long_about = None)]
struct Cli {
    /// Config file (TOML); `URLTREE_<SECTION>__<FIELD>` variables override it.
    #[arg(long, short = 'c', global = true, env = "URLTREE_CONFIG")]
    config: Option<PathBuf>,
    /// Log format: `auto` (human on a terminal, JSON otherwise), `human` or `json`.
    #[arg(long, global = true, default_value = "auto")]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LogFormat {
    Auto,
    Human,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the Kafka worker: consume raw-html records, produce clean-text records and dead letters
    /// (`[kafka]` config section), serve /metrics, /healthz and /readyz.
    Run(run::Args),
    /// Extract clean text from local files (raw-html JSONL, gzip or plain, or a directory of HTML
    /// files) into clean-text JSONL, keeping the tree in a local RocksDB directory.
    Extract(extract::Args),
    /// Send local pages (raw-html JSONL, WARC or HTML files, as `extract` reads them) to the input
    /// topic, keyed by registrable domain with the Java clients' murmur2 partitioner; count a
    /// record only once the broker acknowledged it, and write the ones that cannot be sent to a
    /// dead-letter file.
    Produce(produce::Args),
    /// Score urltree against a gold corpus (word-LCS and bag-of-words F1).
    Eval(eval::Args),
    /// Measure the whole pipeline's throughput, state size and memory on a corpus.
    Bench(bench::Args),
    /// Print the effective configuration (defaults, file and environment) as TOML, secrets
    /// (passwords, client secrets, private keys) as "<redacted>".
    Config,
}

pub fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    let config =
        Config::load(cli.config.as_deref()).with_context(|| "loading the configuration")?;
    match cli.command {
        Command::Run(args) => run::run(args, config),
        Command::Extract(args) => extract::run(args, config),
        Command::Produce(args) => produce::run(args, config),
        Command::Eval(args) => eval::run(args, config),
        Command::Bench(args) => bench::run(args, config),
        Command::Config => {
            print!("{}", config.redacted().to_toml());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn init_logging(format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let json = match format {
        LogFormat::Json => true,
        LogFormat::Human => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}
