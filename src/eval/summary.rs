//! The summary of an evaluation over several corpora: one row per corpus, one column per run
//! (a heuristic, or `hybrid` with one rule switched off), and the macro mean over the corpora, so
//! a change is judged on every set at once.

use std::fmt::Write;

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
}
