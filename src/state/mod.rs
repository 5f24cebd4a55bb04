//! RocksDB storage of the URL Tree (DESIGN §3): counters, supports, fingerprints, seen keys and
//! progress in column families; all changes of one input batch commit in one atomic `WriteBatch`.
//!
//! [`Store`] owns the database; [`Txn`] collects one batch's changes with read-your-writes, so page
//! *k* of a batch is classified against pages `< k` of the same batch before anything is written.
//! A batch's counter writes go in as one [`journal`] record, folded into the counters as ingested
//! table files (one per slice of the key space, see `table_file`) once many batches have piled up,
//! so a counter that many batches touch is written once; each fold is followed by the compaction
//! of one slice (`Store::compact_slice`).

pub mod counter;
pub mod delivery;
pub mod hot;
pub mod journal;
pub mod keys;
pub mod low_water;
mod presence;
pub mod rebuild;
mod table_file;
#[cfg(test)]
mod tests;
mod txn;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rocksdb::{
    BlockBasedOptions, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, Options, DB,
};
use thiserror::Error;

pub use keys::DomainMeta;
pub use rebuild::{Rebuild, RebuildStats};
pub use txn::Txn;

use crate::tree::{Fingerprint, NodeId};

/// One write to a key of a column family: how a batch's changes reach the database, the hot
/// counters and the table files of a bulk load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// The value is replaced.
    Put(Vec<u8>),
    /// A counter delta is merged in (the merge operator adds it).
    Merge(i64),
    /// The key is deleted.
    Delete,
}

/// Tuning of the RocksDB instance, from the `[state]` section of the config.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StateOptions {
    /// Directory of the database; created when missing.
    pub path: PathBuf,
    /// Block cache shared by all column families, in bytes.
    pub block_cache_bytes: usize,
    /// Write buffer (memtable) size per column family, in bytes.
    pub write_buffer_bytes: usize,
    /// `fsync` the write-ahead log on every batch commit.
    pub sync: bool,
    /// Bound of the write-ahead log in bytes: when the log grows past it, RocksDB flushes the
    /// memtables that keep its oldest file alive (rarely written column families would otherwise
    /// hold the log for ever). A restart replays at most this much.
    pub max_wal_bytes: u64,
    /// Memory of the hot counters, an in-memory copy of the counters read and written last (see
    /// `hot`), in bytes: rounded down to a power-of-two number of 33-byte slots. The default
    /// holds 2^20 slots (34.6 MB), about the counters and root tallies a few thousand documents
    /// touch, so that forgetting a document finds its tallies in memory.
    pub hot_counters_bytes: usize,
    /// Counters the counter journal holds before they are folded into the counters (see
    /// `journal`): a counter that several batches touch is written once per fold instead of once
    /// per batch. 0 writes every batch's counters directly.
    pub journal_counters: usize,
}

impl Default for StateOptions {
    fn default() -> Self {
        StateOptions {
            path: PathBuf::from("urltree-state"),
            block_cache_bytes: 64 << 20,
            write_buffer_bytes: 32 << 20,
            sync: false,
            max_wal_bytes: 32 << 20,
            hot_counters_bytes: 36 << 20,
            journal_counters: journal::FOLD_KEYS,
        }
    }
}

/// A state operation failed.
#[derive(Debug, Error)]
pub enum StateError {
    /// RocksDB reported an error.
    #[error("RocksDB {op} failed: {source}")]
    Db {
        /// What was being done.
        op: &'static str,
        /// The RocksDB error.
        source: rocksdb::Error,
    },
    /// A stored value could not be decoded.
    #[error("corrupt state in column family {cf}: {detail}")]
    Corrupt {
        /// Column family of the value.
        cf: &'static str,
        /// What was wrong.
        detail: String,
    },
}

impl From<journal::BadRecord> for StateError {
    fn from(bad: journal::BadRecord) -> StateError {
        StateError::Corrupt {
            cf: "journal",
            detail: bad.0,
        }
    }
}

pub(crate) fn db_err(op: &'static str) -> impl FnOnce(rocksdb::Error) -> StateError {
    move |source| StateError::Db { op, source }
}

/// Size of the counters' memtable bloom filter as a share of the write buffer: 2% of 32 MiB is
/// about 10 bits per counter a full memtable holds (a 1% false-positive rate).
const MEMTABLE_BLOOM_RATIO: f64 = 0.02;

