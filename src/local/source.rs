//! One reader for every local input kind: a raw-html JSONL file (plain or gzip) or stdin, a
//! directory of `.html` files, one HTML page with its URL. It yields raw-html records in input
//! order, with the dead letters the reader itself makes, so that `extract` and any other command
//! reading local inputs drive the same code.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use thiserror::Error;

use super::{html_dir, DirEntry, HtmlDir, InputKind, JsonlInput, Line};
use crate::record::{DeadLetter, ErrorKind, Source};

/// What to read and how.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// The input path: a JSONL file, a directory, an HTML file, or `-` for stdin.
    pub path: PathBuf,
    /// The page's URL when the input is one HTML page (a `.html` file, or HTML on stdin).
    pub url: Option<String>,
    /// Base URL of a directory's pages (default: the first path component is the host).
    pub base_url: Option<String>,
    /// Records over this many bytes are `too-large` dead letters, never buffered whole.
    pub max_record_bytes: usize,
    /// Bytes of a record kept in its dead letter.
    pub dead_letter_payload_bytes: usize,
}

/// Why an input could not be opened.
#[derive(Debug, Error)]
pub enum OpenError {
    /// One HTML page was given without its URL.
    #[error("{0} is one HTML page: give its URL with --url")]
    NeedsUrl(String),
    /// The input could not be opened or read (the message names the path).
    #[error("{0}")]
    Io(io::Error),
}

/// A read error that ended the input: what was read before it was complete and yielded.
#[derive(Debug, Error)]
#[error("reading {input} after {position}: {message}")]
pub struct ReadError {
    /// The input's display name.
    pub input: String,
    /// Where: `line N` of a JSONL input.
    pub position: String,
    /// What went wrong.
    pub message: String,
}

/// One item of an input, in input order.
#[derive(Debug)]
pub enum Item {
    /// A raw-html JSON record and where it came from.
    Record {
        /// The raw-html record (DESIGN §5).
        bytes: Vec<u8>,
        /// Its coordinates: the input's name and the record's line or file index.
        source: Source,
    },
    /// A record the reader could not turn into a raw-html record (a line over the size limit,
    /// an unreadable file).
    DeadLetter(DeadLetter),
}

enum Kind {
    Jsonl(JsonlInput),
    Dir(HtmlDir),
    Page(Option<(Vec<u8>, String)>),
    Done,
}

/// An opened input yielding [`Item`]s in input order.
///
/// Guarantees: every complete record before a read error is yielded before the error; after the
/// error (or the end) [`RecordSource::next_item`] answers `Ok(None)`.
pub struct RecordSource {
    kind: Kind,
    limits: (usize, usize),
    position: u64,
    total: Option<u64>,
    skipped_files: usize,
}

impl RecordSource {
    /// Opens the input (nothing is created): a missing or unreadable input is an error here.
    pub fn open(spec: &InputSpec) -> Result<RecordSource, OpenError> {
        let limits = (spec.max_record_bytes, spec.dead_letter_payload_bytes);
        let path = &spec.path;
        let io_error = |e: io::Error| OpenError::Io(super::with_path(e, path));
        let single_page = spec.url.is_some() || super::is_html_file(path);
        let mut source = RecordSource {
            kind: Kind::Done,
            limits,
            position: 0,
            total: None,
            skipped_files: 0,
        };
        if single_page {
            let Some(url) = &spec.url else {
                return Err(OpenError::NeedsUrl(path.display().to_string()));
            };
            let (bytes, name) = if path == Path::new("-") {
                let mut bytes = Vec::new();
                io::stdin().read_to_end(&mut bytes).map_err(io_error)?;
                (bytes, "-".to_owned())
            } else {
                (
                    std::fs::read(path).map_err(io_error)?,
                    path.display().to_string(),
                )
            };
            source.kind = Kind::Page(Some((html_dir::html_record(url, &bytes), name)));
            source.total = Some(1);
            return Ok(source);
        }
        match InputKind::of(path) {
            InputKind::Jsonl(path) => {
                // Its errors name the path.
                let input =
                    super::open_jsonl(&path, spec.max_record_bytes).map_err(OpenError::Io)?;
                source.total = input.size;
                source.kind = Kind::Jsonl(input);
            }
            InputKind::HtmlDir(dir) => {
                let files = HtmlDir::open(&dir, spec.base_url.clone()).map_err(OpenError::Io)?;
                source.total = Some(files.len() as u64);
                source.skipped_files = files.skipped();
                source.kind = Kind::Dir(files);
            }
        }
        Ok(source)
    }

