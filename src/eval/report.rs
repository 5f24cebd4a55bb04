//! Aggregation of page scores over a stream: the streaming [`EvalAccumulator`], the serializable
//! [`RunReport`] / [`EvalReport`] it produces (means overall and per domain, cold-start split,
//! cumulative moving-average curves), and the plain-text table.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kinds::KindCounts;
use super::score::PageScore;
use super::snippets::SnippetCheck;
use super::EvalError;
use crate::tree::kind::Kind;

/// Curves are cut down to at most this many points (see [`downsample`]).
pub const CURVE_MAX_POINTS: usize = 2000;

/// Pages of a domain counted as its cold start in [`Summary::first10_f1`].
pub const COLD_START_PAGES: usize = 10;

/// Pages of a domain counted in [`Summary::first100_f1`] (the paper's learning horizon).
pub const WARM_UP_PAGES: usize = 100;

/// Mean quality over a set of pages. Means are 0 when there is no page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of pages.
    pub pages: usize,
    /// Mean F1 on the LCS of word tokens.
    pub f1_lcs: f64,
    /// Mean LCS precision.
    pub precision: f64,
    /// Mean LCS recall.
    pub recall: f64,
    /// Mean bag-of-words F1.
    pub f1_bow: f64,
    /// Mean LCS F1 over the first [`COLD_START_PAGES`] pages of each domain.
    pub first10_f1: f64,
    /// Mean LCS F1 over the other pages; `None` when there is none.
    pub rest_f1: Option<f64>,
    /// Mean LCS F1 over the first [`WARM_UP_PAGES`] pages of each domain.
    #[serde(default)]
    pub first100_f1: f64,
    /// Mean F1 on the LCS of characters (Gottron 2008).
    #[serde(default)]
    pub f1_chars: f64,
    /// Mean F1 of the sets of words (Gottron 2008).
    #[serde(default)]
    pub f1_set: f64,
    /// Stability: the standard deviation of the pages' LCS F1 (Gottron 2008; the population's,
    /// 0 for fewer than two pages).
    #[serde(default)]
    pub f1_stddev: f64,
}

/// A domain's [`Summary`] (flattened in JSON) with its own curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainSummary {
    /// Registrable domain as given to [`EvalAccumulator::push`].
    pub domain: String,
    /// The domain's means.
    #[serde(flatten)]
    pub summary: Summary,
    /// Cumulative moving average of F1 over the domain's pages, downsampled by [`downsample`].
    pub curve: Vec<f64>,
}

/// The result of scoring one heuristic over one corpus stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Name of the heuristic (or any label) the run used.
    pub heuristic: String,
    /// Means over all pages.
    pub overall: Summary,
    /// One entry per domain, sorted by pages (descending), then domain name.
    pub per_domain: Vec<DomainSummary>,
    /// Cumulative moving average of F1 over the whole stream, downsampled by [`downsample`].
    pub curve: Vec<f64>,
    /// CPU milliseconds the pipeline spent per kB of HTML (Gottron's time per kB), when the run
    /// was timed.
    #[serde(default)]
    pub cpu_ms_per_kb: Option<f64>,
    /// One entry per page type, by name, when the corpus labels its pages with one
    /// (`page_type`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_type: Vec<TypeSummary>,
    /// The snippet checks summed over the pages that have some; `None` when none has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippets: Option<SnippetCheck>,
}

/// The pages of one page type (WCXB's `page_type`: article, forum, listing, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeSummary {
    /// The type's name as the corpus gives it.
    pub page_type: String,
    /// The type's means.
    #[serde(flatten)]
    pub summary: Summary,
    /// The snippet checks summed over the type's pages; `None` when none has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippets: Option<SnippetCheck>,
    /// How many of the type's pages the run named each `page_kind` ([`super::kinds`]).
    #[serde(default)]
    pub page_kinds: KindCounts,
}