/// The URL Tree's durable state: one RocksDB database with the column families of [`keys`].
pub struct Store {
    db: DB,
    hot: hot::HotCounters,
    pending: Mutex<journal::Pending>,
    /// Which counters `counts` may hold; written under the `pending` lock.
    presence: Mutex<presence::Presence>,
    journal_counters: usize,
    /// Options of the table files of bulk loads, which stay where they land: compressed as a
    /// flush compresses.
    load_files: Options,
    /// Options of the counter journal's folds, which land in level 0 and which compactions soon
    /// rewrite (and compress) into the last level: not compressed, a fifth of a fold's cost.
    fold_files: Options,
    low_water: Arc<low_water::LowWater>,
    /// A fold happened since the last compaction of a slice of `counts` (see
    /// [`Store::compact_if_due`]).
    compaction_due: AtomicBool,
    path: PathBuf,
    sync: bool,
}

impl Store {
    /// Opens (or creates) the database at `options.path`.
    pub fn open(options: &StateOptions) -> Result<Store, StateError> {
        let mut db_opts = Options::default();
        db_opts.create_if_missing(true);
        db_opts.create_missing_column_families(true);
        db_opts.set_max_background_jobs(2);
        db_opts.set_keep_log_file_num(3);
        db_opts.set_max_total_wal_size(options.max_wal_bytes);
        // RocksDB's info log (`LOG`) keeps its header only. On a full disk a write to it fails,
        // and Debian's librocksdb 7.8, built with assertions, aborts the process on the next
        // line it logs to the same file (`WritableFileWriter::AssertFalseAndGetStatusForPrevError`)
        // -- from the error handler that reports the failed write, say. Every error reaches
        // urltree as the status of the call that failed, and is reported there.
        db_opts.set_log_level(rocksdb::LogLevel::Fatal);

        let low_water = Arc::new(low_water::LowWater::default());
        let cache = rocksdb::Cache::new_lru_cache(options.block_cache_bytes)
            .map_err(db_err("creating the block cache"))?;
        let descriptors = keys::COLUMN_FAMILIES.iter().map(|&name| {
            let mut cf_opts = Options::default();
            let mut table = BlockBasedOptions::default();
            table.set_block_cache(&cache);
            table.set_bloom_filter(10.0, false);
            table.set_cache_index_and_filter_blocks(true);
            cf_opts.set_block_based_table_factory(&table);
            cf_opts.set_write_buffer_size(options.write_buffer_bytes);
            cf_opts.set_compression_type(DBCompressionType::Lz4);
            cf_opts.set_bottommost_compression_type(DBCompressionType::Zstd);
            if name == "counts" {
                // The counter journal's folds are ingested as table files. Each lands in the
                // last level that holds none of its keys, which with fixed level sizes means a
                // level no compaction reaches, below the next; sized dynamically, the levels
                // above the last are left empty, so a fold lands in level 0 and compactions
                // merge it into the last level, where forgotten counters are dropped.
                cf_opts.set_level_compaction_dynamic_level_bytes(true);
                // A fold leaves one file per slice in level 0, and each fold compacts the fullest
                // slice (`compact_slice`), which keeps at most SLICES * (SLICES + 1) / 2 there.
                // RocksDB's own compaction of level 0 only steps in past that, for files no fold
                // made (bulk loads). With the journal off, the memtable's flushes fill level 0
                // and RocksDB compacts it as it does by default.
                if options.journal_counters > 0 {
                    cf_opts.set_level_zero_file_num_compaction_trigger(
                        (table_file::SLICES * table_file::SLICES) as i32,
                    );
                }
                // Classifying a page looks up every block at one node, and most blocks of a new
                // page are in no memtable: a whole-key bloom filter answers those misses without
                // searching the skip list.
                cf_opts.set_memtable_whole_key_filtering(true);
                cf_opts.set_memtable_prefix_bloom_ratio(MEMTABLE_BLOOM_RATIO);
            }
            if name == "counts" || name == "support" {
                cf_opts.set_merge_operator_associative("urltree.add", counter::merge_add);
            }
            if name == "counts" {
                // Root tallies of documents retention has moved past are left in place when the
                // documents go (see `low_water`); compactions remove them.
                let low_water = Arc::clone(&low_water);
                cf_opts.set_compaction_filter("urltree.counts", move |level, key, value| {
                    if key.len() != 16 {
                        // The journal's fold mark, the one key that is no counter.
                        rocksdb::compaction_filter::Decision::Keep
                    } else if low_water.is_stale(key, value) {
                        rocksdb::compaction_filter::Decision::Remove
                    } else {
                        counter::drop_zero(level, key, value)
                    }
                });
            } else if name == "support" {
                cf_opts.set_compaction_filter("urltree.drop_zero", counter::drop_zero);
            }
            ColumnFamilyDescriptor::new(name, cf_opts)
        });
        let db = DB::open_cf_descriptors(&db_opts, &options.path, descriptors)
            .map_err(db_err("open"))?;
        for (domain, meta) in domains(&db)? {
            match (<[u8; 8]>::try_from(&domain[..]), meta) {
                (Ok(domain), Some(meta)) => low_water.set(domain, &meta),
                // The domain's stale tallies stay until it is written again; its reads report
                // the corruption.
                _ => tracing::warn!(
                    key_bytes = domain.len(),
                    "a domain's bookkeeping does not decode; its stale tallies are kept"
                ),
            }
        }
        let pending = pending_of(&db)?;
        let presence = if holds_counters(&db)? {
            presence::Presence::default()
        } else {
            presence::Presence::empty()
        };
        Ok(Store {
            db,
            hot: hot::HotCounters::with_bytes(options.hot_counters_bytes),
            pending: Mutex::new(pending),
            presence: Mutex::new(presence),
            journal_counters: options.journal_counters,
            load_files: table_file::options(DBCompressionType::Lz4),
            fold_files: table_file::options(DBCompressionType::None),
            low_water,
            compaction_due: AtomicBool::new(false),
            path: options.path.clone(),
            sync: options.sync,
        })
    }

