//! Quality regression on the shared gold corpus: the default heuristic must keep the F1 it was
//! measured at (minus 0.01) when the whole `cleanportaleval` stream runs through fresh state.

use urltree::config::Config;
use urltree::corpus::{evaluate, require_shared_dir};
use urltree::tree::Heuristic;

/// Word-LCS F1 measured on cleanportaleval with `relaxed-at-domain-500` and with `strict`.
const MEASURED_DEFAULT: f64 = 0.827;
const MEASURED_STRICT: f64 = 0.827;

#[test]
fn cleanportaleval_f1_does_not_regress() {
    let corpus = require_shared_dir().join("cleanportaleval");
    let config = Config::default();
    let default = evaluate(&corpus, &config, Heuristic::default()).unwrap();
    assert_eq!(default.report.overall.pages, 71);
    assert_eq!((default.duplicates, default.rejected), (0, 0));
    let f1 = default.report.overall.f1_lcs;
    assert!(
        f1 >= MEASURED_DEFAULT - 0.01,
        "default F1 {f1:.4} fell below {MEASURED_DEFAULT}"
    );
    // The tree removes the template: precision well above the all-text baseline (0.555 F1).
    assert!(
        default.report.overall.precision > 0.7,
        "{:?}",
        default.report.overall
    );
    assert!(
        default.report.overall.recall > 0.9,
        "{:?}",
        default.report.overall
    );

    let strict = evaluate(&corpus, &config, Heuristic::Strict).unwrap();
    let f1 = strict.report.overall.f1_lcs;
    assert!(
        f1 >= MEASURED_STRICT - 0.01,
        "strict F1 {f1:.4} fell below {MEASURED_STRICT}"
    );
    // Later pages of a domain score better than its first ten: the tree learns.
    let rest = strict.report.overall.rest_f1.unwrap_or(0.0);
    assert!(
        rest > strict.report.overall.first10_f1,
        "{:?}",
        strict.report.overall
    );
}
