//! `urltree produce`: local raw-html records into the input topic, keyed by registrable domain.
//!
//! Exit codes: 0 when the input was read to its end and every record is either acknowledged by
//! the broker or a dead letter in the errors file; 1 the same, but `--strict` was given and some
//! records were dead letters; 2 a usage error, an input or errors file that could not be opened,
//! read or written, brokers that did not answer within `message.timeout.ms`, a missing topic, or
//! records still unacknowledged at the end.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context};
use indicatif::ProgressBar;
use urltree::config::Config;
use urltree::local::{Item, JsonlWriter};
use urltree::produce::{Router, Sender, Tally};

use super::count;
use urltree::record::{DeadLetter, Source};

use super::progress;

/// Exit code of a run that dead-lettered records under `--strict`.
const EXIT_DEAD_LETTERS: u8 = 1;

/// Records between two looks at the delivery reports and the progress bar.
const REPORT_EVERY: u64 = 256;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: super::input::InputArgs,
    /// Topic to produce to (default: `kafka.topics.input`).
    #[arg(long)]
    topic: Option<String>,
    /// Dead-letter JSONL for records that cannot be sent or were not delivered (default
    /// `urltree-errors.jsonl`). Created only when there is one.
    #[arg(long)]
    errors: Option<PathBuf>,
    /// Exit with code 1 when any record was dead-lettered (default: 0, the errors file says which).
    #[arg(long)]
    strict: bool,
    /// No progress bar and no per-record warnings (the summary and errors file stay).
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Dead letters of one run: written in the errors file, counted by kind.
struct DeadLetters {
    file: JsonlWriter,
    by_kind: BTreeMap<&'static str, u64>,
    bar: ProgressBar,
    quiet: bool,
}

impl DeadLetters {
    fn write(&mut self, dead: &DeadLetter) -> anyhow::Result<()> {
        *self.by_kind.entry(dead.error.kind.as_str()).or_default() += 1;
        if !self.quiet {
            self.bar.suspend(|| {
                tracing::warn!(
                    source = %dead.source.topic,
                    line = dead.source.offset,
                    "dead letter ({}): {}",
                    dead.error.kind.as_str(),
                    dead.error.message
                );
            });
        }
        self.file.write(dead).context("writing the errors file")
    }

    fn count(&self) -> u64 {
        self.by_kind.values().sum()
    }

    fn kinds(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        kinds.join(", ")
    }
}

pub fn run(args: Args, mut config: Config) -> anyhow::Result<ExitCode> {
    args.input.configure(&mut config);
    config.validate()?;
    let topic = args
        .topic
        .clone()
        .unwrap_or_else(|| config.kafka.topics.input.clone());
    if topic.trim().is_empty() {
        bail!("--topic must not be empty");
    }
    let errors_path = args
        .errors
        .clone()
        .unwrap_or_else(|| PathBuf::from("urltree-errors.jsonl"));
    if args.input.input != Path::new("-")
        && errors_path.canonicalize().ok() == args.input.input.canonicalize().ok()
        && errors_path.exists()
    {
        bail!(
            "the errors file {} is the input: refusing to overwrite it",
            errors_path.display()
        );
    }
    let router = Router::new(&config).context("loading the URL rules")?;
    let payload_bytes = config.output.dead_letter_payload_bytes;
    // Opened before connecting, so a missing input fails without waiting for the brokers.
    let mut input = args.input.open(&config)?;
    let mut sender = Sender::connect(&config.kafka, &topic, payload_bytes)
        .with_context(|| format!("connecting to the brokers for topic {topic:?}"))?;

    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let bar = progress::bar(show_progress, input.total());
    let mut dead = DeadLetters {
        file: JsonlWriter::lazy(&errors_path),
        by_kind: BTreeMap::new(),
        bar: bar.clone(),
        quiet: args.quiet,
    };
    let started = Instant::now();
    let mut read = 0u64;
    let mut read_error = None;
    loop {
        let refused = match input.next_item() {
            Ok(Some(Item::Record { bytes, source })) => send(&router, &mut sender, bytes, source),
            Ok(Some(Item::DeadLetter(letter))) => Some(letter),
            Ok(None) => break,
            Err(e) => {
                read_error = Some(e);
                break;
            }
        };
        read += 1;
        if let Some(letter) = refused {
            dead.write(&letter)?;
        }
        if read.is_multiple_of(REPORT_EVERY) {
            for letter in sender.take_failures() {
                dead.write(&letter)?;
            }
            bar.set_position(input.position());
            bar.set_message(progress_line(&sender.tally(), read, started));
        }
    }
    let partitions = sender.partitions();
    let brokers = sender.brokers().to_owned();
    for letter in sender.take_failures() {
        dead.write(&letter)?;
    }
    bar.set_message(format!(
        "waiting for {} acknowledgements",
        sender.tally().in_flight()
    ));
    let finished = sender.finish();
    for letter in &finished.failures {
        dead.write(letter)?;
    }
    if read_error.is_none() {
        if let Some(total) = input.total() {
            bar.set_position(total);
        }
        bar.set_message(progress_line(&finished.tally, read, started));
        bar.finish();
    } else {
        bar.abandon();
    }
    dead.file.flush().context("flushing the errors file")?;

    let tally = finished.tally;
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    eprintln!(
        "urltree produce: {} of {} delivered to {topic} ({} on {brokers}), {}{}, {:.1} records/s ({:.1} MB/s)",
        tally.delivered,
        count(read, "record"),
        count(partitions as u64, "partition"),
        count(dead.count(), "dead letter"),
        if dead.count() > 0 { format!(" ({})", dead.kinds()) } else { String::new() },
        tally.delivered as f64 / seconds,
        tally.delivered_bytes as f64 / 1e6 / seconds,
    );
    if dead.file.written() > 0 {
        eprintln!(
            "  errors: {} ({})",
            errors_path.display(),
            count(dead.file.written(), "record")
        );
    }
    let unacknowledged = tally.in_flight();
    if unacknowledged > 0 {
        bail!(
            "{unacknowledged} records were neither acknowledged nor reported failed by the end of message.timeout.ms: whether they arrived is unknown"
        );
    }
    if let Some(error) = read_error {
        bail!(
            "{error}; every complete record before it was sent ({} delivered)",
            tally.delivered
        );
    }
    if args.strict && dead.count() > 0 {
        return Ok(ExitCode::from(EXIT_DEAD_LETTERS));
    }
    Ok(ExitCode::SUCCESS)
}

/// Keys one record and queues it; the dead letter of a record that has no key or that the
/// producer refused at once.
fn send(
    router: &Router,
    sender: &mut Sender,
    bytes: Vec<u8>,
    source: Source,
) -> Option<DeadLetter> {
    match router.key(&bytes) {
        Ok(domain) => sender.send(&domain, &bytes, source).err(),
        Err((kind, message)) => Some(DeadLetter::new(
            kind,
            message,
            source,
            &bytes,
            sender.payload_bytes(),
        )),
    }
}

fn progress_line(tally: &Tally, read: u64, started: Instant) -> String {
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    format!(
        "{read} read, {} delivered, {} in flight, {:.0} records/s",
        tally.delivered,
        tally.in_flight(),
        tally.delivered as f64 / seconds
    )
}
