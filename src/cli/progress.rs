//! The progress bar of the commands that read local inputs: on a terminal only.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` units (a spinner when the total is unknown), or a hidden one when `show`
/// is false.
pub fn bar(show: bool, total: Option<u64>) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(total) => ProgressBar::new(total),
        None => ProgressBar::new_spinner(),
    };
    let style = ProgressStyle::with_template("{bar:30} {percent:>3}% {elapsed_precise} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
