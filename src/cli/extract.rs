//! `urltree extract`: local files in, clean-text JSONL out, state in a local RocksDB directory.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use urltree::config::Config;
use urltree::engine::{Engine, Input, Outcome};
use urltree::local::{self, DirEntry, HtmlDir, InputKind, JsonlWriter, Line};
use urltree::record::{DeadLetter, ErrorKind, Source};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input: a raw-html JSONL file (plain or gzip), `-` for stdin, or a directory of .html files.
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
    /// Base URL for a directory input (default: the first path component is the host).
    #[arg(long)]
    base_url: Option<String>,
    /// Trust each record's `domain` field when it disagrees with its URL (default: reject).
    #[arg(long)]
    trust_record_domain: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
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
    if args.trust_record_domain {
        config.input.domain_check = urltree::config::DomainCheck::TrustRecord;
    }
    config.validate()?;
    let mut engine = Engine::open(&config)
        .with_context(|| format!("opening state at {}", config.state.path.display()))?;
    let mut output = JsonlWriter::create(&args.output)?;
    let errors_path = args
        .errors
        .clone()
        .unwrap_or_else(|| default_errors_path(&args.output));
    let mut errors = JsonlWriter::lazy(&errors_path);
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let started = Instant::now();

    let mut pending: Vec<(Vec<u8>, Source)> = Vec::with_capacity(config.input.batch_size);
    let flush = |pending: &mut Vec<(Vec<u8>, Source)>,
                 engine: &mut Engine,
                 output: &mut JsonlWriter,
                 errors: &mut JsonlWriter|
     -> anyhow::Result<()> {
        let inputs: Vec<Input<'_>> = pending
            .iter()
            .map(|(bytes, source)| Input::new(bytes, source.clone()))
            .collect();
        for outcome in engine.process_batch(&inputs, None)? {
            match outcome {
                Outcome::Clean(record) => output.write(&record).context("writing output")?,
                Outcome::Rejected(dead) => {
                    tracing::warn!(
                        kind = dead.error.kind.as_str(),
                        source = %dead.source.topic,
                        line = dead.source.offset,
                        "rejected: {}",
                        dead.error.message
                    );
                    errors.write(&dead).context("writing the errors file")?
                }
                Outcome::Duplicate { .. } => {}
            }
        }
        pending.clear();
        Ok(())
    };

    let (mut too_long, mut unreadable, mut skipped_files) = (0u64, 0u64, 0usize);
    match InputKind::of(&args.input) {
        InputKind::Jsonl(path) => {
            let mut input = local::open_jsonl(&path, config.input.max_record_bytes)
                .with_context(|| format!("opening {}", path.display()))?;
            let bar = progress_bar(show_progress, input.size);
            while let Some(line) = input
                .lines
                .next_line()
                .with_context(|| format!("reading {}", input.name))?
            {
                let source = |number: u64| Source::line(&input.name, number);
                match line {
                    Line::Record { number, bytes } => pending.push((bytes, source(number))),
                    Line::TooLong {
                        number,
                        prefix,
                        len,
                    } => {
                        // Earlier lines first, so the errors file stays in input order.
                        flush(&mut pending, &mut engine, &mut output, &mut errors)?;
                        too_long += 1;
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
                            config.output.dead_letter_payload_bytes,
                        );
                        errors.write(&dead).context("writing the errors file")?;
                    }
                }
                if pending.len() >= config.input.batch_size {
                    flush(&mut pending, &mut engine, &mut output, &mut errors)?;
                    bar.set_position(input.consumed.load(Ordering::Relaxed));
                    bar.set_message(summary_line(&engine, started));
                }
            }
            flush(&mut pending, &mut engine, &mut output, &mut errors)?;
            bar.finish_and_clear();
        }
        InputKind::HtmlDir(dir) => {
            let mut files = HtmlDir::open(&dir, args.base_url.clone())
                .with_context(|| format!("listing {}", dir.display()))?;
            skipped_files = files.skipped();
            let bar = progress_bar(show_progress, Some(files.len() as u64));
            while let Some(entry) = files.next_entry() {
                let index = match entry {
                    DirEntry::Record { index, path, bytes } => {
                        pending.push((bytes, Source::line(&path.display().to_string(), index)));
                        index
                    }
                    DirEntry::Unreadable { index, path, error } => {
                        // Earlier files first, so the errors file stays in input order.
                        flush(&mut pending, &mut engine, &mut output, &mut errors)?;
                        unreadable += 1;
                        let source = Source::line(&path.display().to_string(), index);
                        let message = format!("cannot read {}: {error}", path.display());
                        tracing::warn!(kind = "unreadable", "rejected: {message}");
                        let dead = DeadLetter::new(
                            ErrorKind::Unreadable,
                            message,
                            source,
                            b"",
                            config.output.dead_letter_payload_bytes,
                        );
                        errors.write(&dead).context("writing the errors file")?;
                        index
                    }
                };
                if pending.len() >= config.input.batch_size {
                    flush(&mut pending, &mut engine, &mut output, &mut errors)?;
                    bar.set_position(index);
                    bar.set_message(summary_line(&engine, started));
                }
            }
            flush(&mut pending, &mut engine, &mut output, &mut errors)?;
            bar.finish_and_clear();
        }
    }
    output.flush().context("flushing output")?;
    errors.flush().context("flushing the errors file")?;

    let stats = engine.stats();
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    let blocks = stats.content_blocks + stats.boilerplate_blocks;
    eprintln!(
        "urltree extract: {} pages ({} new versions), {} duplicates, {} invalid, content share {:.1}% of {} blocks, {:.1} pages/s ({:.1} MB/s), {} forgotten",
        stats.pages,
        stats.versions,
        stats.duplicates,
        stats.rejected + too_long + unreadable,
        if blocks == 0 { 0.0 } else { 100.0 * stats.content_blocks as f64 / blocks as f64 },
        blocks,
        stats.pages as f64 / seconds,
        stats.html_bytes as f64 / 1e6 / seconds,
        stats.forgotten,
    );
    if let Some(path) = output.target() {
        eprintln!(
            "  output: {} ({} records)",
            path.display(),
            output.written()
        );
    }
    if errors.written() > 0 {
        eprintln!(
            "  errors: {} ({} records)",
            errors_path.display(),
            errors.written()
        );
    }
    eprintln!("  state:  {}", config.state.path.display());
    if skipped_files > 0 {
        eprintln!("  skipped: {skipped_files} files whose names do not end in .html or .htm");
    }
    if output.written() == 0 && stats.duplicates > 0 {
        eprintln!(
            "urltree extract: no output: {} of the pages are duplicates of pages the state at {} already holds (same URL key, same content), which are never emitted twice; a page comes out again when its content changes, or with a fresh --state",
            stats.duplicates,
            config.state.path.display()
        );
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

fn summary_line(engine: &Engine, started: Instant) -> String {
    let stats = engine.stats();
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    format!(
        "{} pages, {} dup, {} invalid, {:.0} pages/s",
        stats.pages,
        stats.duplicates,
        stats.rejected,
        stats.pages as f64 / seconds
    )
}
