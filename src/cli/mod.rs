//! Command-line interface: argument parsing, logging set-up and the subcommands.

mod bench;
mod crash;
mod eval;
mod extract;
mod input;
mod prefs;
#[cfg(feature = "kafka")]
mod produce;
mod progress;
#[cfg(test)]
mod readme;
#[cfg(feature = "kafka")]
mod run;
mod syncer;

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
    #[cfg(feature = "kafka")]
    /// Run the Kafka worker: consume raw-html records, produce clean-text records and dead letters
    /// (`[kafka]` config section), serve /metrics, /healthz and /readyz.
    Run(run::Args),
    /// Extract clean text from local files (raw-html JSONL, WARC, HTML pages or a directory of
    /// them; plain or compressed) into clean-text JSONL, keeping the tree in a local RocksDB
    /// directory.
    Extract(extract::Args),
    #[cfg(feature = "kafka")]
    /// Send local pages (raw-html JSONL, WARC or HTML files, as `extract` reads them) to the input
    /// topic, keyed by registrable domain with the Java clients' murmur2 partitioner; count a
    /// record only once the broker acknowledged it, and write the ones that cannot be sent to a
    /// dead-letter file.
    Produce(produce::Args),
    /// Score urltree against a gold corpus (word-LCS and bag-of-words F1).
    Eval(eval::Args),
    /// Measure the whole pipeline's throughput, state size and memory on a corpus.
    Bench(bench::Args),
    /// `run` and `produce` in a build without the `kafka` feature: a clear error.
    #[cfg(not(feature = "kafka"))]
    #[command(name = "run", hide = true, alias = "produce")]
    WithoutKafka(WithoutKafka),
    /// Print the effective configuration (defaults, file and environment) as TOML, secrets
    /// (passwords, client secrets, private keys) as "<redacted>".
    Config,
}

/// The arguments of a subcommand this build leaves out, whatever they are.
#[cfg(not(feature = "kafka"))]
#[derive(clap::Args, Debug)]
struct WithoutKafka {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    args: Vec<String>,
}

pub fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    let config =
        Config::load(cli.config.as_deref()).with_context(|| "loading the configuration")?;
    match cli.command {
        #[cfg(feature = "kafka")]
        Command::Run(args) => run::run(args, config),
        Command::Extract(args) => extract::run(args, config),
        #[cfg(feature = "kafka")]
        Command::Produce(args) => produce::run(args, config),
        Command::Eval(args) => eval::run(args, config),
        Command::Bench(args) => bench::run(args, config),
        #[cfg(not(feature = "kafka"))]
        Command::WithoutKafka(_) => anyhow::bail!(
            "this urltree was built without the `kafka` feature, which `run` and `produce` need: \
             build it with the default features (`cargo build --release`)"
        ),
        Command::Config => {
            print!("{}", config.redacted().to_toml());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `n` and the noun, in the plural unless `n` is 1 (`noun` + "s"): "1 page", "2 pages".
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
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
    // Colour only on a terminal that wants it: never in a pipe or a file, nor with NO_COLOR set.
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}