    /// Starts collecting the changes of one input batch.
    ///
    /// Also turns off RocksDB's per-thread performance counters on the calling thread: they are
    /// never read, and by default every key comparison in a memtable updates them.
    pub fn begin(&self) -> Txn<'_> {
        rocksdb::perf::set_perf_stats(rocksdb::perf::PerfStatsLevel::Disable);
        Txn::new(self)
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn cf(&self, name: &'static str) -> Result<&ColumnFamily, StateError> {
        handle(&self.db, name)
    }

    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    pub(crate) fn hot(&self) -> &hot::HotCounters {
        &self.hot
    }

    /// The journaled counter writes not yet folded (a poisoned lock is recovered: a failed
    /// commit changes nothing in it).
    pub(crate) fn pending(&self) -> MutexGuard<'_, journal::Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Which counters `counts` may hold (a poisoned lock is recovered: the filters only grow
    /// between reads of a slice).
    pub(crate) fn presence(&self) -> MutexGuard<'_, presence::Presence> {
        self.presence.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies every journaled counter write to `counts` (nothing when nothing is pending).
    pub fn fold(&self) -> Result<(), StateError> {
        self.fold_pending(&mut self.pending())
    }

    /// Folds `pending`, this store's journal, into `counts`: its operations and the fold mark as
    /// ingested table files (all or none), then the deletion of the records it folded. A failure
    /// before the files are in changes nothing; after it, the records left behind are before the
    /// mark, and the next open deletes them. The fold makes a compaction due
    /// ([`Store::compact_if_due`]).
    pub(crate) fn fold_pending(&self, pending: &mut journal::Pending) -> Result<(), StateError> {
        if pending.is_empty() {
            return Ok(());
        }
        let fold = pending.fold();
        let mark = std::iter::once((&journal::FOLDED[..], fold.mark_op()));
        let ops = fold.ops.iter().map(|(key, op)| (&key[..], *op));
        table_file::ingest(
            &self.db,
            &self.path,
            &self.fold_files,
            "counts",
            mark.chain(ops),
        )?;
        pending.folded();
        let (from, to) = fold.records;
        self.db
            .delete_range_cf(self.cf("journal")?, from, to)
            .map_err(db_err("deleting folded journal records"))?;
        self.compaction_due.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Compacts one slice of `counts` ([`Store::compact_slice`]) if a fold happened since the
    /// last one. A commit calls it once the journal is half full again, so that a batch pays
    /// for a fold or for a compaction, never both: each fold is followed by one compaction,
    /// half a journal later. A failure is logged and leaves the turn to the next fold (the
    /// batch is committed by then).
    pub(crate) fn compact_if_due(&self) {
        if self.compaction_due.swap(false, Ordering::Relaxed) {
            if let Err(error) = self.compact_slice() {
                tracing::warn!(%error, "compacting a slice of the counters failed");
            }
        }
    }

    /// Compacts the slice of `counts` (see [`table_file::SLICES`]) with the most files in level
    /// 0: those files, with the part of the last level they overlap, and not the last level on
    /// its own. A fold leaves a file in every slice, and in turn the slice that waited longest is
    /// merged, so each slice is merged once every [`table_file::SLICES`] folds: a compaction
    /// rewrites a slice of the counters instead of all of them every few folds, and the cost of
    /// keeping level 0 short is spread evenly over the folds. Chosen from the files
    /// as they are, the turn needs no bookkeeping and picks up where it was after a restart.
    fn compact_slice(&self) -> Result<(), StateError> {
        let files = self
            .db
            .live_files()
            .map_err(db_err("listing the table files"))?;
        let level0 = files
            .iter()
            .filter(|f| f.column_family_name == "counts" && f.level == 0)
            .map(|f| (f.start_key.as_deref(), f.end_key.as_deref()));
        let Some(slice) = table_file::fullest_slice(level0) else {
            return Ok(());
        };
        let mut opts = rocksdb::CompactOptions::default();
        opts.set_exclusive_manual_compaction(false);
        opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Skip);
        let (from, to) = table_file::slice_range(slice);
        self.db
            .compact_range_cf_opt(self.cf("counts")?, from, to, &opts);
        self.read_presences(slice)
    }