/// What a corpus says of one page besides its gold text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageLabels<'a> {
    /// The page's type, when the corpus names one.
    pub page_type: Option<&'a str>,
    /// The outcome of the page's snippet checks, when the corpus gives phrases.
    pub snippets: Option<SnippetCheck>,
    /// The kind the run named the page (its output's `page_kind`), told against its type.
    pub page_kind: Option<Kind>,
}

/// Several runs over one corpus, as written by `urltree eval`.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalReport {
    /// The runs, in the order they were made.
    pub runs: Vec<RunReport>,
    /// Name or path of the corpus.
    pub corpus: String,
}

impl EvalReport {
    /// Pretty JSON: for exactly one run, that run's object (`heuristic`, `overall`, `per_domain`,
    /// `curve`) plus `corpus`; otherwise `{"corpus": ..., "runs": [...]}`. Non-finite numbers,
    /// which the accumulator never produces, would be written as `null`.
    pub fn to_json(&self) -> String {
        let mut object = match self.runs.as_slice() {
            [one] => match serde_json::to_value(one) {
                Ok(Value::Object(map)) => map,
                _ => serde_json::Map::new(),
            },
            runs => {
                let mut map = serde_json::Map::new();
                let runs = runs
                    .iter()
                    .filter_map(|r| serde_json::to_value(r).ok())
                    .collect();
                map.insert("runs".to_owned(), Value::Array(runs));
                map
            }
        };
        object.insert("corpus".to_owned(), Value::String(self.corpus.clone()));
        format!("{:#}", Value::Object(object))
    }

    /// Reads either shape written by [`EvalReport::to_json`]; a missing `corpus` reads as "".
    pub fn from_json(json: &str) -> Result<EvalReport, EvalError> {
        let value: Value = serde_json::from_str(json)?;
        let corpus = value
            .get("corpus")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let runs = match value.get("runs") {
            Some(runs) => Vec::<RunReport>::deserialize(runs)?,
            None => vec![RunReport::deserialize(&value)?],
        };
        Ok(EvalReport { runs, corpus })
    }
}

/// Cuts `curve` to at most [`CURVE_MAX_POINTS`] points: point `i` of the result is page
/// [`curve_page_index`]`(i, points, curve.len())`, so the first and last values are kept.
pub fn downsample(curve: &[f64]) -> Vec<f64> {
    if curve.len() <= CURVE_MAX_POINTS {
        return curve.to_vec();
    }
    (0..CURVE_MAX_POINTS)
        .filter_map(|i| {
            curve
                .get(curve_page_index(i, CURVE_MAX_POINTS, curve.len()))
                .copied()
        })
        .collect()
}

/// The 0-based page index that point `point` of a curve of `points` points stands for, when it
/// was made by [`downsample`] from `pages` pages: the identity when `points >= pages`, else
/// `point · (pages − 1) / (points − 1)` (rounded down), which is increasing and ends at the last
/// page.
pub fn curve_page_index(point: usize, points: usize, pages: usize) -> usize {
    if points >= pages || points < 2 {
        return point;
    }
    let scaled = (point as u128) * (pages as u128 - 1) / (points as u128 - 1);
    usize::try_from(scaled).unwrap_or(usize::MAX)
}

/// Running sums behind a [`Summary`].
#[derive(Debug, Default, Clone)]
struct Sums {
    pages: usize,
    f1: f64,
    precision: f64,
    recall: f64,
    f1_bow: f64,
    first_n: usize,
    first_f1: f64,
    rest_n: usize,
    rest_f1: f64,
    first100_n: usize,
    first100_f1: f64,
    f1_sq: f64,
    f1_chars: f64,
    f1_set: f64,
}

