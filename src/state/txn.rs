//! One input batch's changes, readable before they are written, committed as one `WriteBatch`.

use std::collections::HashMap;

use rocksdb::{WriteBatch, WriteOptions};

use super::counter::{self, Tally};
use super::journal;
use super::keys::{self, DomainMeta, KeyMap};
use super::{db_err, StateError, Store, Write};
use crate::tree::cluster::{member_id, NodeClusters, Signature};
use crate::tree::{BlockKey, Fingerprint, NodeId};

/// The pending changes of one batch over a [`Store`], with read-your-writes.
///
/// Guarantees: nothing reaches the database before [`Txn::commit`], which writes every change
/// (counters, supports, documents, seen keys, domain bookkeeping, progress) in one atomic batch;
/// dropping a `Txn` discards the batch.
pub struct Txn<'s> {
    store: &'s Store,
    /// Pending deltas of counters below the domain roots (blocks held by several documents).
    counts: KeyMap<[u8; 16], i64>,
    /// The root tallies this batch read or changed: as stored, and as they are now.
    tallies: KeyMap<[u8; 16], (Tally, Tally)>,
    /// The nodes of documents whose branch a [`Tally::Single`] stands for, by domain and sequence.
    doc_nodes: HashMap<(NodeId, u64), Vec<NodeId>>,
    supports: KeyMap<[u8; 8], i64>,
    docs: HashMap<[u8; 16], Option<Vec<u8>>>,
    seen: HashMap<[u8; 24], Option<u64>>,
    domains: HashMap<NodeId, DomainMeta>,
    dirty_domains: Vec<NodeId>,
    progress: HashMap<String, u64>,
    /// Writes of the embedded delivery's records (see [`super::outbox`]) under their raw keys of
    /// `progress`: a value, or `None` to delete the key.
    delivery: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The domain root of every node a forgotten document touched.
    roots: KeyMap<[u8; 8], [u8; 8]>,
    /// The template clusters of the nodes this batch read (by [`keys::clusters_key`]), as they
    /// are now, and whether the batch changed them.
    clusters: HashMap<[u8; 16], (NodeClusters, bool)>,
}

