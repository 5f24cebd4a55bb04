//! Where the state of N shards lives. One shard is the state directory itself, as written by
//! every run before there were shards (and by `urltree run`); N > 1 shards are
//! `STATE/shard-K-of-N/`, one RocksDB each, with the domain map `STATE/domains.jsonl` beside
//! them. A state's shard count is read from what the directory holds, so a later run either
//! uses the same count or is refused with the state's count named.

use std::path::{Path, PathBuf};

use super::ShardError;

/// The RocksDB file every database directory holds.
const ROCKSDB_MARKER: &str = "CURRENT";

/// What a state directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Nothing yet (missing or holding no database): any shard count may start it.
    Fresh,
    /// N shards (1: the directory is the database).
    Shards(usize),
}

impl Layout {
    /// Reads the layout of `state`. Fails when it holds databases of several shard counts, or
    /// a database of its own beside shard directories.
    pub fn of(state: &Path) -> Result<Layout, ShardError> {
        let inconsistent = |detail: String| ShardError::Inconsistent {
            path: state.to_owned(),
            detail,
        };
        let entries = match std::fs::read_dir(state) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Layout::Fresh),
            Err(e) => return Err(inconsistent(format!("cannot list it: {e}"))),
        };
        let mut single = false;
        let mut counts = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| inconsistent(format!("cannot list it: {e}")))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == ROCKSDB_MARKER {
                single = true;
            } else if let Some((k, n)) = parse_shard_dir(&name) {
                if k >= n {
                    return Err(inconsistent(format!("{name} names no shard of {n}")));
                }
                counts.push(n);
            }
        }
        counts.sort_unstable();
        counts.dedup();
        match (single, counts.as_slice()) {
            (false, []) => Ok(Layout::Fresh),
            (true, []) => Ok(Layout::Shards(1)),
            (false, [n]) => Ok(Layout::Shards(*n)),
            (true, _) => Err(inconsistent(
                "a database of one shard beside shard directories".into(),
            )),
            (false, many) => Err(inconsistent(format!(
                "shard directories of {many:?} shards"
            ))),
        }
    }
}

/// `shard-K-of-N` as (K, N).
fn parse_shard_dir(name: &str) -> Option<(usize, usize)> {
    let rest = name.strip_prefix("shard-")?;
    let (k, n) = rest.split_once("-of-")?;
    let (k, n) = (k.parse().ok()?, n.parse().ok()?);
    (n > 1).then_some((k, n))
}

/// The shard count of a run over `state`: `requested` when given (refused when the state holds
/// another count), else the state's own count, else `default`.
pub fn resolve_jobs(
    state: &Path,
    requested: Option<usize>,
    default: usize,
) -> Result<usize, ShardError> {
    match (Layout::of(state)?, requested) {
        (Layout::Fresh, requested) => Ok(requested.unwrap_or(default).max(1)),
        (Layout::Shards(held), None) => Ok(held),
        (Layout::Shards(held), Some(requested)) if held == requested => Ok(held),
        (Layout::Shards(held), Some(requested)) => Err(ShardError::ShardCount {
            path: state.to_owned(),
            held,
            requested,
        }),
    }
}

/// The state directory of shard `k` of `n` under `state` (`state` itself when `n` is 1).
pub fn shard_dir(state: &Path, k: usize, n: usize) -> PathBuf {
    if n <= 1 {
        state.to_owned()
    } else {
        state.join(format!("shard-{k}-of-{n}"))
    }
}

/// The domain map of a state of several shards.
pub fn domain_map_path(state: &Path) -> PathBuf {
    state.join("domains.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_directory_names() {
        assert_eq!(parse_shard_dir("shard-1-of-4"), Some((1, 4)));
        assert_eq!(parse_shard_dir("shard-0-of-1"), None);
        assert_eq!(parse_shard_dir("shard-x-of-2"), None);
        assert_eq!(parse_shard_dir("domains.jsonl"), None);
        let state = Path::new("/s");
        assert_eq!(shard_dir(state, 0, 1), PathBuf::from("/s"));
        assert_eq!(shard_dir(state, 1, 2), PathBuf::from("/s/shard-1-of-2"));
    }
}