impl Sums {
    fn add(&mut self, score: &PageScore, index_in_domain: usize) {
        let f1 = unit(score.f1);
        self.pages += 1;
        self.f1 += f1;
        self.precision += unit(score.precision);
        self.recall += unit(score.recall);
        self.f1_bow += unit(score.f1_bow);
        self.f1_sq += f1 * f1;
        self.f1_chars += unit(score.f1_chars);
        self.f1_set += unit(score.f1_set);
        if index_in_domain < COLD_START_PAGES {
            self.first_n += 1;
            self.first_f1 += f1;
        } else {
            self.rest_n += 1;
            self.rest_f1 += f1;
        }
        if index_in_domain < WARM_UP_PAGES {
            self.first100_n += 1;
            self.first100_f1 += f1;
        }
    }

    fn summary(&self) -> Summary {
        let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
        Summary {
            pages: self.pages,
            f1_lcs: mean(self.f1, self.pages),
            precision: mean(self.precision, self.pages),
            recall: mean(self.recall, self.pages),
            f1_bow: mean(self.f1_bow, self.pages),
            first10_f1: mean(self.first_f1, self.first_n),
            rest_f1: (self.rest_n > 0).then(|| self.rest_f1 / self.rest_n as f64),
            first100_f1: mean(self.first100_f1, self.first100_n),
            f1_chars: mean(self.f1_chars, self.pages),
            f1_set: mean(self.f1_set, self.pages),
            f1_stddev: {
                let m = mean(self.f1, self.pages);
                (mean(self.f1_sq, self.pages) - m * m).max(0.0).sqrt()
            },
        }
    }
}