impl<'s> Txn<'s> {
    pub(super) fn new(store: &'s Store) -> Txn<'s> {
        Txn {
            store,
            counts: KeyMap::default(),
            tallies: KeyMap::default(),
            doc_nodes: HashMap::new(),
            supports: KeyMap::default(),
            docs: HashMap::new(),
            seen: HashMap::new(),
            domains: HashMap::new(),
            dirty_domains: Vec::new(),
            progress: HashMap::new(),
            delivery: Vec::new(),
            roots: KeyMap::default(),
            clusters: HashMap::new(),
        }
    }

    /// The bookkeeping of a domain (all zero for a domain never seen).
    pub fn domain(&mut self, domain: NodeId) -> Result<DomainMeta, StateError> {
        if let Some(meta) = self.domains.get(&domain) {
            return Ok(*meta);
        }
        let cf = self.store.cf("domains")?;
        let stored = self
            .store
            .db()
            .get_pinned_cf(&cf, domain.0)
            .map_err(db_err("reading a domain"))?;
        let meta = match stored {
            None => DomainMeta::default(),
            Some(bytes) => DomainMeta::decode(&bytes).ok_or_else(|| StateError::Corrupt {
                cf: "domains",
                detail: format!("{} bytes for a domain entry", bytes.len()),
            })?,
        };
        self.domains.insert(domain, meta);
        Ok(meta)
    }

    /// The document that `url_key` holds in `domain`, with its sequence number, if any: the
    /// duplicate check. One read for a key not held; a held key's fingerprint is read too.
    pub fn held(
        &mut self,
        domain: NodeId,
        url_key: &str,
    ) -> Result<Option<(u64, Fingerprint)>, StateError> {
        let key = keys::seen_key(domain, url_key);
        let seq = match self.seen.get(&key) {
            Some(entry) => *entry,
            None => {
                let cf = self.store.cf("seen")?;
                let stored = self
                    .store
                    .db()
                    .get_pinned_cf(&cf, key)
                    .map_err(db_err("reading a seen key"))?;
                match stored {
                    None => None,
                    Some(bytes) => {
                        Some(keys::decode_u64(&bytes).ok_or_else(|| StateError::Corrupt {
                            cf: "seen",
                            detail: format!("{} bytes for a sequence number", bytes.len()),
                        })?)
                    }
                }
            }
        };
        let Some(seq) = seq else {
            return Ok(None);
        };
        let fp = self.doc(domain, seq)?.ok_or_else(|| StateError::Corrupt {
            cf: "docs",
            detail: format!("document {seq} of a held URL key is missing"),
        })?;
        Ok(Some((seq, fp)))
    }

    /// Inserts a document into `domain`: `n_s += 1` on every node of its branch and `c(b) += 1` for
    /// each of its distinct blocks and each of its distinct element paths there; stores its
    /// fingerprint and seen key; a page of a template cluster joins its cluster (its element-path
    /// sample the cluster's newest representative). Returns its sequence.
    pub fn insert(&mut self, domain: NodeId, fp: &Fingerprint) -> Result<u64, StateError> {
        let mut meta = self.domain(domain)?;
        let seq = meta.next_seq;
        meta.next_seq += 1;
        meta.newest_ms = if meta.held() == 1 {
            fp.time_ms
        } else {
            meta.newest_ms.max(fp.time_ms)
        };
        self.set_domain(domain, meta);
        self.docs
            .insert(keys::doc_key(domain, seq), Some(fp.encode()));
        self.seen
            .insert(keys::seen_key(domain, &fp.url_key), Some(seq));
        self.doc_nodes.insert((domain, seq), fp.nodes.clone());
        if let Some(template) = fp.template {
            let signature = Signature::of(&fp.paths);
            let clusters = self.clusters_mut(domain, template.node)?;
            clusters.add(template.cluster, member_id(&fp.url_key), signature);
        }
        self.apply(domain, seq, fp, 1)?;
        Ok(seq)
    }

    /// The template clusters of `node` of `domain` ([`crate::tree::cluster`]), including this
    /// batch's changes: empty for a node never split.
    pub fn clusters(&mut self, domain: NodeId, node: NodeId) -> Result<&NodeClusters, StateError> {
        Ok(&self.load_clusters(domain, node)?.0)
    }

    /// The template clusters of `node` of `domain`, to be changed: written at the commit.
    fn clusters_mut(
        &mut self,
        domain: NodeId,
        node: NodeId,
    ) -> Result<&mut NodeClusters, StateError> {
        let entry = self.load_clusters(domain, node)?;
        entry.1 = true;
        Ok(&mut entry.0)
    }

    /// The entry of `node`'s template clusters, read on first use.
    fn load_clusters(
        &mut self,
        domain: NodeId,
        node: NodeId,
    ) -> Result<&mut (NodeClusters, bool), StateError> {
        let key = keys::clusters_key(domain, node);
        match self.clusters.entry(key) {
            std::collections::hash_map::Entry::Occupied(entry) => Ok(entry.into_mut()),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let cf = self.store.cf("clusters")?;
                let stored = self
                    .store
                    .db()
                    .get_pinned_cf(&cf, key)
                    .map_err(db_err("reading a node's template clusters"))?;
                let clusters = match stored {
                    None => NodeClusters::default(),
                    Some(bytes) => {
                        NodeClusters::decode(&bytes).ok_or_else(|| StateError::Corrupt {
                            cf: "clusters",
                            detail: format!("{} bytes for a node's clusters", bytes.len()),
                        })?
                    }
                };
                Ok(entry.insert((clusters, false)))
            }
        }
    }

    /// The batch's writes of template clusters, keys sorted: the new value, or a delete for a
    /// node whose last cluster went.
    fn cluster_writes(&self) -> Vec<([u8; 16], Write)> {
        let mut writes: Vec<([u8; 16], Write)> = self
            .clusters
            .iter()
            .filter(|(_, (_, changed))| *changed)
            .map(|(key, (clusters, _))| {
                let write = if clusters.is_empty() {
                    Write::Delete
                } else {
                    Write::Put(clusters.encode())
                };
                (*key, write)
            })
            .collect();
        writes.sort_unstable_by_key(|(key, _)| *key);
        writes
    }

    /// The retained document at `seq` of `domain`, if any, including this batch's changes.
    pub fn doc(&mut self, domain: NodeId, seq: u64) -> Result<Option<Fingerprint>, StateError> {
        let key = keys::doc_key(domain, seq);
        let bytes = match self.docs.get(&key) {
            Some(pending) => pending.clone(),
            None => {
                let cf = self.store.cf("docs")?;
                self.store
                    .db()
                    .get_cf(&cf, key)
                    .map_err(db_err("reading a document"))?
            }
        };
        bytes
            .map(|bytes| Fingerprint::decode(&bytes))
            .transpose()
            .map_err(|e| StateError::Corrupt {
                cf: "docs",
                detail: e.to_string(),
            })
    }

