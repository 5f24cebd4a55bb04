//! The records of `urltree extract`'s delivery (DESIGN §4) in the `progress` column family, beside
//! the Kafka worker's per-source offsets. Their keys start with `0xff`, a byte no UTF-8 source
//! name holds:
//!
//! | key | value |
//! |---|---|
//! | [`MARK`] | the last delivery mark this state was told: how much of the input and of the output files is complete (see `shards::outbox`) |
//! | [`OUTBOX`] · run (8, big-endian) · first input sequence of the batch (8, big-endian) | one committed batch's outcomes as written to the output files, until a mark of its run covers them |
//!
//! They are written in the same atomic `WriteBatch` as the batch they belong to
//! ([`super::Txn::deliver`]), so a batch's outcomes are never lost once its pages are in the
//! tree.

use super::{db_err, StateError, Store};

/// Key of the delivery mark.
pub const MARK: &[u8] = b"\xffmark";

/// Prefix of the outbox keys.
pub const OUTBOX: &[u8] = b"\xffoutbox/";

/// Key of the outbox entry of run `run`'s batch whose first input record is `first`.
pub fn outbox_key(run: u64, first: u64) -> Vec<u8> {
    [OUTBOX, &run.to_be_bytes()[..], &first.to_be_bytes()[..]].concat()
}

impl Store {
    /// The delivery mark this state holds, as written.
    pub fn delivery_mark(&self) -> Result<Option<Vec<u8>>, StateError> {
        self.db()
            .get_cf(self.cf("progress")?, MARK)
            .map_err(db_err("reading the delivery mark"))
    }

    /// The outbox entries as (run, first input sequence of the batch, entry), in order.
    pub fn outbox(&self) -> Result<Vec<(u64, u64, Vec<u8>)>, StateError> {
        let mut opts = rocksdb::ReadOptions::default();
        opts.set_iterate_lower_bound(OUTBOX.to_vec());
        let mut upper = OUTBOX.to_vec();
        if let Some(last) = upper.last_mut() {
            *last += 1;
        }
        opts.set_iterate_upper_bound(upper);
        let mut iter = self.db().raw_iterator_cf_opt(self.cf("progress")?, opts);
        iter.seek_to_first();
        let mut entries = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let (run, first) = key
                .strip_prefix(OUTBOX)
                .and_then(|k| <[u8; 16]>::try_from(k).ok())
                .map(|k| {
                    let (run, first) = k.split_at(8);
                    let word = |b: &[u8]| u64::from_be_bytes(b.try_into().unwrap_or_default());
                    (word(run), word(first))
                })
                .ok_or_else(|| StateError::Corrupt {
                    cf: "progress",
                    detail: format!("an outbox key of {} bytes", key.len()),
                })?;
            entries.push((run, first, value.to_vec()));
            iter.next();
        }
        iter.status().map_err(db_err("reading the outbox"))?;
        Ok(entries)
    }
}
