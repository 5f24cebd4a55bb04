//! New pages from a corpus, for the steady-state benchmark: copy `k` of a page is the page as a
//! crawler would fetch it again later — a new URL, a later event time, new article text — while the
//! site's template stays as it was, so the tree keeps learning and retention keeps forgetting.
//!
//! - **URL**: the last path segment gains `-copy<k>` (`/a/` becomes `/a/copy<k>`), so the page
//!   gets a new leaf under the same interior nodes.
//! - **Time**: page `i` (0-based, in file order) of copy `k` gets `fetched_at` = 2000-01-01 plus
//!   `i` minutes plus `k` times (a minute per page of the corpus, plus the retention age, plus a
//!   day), so pages keep their order and each copy is newer than everything retention may keep of
//!   the copies before it. The corpus's own times are not used: spread over years, a few copies
//!   would reach past the present, where the pipeline clamps event times.
//! - **Text**: every word (a run of ASCII letters in text, outside tags and entities) that is rare
//!   in its domain — on at most a tenth of the domain's pages, and at most two pages — keeps its
//!   case but has its letters rotated by `k` places. Words common in the domain (its template) stay,
//!   so template blocks keep their identity and article blocks get new ones. The rotation keeps
//!   every byte count, so each copy has exactly the original's HTML bytes. It repeats after 26
//!   copies.
//!
//! Copy 0 is the corpus with only its times replaced.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::corpus::CorpusPage;

/// Milliseconds in a day.
const DAY_MS: i64 = 24 * 3600 * 1000;
/// Time of the first page of the first copy: 2000-01-01T00:00:00Z.
const BASE_MS: i64 = 946_684_800_000;
/// Time between two pages of a copy.
const PAGE_MS: i64 = 60_000;

/// Makes copy `k` of the pages of one corpus.
pub struct Copier {
    /// Per domain, the words (lower-cased) on more pages than the rarity limit.
    common: HashMap<String, HashSet<Vec<u8>>>,
    /// Pages in one copy.
    pages: usize,
    /// HTML bytes of every copy (the rotation keeps each page's length).
    html_bytes: u64,
    /// Time added per copy, in ms.
    shift_ms: i64,
}

impl Copier {
    /// Prepares the copies of the pages `each_page` hands over (one pass over the corpus, in
    /// order) for a retention of `max_age_secs`.
    pub fn new<E>(
        each_page: impl FnOnce(&mut dyn FnMut(CorpusPage) -> Result<(), E>) -> Result<(), E>,
        max_age_secs: u64,
    ) -> Result<Copier, E> {
        let mut df: HashMap<String, (usize, HashMap<Vec<u8>, usize>)> = HashMap::new();
        let mut pages = 0;
        let mut html_bytes = 0;
        each_page(&mut |page| {
            let record: Option<Map<String, Value>> = serde_json::from_slice(&page.record).ok();
            pages += 1;
            let entry = df.entry(page.domain).or_default();
            entry.0 += 1;
            let Some(html) = record
                .as_ref()
                .and_then(|r| r.get("html"))
                .and_then(Value::as_str)
            else {
                return Ok(());
            };
            html_bytes += html.len() as u64;
            let mut words = HashSet::new();
            for_each_word(html.as_bytes(), |word| {
                words.insert(word.to_ascii_lowercase());
            });
            for word in words {
                *entry.1.entry(word).or_insert(0) += 1;
            }
            Ok(())
        })?;
        let common = df
            .into_iter()
            .map(|(domain, (pages, words))| {
                let limit = (pages / 10).max(2);
                let common = words
                    .into_iter()
                    .filter(|(_, n)| *n > limit)
                    .map(|(w, _)| w)
                    .collect();
                (domain, common)
            })
            .collect();
        let span = (pages as i64).saturating_mul(PAGE_MS);
        let age_ms = i64::try_from(max_age_secs.saturating_mul(1000)).unwrap_or(i64::MAX / 4);
        Ok(Copier {
            common,
            pages,
            html_bytes,
            shift_ms: span.saturating_add(age_ms).saturating_add(DAY_MS),
        })
    }

    /// Pages in one copy.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// HTML bytes of one copy of the corpus.
    pub fn html_bytes(&self) -> u64 {
        self.html_bytes
    }

    /// The raw-html record of copy `k` of `page`, the `index`-th page handed to [`Copier::new`];
    /// `None` when the record is not a JSON object.
    pub fn record(&self, page: &CorpusPage, index: usize, k: u32) -> Option<Vec<u8>> {
        let mut record: Map<String, Value> = serde_json::from_slice(&page.record).ok()?;
        let time = BASE_MS
            .saturating_add(PAGE_MS.saturating_mul(index as i64))
            .saturating_add(self.shift_ms.saturating_mul(k as i64));
        let fetched_at = OffsetDateTime::from_unix_timestamp_nanos(time as i128 * 1_000_000)
            .ok()
            .and_then(|t| t.format(&Rfc3339).ok());
        if let Some(fetched_at) = fetched_at {
            record.insert("fetched_at".into(), Value::String(fetched_at));
        }
        if k > 0 {
            for field in ["url", "response_url"] {
                if let Some(Value::String(url)) = record.get_mut(field) {
                    *url = new_url(url, k);
                }
            }
            let empty = HashSet::new();
            let common = self.common.get(&page.domain).unwrap_or(&empty);
            if let Some(Value::String(html)) = record.get_mut("html") {
                *html = rotate_rare_words(html, common, k);
            }
        }
        serde_json::to_vec(&record).ok()
    }
}