    /// The oldest retained document of `domain` with its sequence number, if any. Skips the gaps
    /// before it, for good.
    pub fn oldest(&mut self, domain: NodeId) -> Result<Option<(u64, Fingerprint)>, StateError> {
        loop {
            let mut meta = self.domain(domain)?;
            if meta.held() == 0 {
                return Ok(None);
            }
            if let Some(fp) = self.doc(domain, meta.first_seq)? {
                return Ok(Some((meta.first_seq, fp)));
            }
            if meta.gaps == 0 {
                return Err(StateError::Corrupt {
                    cf: "docs",
                    detail: format!("document {} of a domain is missing", meta.first_seq),
                });
            }
            meta.first_seq += 1;
            meta.gaps -= 1;
            self.set_domain(domain, meta);
        }
    }

    /// Forgets the oldest document of `domain`, decrementing exactly what inserting it incremented.
    /// Returns the forgotten fingerprint, or `None` when the domain holds nothing.
    pub fn forget_oldest(&mut self, domain: NodeId) -> Result<Option<Fingerprint>, StateError> {
        let Some((seq, fp)) = self.oldest(domain)? else {
            return Ok(None);
        };
        self.forget(domain, seq, &fp)?;
        Ok(Some(fp))
    }

    /// Forgets the document `fp` at `seq` of `domain` (as [`Txn::held`] read it), decrementing
    /// exactly what inserting it incremented: the oldest when retention says so, or any one when
    /// a new version of its page replaces it (its sequence number then becomes a gap). A page of
    /// a template cluster leaves it, and the cluster goes with its last member.
    pub fn forget(&mut self, domain: NodeId, seq: u64, fp: &Fingerprint) -> Result<(), StateError> {
        let mut meta = self.domain(domain)?;
        self.docs.insert(keys::doc_key(domain, seq), None);
        self.seen.insert(keys::seen_key(domain, &fp.url_key), None);
        if seq == meta.first_seq {
            meta.first_seq += 1;
        } else {
            meta.gaps += 1;
        }
        self.set_domain(domain, meta);
        if let Some(template) = fp.template {
            let clusters = self.clusters_mut(domain, template.node)?;
            clusters.remove(template.cluster, member_id(&fp.url_key));
        }
        self.apply(domain, seq, fp, -1)
    }

    fn set_domain(&mut self, domain: NodeId, meta: DomainMeta) {
        if !self.dirty_domains.contains(&domain) {
            self.dirty_domains.push(domain);
        }
        self.domains.insert(domain, meta);
    }

    /// Adds (`sign` 1) or removes (`sign` -1) document `seq` of `domain`: its support on every
    /// node of its branch, and its blocks and element paths as [`Tally`] rules: at the root only
    /// while one document holds a block, at every node of every holder's branch from the second.
    fn apply(
        &mut self,
        domain: NodeId,
        seq: u64,
        fp: &Fingerprint,
        sign: i64,
    ) -> Result<(), StateError> {
        let Some((root, below)) = fp.nodes.split_first() else {
            return Ok(());
        };
        for node in &fp.nodes {
            *self.supports.entry(node.0).or_insert(0) += sign;
            if sign < 0 {
                self.roots.insert(node.0, root.0);
            }
        }
        let blocks: Vec<[u8; 16]> = fp
            .blocks
            .iter()
            .chain(&fp.paths)
            .map(|b| keys::count_key(*root, b))
            .collect();
        // Forgetting a document that retention has moved past (the oldest), its tallies of one
        // document are left stale instead of deleted (see `low_water`).
        let stale_when_gone = sign < 0 && seq < self.domain(domain)?.first_seq;
        self.load_tallies(&blocks)?;
        for (key, block) in blocks.iter().zip(fp.blocks.iter().chain(&fp.paths)) {
            let now = self.tallies.get(key).map_or(Tally::Absent, |t| t.1);
            let next = match (now, sign > 0) {
                (Tally::Absent, true) => Tally::Single(seq),
                (Tally::Single(first), true) => {
                    // A second holder: the first one's branch is counted from now on.
                    let first_nodes = self.nodes_of(domain, first)?;
                    for node in first_nodes.iter().skip(1) {
                        *self
                            .counts
                            .entry(keys::count_key(*node, block))
                            .or_insert(0) += 1;
                    }
                    Tally::Counted(2)
                }
                (Tally::Counted(n), true) => Tally::Counted(n + 1),
                (Tally::Single(holder), false) if holder == seq => Tally::Absent,
                (Tally::Single(holder), false) => {
                    return Err(StateError::Corrupt {
                        cf: "counts",
                        detail: format!(
                            "forgetting document {seq}, but a block is held by document {holder} \
                             alone"
                        ),
                    })
                }
                (Tally::Counted(n), false) if n > 1 => Tally::Counted(n - 1),
                // The last holder, or a counter already gone: nothing is left at any node.
                (Tally::Counted(_) | Tally::Absent, false) => Tally::Absent,
            };
            if matches!(now, Tally::Counted(_)) || matches!(next, Tally::Counted(_)) {
                for node in below {
                    *self
                        .counts
                        .entry(keys::count_key(*node, block))
                        .or_insert(0) += sign;
                }
            }
            if let Some(entry) = self.tallies.get_mut(key) {
                if stale_when_gone && now == Tally::Single(seq) && entry.0 == now {
                    entry.0 = Tally::Absent;
                }
                entry.1 = next;
            }
        }
        Ok(())
    }

