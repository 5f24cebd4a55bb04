//! The input arguments `extract` and `produce` share: one description of what they read, one
//! reader ([`RecordSource`]).

use std::path::PathBuf;

use urltree::config::{Config, DomainCheck};
use urltree::local::{InputSpec, OpenError, RecordSource};

/// What `extract` and `produce` read, and how a record's own domain is judged.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Input: a raw-html JSONL file (plain or gzip), a WARC file (plain or gzip), a directory of
    /// .html and .warc/.warc.gz files, one .html file (with --url), or `-` for stdin (JSONL or
    /// WARC, told by content, or one HTML page with --url).
    pub input: PathBuf,
    /// Base URL for a directory input (default: the first path component is the host).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The page's URL when the input is one HTML page (a .html file, or `-` for HTML on stdin).
    #[arg(long)]
    pub url: Option<String>,
    /// Trust each record's `domain` field when it disagrees with its URL (default: reject).
    #[arg(long)]
    pub trust_record_domain: bool,
}

impl InputArgs {
    /// Applies `--trust-record-domain` to the configuration.
    pub fn configure(&self, config: &mut Config) {
        if self.trust_record_domain {
            config.input.domain_check = DomainCheck::TrustRecord;
        }
    }

    /// Opens the input with the configuration's limits.
    pub fn open(&self, config: &Config) -> Result<RecordSource, OpenError> {
        RecordSource::open(&InputSpec {
            path: self.input.clone(),
            url: self.url.clone(),
            base_url: self.base_url.clone(),
            max_record_bytes: config.input.max_record_bytes,
            dead_letter_payload_bytes: config.output.dead_letter_payload_bytes,
        })
    }
}
