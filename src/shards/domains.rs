//! The durable domain → shard map of a state of several shards (`STATE/domains.jsonl`, one
//! `{"domain":…,"shard":K}` per line, appended as domains are first seen).
//!
//! A domain seen for the first time goes to the shard holding the fewest domains (the lowest
//! such shard on a tie): deterministic given the input, and reconstructed from the file alone on
//! the next run. Its line reaches the file (the operating system) before any of its pages is
//! handed to a shard ([`DomainMap::sync`]), so a run killed at any point never leaves a domain's
//! memory in a shard that the map does not name.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::ShardError;

#[derive(serde::Serialize, serde::Deserialize)]
struct Entry<'a> {
    domain: std::borrow::Cow<'a, str>,
    shard: usize,
}

/// The shard of every domain a state has seen.
pub struct DomainMap {
    path: PathBuf,
    shards: usize,
    map: HashMap<String, usize>,
    domains_per_shard: Vec<u64>,
    file: BufWriter<File>,
    dirty: bool,
}

impl DomainMap {
    /// Reads the map at `path` (created when missing) for `shards` shards. An incomplete last
    /// line (a run killed while writing it) is dropped: none of its domain's pages reached a
    /// shard. Any other line that is no entry of a shard below `shards` is an error.
    pub fn open(path: &Path, shards: usize) -> Result<DomainMap, ShardError> {
        let err = |source: io::Error| ShardError::DomainMap {
            path: path.to_owned(),
            source,
        };
        let mut text = match std::fs::read(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(err(e)),
        };
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        text.truncate(complete);
        let mut map = HashMap::new();
        let mut domains_per_shard = vec![0; shards];
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let bad = |why: String| {
                err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("line {}: {why}", i + 1),
                ))
            };
            let entry: Entry<'_> = serde_json::from_slice(line).map_err(|e| bad(e.to_string()))?;
            if entry.shard >= shards {
                return Err(bad(format!(
                    "shard {} of a state of {shards} shards",
                    entry.shard
                )));
            }
            if map.insert(entry.domain.into_owned(), entry.shard).is_some() {
                return Err(bad("a domain named twice".into()));
            }
            domains_per_shard[entry.shard] += 1;
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(path)
            .map_err(err)?;
        // Drop an incomplete last line, then append after the complete ones.
        file.set_len(complete as u64).map_err(err)?;
        let mut file = BufWriter::new(file);
        use std::io::Seek;
        file.seek(io::SeekFrom::End(0)).map_err(err)?;
        Ok(DomainMap {
            path: path.to_owned(),
            shards,
            map,
            domains_per_shard,
            file,
            dirty: false,
        })
    }

    /// The shard of `domain`, assigning one (and recording it) when the domain is new.
    pub fn shard(&mut self, domain: &str) -> Result<usize, ShardError> {
        if let Some(&shard) = self.map.get(domain) {
            return Ok(shard);
        }
        let shard = (0..self.shards)
            .min_by_key(|&k| (self.domains_per_shard[k], k))
            .unwrap_or(0);
        let entry = Entry {
            domain: domain.into(),
            shard,
        };
        let write = serde_json::to_writer(&mut self.file, &entry)
            .map_err(io::Error::from)
            .and_then(|()| self.file.write_all(b"\n"));
        write.map_err(|source| ShardError::DomainMap {
            path: self.path.clone(),
            source,
        })?;
        self.dirty = true;
        self.map.insert(domain.to_owned(), shard);
        self.domains_per_shard[shard] += 1;
        Ok(shard)
    }

    /// Hands the lines written since the last call to the operating system; called before
    /// pages of new domains go to their shards.
    pub fn sync(&mut self) -> Result<(), ShardError> {
        if self.dirty {
            self.file.flush().map_err(|source| ShardError::DomainMap {
                path: self.path.clone(),
                source,
            })?;
            self.dirty = false;
        }
        Ok(())
    }

    /// Domains known.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no domain is known.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_domains_go_to_the_emptiest_shard_and_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("domains.jsonl");
        let mut map = DomainMap::open(&path, 2).unwrap();
        let shards: Vec<usize> = ["a.com", "b.com", "a.com", "c.com", "d.com"]
            .iter()
            .map(|d| map.shard(d).unwrap())
            .collect();
        assert_eq!(shards, [0, 1, 0, 0, 1]);
        map.sync().unwrap();
        drop(map);
        // A run killed mid-line: the incomplete line is dropped, the others are read back.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"domain":"e.c"#).unwrap();
        drop(file);
        let mut map = DomainMap::open(&path, 2).unwrap();
        assert_eq!(map.len(), 4);
        assert_eq!(map.shard("d.com").unwrap(), 1);
        assert_eq!(map.shard("e.com").unwrap(), 0);
        map.sync().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(
            text.ends_with("{\"domain\":\"e.com\",\"shard\":0}\n"),
            "{text}"
        );
        // A map of two shards is no map of one.
        assert!(DomainMap::open(&path, 1).is_err());
    }
}
