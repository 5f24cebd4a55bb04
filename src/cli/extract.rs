//! `urltree extract`: local files in, clean-text JSONL out, state in a local RocksDB directory;
//! one HTML page without `--state` goes through the cold-start path and writes no state.
//!
//! Exit codes: 0 when the input was read to its end (records that could not be processed are
//! dead letters in the errors file); 1 the same, but `--strict` was given and some records were
//! dead letters; 2 a usage error, or an input, output or state that could not be opened, read or
//! written (every complete record read before a read error is still processed and written).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use super::engines::Engines;
use anyhow::{bail, Context};
use indicatif::ProgressBar;
use urltree::config::Config;
use urltree::engine::{Outcome, Stateless, Stats};
use urltree::local::{Compression, Item, JsonlWriter};
use urltree::record::{DeadLetter, Source};
use urltree::shards::{self, RunError, Sharded};

/// Exit code of a run that dead-lettered records under `--strict`.
const EXIT_DEAD_LETTERS: u8 = 1;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: super::input::InputArgs,
    /// Output clean-text JSONL (`-` for stdout); a name ending in `.gz` writes gzip, `.zst` zstd.
    #[arg(long, short = 'o', default_value = "-")]
    output: PathBuf,
    /// Dead-letter JSONL for records that cannot be processed (default: beside the output, or
    /// `urltree-errors.jsonl` when writing to stdout). Created only when there is an error.
    #[arg(long)]
    errors: Option<PathBuf>,
    /// State directory (overrides `[state] path`); kept between runs, so a second run keeps learning.
    /// One HTML page (a .html file, or HTML on stdin) uses no state unless this is given.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Classification heuristic (overrides `[tree] heuristic`).
    #[arg(long)]
    heuristic: Option<urltree::tree::Heuristic>,
    /// Include per-block detail (text, label, count, reason) in every output record.
    #[arg(long)]
    blocks: bool,
    /// Include the content rendered as Markdown (overrides `[output] markdown`).
    #[arg(long)]
    markdown: bool,
    /// Exit with code 1 when any record was dead-lettered (default: 0, the errors file says which).
    #[arg(long)]
    strict: bool,
    /// No progress bar and no per-record warnings (the summary and errors file stay).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Engines in parallel, each on its own thread with its own share of the domains and its own
    /// state (`STATE/shard-K-of-N/`); the output is the same, in input order (default: the
    /// state's count when it has one, else the machine's cores).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
}

/// Refuses outputs that would overwrite the input or each other before anything is read.
fn check_paths(input: &Path, output: &Path, errors: &Path) -> anyhow::Result<()> {
    let same = |a: &Path, b: &Path| {
        a != Path::new("-") && b != Path::new("-") && absolute(a) == absolute(b)
    };
    if same(input, output) {
        bail!(
            "the output {} is the input: refusing to overwrite it",
            output.display()
        );
    }
    if same(input, errors) {
        bail!(
            "the errors file {} is the input: refusing to overwrite it",
            errors.display()
        );
    }
    if same(output, errors) {
        bail!(
            "the errors file {} is the output: give --errors another path",
            errors.display()
        );
    }
    Ok(())
}

