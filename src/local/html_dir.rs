//! A directory of `.html` files as an input: each file becomes one raw-html record.

use std::io;
use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::urlkey::{push_escaped, Component};

/// The HTML files under a directory, in path order, turned into raw-html records; WARC files
/// among them are handed out by path, for [`super::warc::WarcReader`].
///
/// A file is HTML when its name ends in `.html` or `.htm`, or when the part before a `?` does
/// (`wget --mirror` saves `page.html?id=3` under that name). A file's URL is `base_url` joined
/// with its path relative to the directory; with no base URL the relative path's first component
/// is taken as the host (the layout `wget --mirror` writes). Every path component is
/// percent-encoded (a `#`, a space, a `%` in a file name stay part of the path); the part of a
/// file name after its first `?` is the URL's query, less the `.html` that `wget
/// --adjust-extension` appends to the names of pages whose URL does not end in it.
///
/// The bytes go into the record as `html_base64`, so the engine decodes them as it decodes any
/// page: byte-order mark, `<meta>` declaration, else detection.
pub struct HtmlDir {
    root: PathBuf,
    files: Vec<PathBuf>,
    unreadable: Vec<(PathBuf, io::Error)>,
    skipped: usize,
    base_url: Option<String>,
    next_file: usize,
    taken: u64,
}

/// One entry of the directory: a record, or a file or directory that could not be read.
#[derive(Debug)]
pub enum DirEntry {
    /// An HTML file as a raw-html JSON record.
    Record {
        /// 1-based index of the file.
        index: u64,
        /// The file.
        path: PathBuf,
        /// The raw-html record.
        bytes: Vec<u8>,
    },
    /// A WARC file (named `.warc`, `.warc.gz` or `.warc.zst`), to be read record by record.
    Warc {
        /// 1-based index of the file.
        index: u64,
        /// The file.
        path: PathBuf,
    },
    /// A file or directory that could not be read (a dangling link, no permission).
    Unreadable {
        /// 1-based index among the entries.
        index: u64,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl HtmlDir {
    /// Lists the files (recursively, sorted) under `root`. Only `root` itself must be readable: a
    /// subdirectory that cannot be listed is reported by [`HtmlDir::next_entry`] like an
    /// unreadable file.
    pub fn open(root: &Path, base_url: Option<String>) -> io::Result<HtmlDir> {
        let mut files = Vec::new();
        let mut unreadable = Vec::new();
        let mut skipped = 0;
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if dir == root => return Err(super::with_path(e, &dir)),
                Err(e) => {
                    unreadable.push((dir, e));
                    continue;
                }
            };
            for entry in entries {
                let path = match entry {
                    Ok(entry) => entry.path(),
                    Err(e) => {
                        unreadable.push((dir.clone(), e));
                        continue;
                    }
                };
                if path.is_dir() {
                    stack.push(path);
                } else if is_html_name(&path) || is_warc_name(&path) {
                    files.push(path);
                } else {
                    skipped += 1;
                }
            }
        }
        files.sort();
        // Taken from the end: in path order.
        unreadable.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(HtmlDir {
            root: root.to_owned(),
            files,
            unreadable,
            skipped,
            base_url,
            next_file: 0,
            taken: 0,
        })
    }

    /// Number of entries: HTML and WARC files and unreadable directories.
    pub fn len(&self) -> usize {
        self.files.len() + self.unreadable.len()
    }

    /// True when the directory holds no HTML file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Files that are neither HTML nor WARC by their name, left out.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The next entry: the unreadable directories first, then the files in path order.
    pub fn next_entry(&mut self) -> Option<DirEntry> {
        let index = self.taken + 1;
        let entry = match self.unreadable.pop() {
            Some((path, error)) => DirEntry::Unreadable { index, path, error },
            None => {
                let path = self.files.get(self.next_file)?.clone();
                self.next_file += 1;
                if is_warc_name(&path) {
                    self.taken = index;
                    return Some(DirEntry::Warc { index, path });
                }
                match self.record(&path) {
                    Ok(bytes) => DirEntry::Record { index, path, bytes },
                    Err(error) => DirEntry::Unreadable { index, path, error },
                }
            }
        };
        self.taken = index;
        Some(entry)
    }

    fn record(&self, path: &Path) -> io::Result<Vec<u8>> {
        let bytes = std::fs::read(path)?;
        Ok(html_record(&self.url_of(path), &bytes))
    }

    /// The URL of a file under the root (see the type's documentation).
    fn url_of(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let mut components: Vec<&[u8]> = relative
            .components()
            .map(|c| c.as_os_str().as_encoded_bytes())
            .collect();
        let (name, query) = match components.pop() {
            Some(name) => split_query(name),
            None => (&b""[..], None),
        };
        let mut url = match &self.base_url {
            Some(base) => base.trim_end_matches('/').to_owned(),
            None => {
                let host = if components.is_empty() {
                    &b""[..]
                } else {
                    components.remove(0)
                };
                format!("http://{}", String::from_utf8_lossy(host))
            }
        };
        for component in components.iter().chain(std::iter::once(&name)) {
            url.push('/');
            push_escaped(component, Component::Path, &mut url);
        }
        if let Some(query) = query {
            url.push('?');
            push_escaped(query, Component::Query, &mut url);
        }
        url
    }
}

