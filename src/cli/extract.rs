//! `urltree extract`: local files in, clean-text JSONL out, state in a local RocksDB directory.
//!
//! Exit codes: 0 when the input was read to its end (records that could not be processed are
//! dead letters in the errors file); 1 the same, but `--strict` was given and some records were
//! dead letters; 2 a usage error, or an input, output or state that could not be opened, read or
//! written (every complete record read before a read error is still processed and written).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use urltree::config::Config;
use urltree::engine::{Outcome, Stats};
use urltree::local::{self, DirEntry, HtmlDir, InputKind, JsonlInput, JsonlWriter, Line};
use urltree::record::{DeadLetter, ErrorKind, Source};
use urltree::shards::{self, RunError, Sharded};

/// Exit code of a run that dead-lettered records under `--strict`.
const EXIT_DEAD_LETTERS: u8 = 1;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input: a raw-html JSONL file (plain or gzip), a directory of .html files, one .html file
    /// (with --url), or `-` for stdin (JSONL, or one HTML page with --url).
    input: PathBuf,
    /// Output clean-text JSONL (`-` for stdout).
    #[arg(long, short = 'o', default_value = "-")]
    output: PathBuf,
    /// Dead-letter JSONL for records that cannot be processed (default: beside the output, or
    /// `urltree-errors.jsonl` when writing to stdout). Created only when there is an error.
    #[arg(long)]
    errors: Option<PathBuf>,
    /// State directory (overrides `[state] path`); kept between runs, so a second run keeps learning.
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
    /// Base URL for a directory input (default: the first path component is the host).
    #[arg(long)]
    base_url: Option<String>,
    /// The page's URL when the input is one HTML page (a .html file, or `-` for HTML on stdin).
    #[arg(long)]
    url: Option<String>,
    /// Trust each record's `domain` field when it disagrees with its URL (default: reject).
    #[arg(long)]
    trust_record_domain: bool,
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

/// What the input path names, opened.
enum Opened {
    Jsonl(JsonlInput),
    Dir(HtmlDir),
    /// One HTML page (a file or stdin) as a raw-html record, and its display name.
    Page(Vec<u8>, String),
}