    /// Builds the filters of `compacted`, the slice just compacted, and of the first other slice
    /// that has none (not read since the state was opened, or dropped once full): one read
    /// besides the compacted slice's at most, so that the reads are spread over the compactions.
    fn read_presences(&self, compacted: usize) -> Result<(), StateError> {
        self.read_presence(compacted)?;
        let unknown = (0..table_file::SLICES).find(|&slice| !self.presence().knows(slice));
        match unknown {
            Some(slice) => self.read_presence(slice),
            None => Ok(()),
        }
    }

    /// Builds the filter of `slice` of `counts` ([`presence`]) from every key the slice holds and
    /// every journaled key of it, read under the journal's lock so that no commit writes between
    /// the read and the replacement. Planned for twice the keys read, so that the slice can take
    /// as many new ones before the filter is dropped; the next compaction of the slice reads it
    /// again (just compacted, its files are in the block cache). A slice whose filter would plan
    /// for more than [`presence::MAX_SLICE_KEYS`] keys gets none.
    fn read_presence(&self, slice: usize) -> Result<(), StateError> {
        let pending = self.pending();
        // RocksDB's estimate of the keys the slice holds, to skip a read whose filter would be
        // over the bound anyway.
        let estimate = self
            .db
            .property_int_value_cf(self.cf("counts")?, "rocksdb.estimate-num-keys")
            .map_err(db_err("reading the number of counters"))?
            .unwrap_or_default() as usize
            / table_file::SLICES;
        if 2 * estimate > presence::MAX_SLICE_KEYS {
            self.presence().forget(slice);
            return Ok(());
        }
        let (from, to) = table_file::slice_range(slice);
        let mut opts = rocksdb::ReadOptions::default();
        if let Some(from) = from {
            opts.set_iterate_lower_bound(from.to_vec());
        }
        if let Some(to) = to {
            opts.set_iterate_upper_bound(to.to_vec());
        }
        opts.fill_cache(false);
        let mut keys: Vec<[u8; 16]> = Vec::new();
        let mut iter = self.db.raw_iterator_cf_opt(self.cf("counts")?, opts);
        iter.seek_to_first();
        while let Some(key) = iter.key() {
            if let Ok(key) = <[u8; 16]>::try_from(key) {
                keys.push(key);
            }
            iter.next();
        }
        iter.status()
            .map_err(db_err("reading the keys of a slice"))?;
        keys.extend(
            pending
                .keys()
                .filter(|key| table_file::slice_of(&key[..]) == slice),
        );
        let plan = 2 * keys.len().max(1 << 12);
        if plan > presence::MAX_SLICE_KEYS {
            self.presence().forget(slice);
            return Ok(());
        }
        let mut bloom = presence::Bloom::with_capacity(plan);
        for key in &keys {
            bloom.insert(key);
        }
        self.presence().set(slice, bloom);
        Ok(())
    }

