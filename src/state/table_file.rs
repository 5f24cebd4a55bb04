//! Sorted writes as table files that RocksDB ingests into a column family: no memtable, no
//! write-ahead log, no flush. The counter journal's folds and bulk loads go in this way.
//!
//! The writes are cut into one file per [slice](SLICES) of the key space, so that a compaction
//! can take one slice of what the folds left in level 0, with the part of the last level beside
//! it, instead of all of both at once (see `Store::compact_slice`).

use std::path::{Path, PathBuf};

use rocksdb::{BlockBasedOptions, DBCompressionType, IngestExternalFileOptions, Options};
use rocksdb::{SstFileWriter, DB};

use super::journal::Op;
use super::{counter, db_err, handle, StateError, Write};

/// Shares of the key space the ingested files are cut into, by the key's first byte. Every key
/// of this state starts with an MD5-derived id, so the slices hold about as many keys each.
pub const SLICES: usize = 4;

/// The slice of `key` (the empty key is in the first).
pub(super) fn slice_of(key: &[u8]) -> usize {
    key.first().map_or(0, |&b| usize::from(b) * SLICES / 256)
}

/// The keys of slice `slice` (of [`SLICES`]) as a key range: from the slice's first byte, inclusive
/// (`None`: from the first key), to the next slice's, exclusive (`None`: to the last key).
pub fn slice_range(slice: usize) -> (Option<[u8; 1]>, Option<[u8; 1]>) {
    let first_byte = |slice: usize| u8::try_from(slice * 256 / SLICES).ok().map(|b| [b]);
    let from = if slice == 0 { None } else { first_byte(slice) };
    let to = if slice + 1 >= SLICES {
        None
    } else {
        first_byte(slice + 1)
    };
    (from, to)
}

/// The slice that the most of `files` (each by its first and last key; `None`: unbounded)
/// overlap, the first of equals; `None` when there are no files. A file that spans several slices
/// counts in each.
pub fn fullest_slice<'a>(
    files: impl Iterator<Item = (Option<&'a [u8]>, Option<&'a [u8]>)>,
) -> Option<usize> {
    let mut overlapping = [0usize; SLICES];
    for (first, last) in files {
        let from = first.map_or(0, slice_of);
        let to = last.map_or(SLICES - 1, slice_of);
        for count in overlapping.iter_mut().take(to + 1).skip(from) {
            *count += 1;
        }
    }
    let most = overlapping.iter().copied().max().filter(|&n| n > 0)?;
    overlapping.iter().position(|&n| n == most)
}

