//! Forgetting: which of a domain's documents the tree keeps (DESIGN §2.7).

/// How many documents a domain keeps and for how long.
///
/// Guarantees: a domain never holds more than `max_docs` documents after an insert, never forgets
/// one of its `min_keep` newest, and forgets the oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Retention {
    /// Most documents kept per domain.
    pub max_docs: u64,
    /// Documents older than this (seconds, against the domain's newest event time) are forgotten.
    pub max_age_secs: u64,
    /// The newest documents always kept, whatever their age.
    pub min_keep: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_docs: 10_000,
            max_age_secs: 14 * 24 * 3600,
            min_keep: 100,
        }
    }
}

impl Retention {
    /// Whether the oldest document (event time `oldest_ms`) of a domain holding `held` documents,
    /// whose newest event time is `newest_ms`, must be forgotten now.
    ///
    /// Age is measured against the domain's own stream time, not the wall clock, so replaying an
    /// old crawl gives the same state as processing it live.
    pub fn evicts(&self, held: u64, oldest_ms: i64, newest_ms: i64) -> bool {
        if held > self.max_docs {
            return true;
        }
        if held <= self.min_keep {
            return false;
        }
        let age_ms = newest_ms.saturating_sub(oldest_ms);
        age_ms > 0 && (age_ms as u64) > self.max_age_secs.saturating_mul(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 24 * 3600 * 1000;

    #[test]
    fn count_limit_wins_over_min_keep() {
        let r = Retention {
            max_docs: 3,
            max_age_secs: 10,
            min_keep: 5,
        };
        assert!(r.evicts(4, 0, 0));
        assert!(!r.evicts(3, 0, 0));
    }

    #[test]
    fn age_limit_respects_min_keep() {
        let r = Retention::default();
        assert!(!r.evicts(100, 0, 30 * DAY));
        assert!(r.evicts(101, 0, 30 * DAY));
        assert!(!r.evicts(101, 0, 14 * DAY));
        assert!(!r.evicts(101, 20 * DAY, 0));
    }
}
