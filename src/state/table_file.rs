//! Sorted writes as one table file that RocksDB ingests into a column family: no memtable, no
//! write-ahead log, no flush. The counter journal's folds and bulk loads go in this way.

use std::path::Path;

use rocksdb::{BlockBasedOptions, DBCompressionType, IngestExternalFileOptions, Options};
use rocksdb::{SstFileWriter, DB};

use super::journal::Op;
use super::{counter, db_err, handle, StateError, Write};

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

/// Writes `entries` (keys strictly increasing) into a table file in directory `dir`, made with
/// `opts`, and ingests it into column family `cf` of `db`, whole or not at all (nothing when there
/// are no entries). A key the memtable holds too makes RocksDB flush the memtable first, so the
/// file's writes come after every earlier write.
pub fn ingest<K: AsRef<[u8]>, E: Entry>(
    db: &DB,
    dir: &Path,
    opts: &Options,
    cf: &'static str,
    entries: impl Iterator<Item = (K, E)>,
) -> Result<(), StateError> {
    let mut entries = entries.peekable();
    if entries.peek().is_none() {
        return Ok(());
    }
    let handle = handle(db, cf)?;
    let path = dir.join(format!("ingest-{cf}.sst"));
    let mut writer = SstFileWriter::create(opts);
    writer
        .open(&path)
        .map_err(db_err("creating a table file"))?;
    for (key, entry) in entries {
        entry
            .add(&mut writer, key.as_ref())
            .map_err(db_err("writing a table file"))?;
    }
    writer.finish().map_err(db_err("finishing a table file"))?;
    let mut ingest = IngestExternalFileOptions::default();
    ingest.set_move_files(true);
    let ingested = db
        .ingest_external_file_cf_opts(handle, &ingest, vec![&path])
        .map_err(db_err("ingesting a table file"));
    if ingested.is_err() {
        // Moved into the database when ingested; left behind otherwise.
        let _ = std::fs::remove_file(&path);
    }
    ingested
}