    /// The stored values of `counts` keys (sorted, distinct), decoded by `decode`: from the hot
    /// counters where they know the key, as absent where the counters' filters say no table file
    /// holds it, the rest in one multi-get (the hot counters then remember all of them).
    fn read_counts<T>(
        &self,
        keys: &[[u8; 16]],
        decode: impl Fn(Option<&[u8]>) -> T,
    ) -> Result<Vec<T>, StateError> {
        let mut values: Vec<Option<T>> = Vec::with_capacity(keys.len());
        let mut missing = Vec::new();
        {
            let hot = self.store.hot().lock();
            for key in keys {
                match hot.get(key) {
                    Some(value) => values.push(Some(decode(value))),
                    None => {
                        values.push(None);
                        missing.push(*key);
                    }
                }
            }
        }
        if !missing.is_empty() {
            let handle = self.store.cf("counts")?;
            // Only the keys `counts` may hold are read; the others are absent (`presence`).
            let held: Vec<bool> = {
                let presence = self.store.presence();
                missing.iter().map(|key| presence.may_hold(key)).collect()
            };
            let asked: Vec<&[u8; 16]> = missing
                .iter()
                .zip(&held)
                .filter(|(_, held)| **held)
                .map(|(key, _)| key)
                .collect();
            let mut stored = self
                .store
                .db()
                .batched_multi_get_cf(&handle, asked, true)
                .into_iter();
            let pending = self.store.pending();
            let mut hot = self.store.hot().lock();
            let mut read = Vec::with_capacity(missing.len());
            for (key, held) in missing.iter().zip(held) {
                let value = if held {
                    stored
                        .next()
                        .unwrap_or(Ok(None))
                        .map_err(db_err("reading counters"))?
                } else {
                    None
                };
                match pending.overlay(key, value.as_deref()) {
                    Some(value) => {
                        let value = value.as_ref().map(journal::Value::as_bytes);
                        hot.fill(key, value);
                        read.push(decode(value));
                    }
                    None => {
                        hot.fill(key, value.as_deref());
                        read.push(decode(value.as_deref()));
                    }
                }
            }
            let mut read = read.into_iter();
            for value in values.iter_mut().filter(|v| v.is_none()) {
                *value = read.next();
            }
        }
        Ok(values.into_iter().flatten().collect())
    }

    /// Reads the stored root tallies of `keys` that this batch has not read yet (one multi-get).
    fn load_tallies(&mut self, keys: &[[u8; 16]]) -> Result<(), StateError> {
        let mut missing: Vec<[u8; 16]> = keys
            .iter()
            .filter(|k| !self.tallies.contains_key(*k))
            .copied()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        missing.sort_unstable();
        missing.dedup();
        let tallies = self.read_counts(&missing, Tally::decode)?;
        for (key, tally) in missing.iter().zip(tallies) {
            // A tally of a document the domain's retention has moved past is stale: absent.
            let tally = match tally {
                Tally::Single(seq) if seq < self.domain(domain_of(key))?.first_seq => Tally::Absent,
                t => t,
            };
            self.tallies.insert(*key, (tally, tally));
        }
        Ok(())
    }

    /// The branch of document `seq` of `domain`, root first: from this batch or its stored
    /// fingerprint.
    fn nodes_of(&mut self, domain: NodeId, seq: u64) -> Result<Vec<NodeId>, StateError> {
        if let Some(nodes) = self.doc_nodes.get(&(domain, seq)) {
            return Ok(nodes.clone());
        }
        let fp = self.doc(domain, seq)?.ok_or_else(|| StateError::Corrupt {
            cf: "counts",
            detail: format!("a block is held by document {seq}, which is missing"),
        })?;
        self.doc_nodes.insert((domain, seq), fp.nodes.clone());
        Ok(fp.nodes)
    }

    /// The supports `n_s` of `nodes`, in order, including this batch's changes.
    pub fn supports(&mut self, nodes: &[NodeId]) -> Result<Vec<u64>, StateError> {
        let keys: Vec<[u8; 8]> = nodes.iter().map(|n| n.0).collect();
        self.read_counters("support", &keys, &self.supports)
    }