/// `url` with its last path segment marked as copy `k` (unchanged when it does not parse).
fn new_url(url: &str, k: u32) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    let path = parsed.path();
    let path = if path.ends_with('/') {
        format!("{path}copy{k}")
    } else {
        format!("{path}-copy{k}")
    };
    parsed.set_path(&path);
    parsed.into()
}

/// `html` with every word not in `common` rotated by `k` letters.
fn rotate_rare_words(html: &str, common: &HashSet<Vec<u8>>, k: u32) -> String {
    let mut bytes = html.as_bytes().to_vec();
    let mut rare = Vec::new();
    for_each_word(html.as_bytes(), |word| {
        if !common.contains(&word.to_ascii_lowercase()) {
            // The word's position in `html`: it is a subslice of it.
            let start = word.as_ptr() as usize - html.as_ptr() as usize;
            rare.push(start..start + word.len());
        }
    });
    let k = (k % 26) as u8;
    for range in rare {
        for b in &mut bytes[range] {
            let base = if b.is_ascii_lowercase() { b'a' } else { b'A' };
            *b = base + (*b - base + k) % 26;
        }
    }
    // Only ASCII letters were replaced by ASCII letters, so the bytes are still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| html.to_owned())
}

/// Calls `each` with every run of ASCII letters in the text of `html`: outside tags, comments and
/// declarations, and not the name of a character reference (`&amp;`).
fn for_each_word<'h>(html: &'h [u8], mut each: impl FnMut(&'h [u8])) {
    let mut i = 0;
    while i < html.len() {
        let b = html[i];
        if b == b'<'
            && html
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?'))
        {
            i = memchr::memchr(b'>', &html[i..]).map_or(html.len(), |end| i + end + 1);
        } else if b.is_ascii_alphabetic() {
            let start = i;
            while i < html.len() && html[i].is_ascii_alphabetic() {
                i += 1;
            }
            let reference = start > 0 && matches!(html[start - 1], b'&' | b'#');
            if !reference {
                each(&html[start..i]);
            }
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(line: u64, domain: &str, url: &str, html: &str, time: Option<&str>) -> CorpusPage {
        let mut record = serde_json::json!({"url": url, "html": html, "domain": domain});
        if let Some(t) = time {
            record["fetched_at"] = Value::String(t.into());
        }
        CorpusPage {
            record: serde_json::to_vec(&record).unwrap(),
            domain: domain.into(),
            gold: String::new(),
            line,
            page_type: None,
            snippets: Default::default(),
        }
    }

    fn copier_of(pages: &[CorpusPage], max_age_secs: u64) -> Copier {
        Copier::new::<()>(
            |each| pages.iter().try_for_each(|p| each(p.clone())),
            max_age_secs,
        )
        .unwrap()
    }

    fn field(record: &[u8], name: &str) -> String {
        let v: Value = serde_json::from_slice(record).unwrap();
        v[name].as_str().unwrap().to_owned()
    }

    #[test]
    fn words_skip_tags_comments_and_references() {
        let mut words = Vec::new();
        for_each_word(
            b"<p class=x>Hello &amp; w&#x41;rld<!-- note --> a < b</p>",
            |w| words.push(String::from_utf8(w.to_vec()).unwrap()),
        );
        assert_eq!(words, ["Hello", "w", "rld", "a", "b"]);
    }

    #[test]
    fn copies_change_rare_words_urls_and_times_but_not_the_template() {
        let template = "<nav>Home News Sport</nav>";
        let pages: Vec<CorpusPage> = (0..30)
            .map(|i| {
                page(
                    i + 1,
                    "example.com",
                    &format!("http://example.com/news/story{i}.html"),
                    &format!(
                        "{template}<p>Story zebra{} about Quokkas</p>",
                        "x".repeat(i as usize)
                    ),
                    (i == 0).then_some("2001-01-01T00:00:00Z"),
                )
            })
            .collect();
        let copier = copier_of(&pages, 14 * 24 * 3600);
        assert_eq!(copier.pages(), 30);
        let first = copier.record(&pages[0], 0, 0).unwrap();
        let second = copier.record(&pages[0], 0, 1).unwrap();
        assert_eq!(field(&first, "url"), "http://example.com/news/story0.html");
        assert_eq!(
            field(&second, "url"),
            "http://example.com/news/story0.html-copy1"
        );
        let (html0, html1) = (field(&first, "html"), field(&second, "html"));
        assert_eq!(html0, field(&pages[0].record, "html"));
        assert_eq!(html0.len(), html1.len());
        // The template and the words on every page stay; the page's own word is rotated.
        assert!(html1.starts_with(template));
        assert!(html1.contains("Story") && html1.contains("Quokkas"));
        assert!(html1.contains("afcsb") && !html1.contains("zebra"));
        let t0 = OffsetDateTime::parse(&field(&first, "fetched_at"), &Rfc3339).unwrap();
        let t1 = OffsetDateTime::parse(&field(&second, "fetched_at"), &Rfc3339).unwrap();
        assert!(t1 - t0 > time::Duration::days(15));
        // A page without a time gets one; a directory URL gets a new last segment.
        let dir = page(1, "a.org", "http://a.org/docs/", "<p>x</p>", None);
        let pages = [dir];
        let copier = copier_of(&pages, 10);
        let copy = copier.record(&pages[0], 0, 3).unwrap();
        assert_eq!(field(&copy, "url"), "http://a.org/docs/copy3");
        assert_eq!(field(&copy, "fetched_at"), "2000-01-04T00:03:30Z");
    }
}
