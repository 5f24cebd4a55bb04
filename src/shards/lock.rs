//! One run at a time on a state directory: an exclusive lock on `STATE/urltree.lock`, taken
//! before the state's layout is read, so that two runs cannot both decide a shard count (each
//! RocksDB database locks itself too, but only once it is opened, and the shards' databases are
//! different directories).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::ShardError;

/// The lock file's name in a state directory.
pub const LOCK_FILE: &str = "urltree.lock";

/// An exclusive lock on a state directory, held until dropped (or the process ends, however it
/// ends: the kernel releases it).
#[derive(Debug)]
pub struct StateLock {
    _file: File,
    path: PathBuf,
}

impl StateLock {
    /// Creates the state directory if it is missing and locks it; fails at once when another
    /// process holds it.
    pub fn acquire(state: &Path) -> Result<StateLock, ShardError> {
        let inconsistent = |detail: String| ShardError::Inconsistent {
            path: state.to_owned(),
            detail,
        };
        std::fs::create_dir_all(state)
            .map_err(|e| inconsistent(format!("cannot create it: {e}")))?;
        let path = state.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| inconsistent(format!("cannot open {}: {e}", path.display())))?;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                return Err(ShardError::Busy {
                    path: state.to_owned(),
                });
            }
            return Err(inconsistent(format!("cannot lock {}: {e}", path.display())));
        }
        Ok(StateLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_state_is_refused_until_the_first_goes() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let first = StateLock::acquire(&state).unwrap();
        assert!(first.path().ends_with(LOCK_FILE));
        let second = StateLock::acquire(&state).unwrap_err();
        assert!(matches!(second, ShardError::Busy { .. }), "{second}");
        assert!(second.to_string().contains("in use"), "{second}");
        drop(first);
        StateLock::acquire(&state).unwrap();
    }
}
