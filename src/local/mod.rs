//! Local files in and out, for `urltree extract`, `eval` and `bench`: raw-html JSONL (plain or
//! gzip, file or stdin), WARC files, or a directory of `.html` and WARC files in; JSONL out
//! (plain, gzip or zstd).

pub mod html_dir;
pub mod http;
pub mod lines;
pub mod source;
pub mod warc;
pub mod writer;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::GzDecoder;

pub use html_dir::{html_record, DirEntry, HtmlDir};
pub use lines::{Line, LineReader};
pub use source::{InputSpec, Item, OpenError, ReadError, RecordSource};
pub use writer::{Compression, JsonlWriter};

/// Counts the bytes read through it (for progress on compressed input).
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> CountingReader<R> {
    /// Counts what is read from `inner` into `count`.
    pub fn new(inner: R, count: Arc<AtomicU64>) -> CountingReader<R> {
        CountingReader { inner, count }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A JSONL input opened for reading: the line reader, the input's size on disk when known, and a
/// counter of the bytes consumed from disk so far.
pub struct JsonlInput {
    /// The records, one per line.
    pub lines: LineReader<Box<dyn Read + Send>>,
    /// Size of the file on disk (`None` for stdin).
    pub size: Option<u64>,
    /// Bytes consumed from disk (compressed bytes for gzip input).
    pub consumed: Arc<AtomicU64>,
    /// Display name of the input (`-` for stdin).
    pub name: String,
    /// Set when a gzip input goes on after its last member with bytes that are no gzip member:
    /// the records before them were all read (the reader ends there), but the input was not
    /// what it should be.
    pub trailing_garbage: Arc<AtomicBool>,
}

/// Opens a JSONL file (`-` for stdin); gzip is detected by its magic bytes, not the file name.
///
/// Lines longer than `max_line_bytes` are reported as [`Line::TooLong`] without being buffered.
pub fn open_jsonl(path: &Path, max_line_bytes: usize) -> io::Result<JsonlInput> {
    let (raw, size, name) = open_raw(path)?;
    jsonl_from(raw, size, name, path, max_line_bytes)
}

/// A file (`-` for stdin) opened for reading: the stream, its size on disk when known, and its
/// display name.
pub fn open_raw(path: &Path) -> io::Result<(Box<dyn Read + Send>, Option<u64>, String)> {
    if path == Path::new("-") {
        return Ok((Box::new(io::stdin()), None, "-".to_owned()));
    }
    let file = File::open(path).map_err(|e| with_path(e, path))?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), size, path.display().to_string()))
}

/// [`open_jsonl`] of a stream already open.
pub(crate) fn jsonl_from(
    raw: Box<dyn Read + Send>,
    size: Option<u64>,
    name: String,
    path: &Path,
    max_line_bytes: usize,
) -> io::Result<JsonlInput> {
    let consumed = Arc::new(AtomicU64::new(0));
    let counted = CountingReader {
        inner: raw,
        count: Arc::clone(&consumed),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, counted);
    let is_gzip = is_gzip_member(buffered.fill_buf().map_err(|e| with_path(e, path))?);
    let trailing_garbage = Arc::new(AtomicBool::new(false));
    let reader: Box<dyn Read + Send> = if is_gzip {
        Box::new(GzMembers {
            decoder: Some(GzDecoder::new(buffered)),
            trailing_garbage: Arc::clone(&trailing_garbage),
        })
    } else {
        Box::new(buffered)
    };
    Ok(JsonlInput {
        lines: LineReader::new(reader, max_line_bytes),
        size,
        consumed,
        name,
        trailing_garbage,
    })
}

pub(crate) fn is_gzip_member(head: &[u8]) -> bool {
    head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

/// The concatenated members of a gzip stream (as `gzip` writes them with `cat a.gz b.gz`).
/// Bytes after a complete member that start no new member end the stream cleanly, so that the
/// last member's last line counts as complete, and set the `trailing_garbage` flag; a member cut
/// short is an `UnexpectedEof` error, so its incomplete last line is never taken for a record.
struct GzMembers<R: BufRead> {
    decoder: Option<GzDecoder<R>>,
    trailing_garbage: Arc<AtomicBool>,
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(decoder) = self.decoder.as_mut() else {
                return Ok(0);
            };
            let n = decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member is complete: a next one, the end, or garbage.
            let Some(decoder) = self.decoder.take() else {
                return Ok(0);
            };
            let mut inner = decoder.into_inner();
            let head = inner.fill_buf()?;
            if head.is_empty() {
                return Ok(0);
            }
            if !is_gzip_member(head) {
                self.trailing_garbage.store(true, Ordering::Relaxed);
                return Ok(0);
            }
            self.decoder = Some(GzDecoder::new(inner));
        }
    }
}

/// An I/O error annotated with the path it concerns.
pub fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Whether `path` is one HTML file (not a directory; named `.html`/`.htm`, as
/// [`HtmlDir`] reads them).
pub fn is_html_file(path: &Path) -> bool {
    !path.is_dir() && html_dir::is_html_name(path)
}

/// Where an input path points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A JSONL file (plain or gzip), or stdin.
    Jsonl(PathBuf),
    /// A directory of `.html` and WARC files.
    HtmlDir(PathBuf),
}

impl InputKind {
    /// Classifies a path: a directory is an HTML directory, anything else JSONL.
    pub fn of(path: &Path) -> InputKind {
        if path.is_dir() {
            InputKind::HtmlDir(path.to_owned())
        } else {
            InputKind::Jsonl(path.to_owned())
        }
    }
}