/// A ratio forced into `0..=1`; non-finite values count as 0.
fn unit(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Per-domain state of the accumulator.
#[derive(Debug, Default, Clone)]
struct DomainState {
    sums: Sums,
    curve: Vec<f64>,
}

/// Streaming aggregation of page scores in stream order. Memory: one `f64` per page for the
/// curves plus one entry per domain.
#[derive(Debug, Default, Clone)]
pub struct EvalAccumulator {
    overall: Sums,
    curve: Vec<f64>,
    domains: HashMap<String, DomainState>,
    types: HashMap<String, (Sums, Option<SnippetCheck>, KindCounts)>,
    snippets: Option<SnippetCheck>,
}

impl EvalAccumulator {
    /// An accumulator that has seen no page.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next page of the stream, from `domain`. Its index within the domain is the
    /// number of earlier pages pushed for the same domain. Ratios outside `0..=1` are clamped,
    /// non-finite ones count as 0.
    pub fn push(&mut self, domain: &str, score: &PageScore) {
        self.push_labelled(domain, score, PageLabels::default());
    }

    /// [`EvalAccumulator::push`] for a page the corpus labels with a page type or snippets: its
    /// score also counts for its type, its checks for the run and its type.
    pub fn push_labelled(&mut self, domain: &str, score: &PageScore, labels: PageLabels<'_>) {
        let state = match self.domains.get_mut(domain) {
            Some(state) => state,
            None => self.domains.entry(domain.to_owned()).or_default(),
        };
        let index = state.sums.pages;
        state.sums.add(score, index);
        state.curve.push(state.sums.f1 / state.sums.pages as f64);
        self.overall.add(score, index);
        self.curve.push(self.overall.f1 / self.overall.pages as f64);
        let add = |sum: &mut Option<SnippetCheck>, check: &SnippetCheck| {
            sum.get_or_insert_with(SnippetCheck::default).add(check);
        };
        if let Some(check) = &labels.snippets {
            add(&mut self.snippets, check);
        }
        if let Some(page_type) = labels.page_type {
            let (sums, snippets, kinds) = match self.types.get_mut(page_type) {
                Some(entry) => entry,
                None => self.types.entry(page_type.to_owned()).or_default(),
            };
            sums.add(score, index);
            kinds.add(labels.page_kind);
            if let Some(check) = &labels.snippets {
                add(snippets, check);
            }
        }
    }

    /// Number of pages pushed so far.
    pub fn pages(&self) -> usize {
        self.overall.pages
    }

    /// The report of the run, labelled `label`.
    pub fn finish(self, label: &str) -> RunReport {
        let mut per_domain: Vec<DomainSummary> = self
            .domains
            .into_iter()
            .map(|(domain, state)| DomainSummary {
                domain,
                summary: state.sums.summary(),
                curve: downsample(&state.curve),
            })
            .collect();
        per_domain.sort_by(|a, b| {
            b.summary
                .pages
                .cmp(&a.summary.pages)
                .then_with(|| a.domain.cmp(&b.domain))
        });
        let mut per_type: Vec<TypeSummary> = self
            .types
            .into_iter()
            .map(|(page_type, (sums, snippets, page_kinds))| TypeSummary {
                page_type,
                summary: sums.summary(),
                snippets,
                page_kinds,
            })
            .collect();
        per_type.sort_by(|a, b| a.page_type.cmp(&b.page_type));
        RunReport {
            heuristic: label.to_owned(),
            overall: self.overall.summary(),
            per_domain,
            curve: downsample(&self.curve),
            cpu_ms_per_kb: None,
            per_type,
            snippets: self.snippets,
        }
    }
}

/// Column headings of the tables after the first (name) column.
const HEADINGS: [&str; 10] = [
    "pages", "F1 LCS", "P", "R", "BOW F1", "char F1", "set F1", "σ F1", "first-10", "rest F1",
];

/// An aligned plain-text table: for each run its overall line and its `max_domains` domains
/// with most pages; when there are several runs, then a comparison with one row per run.
/// Names are cut to 40 characters and control characters shown as `?`.
pub fn render_table(runs: &[RunReport], max_domains: usize) -> String {
    let mut out = String::new();
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "heuristic: {}", clean_name(&run.heuristic));
        let mut rows = vec![("overall".to_owned(), &run.overall)];
        for d in run.per_domain.iter().take(max_domains) {
            rows.push((format!("  {}", clean_name(&d.domain)), &d.summary));
        }
        write_rows(&mut out, "scope", &rows);
        let hidden = run.per_domain.len().saturating_sub(max_domains);
        if hidden > 0 {
            let _ = writeln!(out, "  ... {hidden} more domains");
        }
        if !run.per_type.is_empty() {
            let rows: Vec<(String, &Summary)> = run
                .per_type
                .iter()
                .map(|t| (format!("  {}", clean_name(&t.page_type)), &t.summary))
                .collect();
            write_rows(&mut out, "page type", &rows);
        }
        let kinds: Vec<(String, &KindCounts)> = run
            .per_type
            .iter()
            .map(|t| (clean_name(&t.page_type), &t.page_kinds))
            .collect();
        out.push_str(&super::kinds::render(&kinds));
        if let Some(check) = &run.snippets {
            let _ = writeln!(out, "snippets: {}", check.describe());
            for t in &run.per_type {
                if let Some(check) = &t.snippets {
                    let _ = writeln!(out, "  {}: {}", clean_name(&t.page_type), check.describe());
                }
            }
        }
    }
    if runs.len() > 1 {
        out.push_str("\ncomparison\n");
        let rows: Vec<(String, &Summary)> = runs
            .iter()
            .map(|r| (clean_name(&r.heuristic), &r.overall))
            .collect();
        write_rows(&mut out, "heuristic", &rows);
    }
    out
}

/// Writes a heading line and one line per row, columns aligned.
fn write_rows(out: &mut String, first: &str, rows: &[(String, &Summary)]) {
    let width = rows
        .iter()
        .map(|(name, _)| name.chars().count())
        .chain([first.len()])
        .max()
        .unwrap_or(0);
    let pad = |s: &str| {
        let n = s.chars().count();
        format!("{s}{}", " ".repeat(width.saturating_sub(n)))
    };
    let _ = write!(out, "{}", pad(first));
    for (k, h) in HEADINGS.iter().enumerate() {
        let w = if k == 0 { 7 } else { 9 };
        let _ = write!(out, " {h:>w$}");
    }
    out.push('\n');
    for (name, s) in rows {
        let rest = s
            .rest_f1
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}"));
        let _ = writeln!(
            out,
            "{} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9}",
            pad(name),
            s.pages,
            s.f1_lcs,
            s.precision,
            s.recall,
            s.f1_bow,
            s.f1_chars,
            s.f1_set,
            s.f1_stddev,
            s.first10_f1,
            rest
        );
    }
}