    /// The counts `c(b)` of `blocks` at `node` of the domain rooted at `root`, in order, including
    /// this batch's changes. Text keys and path keys ([`crate::tree::path_key`]) share the counter
    /// space, so one call reads both.
    pub fn counts(
        &mut self,
        root: NodeId,
        node: NodeId,
        blocks: &[BlockKey],
    ) -> Result<Vec<u64>, StateError> {
        let root_keys: Vec<[u8; 16]> = blocks.iter().map(|b| keys::count_key(root, b)).collect();
        if node == root {
            self.load_tallies(&root_keys)?;
            return Ok(root_keys
                .iter()
                .map(|k| self.tallies.get(k).map_or(0, |t| t.1.count()) as u64)
                .collect());
        }
        // The root tallies say which blocks are counted below the root at all: a block held by
        // one document counts 1 on its branch, nothing is stored for it, and nothing is read.
        self.load_tallies(&root_keys)?;
        let mut values = Vec::with_capacity(blocks.len());
        let mut counted = Vec::new();
        for (i, key) in root_keys.iter().enumerate() {
            let tally = self.tallies.get(key).map_or(Tally::Absent, |t| t.1);
            values.push(match tally {
                Tally::Absent => 0,
                Tally::Single(holder) => u64::from(self.nodes_of(root, holder)?.contains(&node)),
                Tally::Counted(_) => {
                    counted.push(i);
                    0
                }
            });
        }
        if !counted.is_empty() {
            let keys: Vec<[u8; 16]> = counted
                .iter()
                .map(|&i| keys::count_key(node, &blocks[i]))
                .collect();
            let read = self.read_block_counters(&keys)?;
            for (i, value) in counted.into_iter().zip(read) {
                values[i] = value;
            }
        }
        Ok(values)
    }

    /// Stored values of block counters below the roots plus the batch's pending deltas.
    fn read_block_counters(&self, keys: &[[u8; 16]]) -> Result<Vec<u64>, StateError> {
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let values = self.read_counts(&sorted, |v| v.map_or(0, counter::decode))?;
        Ok(keys
            .iter()
            .map(|key| {
                let base = sorted.binary_search(key).map(|i| values[i]).unwrap_or(0);
                let delta = self.counts.get(key).copied().unwrap_or(0);
                (base + delta).max(0) as u64
            })
            .collect())
    }

    /// Stored values of counter `keys` (one multi-get) plus the batch's pending deltas.
    fn read_counters<const N: usize>(
        &self,
        cf: &'static str,
        keys: &[[u8; N]],
        pending: &KeyMap<[u8; N], i64>,
    ) -> Result<Vec<u64>, StateError> {
        let handle = self.store.cf(cf)?;
        // RocksDB wants the keys in order; sorting them here is cheaper than its comparator sort.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_unstable_by_key(|&i| keys[i]);
        order.dedup_by_key(|i| keys[*i]);
        let sorted: Vec<[u8; N]> = order.iter().map(|&i| keys[i]).collect();
        let stored = self.store.db().batched_multi_get_cf(&handle, &sorted, true);
        let mut values = Vec::with_capacity(sorted.len());
        for value in stored {
            let base = value
                .map_err(db_err("reading counters"))?
                .map(|v| counter::decode(&v))
                .unwrap_or(0);
            values.push(base);
        }
        Ok(keys
            .iter()
            .map(|key| {
                let base = sorted.binary_search(key).map(|i| values[i]).unwrap_or(0);
                let delta = pending.get(key).copied().unwrap_or(0);
                (base + delta).max(0) as u64
            })
            .collect())
    }

    /// The domains this batch leaves holding no document (their bookkeeping is deleted).
    fn emptied_domains(&self) -> Vec<NodeId> {
        self.dirty_domains
            .iter()
            .filter(|d| self.domains.get(*d).is_some_and(|m| m.held() == 0))
            .copied()
            .collect()
    }

    /// Moves the low-water marks of the domains this batch changed to their committed state.
    fn set_low_water(&self) {
        for domain in &self.dirty_domains {
            if let Some(meta) = self.domains.get(domain) {
                self.store.low_water().set(domain.0, meta);
            }
        }
    }

    /// Records that every input of `source` before `next_offset` is applied by this batch.
    pub fn set_progress(&mut self, source: &str, next_offset: u64) {
        self.progress.insert(source.to_owned(), next_offset);
    }

    /// Adds a write of the embedded delivery's records (see [`crate::shards::outbox`]) to this batch:
    /// `value` under `key` of the `progress` column family, or its deletion when `None`.
    pub fn deliver(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        self.delivery.push((key, value));
    }

