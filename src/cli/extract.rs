//! `urltree extract`: local files in, clean-text JSONL out, state in a local RocksDB directory.
//!
//! Exit codes: 0 when the input was read to its end (records that could not be processed are
//! dead letters in the errors file); 1 the same, but `--strict` was given and some records were
//! dead letters; 2 a usage error, or an input, output or state that could not be opened, read or
//! written (every complete record read before a read error is still processed and written).
//!
//! Delivery (DESIGN §4, `docs/extract-guarantees.md`): every batch's outcomes are committed in
//! the state with its pages (the shards' outboxes); the output files are made durable every
//! batch's worth of records and a mark says how far; a run killed at any moment is resumed by
//! the next run on the same `--state` and `-o`, which truncates the files to the mark, replays
//! the outbox and processes the rest, so every record's outcome is written once.
//!
//! One HTML page without `--state` goes through the cold-start path of a fresh state and writes
//! no state (DESIGN §6): it is its site's first page, and nothing a later run could use is learned.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::ProgressBar;
use urltree::config::{Config, Include};
use urltree::engine::{Input, Outcome, Stateless, Stats};
use urltree::local::{Compression, Item, JsonlWriter, RecordSource};
use urltree::record::{DeadLetter, Source};
use urltree::shards::outbox::{InputDigest, Line, Mark, Target};
use urltree::shards::{self, Emitted, MarkHandle, RunError, Sharded, StateLock};

use super::crash::CrashPoint;
use super::syncer::Syncer;

use super::count;

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
    /// `urltree-errors.jsonl` when the output is stdout or a device such as /dev/null). Created
    /// only when there is an error.
    #[arg(long)]
    errors: Option<PathBuf>,
    /// State directory (overrides `[state] path`); kept between runs, so a second run keeps learning.
    /// One HTML page (a .html file, or HTML on stdin) uses no state unless this is given.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Classification heuristic (overrides `[tree] heuristic`).
    #[arg(long)]
    heuristic: Option<urltree::tree::Heuristic>,
    #[command(flatten)]
    prefs: super::prefs::PrefsArgs,
    /// Include per-block detail (text, label, count, reason) in every output record.
    #[arg(long)]
    blocks: bool,
    /// Include the content rendered as Markdown (overrides `[output] markdown`).
    #[arg(long)]
    markdown: bool,
    /// Where links are written as `[text](absolute URL)`: `--links=markdown` (the default),
    /// `--links=all` (in `text` too) or `--links=none` (overrides `[output] include_links`).
    /// `--links` alone: the Markdown with `--markdown`, else `all`.
    #[arg(long, value_name = "WHERE", num_args = 0..=1, require_equals = true)]
    links: Option<Option<Include>>,
    /// Where images are written as `![alt](absolute URL)`: `--images=none` (the default),
    /// `--images=markdown` or `--images=all` (overrides `[output] include_images`). `--images`
    /// alone: the Markdown with `--markdown`, else `all`.
    #[arg(long, value_name = "WHERE", num_args = 0..=1, require_equals = true)]
    images: Option<Option<Include>>,
    /// Exit with code 1 when any record was dead-lettered (default: 0, the errors file says which).
    #[arg(long)]
    strict: bool,
    /// No progress bar and no per-record warnings (the summary and errors file stay).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Engines in parallel, each on its own thread with its own share of the domains and its own
    /// state (`STATE/shard-K-of-N/`); the output is the same, in input order. A state keeps the
    /// count it was started with, so the default is the state's count, and one engine for a fresh
    /// state: give a fresh state --jobs N to use N cores.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Start a new run even when the state holds an interrupted one (by default the run is
    /// resumed: its output truncated to what it had synced and the rest written once); the
    /// outcomes that run committed but had not written are dropped, its pages stay learned.
    #[arg(long)]
    no_resume: bool,
    /// Replace the output even when it holds, whole, what the last run on this state wrote there
    /// (by default such a run is refused: the pages that run emitted are not emitted again, so
    /// their records would be lost).
    #[arg(long)]
    overwrite: bool,
}

