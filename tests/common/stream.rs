//! A shared corpus set streamed through a fresh engine, page by page.

use urltree::config::{Config, DomainCheck};
use urltree::corpus::{load, require_shared_dir, CorpusPage};
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::Source;

/// Streams the corpus set `set` in file order through a fresh engine (temporary state, the
/// corpus's domains trusted) whose default configuration `configure` may change, and calls
/// `each` with every page and what became of it.
pub fn stream_set(
    set: &str,
    configure: impl FnOnce(&mut Config),
    mut each: impl FnMut(&CorpusPage, Outcome),
) {
    let pages = load(&require_shared_dir().join(set)).expect("corpus");
    let state = tempfile::tempdir().expect("tempdir");
    let mut config = Config::default();
    config.state.path = state.path().to_owned();
    config.input.domain_check = DomainCheck::TrustRecord;
    configure(&mut config);
    let mut engine = Engine::open(&config).expect("engine");
    for chunk in pages.chunks(config.input.batch_size) {
        let inputs: Vec<Input<'_>> = chunk
            .iter()
            .map(|p| Input::new(&p.record, Source::line(set, p.line)))
            .collect();
        let outcomes = engine.process_batch(&inputs, None).expect("batch");
        for (page, outcome) in chunk.iter().zip(outcomes) {
            each(page, outcome);
        }
    }
}
