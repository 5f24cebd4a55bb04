//! A directory of `.html` files as an input: each file becomes one raw-html record.

use std::io;
use std::path::{Path, PathBuf};

/// The `.html`/`.htm` files under a directory, in path order, turned into raw-html records.
///
/// A file's URL is `base_url` joined with its path relative to the directory; with no base URL the
/// relative path's first component is taken as the host (the layout `wget --mirror` writes).
pub struct HtmlDir {
    root: PathBuf,
    files: Vec<PathBuf>,
    base_url: Option<String>,
    next: usize,
}

impl HtmlDir {
    /// Lists the files (recursively, sorted) under `root`.
    pub fn open(root: &Path, base_url: Option<String>) -> io::Result<HtmlDir> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).map_err(|e| super::with_path(e, &dir))? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm")
                }) {
                    files.push(path);
                }
            }
        }
        files.sort();
        Ok(HtmlDir {
            root: root.to_owned(),
            files,
            base_url,
            next: 0,
        })
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the directory holds no HTML file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The next file as (1-based index, path, raw-html JSON record).
    pub fn next_record(&mut self) -> Option<io::Result<(u64, PathBuf, Vec<u8>)>> {
        let path = self.files.get(self.next)?.clone();
        self.next += 1;
        let index = self.next as u64;
        Some(self.record(&path).map(|bytes| (index, path, bytes)))
    }

    fn record(&self, path: &Path) -> io::Result<Vec<u8>> {
        let bytes = std::fs::read(path).map_err(|e| super::with_path(e, path))?;
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let url = match &self.base_url {
            Some(base) => format!("{}/{}", base.trim_end_matches('/'), relative),
            None => format!("http://{relative}"),
        };
        let record = match String::from_utf8(bytes) {
            Ok(html) => serde_json::json!({ "url": url, "html": html }),
            Err(e) => {
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(e.as_bytes());
                serde_json::json!({ "url": url, "html_base64": encoded, "charset": "windows-1252" })
            }
        };
        serde_json::to_vec(&record).map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_become_records_with_urls() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("www.example.com/news");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join("a.html"), "<p>caf\u{e9}</p>").unwrap();
        std::fs::write(site.join("b.htm"), b"<p>caf\xe9</p>").unwrap();
        std::fs::write(site.join("notes.txt"), "skip me").unwrap();
        let mut d = HtmlDir::open(dir.path(), None).unwrap();
        assert_eq!(d.len(), 2);
        let (i, _, rec) = d.next_record().unwrap().unwrap();
        let rec: serde_json::Value = serde_json::from_slice(&rec).unwrap();
        assert_eq!(i, 1);
        assert_eq!(rec["url"], "http://www.example.com/news/a.html");
        assert_eq!(rec["html"], "<p>caf\u{e9}</p>");
        let (_, _, rec) = d.next_record().unwrap().unwrap();
        let rec: serde_json::Value = serde_json::from_slice(&rec).unwrap();
        assert_eq!(rec["charset"], "windows-1252");
        assert!(d.next_record().is_none());

        let mut based = HtmlDir::open(&site, Some("https://ex.org/base/".into())).unwrap();
        let (_, _, rec) = based.next_record().unwrap().unwrap();
        let rec: serde_json::Value = serde_json::from_slice(&rec).unwrap();
        assert_eq!(rec["url"], "https://ex.org/base/a.html");
    }
}