    /// Ingests `entries` (keys strictly increasing) into column family `cf` as the table files of
    /// a bulk load (all or none).
    pub(crate) fn ingest<K: AsRef<[u8]>>(
        &self,
        cf: &'static str,
        entries: impl Iterator<Item = (K, Write)>,
    ) -> Result<(), StateError> {
        if cf != "counts" {
            return table_file::ingest(&self.db, &self.path, &self.load_files, cf, entries);
        }
        // Every key goes into the filters (see `presence`) as it is written into the files,
        // before they are ingested, under the journal's lock as in a commit.
        let _journal = self.pending();
        let mut presence = self.presence();
        let entries = entries.inspect(|(key, _)| presence.insert(key.as_ref()));
        table_file::ingest(&self.db, &self.path, &self.load_files, cf, entries)
    }

    /// The bound of the counter journal (see [`StateOptions::journal_counters`]).
    pub(crate) fn journal_counters(&self) -> usize {
        self.journal_counters
    }

    pub(crate) fn low_water(&self) -> &low_water::LowWater {
        &self.low_water
    }

    pub(crate) fn sync(&self) -> bool {
        self.sync
    }

    /// The next offset to apply for an input source, as committed with the last batch.
    pub fn progress(&self, source: &str) -> Result<Option<u64>, StateError> {
        let cf = self.cf("progress")?;
        let value = self
            .db
            .get_cf(&cf, source.as_bytes())
            .map_err(db_err("reading progress"))?;
        Ok(value.as_deref().and_then(keys::decode_u64))
    }

    /// Folds the counter journal, then writes every memtable to disk and waits for it.
    pub fn flush(&self) -> Result<(), StateError> {
        self.fold()?;
        for name in keys::COLUMN_FAMILIES {
            let cf = self.cf(name)?;
            self.db.flush_cf(&cf).map_err(db_err("flush"))?;
        }
        Ok(())
    }

    /// Flushes memtables and compacts every column family into one sorted run, its last level
    /// rewritten too (so no deletion marker or superseded value is left); used before measuring
    /// the state's size and in tests.
    pub fn compact(&self) -> Result<(), StateError> {
        self.flush()?;
        let mut opts = rocksdb::CompactOptions::default();
        opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
        for name in keys::COLUMN_FAMILIES {
            let cf = self.cf(name)?;
            self.db
                .compact_range_cf_opt(&cf, None::<&[u8]>, None::<&[u8]>, &opts);
        }
        Ok(())
    }

    /// Bytes of live SST files plus memtables: the state's footprint.
    pub fn size_bytes(&self) -> Result<u64, StateError> {
        let sizes = self.sizes()?;
        Ok(sizes.sst_bytes + sizes.memtable_bytes)
    }

    /// The state's bytes by where they are: table files, memtables and write-ahead log.
    pub fn sizes(&self) -> Result<StateSizes, StateError> {
        let mut sizes = StateSizes::default();
        for name in keys::COLUMN_FAMILIES {
            let cf = self.cf(name)?;
            let property = |prop| {
                self.db
                    .property_int_value_cf(&cf, prop)
                    .map(Option::unwrap_or_default)
                    .map_err(db_err("reading a size property"))
            };
            sizes.sst_bytes += property("rocksdb.total-sst-files-size")?;
            sizes.memtable_bytes += property("rocksdb.size-all-mem-tables")?;
        }
        sizes.wal_bytes = wal_bytes(&self.path);
        Ok(sizes)
    }

    /// The retained documents as (domain, encoded fingerprint), per domain in arrival order.
    pub fn retained(&self) -> Result<Vec<(NodeId, Vec<u8>)>, StateError> {
        let cf = self.cf("docs")?;
        let mut docs = Vec::new();
        for item in self.db.iterator_cf(&cf, rocksdb::IteratorMode::Start) {
            let (key, value) = item.map_err(db_err("iterating"))?;
            let domain = key
                .get(..8)
                .and_then(|d| d.try_into().ok())
                .ok_or_else(|| StateError::Corrupt {
                    cf: "docs",
                    detail: format!("{}-byte key", key.len()),
                })?;
            docs.push((NodeId(domain), value.to_vec()));
        }
        Ok(docs)
    }

