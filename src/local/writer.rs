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

/// The file (or stdout) under the encoder, counting the bytes written to it.
struct Sink {
    out: Box<dyn Write + Send>,
    /// The file, when it is a regular file: synced at checkpoints.
    file: Option<File>,
    /// Bytes in the file: those it held when it was opened plus those written since.
    bytes: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The stream under the buffer: plain, or an encoder whose member (gzip) or frame (zstd) ends at
/// every checkpoint, the next begun with the next record.
enum Encoded {
    Plain(Sink),
    Gzip(GzEncoder<Sink>),
    Zstd(zstd::Encoder<'static, Sink>),
    /// A compressed stream between two members or frames.
    Between(Sink, Compression),
    Finished,
}

impl Write for Encoded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Encoded::Between(..) = self {
            self.begin()?;
        }
        match self {
            Encoded::Plain(w) => w.write(buf),
            Encoded::Gzip(w) => w.write(buf),
            Encoded::Zstd(w) => w.write(buf),
            Encoded::Between(..) | Encoded::Finished => {
                Err(io::Error::other("the output was finished"))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Encoded::Plain(w) => w.flush(),
            Encoded::Gzip(w) => w.flush(),
            Encoded::Zstd(w) => w.flush(),
            Encoded::Between(..) | Encoded::Finished => Ok(()),
        }
    }
}

impl Encoded {
    fn new(sink: Sink, compression: Compression) -> Encoded {
        match compression {
            Compression::None => Encoded::Plain(sink),
            compression => Encoded::Between(sink, compression),
        }
    }

    /// Begins a member (gzip) or frame (zstd).
    fn begin(&mut self) -> io::Result<()> {
        if let Encoded::Between(sink, compression) = std::mem::replace(self, Encoded::Finished) {
            *self = match compression {
                Compression::None => Encoded::Plain(sink),
                Compression::Gzip => {
                    Encoded::Gzip(GzEncoder::new(sink, flate2::Compression::default()))
                }
                Compression::Zstd => Encoded::Zstd(zstd::Encoder::new(sink, 3)?),
            };
        }
        Ok(())
    }

    /// Ends the member or frame being written (its trailer written), so that every byte in the
    /// file so far decodes; flushes.
    fn end_member(&mut self) -> io::Result<()> {
        match std::mem::replace(self, Encoded::Finished) {
            Encoded::Plain(mut w) => {
                w.flush()?;
                *self = Encoded::Plain(w);
            }
            Encoded::Gzip(w) => {
                let mut sink = w.finish()?;
                sink.flush()?;
                *self = Encoded::Between(sink, Compression::Gzip);
            }
            Encoded::Zstd(w) => {
                let mut sink = w.finish()?;
                sink.flush()?;
                *self = Encoded::Between(sink, Compression::Zstd);
            }
            other => *self = other,
        }
        Ok(())
    }