/// Opens the input before anything is created, so a missing input leaves no state or output.
fn open_input(args: &Args, max_record_bytes: usize) -> anyhow::Result<Opened> {
    let single_page = args.url.is_some() || local::is_html_file(&args.input);
    if single_page {
        let Some(url) = &args.url else {
            bail!(
                "{} is one HTML page: give its URL with --url",
                args.input.display()
            );
        };
        let (bytes, name) = if args.input == Path::new("-") {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("reading stdin")?;
            (bytes, "-".to_owned())
        } else {
            let bytes = std::fs::read(&args.input)
                .with_context(|| format!("cannot read {}", args.input.display()))?;
            (bytes, args.input.display().to_string())
        };
        return Ok(Opened::Page(local::html_record(url, &bytes), name));
    }
    Ok(match InputKind::of(&args.input) {
        // Their errors name the path.
        InputKind::Jsonl(path) => Opened::Jsonl(local::open_jsonl(&path, max_record_bytes)?),
        InputKind::HtmlDir(dir) => Opened::Dir(HtmlDir::open(&dir, args.base_url.clone())?),
    })
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
    shards: Sharded,
    sink: Sink,
    /// Records taken since the progress was last shown.
    since_progress: usize,
    batch_size: usize,
    payload_bytes: usize,
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
    if args.trust_record_domain {
        config.input.domain_check = urltree::config::DomainCheck::TrustRecord;
    }
    config.validate()?;
    let errors_path = args
        .errors
        .clone()
        .unwrap_or_else(|| default_errors_path(&args.output));
    check_paths(&args.input, &args.output, &errors_path)?;
    let jobs = shards::resolve_jobs(
        &config.state.path,
        args.jobs.map(usize::from),
        std::thread::available_parallelism().map_or(1, usize::from),
    )?;
    let opened = open_input(&args, config.input.max_record_bytes)?;
    let shards = Sharded::open(&config, jobs)
        .with_context(|| format!("opening state at {}", config.state.path.display()))?;
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut run = Run {
        shards,
        sink: Sink {
            output: JsonlWriter::create(&args.output)?,
            errors: JsonlWriter::lazy(&errors_path),
            bar: ProgressBar::hidden(),
            quiet: args.quiet,
        },
        since_progress: 0,
        batch_size: config.input.batch_size,
        payload_bytes: config.output.dead_letter_payload_bytes,
        read_errors: 0,
    };

    let mut skipped_files = 0;
    let mut read_error = None;
    match opened {
        Opened::Jsonl(mut input) => {
            run.sink.bar = progress_bar(show_progress, input.size);
            loop {
                let line = match input.lines.next_line() {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    Err(e) => {
                        read_error = Some(format!(
                            "reading {} after line {}: {e}",
                            input.name,
                            input.lines.line_number()
                        ));
                        break;
                    }
                };
                let source = |number: u64| Source::line(&input.name, number);
                match line {
                    Line::Record { number, bytes } => run.push(bytes, source(number))?,
                    Line::TooLong {
                        number,
                        prefix,
                        len,
                    } => {
                        let message = format!(
                            "record is {len} bytes, over the limit of {}",
                            config.input.max_record_bytes
                        );
                        let dead = DeadLetter::from_prefix(
                            ErrorKind::TooLarge,
                            message,
                            source(number),
                            &prefix,
                            len,
                            run.payload_bytes,
                        );
                        run.reader_dead_letter(dead)?;
                    }
                }
                run.progress(input.consumed.load(Ordering::Relaxed), started);
            }
            if input.trailing_garbage.load(Ordering::Relaxed) {
                read_error = Some(format!(
                    "reading {} after line {}: bytes after the last gzip member that are no gzip member",
                    input.name,
                    input.lines.line_number()
                ));
            }
        }
        Opened::Dir(mut files) => {
            skipped_files = files.skipped();
            run.sink.bar = progress_bar(show_progress, Some(files.len() as u64));
            while let Some(entry) = files.next_entry() {
                let index = match entry {
                    DirEntry::Record { index, path, bytes } => {
                        run.push(bytes, Source::line(&path.display().to_string(), index))?;
                        index
                    }
                    DirEntry::Unreadable { index, path, error } => {
                        let message = format!("cannot read {}: {error}", path.display());
                        let source = Source::line(&path.display().to_string(), index);
                        let dead = DeadLetter::new(
                            ErrorKind::Unreadable,
                            message,
                            source,
                            b"",
                            run.payload_bytes,
                        );
                        run.reader_dead_letter(dead)?;
                        index
                    }
                };
                run.progress(index, started);
            }
        }
        Opened::Page(bytes, name) => run.push(bytes, Source::line(&name, 1))?,
    }
    let read_errors = run.read_errors;
    let (stats, mut run) = run.finish()?;
    run.bar.finish_and_clear();
    run.output.flush().context("flushing the output")?;
    run.errors.flush().context("flushing the errors file")?;

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
    if jobs > 1 {
        eprintln!("  state:  {} ({jobs} shards)", config.state.path.display());
    } else {
        eprintln!("  state:  {}", config.state.path.display());
    }
    if skipped_files > 0 {
        eprintln!("  skipped: {skipped_files} files whose names do not end in .html or .htm");
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
    let stem = output
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".jsonl").to_owned())
        .unwrap_or_else(|| "output".into());
    output.with_file_name(format!("{stem}.errors.jsonl"))
}

fn progress_bar(show: bool, total: Option<u64>) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(total) => ProgressBar::new(total),
        None => ProgressBar::new_spinner(),
    };
    let style = ProgressStyle::with_template("{bar:30} {percent:>3}% {elapsed_precise} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
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