    /// The logical state: every stored counter and support (zeros included: a counter that
    /// returned to zero is deleted, so none should be there), the retained documents in arrival
    /// order, the duplicate-check keys, the documents held per domain and the nodes' template
    /// clusters. Two stores that hold the same documents give equal dumps, whatever they held
    /// and forgot before (for the clusters: when every document was forgotten oldest first, as
    /// retention forgets; a new version of a page forgets its old one out of order, and a
    /// representative it was is not replaced by an older member).
    pub fn dump(&self) -> Result<StateDump, StateError> {
        self.fold()?;
        let mut dump = StateDump::default();
        let mut first_seq = std::collections::HashMap::new();
        for (domain, meta) in domains(&self.db)? {
            let meta = meta.ok_or_else(|| StateError::Corrupt {
                cf: "domains",
                detail: format!("an entry of a {}-byte key does not decode", domain.len()),
            })?;
            first_seq.insert(domain, meta.first_seq);
        }
        for name in keys::COLUMN_FAMILIES {
            let cf = self.cf(name)?;
            for item in self.db.iterator_cf(&cf, rocksdb::IteratorMode::Start) {
                let (key, value) = item.map_err(db_err("iterating"))?;
                match name {
                    "counts" if key[..] == journal::FOLDED => {}
                    "counts" => match counter::Tally::decode(Some(&value)) {
                        // A tally of a document retention has moved past is stale: no count.
                        counter::Tally::Single(seq)
                            if key
                                .get(..8)
                                .and_then(|d| first_seq.get(d))
                                .is_some_and(|&f| seq < f) => {}
                        counter::Tally::Single(seq) => {
                            dump.counts.extend(self.single_counts(&key, seq)?);
                        }
                        _ => dump.counts.push((key.to_vec(), counter::decode(&value))),
                    },
                    "support" => dump.supports.push((key.to_vec(), counter::decode(&value))),
                    "docs" => dump.docs.push(value.to_vec()),
                    "seen" => dump.seen.push(key.to_vec()),
                    "domains" => {
                        let meta =
                            DomainMeta::decode(&value).ok_or_else(|| StateError::Corrupt {
                                cf: "domains",
                                detail: format!("{} bytes", value.len()),
                            })?;
                        dump.held.push((key.to_vec(), meta.held()));
                    }
                    "clusters" => dump.clusters.push((key.to_vec(), value.to_vec())),
                    _ => {}
                }
            }
        }
        dump.counts.sort_unstable();
        Ok(dump)
    }

    /// Stored root tallies of documents that retention has moved past (see [`low_water`]):
    /// readers take them as absent, and compactions remove them, so a compacted state has none.
    pub fn stale_tallies(&self) -> Result<u64, StateError> {
        self.fold()?;
        let cf = self.cf("counts")?;
        let mut stale = 0;
        for item in self.db.iterator_cf(&cf, rocksdb::IteratorMode::Start) {
            let (key, value) = item.map_err(db_err("iterating"))?;
            stale += u64::from(self.low_water.is_stale(&key, &value));
        }
        Ok(stale)
    }

    /// The counters a root tally of one document stands for: 1 at every node of its branch.
    fn single_counts(&self, root_key: &[u8], seq: u64) -> Result<Vec<(Vec<u8>, i64)>, StateError> {
        let corrupt = |detail: String| StateError::Corrupt {
            cf: "counts",
            detail,
        };
        let (Some(root), Some(block)) = (root_key.get(..8), root_key.get(8..)) else {
            return Err(corrupt(format!("{}-byte key", root_key.len())));
        };
        let mut domain = [0u8; 8];
        domain.copy_from_slice(root);
        let docs = self.cf("docs")?;
        let bytes = self
            .db
            .get_cf(&docs, keys::doc_key(NodeId(domain), seq))
            .map_err(db_err("reading a document"))?
            .ok_or_else(|| {
                corrupt(format!(
                    "a block is held by document {seq}, which is missing"
                ))
            })?;
        let fp = Fingerprint::decode(&bytes).map_err(|e| corrupt(e.to_string()))?;
        Ok(fp
            .nodes
            .iter()
            .map(|node| ([&node.0[..], block].concat(), 1))
            .collect())
    }
}

