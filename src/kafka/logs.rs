//! Log lines that repeat are written once per window: while a broker is unreachable, librdkafka
//! and the fetch loop report the same failure many times a second; the log gets the first line of
//! each kind at once, then at most one per [`WINDOW`], with the number of repeats left out.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The shortest time between two lines of one kind.
pub const WINDOW: Duration = Duration::from_secs(30);

/// Kinds remembered at most; older ones are forgotten first when the table is full.
const CAPACITY: usize = 512;

/// Decides which repeated log lines are written.
#[derive(Debug)]
pub struct Throttle {
    window: Duration,
    kinds: Mutex<HashMap<String, Kind>>,
}

#[derive(Debug)]
struct Kind {
    /// When the last line of this kind was written.
    written: Instant,
    /// Lines of this kind left out since then.
    suppressed: u64,
}

impl Throttle {
    /// A throttle writing a kind of line at most once per `window`.
    pub fn new(window: Duration) -> Throttle {
        Throttle {
            window,
            kinds: Mutex::new(HashMap::new()),
        }
    }

    /// Whether a line of `kind` is written at `now`: `Some(n)` with the `n` lines of that kind
    /// left out since the last one written, `None` to leave this one out.
    pub fn admit(&self, kind: &str, now: Instant) -> Option<u64> {
        let mut kinds = self.kinds.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kinds.get_mut(kind) {
            if now.saturating_duration_since(k.written) < self.window {
                k.suppressed += 1;
                return None;
            }
            let suppressed = std::mem::take(&mut k.suppressed);
            k.written = now;
            return Some(suppressed);
        }
        if kinds.len() >= CAPACITY {
            let window = self.window;
            kinds.retain(|_, k| now.saturating_duration_since(k.written) < window);
            if kinds.len() >= CAPACITY {
                kinds.clear();
            }
        }
        kinds.insert(
            kind.to_owned(),
            Kind {
                written: now,
                suppressed: 0,
            },
        );
        Some(0)
    }
}

/// The kind of a log line: its text with every run of digits replaced by `#`, so lines that
/// differ only in counts, ids or addresses' numbers ("1/1 brokers are down", "0/1 brokers are
/// down") are one kind.
pub fn kind_of(line: &str) -> String {
    let mut kind = String::with_capacity(line.len());
    let mut in_digits = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                kind.push('#');
            }
            in_digits = true;
        } else {
            kind.push(c);
            in_digits = false;
        }
    }
    kind
}

/// The process-wide throttle of the Kafka worker's logs (librdkafka's lines and errors, fetch
/// errors), with the [`WINDOW`].
pub fn throttle() -> &'static Throttle {
    static THROTTLE: OnceLock<Throttle> = OnceLock::new();
    THROTTLE.get_or_init(|| Throttle::new(WINDOW))
}

/// Passes `line` to `write` unless a line of its kind was written less than [`WINDOW`] ago;
/// a written line says how many of its kind were left out before it.
pub fn throttled(line: &str, write: impl FnOnce(&str)) {
    throttled_as(&kind_of(line), line, write)
}

/// Like [`throttled`], for lines of an explicit `kind` (lines whose text varies more than in
/// numbers).
pub fn throttled_as(kind: &str, line: &str, write: impl FnOnce(&str)) {
    match throttle().admit(kind, Instant::now()) {
        None => {}
        Some(0) => write(line),
        Some(n) => write(&format!(
            "{line} ({n} more like it in the last {}s not logged)",
            WINDOW.as_secs()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_written_once_per_window_with_their_count() {
        let t = Throttle::new(Duration::from_secs(10));
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(t.admit("a", at(0)), Some(0));
        assert_eq!(t.admit("b", at(1)), Some(0));
        for ms in (50..9_000).step_by(50) {
            assert_eq!(t.admit("a", at(ms)), None);
        }
        assert_eq!(t.admit("a", at(10_000)), Some(179));
        assert_eq!(t.admit("a", at(10_001)), None);
        assert_eq!(t.admit("b", at(20_000)), Some(0));
    }

    #[test]
    fn lines_differing_in_numbers_are_one_kind() {
        assert_eq!(
            kind_of("AllBrokersDown: 1/1 brokers are down"),
            kind_of("AllBrokersDown: 0/1 brokers are down")
        );
        assert_eq!(kind_of("p12 at 127.0.0.1:9092"), "p# at #.#.#.#:#");
        assert_ne!(kind_of("broker down"), kind_of("broker up"));
    }

    #[test]
    fn the_table_stays_bounded() {
        let t = Throttle::new(Duration::from_secs(10));
        let now = Instant::now();
        for i in 0..(3 * CAPACITY) {
            assert_eq!(t.admit(&i.to_string(), now), Some(0));
        }
        assert!(t.kinds.lock().unwrap().len() <= CAPACITY);
    }
}
