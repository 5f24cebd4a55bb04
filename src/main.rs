//! The `urltree` binary: see `urltree --help`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::main() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("urltree: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
