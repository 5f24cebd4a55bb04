//! JSONL output to a file or stdout, compressed by the file's name: `.gz` gzip, `.zst` zstd.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;

/// How a file's records are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain JSONL.
    None,
    /// gzip (one member).
    Gzip,
    /// zstd (one frame).
    Zstd,
}

impl Compression {
    /// The compression a file name asks for: `.gz` gzip, `.zst` zstd, else none.
    pub fn of(path: &Path) -> Compression {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".gz") {
            Compression::Gzip
        } else if name.ends_with(".zst") {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// The file name's ending for this compression (`""` for none).
    pub fn suffix(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }
}

/// The stream under the buffer: plain, or an encoder to finish at the end.
enum Encoded {
    Plain(Box<dyn Write + Send>),
    Gzip(GzEncoder<Box<dyn Write + Send>>),
    Zstd(zstd::Encoder<'static, Box<dyn Write + Send>>),
    Finished,
}

impl Write for Encoded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Encoded::Plain(w) => w.write(buf),
            Encoded::Gzip(w) => w.write(buf),
            Encoded::Zstd(w) => w.write(buf),
            Encoded::Finished => Err(io::Error::other("the output was finished")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Encoded::Plain(w) => w.flush(),
            Encoded::Gzip(w) => w.flush(),
            Encoded::Zstd(w) => w.flush(),
            Encoded::Finished => Ok(()),
        }
    }
}

impl Encoded {
    /// Writes the compressed stream's end (gzip trailer, zstd frame end) and flushes.
    fn finish(&mut self) -> io::Result<()> {
        match std::mem::replace(self, Encoded::Finished) {
            Encoded::Plain(mut w) => w.flush(),
            Encoded::Gzip(w) => w.finish()?.flush(),
            Encoded::Zstd(w) => w.finish()?.flush(),
            Encoded::Finished => Ok(()),
        }
    }
}

/// Writes one JSON value per line, to a file or stdout; to a file named `.gz` or `.zst`
/// compressed.
///
/// Guarantees: after [`JsonlWriter::finish`] the file is a complete gzip member or zstd frame.
/// A writer dropped without it (an error path) finishes the stream as it goes; a process killed
/// leaves the records up to the last flush, readable as a stream cut short.
pub struct JsonlWriter {
    target: Option<PathBuf>,
    out: Option<BufWriter<Encoded>>,
    written: u64,
}

impl Drop for JsonlWriter {
    fn drop(&mut self) {
        // Errors were reported by `finish` on the normal path; here nothing is left to tell.
        let _ = self.finish();
    }
}

impl JsonlWriter {
    /// A writer to `path` (or stdout when `path` is `-`) that creates the file only with its
    /// first record: an errors file exists only when there were errors.
    pub fn lazy(path: &Path) -> JsonlWriter {
        JsonlWriter {
            target: (path != Path::new("-")).then(|| path.to_owned()),
            out: None,
            written: 0,
        }
    }

    /// A writer to `path` (or stdout when `path` is `-`) whose file is created now, so an empty
    /// result is an empty file and an unwritable path fails before any work.
    pub fn create(path: &Path) -> io::Result<JsonlWriter> {
        let mut writer = JsonlWriter::lazy(path);
        writer.open()?;
        Ok(writer)
    }

    fn open(&mut self) -> io::Result<()> {
        let (sink, compression): (Box<dyn Write + Send>, _) = match &self.target {
            Some(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| super::with_path(e, dir))?;
                }
                let file = File::create(path).map_err(|e| super::with_path(e, path))?;
                (Box::new(file), Compression::of(path))
            }
            None => (Box::new(io::stdout()), Compression::None),
        };
        let encoded = match compression {
            Compression::None => Encoded::Plain(sink),
            Compression::Gzip => {
                Encoded::Gzip(GzEncoder::new(sink, flate2::Compression::default()))
            }
            Compression::Zstd => Encoded::Zstd(zstd::Encoder::new(sink, 3)?),
        };
        self.out = Some(BufWriter::with_capacity(1 << 16, encoded));
        Ok(())
    }

    /// Writes one record as a line.
    pub fn write<T: serde::Serialize>(&mut self, record: &T) -> io::Result<()> {
        if self.out.is_none() {
            self.open()?;
        }
        if let Some(out) = self.out.as_mut() {
            serde_json::to_writer(&mut *out, record)?;
            out.write_all(b"\n")?;
            self.written += 1;
        }
        Ok(())
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Where the records go (`None` for stdout).
    pub fn target(&self) -> Option<&Path> {
        self.target.as_deref()
    }

    /// Flushes buffered records (through the compressor, whose stream stays open).
    pub fn flush(&mut self) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }

    /// Writes the buffered records and ends a compressed stream; records written after it are
    /// an error.
    pub fn finish(&mut self) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => {
                out.flush()?;
                out.get_mut().finish()
            }
            None => Ok(()),
        }
    }
}