/// One entry of a table file, added to the file's writer under its key.
pub trait Entry {
    /// Adds the entry under `key`.
    fn add(&self, writer: &mut SstFileWriter<'_>, key: &[u8]) -> Result<(), rocksdb::Error>;
}

impl Entry for Write {
    fn add(&self, writer: &mut SstFileWriter<'_>, key: &[u8]) -> Result<(), rocksdb::Error> {
        match self {
            Write::Put(value) => writer.put(key, value),
            Write::Merge(delta) => writer.merge(key, counter::encode(*delta)),
            Write::Delete => writer.delete(key),
        }
    }
}

/// A journaled counter operation, written as it stands (no value copied out of it).
impl Entry for Op {
    fn add(&self, writer: &mut SstFileWriter<'_>, key: &[u8]) -> Result<(), rocksdb::Error> {
        match self {
            Op::Add(delta) => writer.merge(key, counter::encode(*delta)),
            Op::Set(Some(value)) => writer.put(key, value.as_bytes()),
            Op::Set(None) => writer.delete(key),
        }
    }
}

/// Options of the table files written here: the block format and bloom filter of the column
/// families' own files, so a lookup in an ingested file costs what it costs in a flushed one, and
/// `compression`.
pub fn options(compression: DBCompressionType) -> Options {
    let mut table = BlockBasedOptions::default();
    table.set_bloom_filter(10.0, false);
    table.set_cache_index_and_filter_blocks(true);
    let mut opts = Options::default();
    opts.set_block_based_table_factory(&table);
    opts.set_compression_type(compression);
    opts
}

/// Writes `entries` (keys strictly increasing) into table files in directory `dir`, one per
/// [slice](SLICES) that holds any, made with `opts`, and ingests them into column family `cf` of
/// `db`, all or none (nothing when there are no entries). A key the memtable holds too makes
/// RocksDB flush the memtable first, so the files' writes come after every earlier write.
pub fn ingest<K: AsRef<[u8]>, E: Entry>(
    db: &DB,
    dir: &Path,
    opts: &Options,
    cf: &'static str,
    entries: impl Iterator<Item = (K, E)>,
) -> Result<(), StateError> {
    let handle = handle(db, cf)?;
    let mut paths = Vec::new();
    let written = write_slices(dir, opts, cf, entries, &mut paths);
    let ingested = written.and_then(|()| {
        if paths.is_empty() {
            return Ok(());
        }
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        db.ingest_external_file_cf_opts(handle, &ingest, paths.iter().collect())
            .map_err(db_err("ingesting table files"))
    });
    if ingested.is_err() {
        // Moved into the database when ingested; left behind otherwise.
        for path in &paths {
            let _ = std::fs::remove_file(path);
        }
    }
    ingested
}

/// Writes `entries` into one table file per slice that holds any, pushing each file's path to
/// `paths` as it is created.
fn write_slices<K: AsRef<[u8]>, E: Entry>(
    dir: &Path,
    opts: &Options,
    cf: &'static str,
    entries: impl Iterator<Item = (K, E)>,
    paths: &mut Vec<PathBuf>,
) -> Result<(), StateError> {
    let mut open: Option<(usize, SstFileWriter<'_>)> = None;
    for (key, entry) in entries {
        let key = key.as_ref();
        let slice = slice_of(key);
        if open.as_ref().map(|(s, _)| *s) != Some(slice) {
            if let Some((_, mut writer)) = open.take() {
                writer.finish().map_err(db_err("finishing a table file"))?;
                keep_cached(paths.last());
            }
            let path = dir.join(format!("ingest-{cf}-{slice}.sst"));
            let writer = SstFileWriter::create(opts);
            paths.push(path.clone());
            writer
                .open(&path)
                .map_err(db_err("creating a table file"))?;
            open = Some((slice, writer));
        }
        if let Some((_, writer)) = open.as_mut() {
            entry
                .add(writer, key)
                .map_err(db_err("writing a table file"))?;
        }
    }
    if let Some((_, mut writer)) = open {
        writer.finish().map_err(db_err("finishing a table file"))?;
        keep_cached(paths.last());
    }
    Ok(())
}

/// Asks the kernel to read the finished table file at `path` back into the page cache, ahead of
/// its first reads. RocksDB's table file writer drops a file's pages from the page cache once it
/// is written (so a bulk load does not crowd out the database's pages), but an ingested file is
/// read next: every lookup of a key in its range, then the compaction that merges it. Without
/// the hint each of those reads a block from the disk; with it, the kernel reads the file in a
/// few large requests. A file that cannot be opened is left as it is (the hint is no more than
/// that).
fn keep_cached(path: Option<&PathBuf>) {
    #[cfg(target_os = "linux")]
    if let Some(file) = path.and_then(|p| std::fs::File::open(p).ok()) {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the duration of the call; the call reads no memory.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_WILLNEED);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slices_cover_the_key_space_in_order_without_overlap() {
        let mut last = 0;
        for byte in 0..=255u8 {
            let slice = slice_of(&[byte, 7]);
            assert!(
                slice == last || slice == last + 1,
                "byte {byte}: slice {slice}"
            );
            last = slice;
            let (from, to) = slice_range(slice);
            assert!(from.is_none_or(|f| f[..] <= [byte][..]), "byte {byte}");
            assert!(to.is_none_or(|t| [byte][..] < t[..]), "byte {byte}");
        }
        assert_eq!(last, SLICES - 1);
        assert_eq!(slice_of(&[]), 0);
        assert_eq!(slice_range(0).0, None);
        assert_eq!(slice_range(SLICES - 1).1, None);
    }

    #[test]
    fn the_fullest_slice_counts_a_spanning_file_in_each_slice_and_prefers_the_first() {
        let key = |slice: usize| [(slice * 256 / SLICES) as u8, 1];
        let (a, b, c) = (key(1), key(2), key(SLICES - 1));
        assert_eq!(fullest_slice(std::iter::empty()), None);
        let files = [(Some(&a[..]), Some(&a[..])), (Some(&b[..]), Some(&b[..]))];
        assert_eq!(fullest_slice(files.into_iter()), Some(1));
        let files = [
            (Some(&a[..]), Some(&a[..])),
            (Some(&b[..]), Some(&b[..])),
            (Some(&b[..]), Some(&c[..])),
        ];
        assert_eq!(fullest_slice(files.into_iter()), Some(2));
        let unbounded = [(None, None)];
        assert_eq!(fullest_slice(unbounded.into_iter()), Some(0));
    }
}