    /// The root tallies this batch changed, as writes: the new value, or a delete when no
    /// document holds the block any more.
    fn tally_writes(&self) -> impl Iterator<Item = ([u8; 16], Write)> + '_ {
        self.tallies
            .iter()
            .filter(|(_, (stored, now))| stored != now)
            .map(|(key, (_, now))| (*key, now.encode().map_or(Write::Delete, Write::Put)))
    }

    /// The batch's block counter writes, keys sorted (the memtable's skip list then inserts each
    /// one next to the previous one instead of searching from the top).
    ///
    /// A changed root tally is written whole, or deleted when no document holds its block any
    /// more. Below the roots, a raised counter gets its delta as a merge operand, a blind write; a
    /// lowered one is written whole, and deleted when it reaches zero, so a counter that returns
    /// to zero leaves nothing behind, whatever order merges and compactions run in: the state on
    /// disk is bounded by the documents retained, not by those forgotten. A lowered counter whose
    /// root tally is now absent is deleted unread (no node counts a block more often than its
    /// root); the others are read in one multi-get.
    fn count_writes(&self) -> Result<Vec<([u8; 16], Write)>, StateError> {
        let gone_at_root = |key: &[u8; 16]| -> bool {
            let Some(root) = self.roots.get(&key[..8]) else {
                return false;
            };
            let mut root_key = *key;
            root_key[..8].copy_from_slice(root);
            matches!(self.tallies.get(&root_key), Some((_, Tally::Absent)))
        };
        let mut to_read: Vec<[u8; 16]> = self
            .counts
            .iter()
            .filter(|(key, d)| **d < 0 && !gone_at_root(key))
            .map(|(key, _)| *key)
            .collect();
        to_read.sort_unstable();
        let read = self.read_counts(&to_read, |v| v.map_or(0, counter::decode))?;
        let mut writes: Vec<([u8; 16], Write)> = Vec::new();
        for (key, delta) in &self.counts {
            match *delta {
                0 => {}
                d if d > 0 => writes.push((*key, Write::Merge(d))),
                d => {
                    let value = match to_read.binary_search(key) {
                        Ok(i) => read[i] + d,
                        Err(_) => 0,
                    };
                    let write = if value > 0 {
                        Write::Put(counter::encode(value).to_vec())
                    } else {
                        Write::Delete
                    };
                    writes.push((*key, write));
                }
            }
        }
        writes.extend(self.tally_writes());
        writes.sort_unstable_by_key(|w| w.0);
        Ok(writes)
    }

    /// Writes every change of the batch as one sorted table file per column family, ingested
    /// without the memtables: a bulk load many times faster than [`Txn::commit`] for large
    /// batches. The column families are ingested one after the other, the progress last, so the
    /// progress becomes visible only once every other change is in; a crash in between leaves
    /// changes without progress (a restore, the one user, then starts over).
    pub fn ingest(self) -> Result<(), StateError> {
        let store = self.store;
        // A table file's writes come after every write before it: journaled writes go first.
        store.fold()?;
        let mut counts: Vec<([u8; 16], Write)> = self
            .counts
            .iter()
            .filter(|(_, d)| **d != 0)
            .map(|(k, d)| (*k, Write::Merge(*d)))
            .chain(self.tally_writes())
            .collect();
        counts.sort_unstable_by_key(|(key, _)| *key);
        // Emptied domains go with their root tallies, as in a commit (before the load, whose
        // table file lies above the deletion).
        for root in self.emptied_domains() {
            let (from, to) = root_range(root);
            store
                .db()
                .delete_range_cf(store.cf("counts")?, &from[..], &to[..])
                .map_err(db_err("deleting an emptied domain's tallies"))?;
        }
        // The hot counters cannot follow a bulk load: they start over.
        let ingested = store.ingest("counts", counts.into_iter());
        store.hot().clear();
        ingested?;
        let mut supports: Vec<_> = self.supports.iter().filter(|(_, d)| **d != 0).collect();
        supports.sort_unstable_by_key(|(node, _)| **node);
        store.ingest(
            "support",
            supports.iter().map(|(k, d)| (&k[..], Write::Merge(**d))),
        )?;
        let mut docs: Vec<_> = self.docs.iter().collect();
        docs.sort_unstable_by_key(|(key, _)| **key);
        store.ingest(
            "docs",
            docs.iter().map(|(k, v)| {
                let op = match v {
                    Some(bytes) => Write::Put(bytes.clone()),
                    None => Write::Delete,
                };
                (&k[..], op)
            }),
        )?;
        let mut seen: Vec<_> = self.seen.iter().collect();
        seen.sort_unstable_by_key(|(key, _)| **key);
        store.ingest(
            "seen",
            seen.iter().map(|(k, v)| {
                let op = match v {
                    Some(seq) => Write::Put(seq.to_be_bytes().to_vec()),
                    None => Write::Delete,
                };
                (&k[..], op)
            }),
        )?;
        let mut domains: Vec<_> = self
            .dirty_domains
            .iter()
            .filter_map(|d| self.domains.get(d).map(|m| (d.0, *m)))
            .collect();
        domains.sort_unstable_by_key(|(key, _)| *key);
        store.ingest(
            "domains",
            domains.iter().map(|(k, meta)| {
                let op = if meta.held() == 0 {
                    Write::Delete
                } else {
                    Write::Put(meta.encode())
                };
                (&k[..], op)
            }),
        )?;
        store.ingest("clusters", self.cluster_writes().into_iter())?;
        self.set_low_water();
        let mut progress: Vec<_> = self.progress.iter().collect();
        progress.sort_unstable();
        store.ingest(
            "progress",
            progress
                .iter()
                .map(|(k, o)| (k.as_bytes(), Write::Put(o.to_be_bytes().to_vec()))),
        )
    }

    /// Writes every change of the batch atomically.
    pub fn commit(self) -> Result<(), StateError> {
        let store = self.store;
        let mut batch = WriteBatch::default();
        let roots = &self.roots;
        // A domain that holds nothing any more goes with every tally at its root, the stale ones
        // too, so that the sequence numbers it starts again from name no old tally. First in the
        // batch: the batch's own writes to those keys come after it.
        let emptied = self.emptied_domains();
        let counts = store.cf("counts")?;
        let count_writes = self.count_writes()?;
        let ops = journal::ops(&count_writes).map_err(|e| StateError::Corrupt {
            cf: "counts",
            detail: e.0,
        })?;
        let mut pending = store.pending();
        // Every key goes into the filters before it is written (see `presence`), under the
        // journal's lock.
        {
            let mut presence = store.presence();
            for (key, _) in &count_writes {
                presence.insert(key);
            }
        }
        // The journal is folded first when it is full, and when the batch writes its counters
        // directly: with the journal off, or when a range deletion must come after the writes
        // journaled before it.
        let bound = store.journal_counters();
        let direct = bound == 0 || !emptied.is_empty();
        if direct || pending.len() >= bound {
            store.fold_pending(&mut pending)?;
        }
        // Half a journal after a fold, its compaction (see `Store::compact_if_due`).
        let maintain = !direct && pending.len() >= bound / 2;
        if direct {
            for root in &emptied {
                let (from, to) = root_range(*root);
                batch.delete_range_cf(&counts, &from[..], &to[..]);
            }
            write_all(&mut batch, counts, &count_writes);
        } else if !ops.is_empty() {
            batch.put_cf(
                store.cf("journal")?,
                pending.next_key(),
                journal::encode(&ops),
            );
        }
        write_counters(store, &mut batch, "support", &self.supports, |node| {
            roots.get(node).copied()
        })?;
        let docs = store.cf("docs")?;
        for (key, value) in &self.docs {
            match value {
                Some(bytes) => batch.put_cf(&docs, key, bytes),
                None => batch.delete_cf(&docs, key),
            }
        }
        let seen = store.cf("seen")?;
        for (key, value) in &self.seen {
            match value {
                Some(seq) => batch.put_cf(&seen, key, seq.to_be_bytes()),
                None => batch.delete_cf(&seen, key),
            }
        }
        let domains = store.cf("domains")?;
        for domain in &self.dirty_domains {
            let Some(meta) = self.domains.get(domain) else {
                continue;
            };
            if meta.held() == 0 {
                batch.delete_cf(&domains, domain.0);
            } else {
                batch.put_cf(&domains, domain.0, meta.encode());
            }
        }
        let clusters = store.cf("clusters")?;
        for (key, write) in self.cluster_writes() {
            match write {
                Write::Put(value) => batch.put_cf(&clusters, key, value),
                _ => batch.delete_cf(&clusters, key),
            }
        }
        let progress = store.cf("progress")?;
        for (source, offset) in &self.progress {
            batch.put_cf(&progress, source.as_bytes(), offset.to_be_bytes());
        }
        for (key, value) in &self.delivery {
            match value {
                Some(value) => batch.put_cf(&progress, key, value),
                None => batch.delete_cf(&progress, key),
            }
        }
        let mut opts = WriteOptions::default();
        opts.set_sync(store.sync());
        store
            .db()
            .write_opt(batch, &opts)
            .map_err(db_err("committing a batch"))
            .inspect_err(|_| store.hot().clear())?;
        if !direct && !ops.is_empty() {
            pending.journaled(&ops);
        }
        drop(pending);
        if emptied.is_empty() {
            store
                .hot()
                .apply(count_writes.iter().map(|(key, write)| (key, write)));
        } else {
            // A range deletion cannot be followed key by key.
            store.hot().clear();
        }
        self.set_low_water();
        if maintain {
            store.compact_if_due();
        }
        Ok(())
    }
}

