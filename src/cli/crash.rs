//! Crash points for the tests of `urltree extract`'s delivery: `URLTREE_TEST_CRASH=write:N`
//! writes half of the N-th record of the run (flushed to the file) and aborts, as a `kill -9`
//! in the middle of a write leaves a cut line; `checkpoint:N` aborts right after the N-th
//! checkpoint sealed the files (whole lines, compressed members ended), before any state stored
//! its mark. Unset, nothing happens.

use urltree::local::JsonlWriter;

/// Where the run aborts, if anywhere.
#[derive(Debug, Default)]
pub struct CrashPoint {
    write: Option<u64>,
    checkpoint: Option<u64>,
    writes: u64,
    checkpoints: u64,
}

/// The variable naming the crash point.
pub const VAR: &str = "URLTREE_TEST_CRASH";

impl CrashPoint {
    /// The crash point of `URLTREE_TEST_CRASH` (none when unset or not understood).
    pub fn from_env() -> CrashPoint {
        let mut point = CrashPoint::default();
        let Ok(value) = std::env::var(VAR) else {
            return point;
        };
        match value.split_once(':').map(|(k, n)| (k, n.parse::<u64>())) {
            Some(("write", Ok(n))) => point.write = Some(n),
            Some(("checkpoint", Ok(n))) => point.checkpoint = Some(n),
            _ => tracing::warn!("{VAR}={value:?} is not write:N or checkpoint:N; ignored"),
        }
        point
    }

    /// Before a record's line is written: at the crash point, half of `line` goes to the file
    /// and the process aborts.
    pub fn before_write(&mut self, output: &mut JsonlWriter, line: Option<&[u8]>) {
        self.writes += 1;
        if self.write == Some(self.writes) {
            if let Some(line) = line {
                let _ = output.write_line(&line[..line.len() / 2]);
            }
            let _ = output.flush();
            std::process::abort();
        }
    }

    /// After a checkpoint sealed the files.
    pub fn after_checkpoint(&mut self) {
        self.checkpoints += 1;
        if self.checkpoint == Some(self.checkpoints) {
            std::process::abort();
        }
    }
}
