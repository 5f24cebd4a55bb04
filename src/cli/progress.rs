//! The progress bar of the commands that read local inputs: on a terminal only.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` units with the time left (a spinner with the time taken when the total is
/// unknown, as on stdin), or a hidden one when `show` is false.
pub fn bar(show: bool, total: Option<u64>) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let (bar, template) = match total {
        Some(total) => (
            ProgressBar::new(total),
            "{bar:30} {percent:>3}% {elapsed_precise} ETA {eta:<4} {msg}",
        ),
        None => (
            ProgressBar::new_spinner(),
            "{spinner} {elapsed_precise} {msg}",
        ),
    };
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