/// Refuses outputs that would overwrite the input or each other before anything is read. Files
/// are compared by identity (device and inode), so a hard link, a symbolic link or stdin
/// redirected from the output is recognized; a file that does not exist yet is compared by path.
fn check_paths(input: &Path, output: &Path, errors: &Path) -> anyhow::Result<()> {
    if same_file(input, output) {
        bail!(
            "the output {} is the input: refusing to overwrite it",
            output.display()
        );
    }
    if same_file(input, errors) {
        bail!(
            "the errors file {} is the input: refusing to overwrite it",
            errors.display()
        );
    }
    if same_file(output, errors) {
        bail!(
            "the errors file {} is the output: give --errors another path",
            errors.display()
        );
    }
    Ok(())
}

/// Whether two paths name the same file: `-` is stdin for the input and stdout for an output,
/// compared by what they are open on.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let identity = |path: &Path, stdio: &dyn std::os::fd::AsFd| -> Option<(u64, u64)> {
        let meta = if path == Path::new("-") {
            let fd = stdio.as_fd().try_clone_to_owned().ok()?;
            std::fs::File::from(fd).metadata().ok()?
        } else {
            std::fs::metadata(path).ok()?
        };
        // Pipes and terminals are no file to overwrite.
        meta.is_file().then(|| (meta.dev(), meta.ino()))
    };
    let (id_a, id_b) = (
        identity(a, &std::io::stdin()),
        identity(b, &std::io::stdout()),
    );
    match (id_a, id_b) {
        (Some(x), Some(y)) => x == y,
        _ => a != Path::new("-") && b != Path::new("-") && absolute(a) == absolute(b),
    }
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

/// How a file is named in a mark: absolute, `-` for stdout.
fn mark_name(path: &Path) -> String {
    if path == Path::new("-") {
        "-".into()
    } else {
        absolute(path).display().to_string()
    }
}

/// The records of one run on their way to the engines and out.
struct Run {
    shards: Sharded,
    sink: Sink,
    /// Records taken since the progress was last shown.
    since_progress: usize,
    batch_size: usize,
    /// Dead letters written by the reader (lines over the limit, unreadable files).
    read_errors: u64,
    /// The digest of the input read so far.
    digest: InputDigest,
}

/// Where the outcomes go, in input order, and how far the files are durable.
struct Sink {
    output: JsonlWriter,
    errors: JsonlWriter,
    bar: ProgressBar,
    quiet: bool,
    /// The input digest after each record read whose outcome is not written yet, in input order.
    digests: VecDeque<InputDigest>,
    /// The next mark: where the files stand after the records written so far.
    mark: Mark,
    /// The mark last known durable and handed to the shards (kept up to date by the last
    /// checkpoint; in between, the syncer hands the marks on).
    durable: Mark,
    /// `next_seq` of the last checkpoint.
    sealed: u64,
    /// The thread that syncs the files at checkpoints (taken by the last checkpoint).
    syncer: Option<Syncer>,
    /// Records written since the last checkpoint, and how many make one.
    since_checkpoint: usize,
    checkpoint_every: usize,
    handle: MarkHandle,
    /// Records replayed from the outbox of an interrupted run.
    replayed: u64,
    /// A write failed: the files hold an unknown part of a line, so no checkpoint is made.
    write_failed: bool,
    crash: CrashPoint,
}

impl Run {
    fn push(&mut self, bytes: Vec<u8>, source: Source) -> anyhow::Result<()> {
        self.since_progress += 1;
        self.digest.add(&bytes, &source.topic);
        self.sink.digests.push_back(self.digest);
        let sink = &mut self.sink;
        self.shards
            .push_record(bytes, source, &mut |emitted| sink.write(emitted))
            .map_err(run_error)
    }

    /// Writes a dead letter the reader made in its place in input order.
    fn reader_dead_letter(&mut self, dead: DeadLetter) -> anyhow::Result<()> {
        self.since_progress += 1;
        self.read_errors += 1;
        self.digest.add(dead.payload.as_bytes(), &dead.source.topic);
        self.sink.digests.push_back(self.digest);
        let sink = &mut self.sink;
        self.shards
            .push_made(Outcome::Rejected(Box::new(dead)), &mut |emitted| {
                sink.write(emitted)
            })
            .map_err(run_error)
    }

