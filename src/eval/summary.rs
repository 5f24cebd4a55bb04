//! The summary of an evaluation over several corpora: one row per corpus, one column per run
//! (a heuristic, or `hybrid` with one rule switched off), and the macro mean over the corpora, so
//! a change is judged on every set at once.

use std::fmt::Write;

use super::report::RunReport;

/// F1 (word LCS) of each run on each corpus.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryTable {
    /// Run labels, one per column.
    pub columns: Vec<String>,
    /// Corpus name and its F1 per column, in column order.
    pub rows: Vec<(String, Vec<f64>)>,
}

impl SummaryTable {
    /// The macro mean of each column over the rows (0 for a table without rows).
    pub fn macro_mean(&self) -> Vec<f64> {
        (0..self.columns.len())
            .map(|c| {
                let n = self.rows.len().max(1) as f64;
                self.rows.iter().map(|(_, v)| v[c]).sum::<f64>() / n
            })
            .collect()
    }

    /// The table as text: F1 per corpus and column, then the macro row.
    pub fn render(&self) -> String {
        self.render_with(|row, c| format!("{:.3}", row[c]))
    }

    /// The table as text with every column after the first given as its difference from the
    /// first (`+0.004`): what each variant changes, set by set (an ablation table).
    pub fn render_deltas(&self) -> String {
        self.render_with(|row, c| match c {
            0 => format!("{:.3}", row[0]),
            _ => format!("{:+.3}", row[c] - row[0]),
        })
    }

    fn render_with(&self, cell: impl Fn(&[f64], usize) -> String) -> String {
        let width = self
            .rows
            .iter()
            .map(|(name, _)| name.len())
            .chain(["macro".len()])
            .max()
            .unwrap_or(5);
        let cols: Vec<usize> = self.columns.iter().map(|c| c.len().max(7)).collect();
        let mut out = String::new();
        let _ = write!(out, "{:<width$}", "set");
        for (c, w) in self.columns.iter().zip(&cols) {
            let _ = write!(out, "  {c:>w$}");
        }
        out.push('\n');
        let macro_row = ("macro".to_owned(), self.macro_mean());
        for (name, values) in self.rows.iter().chain(std::iter::once(&macro_row)) {
            let _ = write!(out, "{name:<width$}");
            for (c, w) in cols.iter().enumerate() {
                let _ = write!(out, "  {:>w$}", cell(values, c));
            }
            out.push('\n');
        }
        out
    }
}

/// Every measure of each run, as macro means over the corpora: one row per run (a heuristic).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsTable {
    /// The rows: a run's label and its macro means, in [`MetricsTable::HEADINGS`] order.
    pub rows: Vec<(String, [f64; 8])>,
}

impl MetricsTable {
    /// The measures, in the order of a row's values.
    pub const HEADINGS: [&'static str; 8] = [
        "F1 LCS", "P", "R", "BOW F1", "char F1", "set F1", "σ F1", "ms/kB",
    ];

    /// The table of `corpora`, each the runs of one corpus in the same order of heuristics;
    /// a run's label is the first corpus's. A run without a time counts 0 in ms/kB.
    pub fn of(corpora: &[&[RunReport]]) -> MetricsTable {
        let runs = corpora.iter().map(|c| c.len()).min().unwrap_or(0);
        let n = corpora.len().max(1) as f64;
        let rows = (0..runs)
            .map(|i| {
                let mut sums = [0.0; 8];
                for corpus in corpora {
                    let run = &corpus[i];
                    let s = &run.overall;
                    let values = [
                        s.f1_lcs,
                        s.precision,
                        s.recall,
                        s.f1_bow,
                        s.f1_chars,
                        s.f1_set,
                        s.f1_stddev,
                        run.cpu_ms_per_kb.unwrap_or(0.0),
                    ];
                    for (sum, v) in sums.iter_mut().zip(values) {
                        *sum += v;
                    }
                }
                (corpora[0][i].heuristic.clone(), sums.map(|v| v / n))
            })
            .collect();
        MetricsTable { rows }
    }

    /// The table as text, one line per run.
    pub fn render(&self) -> String {
        let width = self
            .rows
            .iter()
            .map(|(name, _)| name.chars().count())
            .chain(["heuristic".len()])
            .max()
            .unwrap_or(9);
        let mut out = String::new();
        let _ = write!(out, "{:<width$}", "heuristic");
        for h in Self::HEADINGS {
            let _ = write!(out, "  {h:>7}");
        }
        out.push('\n');
        for (name, values) in &self.rows {
            let pad = width.saturating_sub(name.chars().count());
            let _ = write!(out, "{name}{}", " ".repeat(pad));
            for (k, v) in values.iter().enumerate() {
                if k == 7 {
                    let _ = write!(out, "  {v:>7.4}");
                } else {
                    let _ = write!(out, "  {v:>7.3}");
                }
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> SummaryTable {
        SummaryTable {
            columns: vec!["hybrid".into(), "hybrid -links".into()],
            rows: vec![
                ("news".into(), vec![0.9, 0.85]),
                ("docs".into(), vec![0.8, 0.86]),
            ],
        }
    }

    #[test]
    fn the_macro_row_is_the_mean_of_each_column() {
        let m = table().macro_mean();
        assert!((m[0] - 0.85).abs() < 1e-12 && (m[1] - 0.855).abs() < 1e-12);
        assert_eq!(SummaryTable::default().macro_mean(), Vec::<f64>::new());
    }

    #[test]
    fn rendering_gives_values_or_differences_from_the_first_column() {
        let text = table().render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].contains("hybrid -links"));
        assert!(lines[1].starts_with("news") && lines[1].ends_with("0.900          0.850"));
        assert!(lines[3].starts_with("macro") && lines[3].contains("0.850"));
        let deltas = table().render_deltas();
        assert!(deltas.contains("-0.050"), "{deltas}");
        assert!(deltas.contains("+0.060"), "{deltas}");
        assert!(deltas.lines().nth(1).unwrap_or("").contains("0.900"));
    }

    #[test]
    fn the_metrics_table_averages_each_measure_over_the_corpora() {
        use crate::eval::{EvalAccumulator, PageScore};
        let run = |label: &str, f1s: &[f64], ms: f64| {
            let mut acc = EvalAccumulator::new();
            for &f1 in f1s {
                let page = PageScore {
                    precision: f1,
                    recall: f1,
                    f1,
                    f1_bow: f1,
                    f1_chars: f1,
                    f1_set: 1.0,
                    extracted_tokens: 1,
                    gold_tokens: 1,
                };
                acc.push("d.com", &page);
            }
            let mut report = acc.finish(label);
            report.cpu_ms_per_kb = Some(ms);
            report
        };
        let news = [run("ccb", &[1.0, 0.0], 0.02), run("bte", &[0.5], 0.04)];
        let docs = [run("ccb", &[1.0], 0.04), run("bte", &[0.5, 0.5], 0.02)];
        let table = MetricsTable::of(&[&news, &docs]);
        assert_eq!(table.rows.len(), 2);
        let (name, ccb) = &table.rows[0];
        assert_eq!(name, "ccb");
        // F1: (0.5 + 1.0) / 2; σ: (0.5 + 0) / 2; ms/kB: (0.02 + 0.04) / 2.
        assert!((ccb[0] - 0.75).abs() < 1e-12 && (ccb[6] - 0.25).abs() < 1e-12);
        assert!((ccb[5] - 1.0).abs() < 1e-12 && (ccb[7] - 0.03).abs() < 1e-12);
        let text = table.render();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(
            text.lines().nth(1).unwrap_or("").starts_with("ccb "),
            "{text}"
        );
    }
}
