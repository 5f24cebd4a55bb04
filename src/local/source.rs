//! One reader for every local input kind: a raw-html JSONL file (plain or gzip) or stdin, a
//! WARC file (plain or gzip) or stdin, a directory of `.html` and WARC files, one HTML page with
//! its URL. It yields raw-html records in input
//! order, with the dead letters the reader itself makes, so that `extract` and any other command
//! reading local inputs drive the same code.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;

use thiserror::Error;

use super::warc::{self, WarcReader};
use super::{html_dir, CountingReader, DirEntry, HtmlDir, InputKind, JsonlInput, Line};
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
    /// A stream or file read as raw-html JSONL (or WARC) starts like an HTML page.
    #[error(
        "{0} holds HTML (it starts with {1:?}), not raw-html JSONL or WARC: give the page's URL \
         with --url to read it as one page, or give a directory of .html files"
    )]
    HtmlWithoutUrl(String, String),
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
    /// Where: `line N` of a JSONL input, `record N` of a WARC input.
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
    /// A WARC stream and the bytes consumed from disk.
    Warc(WarcReader, Arc<AtomicU64>),
    /// A directory, and the WARC file of it being read.
    Dir(HtmlDir, Option<WarcReader>),
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
    /// WARC records skipped by the WARC files read to their end, by reason.
    skipped_records: BTreeMap<&'static str, u64>,
}

/// The first bytes of a stream read for sniffing its kind.
const SNIFF_BYTES: usize = 4096;

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
            skipped_records: BTreeMap::new(),
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
                let (raw, size, name) = super::open_raw(&path).map_err(OpenError::Io)?;
                let (head, raw) = sniff(raw).map_err(io_error)?;
                if let Some(start) = html_start(&head) {
                    let name = if path == Path::new("-") {
                        "stdin".to_owned()
                    } else {
                        path.display().to_string()
                    };
                    return Err(OpenError::HtmlWithoutUrl(name, start));
                }
                source.total = size;
                if warc::is_warc(&head) {
                    let consumed = Arc::new(AtomicU64::new(0));
                    let counted = CountingReader::new(raw, Arc::clone(&consumed));
                    let reader = WarcReader::new(
                        Box::new(counted),
                        &name,
                        spec.max_record_bytes,
                        spec.dead_letter_payload_bytes,
                    );
                    source.kind = Kind::Warc(reader, consumed);
                } else {
                    let input = super::jsonl_from(raw, size, name, &path, spec.max_record_bytes)
                        .map_err(OpenError::Io)?;
                    source.kind = Kind::Jsonl(input);
                }
            }
            InputKind::HtmlDir(dir) => {
                let files = HtmlDir::open(&dir, spec.base_url.clone()).map_err(OpenError::Io)?;
                source.total = Some(files.len() as u64);
                source.skipped_files = files.skipped();
                source.kind = Kind::Dir(files, None);
            }
        }
        Ok(source)
    }

    /// Whether the input is one HTML page (a `.html` file, or HTML on stdin, with its URL).
    pub fn is_one_page(&self) -> bool {
        matches!(self.kind, Kind::Page(_))
    }

    /// How far the input has been read, in the unit of [`RecordSource::total`]: bytes read
    /// from disk (compressed bytes of a gzip input) for JSONL, files for a directory.
    pub fn position(&self) -> u64 {
        match &self.kind {
            Kind::Jsonl(input) => input.consumed.load(Ordering::Relaxed),
            Kind::Warc(_, consumed) => consumed.load(Ordering::Relaxed),
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

    /// WARC records skipped so far, by reason: `request`, `metadata`, `warcinfo`, `revisit` and
    /// other record types without a page, and the reasons of [`warc::skip`].
    pub fn skipped_records(&self) -> BTreeMap<&'static str, u64> {
        let mut all = self.skipped_records.clone();
        let current = match &self.kind {
            Kind::Warc(reader, _) | Kind::Dir(_, Some(reader)) => Some(reader),
            _ => None,
        };
        for (reason, n) in current.map(WarcReader::skipped).into_iter().flatten() {
            *all.entry(reason).or_insert(0) += n;
        }
        all
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
            Kind::Warc(reader, _) => match reader.next_item() {
                Ok(item) => item,
                Err(e) => return Err(self.fail(e.to_string())),
            },
            Kind::Dir(files, current) => {
                if let Some(reader) = current {
                    match reader.next_item() {
                        Ok(Some(item)) => return Ok(Some(item)),
                        Ok(None) => {
                            for (reason, n) in reader.skipped() {
                                *self.skipped_records.entry(reason).or_insert(0) += n;
                            }
                            *current = None;
                        }
                        Err(e) => return Err(self.fail(e.to_string())),
                    }
                }
                match files.next_entry() {
                    Some(DirEntry::Warc { index, path }) => {
                        self.position = index;
                        let name = path.display().to_string();
                        match super::open_raw(&path) {
                            Ok((raw, _, _)) => {
                                *current = Some(WarcReader::new(
                                    raw,
                                    &name,
                                    max_record_bytes,
                                    payload_bytes,
                                ));
                                return self.next_item();
                            }
                            Err(error) => Some(Item::DeadLetter(DeadLetter::new(
                                ErrorKind::Unreadable,
                                format!("cannot read {name}: {error}"),
                                Source::line(&name, index),
                                b"",
                                payload_bytes,
                            ))),
                        }
                    }
                    Some(DirEntry::Record { index, path, bytes }) => {
                        self.position = index;
                        Some(Item::Record {
                            bytes,
                            source: Source::line(&path.display().to_string(), index),
                        })
                    }
                    Some(DirEntry::Unreadable { index, path, error }) => {
                        self.position = index;
                        let message = format!("cannot read {}: {error}", path.display());
                        Some(Item::DeadLetter(DeadLetter::new(
                            ErrorKind::Unreadable,
                            message,
                            Source::line(&path.display().to_string(), index),
                            b"",
                            payload_bytes,
                        )))
                    }
                    None => None,
                }
            }
        };
        if item.is_none() {
            self.retire();
        }
        Ok(item)
    }

    /// Ends the input, keeping the skipped-record counts of the WARC file being read.
    fn retire(&mut self) {
        let current = match &self.kind {
            Kind::Warc(reader, _) | Kind::Dir(_, Some(reader)) => Some(reader.skipped().clone()),
            _ => None,
        };
        for (reason, n) in current.into_iter().flatten() {
            *self.skipped_records.entry(reason).or_insert(0) += n;
        }
        self.kind = Kind::Done;
    }

    /// Ends the input with a read error at the current position.
    fn fail(&mut self, message: String) -> ReadError {
        let (input, position) = match &self.kind {
            Kind::Jsonl(input) => (
                input.name.clone(),
                format!("line {}", input.lines.line_number()),
            ),
            Kind::Warc(reader, _) => (
                reader.name().to_owned(),
                format!("record {}", reader.records_read()),
            ),
            Kind::Dir(_, Some(reader)) => (
                reader.name().to_owned(),
                format!("record {}", reader.records_read()),
            ),
            _ => (String::new(), format!("item {}", self.position)),
        };
        self.retire();
        ReadError {
            input,
            position,
            message,
        }
    }
}