    /// Processes what is pending and writes every outcome left.
    fn drain(&mut self) -> anyhow::Result<()> {
        let sink = &mut self.sink;
        self.shards
            .drain(&mut |emitted| sink.write(emitted))
            .map_err(run_error)
    }

    /// Moves the bar to `position` (the bar redraws at most a few times a second); the message's
    /// totals are read once a batch's worth of records was taken since they were last read.
    fn progress(&mut self, position: u64, started: Instant) {
        self.sink.bar.set_position(position);
        if self.since_progress >= self.batch_size {
            self.since_progress = 0;
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
    fn write(&mut self, emitted: Emitted) -> anyhow::Result<()> {
        let output_line = emitted
            .line
            .as_ref()
            .filter(|l| l.target == Target::Output)
            .map(|l| &l.bytes[..]);
        self.crash.before_write(&mut self.output, output_line);
        match &emitted.outcome {
            Some(outcome) => {
                for (source, message) in warnings_of(outcome) {
                    self.warn(source, &message);
                }
            }
            None => self.replayed += 1,
        }
        let written = match &emitted.line {
            Some(line) if line.target == Target::Output => self
                .output
                .write_line(&line.bytes)
                .context("writing the output"),
            Some(line) => self
                .errors
                .write_line(&line.bytes)
                .context("writing the errors file"),
            None => Ok(()),
        };
        if written.is_err() {
            // Part of the line may be in the file: no checkpoint may count it.
            self.write_failed = true;
        }
        written?;
        if let Some(digest) = self.digests.pop_front() {
            self.mark.input_digest = digest.0;
        }
        self.mark.next_seq = emitted.seq + 1;
        self.since_checkpoint += 1;
        if self.since_checkpoint >= self.checkpoint_every {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Seals the files up to the records written (buffers out, compressed members ended) and
    /// has the syncer make them durable and hand the mark to the shards.
    fn checkpoint(&mut self) -> anyhow::Result<()> {
        self.since_checkpoint = 0;
        if self.write_failed {
            bail!("a write to the files failed: they are durable up to the last checkpoint");
        }
        if self.mark.next_seq == self.sealed && !self.mark.complete {
            return Ok(());
        }
        let files = self.seal()?;
        self.sealed = self.mark.next_seq;
        if let Some(syncer) = &self.syncer {
            syncer
                .submit(files, self.mark.clone())
                .map_err(|e| anyhow::anyhow!("syncing the output files: {e}"))
                .inspect_err(|_| self.write_failed = true)?;
        }
        self.crash.after_checkpoint();
        Ok(())
    }

    /// Ends the files' compressed members after the records written and notes their lengths in
    /// the mark; returns the handles to sync.
    fn seal(&mut self) -> anyhow::Result<Vec<std::fs::File>> {
        let sealed = self
            .output
            .seal()
            .context("writing the output")
            .and_then(|output| {
                let errors = self.errors.seal().context("writing the errors file")?;
                Ok((output, errors))
            });
        let ((output_bytes, output), (errors_bytes, errors)) =
            sealed.inspect_err(|_| self.write_failed = true)?;
        self.mark.output_bytes = output_bytes;
        self.mark.errors_bytes = errors_bytes;
        Ok(output.into_iter().chain(errors).collect())
    }

    /// The last checkpoint, on the writing thread: waits for the syncs queued, then (unless a
    /// write failed) seals and syncs the files up to every record written and hands that mark
    /// on. Returns the error that kept the files from being durable up to the end, if any; the
    /// durable mark is in `self.durable` either way.
    fn last_checkpoint(&mut self) -> Option<anyhow::Error> {
        if let Some(syncer) = self.syncer.take() {
            let (synced, error) = syncer.stop();
            if let Some(mark) = synced {
                self.durable = mark;
            }
            if let Some(error) = error {
                self.write_failed = true;
                return Some(anyhow::anyhow!("syncing the output files: {error}"));
            }
        }
        if self.write_failed {
            return Some(anyhow::anyhow!(
                "a write to the files failed: they are durable up to the last checkpoint"
            ));
        }
        let synced = self.seal().and_then(|files| {
            for file in &files {
                file.sync_data().context("syncing the output files")?;
            }
            Ok(())
        });
        if let Err(e) = synced {
            self.write_failed = true;
            return Some(e);
        }
        self.handle.set(&self.mark);
        self.durable = self.mark.clone();
        None
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

/// The run an interrupted one left to resume, checked against this one's files: `None` when
/// there is none.
fn to_resume(
    shards: &Sharded,
    output: &str,
    errors: &str,
    state: &Path,
    no_resume: bool,
) -> anyhow::Result<Option<Mark>> {
    let recovered = shards.recovered();
    if recovered.corrupt_marks > 0 {
        bail!(
            "the state at {} holds a delivery mark that does not decode: it was not written by this version of urltree",
            state.display()
        );
    }
    let Some(mark) = recovered.interrupted() else {
        return Ok(None);
    };
    if no_resume {
        eprintln!(
            "urltree extract: --no-resume: the interrupted run on {} that wrote to {} is not finished; the outcomes it had committed after its first {} input records are dropped",
            state.display(),
            mark.output,
            mark.next_seq
        );
        return Ok(None);
    }
    if mark.output != output || mark.errors != errors {
        bail!(
            "the state at {} holds an interrupted run that wrote to {} (errors: {}), with the outcomes of its first {} input records complete there: run the same command again with -o {}{} to finish it, or give --no-resume to start a new run and drop what it had not written",
            state.display(),
            mark.output,
            mark.errors,
            mark.next_seq,
            mark.output,
            if mark.errors == default_errors_name(&mark.output) {
                String::new()
            } else {
                format!(" --errors {}", mark.errors)
            }
        );
    }
    Ok(Some(mark.clone()))
}

/// Refuses a new run whose output is the file the last run on this state wrote, when that run
/// finished and the file still holds what it wrote: the pages it emitted are known to the state
/// now and are not emitted again (same URL key, same content), so writing the file anew would
/// replace their records with none of them. `overwrite` (`--overwrite`) replaces it all the
/// same; another `-o`, or a file changed since, is written as usual.
fn check_replace(
    shards: &Sharded,
    output_name: &str,
    output: &Path,
    state: &Path,
    overwrite: bool,
) -> anyhow::Result<()> {
    if overwrite || output == Path::new("-") {
        return Ok(());
    }
    let Some(last) = shards.recovered().newest().filter(|m| m.complete) else {
        return Ok(());
    };
    let len = std::fs::metadata(output)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if last.output != output_name || len.is_none_or(|len| len == 0 || len != last.output_bytes) {
        return Ok(());
    }
    bail!(
        "{} holds the records the last run on the state at {} wrote there: the pages they come from are known to the state now and are not emitted again, so this run would replace them; give another -o, or --overwrite to replace the file anyway",
        output.display(),
        state.display()
    );
}

fn default_errors_name(output: &str) -> String {
    mark_name(&default_errors_path(Path::new(output)))
}

/// Reads past the first `mark.next_seq` records of the input, which the interrupted run wrote,
/// checking that they are the records it read.
fn skip_written(
    input: &mut RecordSource,
    mark: &Mark,
    digest: &mut InputDigest,
) -> anyhow::Result<()> {
    let mut read = 0;
    while read < mark.next_seq {
        match input.next_item() {
            Ok(Some(Item::Record { bytes, source })) => digest.add(&bytes, &source.topic),
            Ok(Some(Item::DeadLetter(dead))) => {
                digest.add(dead.payload.as_bytes(), &dead.source.topic)
            }
            Ok(None) => bail!(
                "the input ends after {read} records, but the interrupted run this state holds had written the outcomes of {}: it is not the same input; give that input to finish the run, or --no-resume to start a new one",
                mark.next_seq
            ),
            Err(e) => return Err(e).context("reading the input records the interrupted run had written"),
        }
        read += 1;
    }
    if digest.0 != mark.input_digest {
        bail!(
            "the input's first {} records are not those the interrupted run this state holds had read: it is not the same input; give that input to finish the run, or --no-resume to start a new one",
            mark.next_seq
        );
    }
    Ok(())
}

pub fn run(args: Args, mut config: Config) -> anyhow::Result<ExitCode> {
    if let Some(state) = &args.state {
        config.state.path = state.clone();
    }
    if let Some(h) = args.heuristic {
        config.tree.heuristic = h;
    }
    args.prefs.configure(&mut config);
    if args.blocks {
        config.output.blocks = true;
    }
    if args.markdown {
        config.output.markdown = true;
    }
    // A bare `--links` / `--images` shows them in what is written: the Markdown when it is.
    let bare = if config.output.markdown {
        Include::Markdown
    } else {
        Include::All
    };
    if let Some(links) = args.links {
        config.output.include_links = links.unwrap_or(bare);
    }
    if let Some(images) = args.images {
        config.output.include_images = images.unwrap_or(bare);
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
    if input.is_one_page() && args.state.is_none() {
        return one_page(input, &config, &args, &errors_path);
    }
    // One run at a time on a state, locked before its layout is read.
    let _lock = StateLock::acquire(&config.state.path)?;
    let fresh = shards::Layout::of(&config.state.path)? == shards::Layout::Fresh;
    let jobs = shards::resolve_jobs(&config.state.path, args.jobs.map(usize::from), 1)?;
    let mut shards = Sharded::open_delivering(&config, jobs)
        .with_context(|| format!("opening state at {}", config.state.path.display()))?;
    let (output_name, errors_name) = (mark_name(&args.output), mark_name(&errors_path));
    let resumed = to_resume(
        &shards,
        &output_name,
        &errors_name,
        &config.state.path,
        args.no_resume,
    )?;
    let mut digest = InputDigest::default();
    let (output, errors, mark) = match &resumed {
        Some(mark) => {
            // The input is checked before the files are touched.
            skip_written(&mut input, mark, &mut digest)?;
            let output = JsonlWriter::resume(&args.output, mark.output_bytes)
                .context("reopening the output of the interrupted run")?;
            // An errors file the interrupted run made after its mark is cut back too.
            let errors = if mark.errors_bytes > 0 || errors_path.is_file() {
                JsonlWriter::resume(&errors_path, mark.errors_bytes)
                    .context("reopening the errors file of the interrupted run")?
            } else {
                JsonlWriter::lazy(&errors_path)
            };
            shards.resume(mark);
            // Said even with --quiet: the run does not start from the beginning.
            eprintln!(
                "urltree extract: resuming the interrupted run on {}: the outcomes of its first {} input records are in {}; going on from there",
                config.state.path.display(),
                mark.next_seq,
                if mark.output == "-" { "the output" } else { &mark.output },
            );
            (output, errors, mark.clone())
        }
        None => {
            check_replace(
                &shards,
                &output_name,
                &args.output,
                &config.state.path,
                args.overwrite,
            )?;
            let run = shards.recovered().newest().map_or(1, |m| m.run + 1);
            let mark = Mark {
                run,
                input_digest: digest.0,
                output: output_name,
                errors: errors_name,
                ..Mark::default()
            };
            shards.set_mark(&mark);
            (
                JsonlWriter::create(&args.output)?,
                JsonlWriter::lazy(&errors_path),
                mark,
            )
        }
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let started = Instant::now();
    let handle = shards.mark_handle();
    let mut run = Run {
        shards,
        sink: Sink {
            output,
            errors,
            bar: super::progress::bar(show_progress, input.total()),
            quiet: args.quiet,
            digests: VecDeque::new(),
            durable: mark.clone(),
            sealed: mark.next_seq,
            syncer: Some(
                Syncer::start(handle.clone()).context("starting the output's sync thread")?,
            ),
            mark,
            since_checkpoint: 0,
            checkpoint_every: config.input.batch_size,
            handle,
            replayed: 0,
            write_failed: false,
            crash: CrashPoint::from_env(),
        },
        since_progress: 0,
        batch_size: config.input.batch_size,
        read_errors: 0,
        digest,
    };

    let mut read_error = None;
    let mut failure = None;
    loop {
        let step = match input.next_item() {
            Ok(Some(Item::Record { bytes, source })) => run.push(bytes, source),
            Ok(Some(Item::DeadLetter(dead))) => run.reader_dead_letter(dead),
            Ok(None) => break,
            Err(e) => {
                read_error = Some(e);
                break;
            }
        };
        if let Err(e) = step {
            failure = Some(e);
            break;
        }
        run.progress(input.position(), started);
    }
    if failure.is_none() {
        failure = run.drain().err();
    }
    let Run {
        shards,
        sink: mut run,
        read_errors,
        ..
    } = run;
    let stats = shards.stats();
    if let Some(error) = failure {
        run.bar.finish_and_clear();
        return Err(stopped(error, run, shards, &config.state.path));
    }
    // The bar stays on the screen above the summary: full when the input was read to its end.
    if read_error.is_none() {
        if let Some(total) = input.total() {
            run.bar.set_position(total);
        }
        run.bar.set_message(summary_line(stats, started));
        run.bar.finish();
    } else {
        run.bar.abandon();
    }
    // Read to its end, or to a read error: every outcome of what was read is written.
    run.mark.complete = true;
    if let Some(e) = run.last_checkpoint() {
        let mark = run.durable.clone();
        let _ = shards.close(Some(&mark));
        return Err(stopped_message(e, &mark, &config.state.path));
    }
    let last = run.durable.clone();
    shards.close(Some(&last))?;

    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    let blocks = stats.content_blocks + stats.boilerplate_blocks;
    eprintln!(
        "urltree extract: {} ({}), {}, {} invalid, content share {:.1}% of {}, {:.1} pages/s ({:.1} MB/s), {} forgotten",
        count(stats.pages, "page"),
        count(stats.versions, "new version"),
        count(stats.duplicates, "duplicate"),
        stats.rejected + read_errors,
        if blocks == 0 { 0.0 } else { 100.0 * stats.content_blocks as f64 / blocks as f64 },
        count(blocks, "block"),
        stats.pages as f64 / seconds,
        stats.html_bytes as f64 / 1e6 / seconds,
        stats.forgotten,
    );
    if run.replayed > 0 {
        eprintln!(
            "  resumed: {} records of the interrupted run written from the state, where it had committed them",
            run.replayed
        );
    }
    if let Some(path) = run.output.target() {
        eprintln!(
            "  output: {} ({})",
            path.display(),
            count(run.output.written(), "record")
        );
    }
    if run.errors.written() > 0 {
        eprintln!(
            "  errors: {} ({})",
            errors_path.display(),
            count(run.errors.written(), "record")
        );
    }
    if jobs > 1 {
        eprintln!("  state:  {} ({jobs} shards)", config.state.path.display());
    } else {
        eprintln!("  state:  {}", config.state.path.display());
    }
    let skipped_files = input.skipped_files();
    if skipped_files > 0 {
        eprintln!(
            "  skipped: {} whose names are neither HTML (.html, .htm) nor WARC (.warc, .warc.gz, .warc.zst)",
            count(skipped_files as u64, "file")
        );
    }
    let skipped_records = input.skipped_records();
    if !skipped_records.is_empty() {
        let total: u64 = skipped_records.values().sum();
        let reasons: Vec<String> = skipped_records
            .iter()
            .map(|(reason, n)| format!("{n} {reason}"))
            .collect();
        eprintln!(
            "  skipped: {} without a page ({})",
            count(total, "WARC record"),
            reasons.join(", ")
        );
    }
    if stats.dropped_fields > 0 {
        eprintln!(
            "  {} of the wrong type dropped (the pages were kept)",
            count(stats.dropped_fields, "optional field")
        );
    }
    if stats.clamped_times > 0 {
        eprintln!(
            "  {} an event time more than a day ahead: clamped",
            match stats.clamped_times {
                1 => "1 page had".to_owned(),
                n => format!("{n} pages had"),
            }
        );
    }
    if run.output.written() == 0 && stats.duplicates > 0 {
        eprintln!(
            "urltree extract: no output: {} of pages the state at {} already holds (same URL key, same content), which are never emitted twice; a page comes out again when its content changes, or with a fresh --state",
            match stats.duplicates {
                1 => "1 page is a duplicate".to_owned(),
                n => format!("{n} pages are duplicates"),
            },
            config.state.path.display()
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if fresh && jobs == 1 && cores > 1 && started.elapsed() >= HINT_JOBS_AFTER {
        eprintln!(
            "  hint: one engine ran on one core; a fresh state started with --jobs {cores} runs a shard per core, each domain in one (a state keeps its shard count)"
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

/// The errors file of an output that has no place beside it: stdout, or a device or pipe such
/// as `/dev/null` (no file can be made beside one, and none is wanted in `/dev`).
const ERRORS_IN_WORKING_DIR: &str = "urltree-errors.jsonl";

/// How long a run on one engine over a fresh state takes before the summary suggests `--jobs`.
const HINT_JOBS_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// The per-record warnings an outcome carries: its page's, or why it was rejected.
fn warnings_of(outcome: &Outcome) -> Vec<(&Source, String)> {
    match outcome {
        Outcome::Clean(record) => record
            .warnings
            .iter()
            .map(|warning| (&record.source, warning.clone()))
            .collect(),
        Outcome::Rejected(dead) => vec![(
            &dead.source,
            format!(
                "rejected ({}): {}",
                dead.error.kind.as_str(),
                dead.error.message
            ),
        )],
        Outcome::Duplicate { .. } => Vec::new(),
    }
}

/// One page without a state: the cold-start path, its record written to the output (or its
/// dead letter to the errors file) as a run over a fresh state would write it.
fn one_page(
    mut input: RecordSource,
    config: &Config,
    args: &Args,
    errors_path: &Path,
) -> anyhow::Result<ExitCode> {
    let mut engine = Stateless::new(config).context("loading the URL rules")?;
    let mut output = JsonlWriter::create(&args.output)?;
    let mut errors = JsonlWriter::lazy(errors_path);
    while let Some(item) = input.next_item()? {
        let outcome = match item {
            Item::Record { bytes, source } => engine.process(&Input::new(&bytes, source)),
            Item::DeadLetter(dead) => Outcome::Rejected(Box::new(dead)),
        };
        if !args.quiet {
            for (source, message) in warnings_of(&outcome) {
                tracing::warn!(source = %source.topic, line = source.offset, "{message}");
            }
        }
        match Line::of(&outcome) {
            Some(line) if line.target == Target::Output => output
                .write_line(&line.bytes)
                .context("writing the output")?,
            Some(line) => errors
                .write_line(&line.bytes)
                .context("writing the errors file")?,
            None => {}
        }
    }
    output.finish().context("finishing the output")?;
    errors.finish().context("finishing the errors file")?;
    let stats = engine.stats();
    eprintln!(
        "urltree extract: {}, {} invalid",
        count(stats.pages, "page"),
        stats.rejected
    );
    if let Some(path) = output.target() {
        eprintln!(
            "  output: {} ({})",
            path.display(),
            count(output.written(), "record")
        );
    }
    if errors.written() > 0 {
        eprintln!(
            "  errors: {} ({})",
            errors_path.display(),
            count(errors.written(), "record")
        );
    }
    eprintln!("  state:  none (one page, its site's first: give --state to learn from it)");
    if args.strict && errors.written() > 0 {
        return Ok(ExitCode::from(EXIT_DEAD_LETTERS));
    }
    Ok(ExitCode::SUCCESS)
}

/// A run stopped by `error` (a state that failed, a file that could not be written): the files
/// are made durable as far as they can be, the shards still running store that mark, and the
/// message says what is written and how the rest is done.
fn stopped(error: anyhow::Error, mut sink: Sink, shards: Sharded, state: &Path) -> anyhow::Error {
    // A checkpoint that fails (the output's disk is full) leaves the last durable mark.
    let _ = sink.last_checkpoint();
    let mark = sink.durable.clone();
    let _ = shards.close(Some(&mark));
    stopped_message(error, &mark, state)
}

fn stopped_message(error: anyhow::Error, mark: &Mark, state: &Path) -> anyhow::Error {
    let output = if mark.output == "-" {
        "the output".to_owned()
    } else {
        mark.output.clone()
    };
    error.context(format!(
        "stopped: the outcomes of the first {} input records are written and synced to {output}; those of the records after them that were processed are kept in the state at {}; run the same command again (same input, --state and -o) to write the rest, each record once",
        mark.next_seq,
        state.display()
    ))
}

fn default_errors_path(output: &Path) -> PathBuf {
    let special = std::fs::metadata(output).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if output == Path::new("-") || special {
        return PathBuf::from(ERRORS_IN_WORKING_DIR);
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
        "{}, {} dup, {} invalid, {:.0} pages/s",
        count(stats.pages, "page"),
        stats.duplicates,
        stats.rejected,
        stats.pages as f64 / seconds
    )
}