/// Whether `counts` holds any counter (a key of 16 bytes: the fold mark is not one), or the
/// journal any record.
fn holds_counters(db: &DB) -> Result<bool, StateError> {
    for cf in ["counts", "journal"] {
        let mut iter = db.raw_iterator_cf(handle(db, cf)?);
        iter.seek_to_first();
        while let Some(key) = iter.key() {
            if cf == "journal" || key.len() == 16 {
                return Ok(true);
            }
            iter.next();
        }
        iter.status().map_err(db_err("reading the first counter"))?;
    }
    Ok(false)
}

/// The journaled counter writes of a database not yet folded, from its `journal` records and
/// the fold mark in `counts`; the records a fold left behind are deleted.
fn pending_of(db: &DB) -> Result<journal::Pending, StateError> {
    let mark = db
        .get_cf(handle(db, "counts")?, journal::FOLDED)
        .map_err(db_err("reading the journal's fold mark"))?;
    let folded = journal::folded_of(mark.as_deref())?;
    let records = entries(db, "journal", "reading the counter journal")?;
    let (pending, skipped) =
        journal::Pending::load(records.iter().map(|(k, v)| (&k[..], &v[..])), folded)?;
    if skipped {
        db.delete_range_cf(
            handle(db, "journal")?,
            0u64.to_be_bytes(),
            folded.to_be_bytes(),
        )
        .map_err(db_err("deleting folded journal records"))?;
    }
    Ok(pending)
}

/// Every entry of column family `name`, in key order (`op` names the read in an error).
fn entries(db: &DB, name: &'static str, op: &'static str) -> Result<Vec<KeyValue>, StateError> {
    db.iterator_cf(handle(db, name)?, rocksdb::IteratorMode::Start)
        .map(|item| item.map_err(db_err(op)))
        .collect()
}

/// The handle of column family `name` of `db`; every column family is created when it opens.
pub(crate) fn handle<'a>(db: &'a DB, name: &'static str) -> Result<&'a ColumnFamily, StateError> {
    db.cf_handle(name).ok_or_else(|| StateError::Corrupt {
        cf: name,
        detail: "column family missing".into(),
    })
}

/// A key and its value, as an iterator reads them.
type KeyValue = (Box<[u8]>, Box<[u8]>);

/// A `domains` entry: the domain id as stored and its bookkeeping, `None` when it does not decode.
type DomainEntry = (Vec<u8>, Option<DomainMeta>);

/// Every domain's bookkeeping by domain id, from the `domains` column family (the caller decides
/// whether an entry that does not decode is fatal).
fn domains(db: &DB) -> Result<Vec<DomainEntry>, StateError> {
    Ok(entries(db, "domains", "reading the domains")?
        .into_iter()
        .map(|(key, value)| {
            let meta = (key.len() == 8)
                .then(|| DomainMeta::decode(&value))
                .flatten();
            (key.to_vec(), meta)
        })
        .collect())
}

/// Bytes of a state by where they are (see [`Store::sizes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateSizes {
    /// Live table (SST) files of every column family.
    pub sst_bytes: u64,
    /// Memtables of every column family.
    pub memtable_bytes: u64,
    /// Write-ahead log files (`*.log`) in the state directory.
    pub wal_bytes: u64,
}

/// Bytes of the write-ahead log files (`NNNNNN.log`) in a RocksDB directory; 0 when it cannot be
/// read.
pub fn wal_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// The logical state (see [`Store::dump`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StateDump {
    /// Stored block counts by key.
    pub counts: Vec<(Vec<u8>, i64)>,
    /// Stored node supports by key.
    pub supports: Vec<(Vec<u8>, i64)>,
    /// Encoded fingerprints of the retained documents, per domain in arrival order.
    pub docs: Vec<Vec<u8>>,
    /// Duplicate-check keys.
    pub seen: Vec<Vec<u8>>,
    /// Documents held per domain id (domains holding none are absent).
    pub held: Vec<(Vec<u8>, u64)>,
    /// The encoded template clusters by key (domain and node), of the nodes that hold any.
    pub clusters: Vec<(Vec<u8>, Vec<u8>)>,
}
