//! Local files in and out, for `urltree extract`, `eval` and `bench`: raw-html JSONL (plain or
//! gzip, file or stdin) or a directory of `.html` files in; JSONL out.

pub mod html_dir;
pub mod lines;
pub mod writer;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;

pub use html_dir::{DirEntry, HtmlDir};
pub use lines::{Line, LineReader};
pub use writer::JsonlWriter;

/// Counts the bytes read through it (for progress on compressed input).
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
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
}

/// Opens a JSONL file (`-` for stdin); gzip is detected by its magic bytes, not the file name.
///
/// Lines longer than `max_line_bytes` are reported as [`Line::TooLong`] without being buffered.
pub fn open_jsonl(path: &Path, max_line_bytes: usize) -> io::Result<JsonlInput> {
    let consumed = Arc::new(AtomicU64::new(0));
    let (raw, size, name): (Box<dyn Read + Send>, Option<u64>, String) = if path == Path::new("-") {
        (Box::new(io::stdin()), None, "-".to_owned())
    } else {
        let file = File::open(path).map_err(|e| with_path(e, path))?;
        let size = file.metadata().ok().map(|m| m.len());
        (Box::new(file), size, path.display().to_string())
    };
    let counted = CountingReader {
        inner: raw,
        count: Arc::clone(&consumed),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, counted);
    let is_gzip = {
        use std::io::BufRead;
        let head = buffered.fill_buf()?;
        head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b
    };
    let reader: Box<dyn Read + Send> = if is_gzip {
        Box::new(MultiGzDecoder::new(buffered))
    } else {
        Box::new(buffered)
    };
    Ok(JsonlInput {
        lines: LineReader::new(reader, max_line_bytes),
        size,
        consumed,
        name,
    })
}

/// An I/O error annotated with the path it concerns.
pub fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Where an input path points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A JSONL file (plain or gzip), or stdin.
    Jsonl(PathBuf),
    /// A directory of `.html` files.
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