/// `name` with control characters replaced by `?` and cut to 40 characters (`…` marks a cut).
fn clean_name(name: &str) -> String {
    const MAX: usize = 40;
    let mut out: String = name
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if name.chars().nth(MAX).is_some() {
        out.pop();
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(f1: f64) -> PageScore {
        PageScore {
            precision: f1,
            recall: f1,
            f1,
            f1_bow: f1,
            f1_chars: f1,
            f1_set: f1,
            extracted_tokens: 10,
            gold_tokens: 10,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// Domain a: 12 pages of F1 1.0 except the 11th (0.0); domain b: 3 pages of 0.5, interleaved.
    fn sample() -> RunReport {
        let mut acc = EvalAccumulator::new();
        for i in 0..12 {
            acc.push("a.com", &page(if i == 10 { 0.0 } else { 1.0 }));
            if i < 3 {
                acc.push("b.org", &page(0.5));
            }
        }
        assert_eq!(acc.pages(), 15);
        acc.finish("strict")
    }

    #[test]
    fn means_cold_start_split_and_order() {
        let r = sample();
        assert_eq!(r.heuristic, "strict");
        assert_eq!(r.overall.pages, 15);
        assert!(close(r.overall.f1_lcs, 12.5 / 15.0));
        // Stability: 11 pages of 1.0, one of 0.0, three of 0.5 about their mean 12.5/15.
        let mean: f64 = 12.5 / 15.0;
        let var =
            (11.0 * (1.0 - mean) * (1.0 - mean) + mean * mean + 3.0 * (0.5 - mean) * (0.5 - mean))
                / 15.0;
        assert!(close(r.overall.f1_stddev, var.sqrt()));
        assert!(close(r.per_domain[1].summary.f1_stddev, 0.0));
        // First 10 of a (all 1.0) and the 3 of b (0.5): 11.5 / 13; rest = a's pages 11, 12.
        assert!(close(r.overall.first10_f1, 11.5 / 13.0));
        assert!(close(r.overall.rest_f1.unwrap(), 0.5));
        let names: Vec<&str> = r.per_domain.iter().map(|d| d.domain.as_str()).collect();
        assert_eq!(names, ["a.com", "b.org"]);
        let b = &r.per_domain[1];
        assert_eq!(b.summary.rest_f1, None);
        assert!(close(b.summary.first10_f1, 0.5));
        assert_eq!(b.curve, vec![0.5, 0.5, 0.5]);
        let a = &r.per_domain[0];
        assert_eq!(a.curve.len(), 12);
        assert!(close(a.curve[10], 10.0 / 11.0));
        // Stream order: a, b, a, b, a, b, a, ...
        assert_eq!(r.curve.len(), 15);
        assert!(close(r.curve[0], 1.0));
        assert!(close(r.curve[1], 0.75));
        assert!(close(r.curve[14], r.overall.f1_lcs));
    }

    #[test]
    fn ties_in_pages_sort_by_name_and_bad_ratios_are_tamed() {
        let mut acc = EvalAccumulator::new();
        acc.push("z.net", &page(f64::NAN));
        acc.push("m.net", &page(7.0));
        let r = acc.finish("x");
        let names: Vec<&str> = r.per_domain.iter().map(|d| d.domain.as_str()).collect();
        assert_eq!(names, ["m.net", "z.net"]);
        assert!(close(r.overall.f1_lcs, 0.5));
        assert!(r.curve.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn empty_run_has_zero_means_and_no_rest() {
        let r = EvalAccumulator::new().finish("none");
        assert_eq!(r.overall.pages, 0);
        assert_eq!(r.overall.f1_lcs, 0.0);
        assert_eq!(r.overall.rest_f1, None);
        assert!(r.curve.is_empty() && r.per_domain.is_empty());
    }

    #[test]
    fn long_curves_are_downsampled_keeping_first_and_last() {
        let mut acc = EvalAccumulator::new();
        for i in 0..5003 {
            acc.push("d.com", &page(if i % 2 == 0 { 1.0 } else { 0.0 }));
        }
        let r = acc.finish("x");
        assert_eq!(r.curve.len(), CURVE_MAX_POINTS);
        assert_eq!(r.per_domain[0].curve.len(), CURVE_MAX_POINTS);
        assert!(close(r.curve[0], 1.0));
        assert!(close(*r.curve.last().unwrap(), 2502.0 / 5003.0));
        assert_eq!(
            curve_page_index(CURVE_MAX_POINTS - 1, CURVE_MAX_POINTS, 5003),
            5002
        );
        assert_eq!(curve_page_index(1, CURVE_MAX_POINTS, 5003), 2);
        let idx: Vec<usize> = (0..CURVE_MAX_POINTS)
            .map(|i| curve_page_index(i, CURVE_MAX_POINTS, 5003))
            .collect();
        assert!(idx.windows(2).all(|w| w[0] < w[1]));
        // Point 1 is page 2 (0-based): CMA of 1, 0, 1 = 2/3.
        assert!(close(r.curve[1], 2.0 / 3.0));
    }

    #[test]
    fn json_shapes_round_trip() {
        let one = EvalReport {
            runs: vec![sample()],
            corpus: "cleanportaleval".to_owned(),
        };
        let json = one.to_json();
        let v: Value = serde_json::from_str(&json).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "corpus",
                "cpu_ms_per_kb",
                "curve",
                "heuristic",
                "overall",
                "per_domain"
            ]
        );
        assert_eq!(v["heuristic"], "strict");
        assert_eq!(v["per_domain"][1]["domain"], "b.org");
        assert_eq!(v["per_domain"][1]["rest_f1"], Value::Null);
        assert_eq!(v["per_domain"][0]["pages"], 12);
        assert_eq!(EvalReport::from_json(&json).unwrap(), one);

        let mut second = sample();
        second.heuristic = "relaxed-at-domain-500".to_owned();
        let two = EvalReport {
            runs: vec![sample(), second],
            corpus: "c".to_owned(),
        };
        let json = two.to_json();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["runs"].as_array().unwrap().len(), 2);
        assert_eq!(v["runs"][1]["heuristic"], "relaxed-at-domain-500");
        assert_eq!(EvalReport::from_json(&json).unwrap(), two);

        assert!(EvalReport::from_json("{\"runs\": 3}").is_err());
        assert!(EvalReport::from_json("not json").is_err());
    }

    #[test]
    fn table_is_aligned_and_compares_runs() {
        let mut second = sample();
        second.heuristic = "relaxed\u{7}".to_owned();
        let text = render_table(&[sample(), second], 1);
        assert!(text.contains("heuristic: strict\n"));
        assert!(text.contains("heuristic: relaxed?\n"));
        assert!(text.contains("... 1 more domains"));
        assert!(text.contains("comparison\n"));
        let data_lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("overall") || l.starts_with("  a.com"))
            .collect();
        assert_eq!(data_lines.len(), 4);
        let widths: Vec<usize> = data_lines.iter().map(|l| l.chars().count()).collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(text.contains("0.833"), "{text}");
        // b.org has no rest pages: shown as '-' only when listed.
        let all = render_table(&[sample()], 10);
        let b_line = all.lines().find(|l| l.contains("b.org")).unwrap();
        assert!(b_line.trim_end().ends_with('-'));
        // The header and each row line up on the last column.
        let lens: Vec<usize> = all.lines().skip(1).map(|l| l.chars().count()).collect();
        assert!(lens.windows(2).all(|w| w[0] == w[1]), "{all}");
    }
}
