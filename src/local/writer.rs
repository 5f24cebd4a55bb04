//! JSONL output to a file or stdout.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes one JSON value per line, to a file or stdout.
pub struct JsonlWriter {
    target: Option<PathBuf>,
    out: Option<BufWriter<Box<dyn Write + Send>>>,
    written: u64,
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
        let sink: Box<dyn Write + Send> = match &self.target {
            Some(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| super::with_path(e, dir))?;
                }
                Box::new(File::create(path).map_err(|e| super::with_path(e, path))?)
            }
            None => Box::new(io::stdout()),
        };
        self.out = Some(BufWriter::with_capacity(1 << 16, sink));
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

    /// Flushes buffered records.
    pub fn flush(&mut self) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}