/// The first bytes of a stream and the whole stream again (those bytes, then the rest): a WARC
/// file is told from JSONL by its content, gzip or not, which works on stdin too.
fn sniff(mut raw: Box<dyn Read + Send>) -> io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut raw).take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    let rest: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.clone()).chain(raw));
    if super::is_gzip_member(&head) {
        let mut plain = Vec::new();
        // What decodes of a member's start; an error past the first bytes does not matter here.
        // Members one after the other: an empty first member hides nothing.
        let _ = MultiGzDecoder::new(&head[..])
            .take(SNIFF_PLAIN_BYTES)
            .read_to_end(&mut plain);
        return Ok((plain, rest));
    }
    Ok((head, rest))
}

/// Bytes of a gzip stream's start decoded for sniffing: a WARC's magic, or an HTML page's start.
const SNIFF_PLAIN_BYTES: u64 = 64;

/// The first characters of `head` when it starts like an HTML page (after a byte-order mark and
/// white space, a `<`, which no JSON record and no WARC record starts with), for the message.
fn html_start(head: &[u8]) -> Option<String> {
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let text = &text[start..];
    if text.first() != Some(&b'<') {
        return None;
    }
    let shown = String::from_utf8_lossy(&text[..text.len().min(15)]);
    Some(shown.chars().filter(|c| !c.is_control()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_can_move_to_another_thread() {
        fn send<T: Send>() {}
        send::<RecordSource>();
    }

    #[test]
    fn html_is_told_from_jsonl_and_warc_by_its_start() {
        assert_eq!(
            html_start(b"\xEF\xBB\xBF\n  <!DOCTYPE html><html>").as_deref(),
            Some("<!DOCTYPE html>")
        );
        assert_eq!(html_start(b"<html>").as_deref(), Some("<html>"));
        assert_eq!(html_start(b"{\"url\": \"<x>\"}"), None);
        assert_eq!(html_start(b"WARC/1.1\r\n"), None);
        assert_eq!(html_start(b"  \n"), None);
    }

    #[test]
    fn a_gzip_jsonl_input_is_not_taken_for_a_warc() {
        let (head, mut rest) = sniff(Box::new(io::Cursor::new(b"WARC/1.1\r\n".to_vec()))).unwrap();
        assert!(warc::is_warc(&head));
        let mut all = Vec::new();
        rest.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"WARC/1.1\r\n", "the sniffed bytes are read again");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"{\"url\":\"http://a.com\",\"html\":\"x\"}\n").unwrap();
        let (head, _) = sniff(Box::new(io::Cursor::new(gz.finish().unwrap()))).unwrap();
        assert!(!warc::is_warc(&head) && head.starts_with(b"{\"url"));
    }
}
