//! Quality measure of extracted text against a gold main text (DESIGN §8): word tokens, their
//! longest common subsequence, per-page precision/recall/F1 and bag-of-words F1, Gottron's
//! character-LCS and set-of-words F1, aggregation over a stream (overall, per domain, cold start,
//! cumulative moving average, stability), the output's page kind against a corpus's page types,
//! a plain-text table, JSON, and an SVG plot of the
//! curves.

pub mod kinds;
pub mod lcs;
pub mod plot;
pub mod report;
pub mod score;
pub mod snippets;
pub mod summary;
pub mod tokens;

#[cfg(test)]
mod tests;

pub use kinds::{expected_kind, KindCounts};
pub use lcs::lcs_len;
pub use plot::{render_svg, write_svg};
pub use report::{
    render_table, DomainSummary, EvalAccumulator, EvalReport, PageLabels, RunReport, Summary,
    TypeSummary,
};
pub use score::{score_ids, score_page, PageScore};
pub use snippets::{SnippetCheck, Snippets};
pub use summary::{MetricsTable, SummaryTable};
pub use tokens::{word_tokens, Interner};

/// Errors of reading evaluation results back.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The text is not JSON, or not the shape `EvalReport::to_json` writes.
    #[error("eval report JSON is not valid or not an eval report: {0}")]
    Json(#[from] serde_json::Error),
}
