//! Error analysis: streams one corpus set through fresh state, as `urltree eval` does, and prints
//! one JSON line per emitted page with its scores, its gold text and every block with its label,
//! reason, count and element path, so the pages a classifier gets wrong can be read block by block.
//!
//! `cargo run --release --example pagedump -- SET [HEURISTIC] [LINE]` (heuristic default
//! `hybrid`; `URLTREE_*` variables override the default config as they do for `urltree eval`;
//! with LINE only that line of the set's file is printed, though the whole stream up to
//! it is processed so the tree holds what it would). The corpus folder is `URLTREE_CORPUS_DIR`,
//! else `shared/corpus` beside the checkout. Each line:
//! `{"line", "domain", "url", "p", "r", "f1", "support", "gold", "blocks": [{"text", "label",
//! "count", "reason", "path"}]}`, with `p`, `r`, `f1` the page's word-LCS scores.

use anyhow::{bail, Context, Result};
use urltree::config::{Config, DomainCheck};
use urltree::corpus::{load, shared_dir};
use urltree::engine::{Engine, Input, Outcome};
use urltree::eval::score_page;
use urltree::record::Source;
use urltree::tree::Heuristic;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(set) = args.next() else {
        bail!("usage: pagedump SET [HEURISTIC] [LINE]");
    };
    let heuristic: Heuristic = match args.next() {
        Some(h) => h.parse().with_context(|| format!("heuristic {h:?}"))?,
        None => Heuristic::Hybrid,
    };
    let only_line: Option<u64> = match args.next() {
        Some(l) => Some(l.parse().with_context(|| format!("line {l:?}"))?),
        None => None,
    };
    let dir = shared_dir().context("corpus not found: set URLTREE_CORPUS_DIR")?;
    let pages = load(&dir.join(&set)).with_context(|| format!("loading {set}"))?;
    let state = tempfile::tempdir()?;
    // `URLTREE_*` variables apply as for `urltree eval` (a rule switched off, say).
    let mut config = Config::load(None)?;
    config.state.path = state.path().to_owned();
    config.input.domain_check = DomainCheck::TrustRecord;
    config.output.blocks = true;
    config.tree.heuristic = heuristic;
    let mut engine = Engine::open(&config)?;
    for chunk in pages.chunks(64) {
        let inputs: Vec<Input<'_>> = chunk
            .iter()
            .map(|p| Input::new(&p.record, Source::line(&set, p.line)))
            .collect();
        let outcomes = engine.process_batch(&inputs, None)?;
        for (page, outcome) in chunk.iter().zip(outcomes) {
            let Outcome::Clean(record) = outcome else {
                continue;
            };
            if only_line.is_some_and(|l| l != page.line) {
                continue;
            }
            let score = score_page(&record.text, &page.gold);
            let line = serde_json::json!({
                "line": page.line,
                "domain": page.domain,
                "url": record.url,
                "p": score.precision,
                "r": score.recall,
                "f1": score.f1,
                "support": record.model.support,
                "gold": page.gold,
                "blocks": record.blocks,
            });
            println!("{line}");
        }
        if only_line.is_some_and(|l| chunk.last().is_some_and(|p| p.line >= l)) {
            break;
        }
    }
    Ok(())
}