    /// How far the input has been read, in the unit of [`RecordSource::total`]: bytes read
    /// from disk (compressed bytes of a gzip input) for JSONL, files for a directory.
    pub fn position(&self) -> u64 {
        match &self.kind {
            Kind::Jsonl(input) => input.consumed.load(Ordering::Relaxed),
            _ => self.position,
        }
    }

    /// The input's size in the unit of [`RecordSource::position`], when known (not for stdin).
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// Files of a directory input left out because their names are not `.html`/`.htm`.
    pub fn skipped_files(&self) -> usize {
        self.skipped_files
    }

    /// The next item, `Ok(None)` at the end of the input, or the read error that ended it.
    pub fn next_item(&mut self) -> Result<Option<Item>, ReadError> {
        let (max_record_bytes, payload_bytes) = self.limits;
        let item = match &mut self.kind {
            Kind::Done => None,
            Kind::Page(page) => page.take().map(|(bytes, name)| {
                self.position = 1;
                Item::Record {
                    bytes,
                    source: Source::line(&name, 1),
                }
            }),
            Kind::Jsonl(input) => {
                let line = match input.lines.next_line() {
                    Ok(line) => line,
                    Err(e) => return Err(self.fail(e.to_string())),
                };
                match line {
                    Some(Line::Record { number, bytes }) => Some(Item::Record {
                        bytes,
                        source: Source::line(&input.name, number),
                    }),
                    Some(Line::TooLong {
                        number,
                        prefix,
                        len,
                    }) => {
                        let message =
                            format!("record is {len} bytes, over the limit of {max_record_bytes}");
                        Some(Item::DeadLetter(DeadLetter::from_prefix(
                            ErrorKind::TooLarge,
                            message,
                            Source::line(&input.name, number),
                            &prefix,
                            len,
                            payload_bytes,
                        )))
                    }
                    None if input.trailing_garbage.load(Ordering::Relaxed) => {
                        return Err(self.fail(
                            "bytes after the last gzip member that are no gzip member".to_owned(),
                        ));
                    }
                    None => None,
                }
            }
            Kind::Dir(files) => files.next_entry().map(|entry| match entry {
                DirEntry::Record { index, path, bytes } => {
                    self.position = index;
                    Item::Record {
                        bytes,
                        source: Source::line(&path.display().to_string(), index),
                    }
                }
                DirEntry::Unreadable { index, path, error } => {
                    self.position = index;
                    let message = format!("cannot read {}: {error}", path.display());
                    Item::DeadLetter(DeadLetter::new(
                        ErrorKind::Unreadable,
                        message,
                        Source::line(&path.display().to_string(), index),
                        b"",
                        payload_bytes,
                    ))
                }
            }),
        };
        if item.is_none() {
            self.kind = Kind::Done;
        }
        Ok(item)
    }

    /// Ends the input with a read error at the current position.
    fn fail(&mut self, message: String) -> ReadError {
        let (input, position) = match &self.kind {
            Kind::Jsonl(input) => (
                input.name.clone(),
                format!("line {}", input.lines.line_number()),
            ),
            _ => (String::new(), format!("item {}", self.position)),
        };
        self.kind = Kind::Done;
        ReadError {
            input,
            position,
            message,
        }
    }
}
