//! The `urltree` binary: see `urltree --help`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::main() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("urltree: error: {}", message(&err));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes, joined by `: `, each cause left out when the text before it already
/// says it (many errors name their source in their own message).
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let cause = cause.to_string();
        if text.is_empty() {
            text = cause;
        } else if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
