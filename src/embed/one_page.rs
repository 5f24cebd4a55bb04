//! One page at a time without a state: the cold-start path (DESIGN §6). Nothing is learned, read
//! or written; the same page always gives the same record.

use std::cell::RefCell;

use super::{Error, Extracted, Html, Page, Rejected};
use crate::config::Config;
use crate::engine::{Input, Outcome, Stateless};
use crate::record::Source;

/// The main text of one page, with its title, metadata and language, without a state: the page
/// is classified as its site's first page (the classifier's cold-start path, which reads the
/// page's own structure) and nothing is written anywhere.
///
/// `url` is the page's URL (after redirects): its registrable domain and URL key are reported,
/// and relative links resolve against it. `html` is text (`&str`, `&String`) or the bytes as
/// fetched (`&[u8]`, `&Vec<u8>`), whose encoding is taken from the page's `<meta>` or detected.
///
/// Fails with the dead-letter kind the record would get from `urltree extract`: `bad-url` for a
/// URL without a registrable domain, `too-large` for a page over the parser's limit, ...
///
/// ```
/// let html = "<html><head><title>Crane</title></head><body>
///   <nav><a href='/'>Home</a> <a href='/about'>About</a></nav>
///   <article><h1>Folding a paper crane</h1>
///   <p>Start from a square sheet of paper, coloured side down, and fold it in half along both
///   diagonals, then along both middle lines, so that the creases meet in the centre.</p>
///   <p>Collapse the sheet into a small square base, fold the flaps to the middle line and
///   open them again, and lift the bottom corner along the creases into a long diamond.</p>
///   </article></body></html>";
/// let page = urltree::extract(html, "https://crafts.example.org/crane").unwrap();
/// assert!(page.text.contains("square sheet of paper"));
/// assert!(!page.text.contains("About"));
/// assert_eq!(page.domain, "example.org");
/// assert_eq!(page.title.as_deref(), Some("Crane"));
/// ```
pub fn extract<'h>(html: impl Into<Html<'h>>, url: &'h str) -> Result<Extracted, Rejected> {
    thread_local! {
        static DEFAULT: RefCell<Option<PageExtractor>> = const { RefCell::new(None) };
    }
    let page = Page::new(url, html);
    DEFAULT.with(|cell| {
        let mut extractor = match cell.take() {
            Some(extractor) => extractor,
            // The default configuration has no rules file to load and always validates.
            None => PageExtractor::new(&Config::default()).map_err(config_rejected)?,
        };
        let result = extractor.extract(&page);
        cell.replace(Some(extractor));
        result
    })
}

/// [`extract`] of a [`Page`] with `config`: its `[tree]`, `[url]`, `[rules]`, `[parse]`,
/// `[input]` and `[output]` sections apply (`[state]` and `[retention]` have nothing to do
/// without a state). The pipeline built for a configuration is kept for the next call on the
/// same thread with an equal one.
pub fn extract_with(page: &Page<'_>, config: &Config) -> Result<Extracted, Error> {
    thread_local! {
        static LAST: RefCell<Option<(Config, PageExtractor)>> = const { RefCell::new(None) };
    }
    LAST.with(|cell| {
        let (kept, mut extractor) = match cell.take() {
            Some((kept, extractor)) if &kept == config => (kept, extractor),
            _ => (config.clone(), PageExtractor::new(config)?),
        };
        let result = extractor.extract(page);
        cell.replace(Some((kept, extractor)));
        Ok(result?)
    })
}

/// A configuration error where only a rejection can be reported (never with the default one).
fn config_rejected(e: Error) -> Rejected {
    Rejected {
        kind: crate::record::ErrorKind::InvalidField,
        message: e.to_string(),
    }
}

/// One page at a time without a state, with a configuration of one's own: [`extract`] for many
/// pages, the pipeline built once.
pub struct PageExtractor {
    pipeline: Stateless,
}

impl PageExtractor {
    /// Validates `config` and builds the pipeline it describes.
    pub fn new(config: &Config) -> Result<PageExtractor, Error> {
        config.validate()?;
        Ok(PageExtractor {
            pipeline: Stateless::new(config)?,
        })
    }

    /// The record of one page (its `source` is line 1 of `-`, as for one page on stdin), or why
    /// it was rejected.
    pub fn extract(&mut self, page: &Page<'_>) -> Result<Extracted, Rejected> {
        self.extract_record(&page.to_record())
    }

    /// The record of one raw-html JSON record (DESIGN §5), or why it was rejected.
    pub fn extract_record(&mut self, record: &[u8]) -> Result<Extracted, Rejected> {
        match self
            .pipeline
            .process(&Input::new(record, Source::line("-", 1)))
        {
            Outcome::Clean(record) => Ok(*record),
            Outcome::Rejected(dead) => Err((*dead).into()),
            // A pipeline without a state has nothing to be a duplicate of.
            Outcome::Duplicate { url_key, .. } => Err(Rejected {
                kind: crate::record::ErrorKind::InvalidField,
                message: format!("{url_key} reported as a duplicate without a state"),
            }),
        }
    }
}