/// A path with its directory resolved (links included) when it exists, for comparisons.
fn absolute(path: &Path) -> PathBuf {
    if let Ok(resolved) = path.canonicalize() {
        return resolved;
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (dir.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    }
}

/// The records of one run on their way to the engines and out.
struct Run {
    shards: Engines,
    sink: Sink,
    /// Records taken since the progress was last shown.
    since_progress: usize,
    batch_size: usize,
    /// Dead letters written by the reader (lines over the limit, unreadable files).
    read_errors: u64,
}

/// Where the outcomes go, in input order.
struct Sink {
    output: JsonlWriter,
    errors: JsonlWriter,
    bar: ProgressBar,
    quiet: bool,
}

impl Run {
    fn push(&mut self, bytes: Vec<u8>, source: Source) -> anyhow::Result<()> {
        self.since_progress += 1;
        let sink = &mut self.sink;
        self.shards
            .push(bytes, source, &mut |outcome| sink.write(outcome))
            .map_err(run_error)
    }

    /// Writes a dead letter the reader made in its place in input order.
    fn reader_dead_letter(&mut self, dead: DeadLetter) -> anyhow::Result<()> {
        self.since_progress += 1;
        self.read_errors += 1;
        let sink = &mut self.sink;
        self.shards
            .push_outcome(Outcome::Rejected(Box::new(dead)), &mut |outcome| {
                sink.write(outcome)
            })
            .map_err(run_error)
    }

    /// Processes what is pending and writes every outcome left.
    fn finish(self) -> anyhow::Result<(Stats, Sink)> {
        let Run {
            shards, mut sink, ..
        } = self;
        let stats = shards
            .finish(&mut |outcome| sink.write(outcome))
            .map_err(run_error)?;
        Ok((stats, sink))
    }

    /// Shows the progress once a batch's worth of records was taken since it was last shown.
    fn progress(&mut self, position: u64, started: Instant) {
        if self.since_progress >= self.batch_size {
            self.since_progress = 0;
            self.sink.bar.set_position(position);
            self.sink
                .bar
                .set_message(summary_line(self.shards.stats(), started));
        }
    }
}

/// A shard's failure, or a write that failed, with its context.
fn run_error(e: RunError<anyhow::Error>) -> anyhow::Error {
    match e {
        RunError::Shard(e) => anyhow::Error::new(e).context("processing the records"),
        RunError::Emit(e) => e,
    }
}

impl Sink {
    fn write(&mut self, outcome: Outcome) -> anyhow::Result<()> {
        match outcome {
            Outcome::Clean(record) => {
                for warning in &record.warnings {
                    self.warn(&record.source, warning);
                }
                self.output.write(&record).context("writing the output")
            }
            Outcome::Rejected(dead) => self.dead_letter(&dead),
            Outcome::Duplicate { .. } => Ok(()),
        }
    }

    fn dead_letter(&mut self, dead: &DeadLetter) -> anyhow::Result<()> {
        let message = format!(
            "rejected ({}): {}",
            dead.error.kind.as_str(),
            dead.error.message
        );
        self.warn(&dead.source, &message);
        self.errors.write(dead).context("writing the errors file")
    }

    /// A per-record warning: above the progress bar, never with `--quiet`.
    fn warn(&self, source: &Source, message: &str) {
        if !self.quiet {
            self.bar.suspend(|| {
                tracing::warn!(source = %source.topic, line = source.offset, "{message}");
            });
        }
    }
}

pub fn run(args: Args, mut config: Config) -> anyhow::Result<ExitCode> {
    if let Some(state) = &args.state {
        config.state.path = state.clone();
    }
    if let Some(h) = args.heuristic {
        config.tree.heuristic = h;
    }
    if args.blocks {
        config.output.blocks = true;
    }
    if args.markdown {
        config.output.markdown = true;
    }
    args.input.configure(&mut config);
    config.validate()?;
    let errors_path = args
        .errors
        .clone()
        .unwrap_or_else(|| default_errors_path(&args.output));
    check_paths(&args.input.input, &args.output, &errors_path)?;
    // Opened before anything is created, so a missing input leaves no state or output.
    let mut input = args.input.open(&config)?;
    // One page learns nothing a later run could use unless a state is asked for.
    let stateless = input.is_one_page() && args.state.is_none();
    let (shards, jobs) = if stateless {
        let pipeline = Stateless::new(&config).context("loading the URL rules")?;
        (Engines::Stateless(Box::new(pipeline)), 1)
    } else {
        let jobs = shards::resolve_jobs(
            &config.state.path,
            args.jobs.map(usize::from),
            std::thread::available_parallelism().map_or(1, usize::from),
        )?;
        let shards = Sharded::open(&config, jobs)
            .with_context(|| format!("opening state at {}", config.state.path.display()))?;
        (Engines::Sharded(shards), jobs)
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut run = Run {
        shards,
        sink: Sink {
            output: JsonlWriter::create(&args.output)?,
            errors: JsonlWriter::lazy(&errors_path),
            bar: super::progress::bar(show_progress, input.total()),
            quiet: args.quiet,
        },
        since_progress: 0,
        batch_size: config.input.batch_size,
        read_errors: 0,
    };

    let mut read_error = None;
    loop {
        match input.next_item() {
            Ok(Some(Item::Record { bytes, source })) => run.push(bytes, source)?,
            Ok(Some(Item::DeadLetter(dead))) => run.reader_dead_letter(dead)?,
            Ok(None) => break,
            Err(e) => {
                read_error = Some(e);
                break;
            }
        }
        run.progress(input.position(), started);
    }
    let read_errors = run.read_errors;
    let (stats, mut run) = run.finish()?;
    run.bar.finish_and_clear();
    run.output.finish().context("finishing the output")?;
    run.errors.finish().context("finishing the errors file")?;

    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    let blocks = stats.content_blocks + stats.boilerplate_blocks;
    eprintln!(
        "urltree extract: {} pages ({} new versions), {} duplicates, {} invalid, content share {:.1}% of {} blocks, {:.1} pages/s ({:.1} MB/s), {} forgotten",
        stats.pages,
        stats.versions,
        stats.duplicates,
        stats.rejected + read_errors,
        if blocks == 0 { 0.0 } else { 100.0 * stats.content_blocks as f64 / blocks as f64 },
        blocks,
        stats.pages as f64 / seconds,
        stats.html_bytes as f64 / 1e6 / seconds,
        stats.forgotten,
    );
    if let Some(path) = run.output.target() {
        eprintln!(
            "  output: {} ({} records)",
            path.display(),
            run.output.written()
        );
    }
    if run.errors.written() > 0 {
        eprintln!(
            "  errors: {} ({} records)",
            errors_path.display(),
            run.errors.written()
        );
    }
    if stateless {
        eprintln!("  state:  none (one page, its site's first: give --state to learn from it)");
    } else if jobs > 1 {
        eprintln!("  state:  {} ({jobs} shards)", config.state.path.display());
    } else {
        eprintln!("  state:  {}", config.state.path.display());
    }
    let skipped_files = input.skipped_files();
    if skipped_files > 0 {
        eprintln!("  skipped: {skipped_files} files whose names are neither HTML (.html, .htm) nor WARC (.warc, .warc.gz, .warc.zst)");
    }
    let skipped_records = input.skipped_records();
    if !skipped_records.is_empty() {
        let total: u64 = skipped_records.values().sum();
        let reasons: Vec<String> = skipped_records
            .iter()
            .map(|(reason, n)| format!("{n} {reason}"))
            .collect();
        eprintln!(
            "  skipped: {total} WARC records without a page ({})",
            reasons.join(", ")
        );
    }
    if stats.dropped_fields > 0 {
        eprintln!(
            "  {} optional fields of the wrong type dropped (the pages were kept)",
            stats.dropped_fields
        );
    }
    if stats.clamped_times > 0 {
        eprintln!(
            "  {} pages had an event time more than a day ahead: clamped",
            stats.clamped_times
        );
    }
    if run.output.written() == 0 && stats.duplicates > 0 {
        eprintln!(
            "urltree extract: no output: {} of the pages are duplicates of pages the state at {} already holds (same URL key, same content), which are never emitted twice; a page comes out again when its content changes, or with a fresh --state",
            stats.duplicates,
            config.state.path.display()
        );
    }
    if let Some(error) = read_error {
        bail!(
            "{error}; every complete record before it was processed ({} written to the output)",
            run.output.written()
        );
    }
    if args.strict && run.errors.written() > 0 {
        return Ok(ExitCode::from(EXIT_DEAD_LETTERS));
    }
    Ok(ExitCode::SUCCESS)
}

fn default_errors_path(output: &Path) -> PathBuf {
    if output == Path::new("-") {
        return PathBuf::from("urltree-errors.jsonl");
    }
    let compression = Compression::of(output);
    let stem = output
        .file_name()
        .map(|n| {
            let name = n.to_string_lossy();
            let name = name
                .get(..name.len() - compression.suffix().len())
                .unwrap_or(&name)
                .to_owned();
            name.trim_end_matches(".jsonl").to_owned()
        })
        .unwrap_or_else(|| "output".into());
    output.with_file_name(format!("{stem}.errors.jsonl{}", compression.suffix()))
}

fn summary_line(stats: Stats, started: Instant) -> String {
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    format!(
        "{} pages, {} dup, {} invalid, {:.0} pages/s",
        stats.pages,
        stats.duplicates,
        stats.rejected,
        stats.pages as f64 / seconds
    )
}