/// Adds counter writes to `batch`.
fn write_all(batch: &mut WriteBatch, counts: &rocksdb::ColumnFamily, writes: &[([u8; 16], Write)]) {
    for (key, write) in writes {
        match write {
            Write::Merge(delta) => batch.merge_cf(counts, key, counter::encode(*delta)),
            Write::Put(value) => batch.put_cf(counts, key, value),
            Write::Delete => batch.delete_cf(counts, key),
        }
    }
}

/// The domain whose root a root tally's key names.
fn domain_of(key: &[u8; 16]) -> NodeId {
    let mut domain = [0u8; 8];
    domain.copy_from_slice(&key[..8]);
    NodeId(domain)
}

/// Bounds of the range holding every `counts` key of `root` (its root tallies): from the
/// root's id followed by zeros, up to (excluded) a key longer than any with that prefix.
fn root_range(root: NodeId) -> ([u8; 16], [u8; 17]) {
    let mut from = [0u8; 16];
    from[..8].copy_from_slice(&root.0);
    let mut to = [0xffu8; 17];
    to[..8].copy_from_slice(&root.0);
    to[16] = 0;
    (from, to)
}

/// Adds a batch's support deltas (`n_s`) to `batch`, keys sorted (the memtable's skip list then
/// inserts each one next to the previous one instead of searching from the top). Block counters
/// follow the same rules with the root tallies in hand (`Txn::write_counts`).
///
/// A counter the batch raises gets its delta as a merge operand, a blind write. A counter it
/// lowers is written whole, and deleted when it reaches zero: a counter that returns to zero
/// leaves no value behind, whatever order merges and compactions run in, so the state on disk is
/// bounded by the documents retained, not by those forgotten.
///
/// Lowered counters are read in two rounds. A domain's root counts every document of the domain,
/// so no node's counter exceeds its root's (`root_of` maps a counter key to the same counter at
/// its domain root; the batch's forgotten documents name every node it needs): the first round
/// reads the roots, and where a root falls to zero every counter under it does too, unread. The
/// second round reads the rest.
fn write_counters<const N: usize>(
    store: &Store,
    batch: &mut WriteBatch,
    cf: &'static str,
    deltas: &KeyMap<[u8; N], i64>,
    root_of: impl Fn(&[u8; N]) -> Option<[u8; N]>,
) -> Result<(), StateError> {
    let mut changed: Vec<([u8; N], i64)> = deltas
        .iter()
        .filter(|(_, d)| **d != 0)
        .map(|(k, d)| (*k, *d))
        .collect();
    changed.sort_unstable_by_key(|(key, _)| *key);
    let handle = store.cf(cf)?;
    let read = |keys: &[[u8; N]]| -> Result<Vec<i64>, StateError> {
        let mut values = Vec::with_capacity(keys.len());
        for value in store.db().batched_multi_get_cf(&handle, keys, true) {
            let value = value.map_err(db_err("reading counters"))?;
            values.push(value.map(|v| counter::decode(&v)).unwrap_or(0));
        }
        Ok(values)
    };
    let lowered = changed.iter().filter(|(_, d)| *d < 0).map(|(k, _)| *k);
    // Round one: the roots of the lowered counters (a key without a known root is its own).
    let mut roots: Vec<[u8; N]> = lowered.clone().map(|k| root_of(&k).unwrap_or(k)).collect();
    roots.sort_unstable();
    roots.dedup();
    let root_values = read(&roots)?;
    let root_after = |key: &[u8; N]| -> Option<i64> {
        let i = roots.binary_search(key).ok()?;
        Some(root_values[i] + deltas.get(key).copied().unwrap_or(0))
    };
    // Round two: counters under a root that stays above zero.
    let rest: Vec<[u8; N]> = lowered
        .filter(|k| match root_of(k) {
            Some(root) if root != *k => root_after(&root).is_none_or(|v| v > 0),
            _ => false,
        })
        .collect();
    let rest_values = read(&rest)?;
    for (key, delta) in changed {
        if delta > 0 {
            batch.merge_cf(&handle, key, counter::encode(delta));
            continue;
        }
        let value = match rest.binary_search(&key) {
            Ok(i) => rest_values[i] + delta,
            // A root (or a key read as its own root), or a counter whose root falls to zero.
            Err(_) => root_after(&key).unwrap_or(0),
        };
        if value > 0 {
            batch.put_cf(&handle, key, counter::encode(value));
        } else {
            batch.delete_cf(&handle, key);
        }
    }
    Ok(())
}
