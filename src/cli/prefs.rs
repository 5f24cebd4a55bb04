//! The classifier's preferences that `extract` and `eval` take as flags: one description of
//! them, laid over the configuration's `[tree]`.

use urltree::config::Config;
use urltree::tree::{Comments, Focus};

/// `--comments` and `--focus`.
#[derive(clap::Args, Debug)]
pub struct PrefsArgs {
    /// `keep` or `drop` the comments a page's markup marks (overrides `[tree] comments`, default
    /// drop; `hybrid` only).
    #[arg(long, value_name = "drop|keep")]
    pub comments: Option<Comments>,
    /// Lean to `precision` (less text, more of it the main text) or `recall` (fewer of its
    /// blocks lost), or `balanced` (overrides `[tree] focus`, default balanced; `hybrid` only).
    #[arg(long, value_name = "precision|balanced|recall")]
    pub focus: Option<Focus>,
}

impl PrefsArgs {
    /// Applies the flags given to the configuration.
    pub fn configure(&self, config: &mut Config) {
        if let Some(comments) = self.comments {
            config.tree.comments = comments;
        }
        if let Some(focus) = self.focus {
            config.tree.focus = focus;
        }
    }
}