    fn sink(&self) -> Option<&Sink> {
        match self {
            Encoded::Plain(w) | Encoded::Between(w, _) => Some(w),
            Encoded::Gzip(w) => Some(w.get_ref()),
            Encoded::Zstd(w) => Some(w.get_ref()),
            Encoded::Finished => None,
        }
    }
}

/// Writes one JSON value per line, to a file or stdout; to a file named `.gz` or `.zst`
/// compressed.
///
/// Guarantees: after [`JsonlWriter::checkpoint`] (and [`JsonlWriter::finish`]) every record
/// written so far is in the file, as whole lines and, compressed, whole gzip members or zstd
/// frames (a member or frame ends at every checkpoint), synced to the disk; the length it returns
/// is where a run resumed with [`JsonlWriter::resume`] truncates the file and goes on. A process
/// killed between checkpoints leaves the records up to the last flush, maybe a line or a
/// compressed stream cut short.
pub struct JsonlWriter {
    target: Option<PathBuf>,
    out: Option<BufWriter<Encoded>>,
    written: u64,
    /// Open an existing file at this length instead of creating it.
    resume_at: Option<u64>,
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
            resume_at: None,
        }
    }

    /// A writer to `path` (or stdout when `path` is `-`) whose file is created now, so an empty
    /// result is an empty file and an unwritable path fails before any work.
    pub fn create(path: &Path) -> io::Result<JsonlWriter> {
        let mut writer = JsonlWriter::lazy(path);
        writer.open()?;
        Ok(writer)
    }

    /// A writer that goes on with the file at `path` (stdout for `-`) after its first `len`
    /// bytes, the length a checkpoint returned: what the file holds after them is cut off now.
    /// Fails when the file holds fewer bytes (it was changed since). A file that is not a
    /// regular file (stdout, a pipe, a device) is written as it is.
    pub fn resume(path: &Path, len: u64) -> io::Result<JsonlWriter> {
        let mut writer = JsonlWriter::lazy(path);
        writer.resume_at = Some(len);
        writer.open()?;
        Ok(writer)
    }

    fn open(&mut self) -> io::Result<()> {
        let (sink, compression) = match &self.target {
            Some(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| super::with_path(e, dir))?;
                }
                let file = match self.resume_at {
                    Some(len) => open_at(path, len)?,
                    None => create(path)?,
                };
                let regular = file.metadata().is_ok_and(|m| m.is_file());
                let bytes = if regular {
                    self.resume_at.unwrap_or(0)
                } else {
                    0
                };
                let synced = if regular {
                    Some(file.try_clone().map_err(|e| super::with_path(e, path))?)
                } else {
                    None
                };
                let sink = Sink {
                    out: Box::new(file),
                    file: synced,
                    bytes,
                };
                (sink, Compression::of(path))
            }
            None => (
                Sink {
                    out: Box::new(io::stdout()),
                    file: None,
                    bytes: 0,
                },
                Compression::None,
            ),
        };
        self.out = Some(BufWriter::with_capacity(
            1 << 16,
            Encoded::new(sink, compression),
        ));
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

    /// Writes one line as it is (a serialized record and its newline).
    pub fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        if self.out.is_none() {
            self.open()?;
        }
        if let Some(out) = self.out.as_mut() {
            out.write_all(line)?;
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

    /// Whether the file was opened (a lazy writer's file is opened with its first record).
    pub fn is_open(&self) -> bool {
        self.out.is_some()
    }

    /// Flushes buffered records (through the compressor, whose stream stays open).
    pub fn flush(&mut self) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }

    /// Makes every record written so far durable: the buffer written out, the compressed member
    /// or frame ended, the file synced. Returns the file's length (0 for stdout and a file not
    /// opened).
    pub fn checkpoint(&mut self) -> io::Result<u64> {
        let (len, file) = self.seal()?;
        if let Some(file) = file {
            file.sync_data()?;
        }
        Ok(len)
    }

    /// [`JsonlWriter::checkpoint`] but for the sync, left to the caller: returns the file's
    /// length and, for a regular file, a handle to sync (`File::sync_data`) before that length
    /// counts as durable.
    pub fn seal(&mut self) -> io::Result<(u64, Option<File>)> {
        let Some(out) = self.out.as_mut() else {
            return Ok((self.resume_at.unwrap_or(0), None));
        };
        out.flush()?;
        let encoded = out.get_mut();
        encoded.end_member()?;
        let file = match encoded.sink().and_then(|s| s.file.as_ref()) {
            Some(file) => Some(file.try_clone()?),
            None => None,
        };
        Ok((encoded.sink().map_or(0, |s| s.bytes), file))
    }

    /// Writes the buffered records, ends a compressed stream and syncs the file; records written
    /// after it are an error. Returns the file's length, as [`JsonlWriter::checkpoint`].
    pub fn finish(&mut self) -> io::Result<u64> {
        let len = self.checkpoint()?;
        if let Some(out) = self.out.as_mut() {
            *out.get_mut() = Encoded::Finished;
        }
        Ok(len)
    }
}

/// Creates (or truncates) `path`; a new file's directory entry is synced, so the file survives a
/// power loss with the records later checkpoints sync.
fn create(path: &Path) -> io::Result<File> {
    let file = File::create(path).map_err(|e| super::with_path(e, path))?;
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        // A directory that cannot be opened for syncing (some file systems) is no error.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(file)
}

/// Opens `path` to go on after its first `len` bytes (a regular file is cut there; another
/// file is opened for writing as it is).
fn open_at(path: &Path, len: u64) -> io::Result<File> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| super::with_path(e, path))?;
    let meta = file.metadata().map_err(|e| super::with_path(e, path))?;
    if !meta.is_file() {
        return Ok(file);
    }
    if meta.len() < len {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: holds {} bytes, fewer than the {len} an earlier run had written and synced: it was changed since",
                path.display(),
                meta.len()
            ),
        ));
    }
    file.set_len(len).map_err(|e| super::with_path(e, path))?;
    file.sync_data().map_err(|e| super::with_path(e, path))?;
    file.seek(SeekFrom::Start(len))
        .map_err(|e| super::with_path(e, path))?;
    Ok(file)
}