/// The raw-html record of one page's bytes: `url` and `html_base64`, no charset, so the engine
/// decodes the bytes as it decodes any page.
pub fn html_record(url: &str, bytes: &[u8]) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let record = serde_json::json!({ "url": url, "html_base64": encoded });
    // A JSON object of two strings always serializes.
    serde_json::to_vec(&record).unwrap_or_default()
}

/// Whether a file name is a WARC file's: `.warc`, `.warc.gz` or `.warc.zst` at its end.
pub fn is_warc_name(path: &Path) -> bool {
    path.file_name().is_some_and(|name| {
        let lower = name.as_encoded_bytes().to_ascii_lowercase();
        [&b".warc"[..], b".warc.gz", b".warc.zst"]
            .iter()
            .any(|ext| lower.ends_with(ext))
    })
}

/// Whether a file name is an HTML page's: `.html`/`.htm` at its end or before its first `?`.
pub fn is_html_name(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.as_encoded_bytes();
    let has_extension = |s: &[u8]| {
        let lower = s.to_ascii_lowercase();
        lower.ends_with(b".html") || lower.ends_with(b".htm")
    };
    has_extension(name) || has_extension(split_query(name).0)
}

/// A file name split at its first `?` into the path's last segment and the query, without the
/// `.html` that `wget --adjust-extension` appended when the segment itself has no such ending.
fn split_query(name: &[u8]) -> (&[u8], Option<&[u8]>) {
    let Some(at) = name.iter().position(|&b| b == b'?') else {
        return (name, None);
    };
    let (segment, query) = (&name[..at], &name[at + 1..]);
    let lower = segment.to_ascii_lowercase();
    let query = if lower.ends_with(b".html") || lower.ends_with(b".htm") {
        query
    } else {
        query.strip_suffix(b".html").unwrap_or(query)
    };
    (segment, Some(query))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entry: DirEntry) -> serde_json::Value {
        match entry {
            DirEntry::Record { bytes, .. } => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn files_become_records_with_urls() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("www.example.com/news");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join("a.html"), "<p>caf\u{e9}</p>").unwrap();
        std::fs::write(site.join("b.htm"), b"<p>caf\xe9</p>").unwrap();
        std::fs::write(site.join("notes.txt"), "skip me").unwrap();
        let mut d = HtmlDir::open(dir.path(), None).unwrap();
        assert_eq!((d.len(), d.skipped()), (2, 1));
        let rec = record(d.next_entry().unwrap());
        assert_eq!(rec["url"], "http://www.example.com/news/a.html");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rec["html_base64"].as_str().unwrap())
            .unwrap();
        assert_eq!(decoded, "<p>caf\u{e9}</p>".as_bytes());
        assert!(rec.get("charset").is_none(), "the engine sniffs: {rec}");
        let rec = record(d.next_entry().unwrap());
        assert_eq!(rec["url"], "http://www.example.com/news/b.htm");
        assert!(d.next_entry().is_none());

        let mut based = HtmlDir::open(&site, Some("https://ex.org/base/".into())).unwrap();
        let rec = record(based.next_entry().unwrap());
        assert_eq!(rec["url"], "https://ex.org/base/a.html");
    }

    #[test]
    fn names_are_percent_encoded_and_wget_query_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("forum.example.org");
        std::fs::create_dir_all(site.join("a b")).unwrap();
        for name in [
            "a b/c#1 100%.html",
            "page.html?id=3",
            "viewtopic.php?t=7&f=2.html",
            "s\u{fc}\u{df}.html",
        ] {
            std::fs::write(site.join(name), "<p>x</p>").unwrap();
        }
        let mut d = HtmlDir::open(dir.path(), None).unwrap();
        let mut urls = Vec::new();
        while let Some(entry) = d.next_entry() {
            urls.push(record(entry)["url"].as_str().unwrap().to_owned());
        }
        assert_eq!(
            urls,
            [
                "http://forum.example.org/a%20b/c%231%20100%25.html",
                "http://forum.example.org/page.html?id=3",
                "http://forum.example.org/s%C3%BC%C3%9F.html",
                "http://forum.example.org/viewtopic.php?t=7&f=2",
            ]
        );
        for url in &urls {
            let parsed = url::Url::parse(url).unwrap();
            assert_eq!(parsed.fragment(), None, "{url}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_is_an_entry_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("example.net");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join("a.html"), "<p>a</p>").unwrap();
        std::os::unix::fs::symlink(site.join("gone.html"), site.join("b.html")).unwrap();
        std::fs::write(site.join("c.html"), "<p>c</p>").unwrap();
        let mut d = HtmlDir::open(dir.path(), None).unwrap();
        assert!(matches!(
            d.next_entry(),
            Some(DirEntry::Record { index: 1, .. })
        ));
        match d.next_entry() {
            Some(DirEntry::Unreadable { index, path, error }) => {
                assert_eq!(index, 2);
                assert!(path.ends_with("b.html"));
                assert_eq!(error.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            d.next_entry(),
            Some(DirEntry::Record { index: 3, .. })
        ));
        assert!(d.next_entry().is_none());
    }
}
