//! Link targets and image sources as a reader follows them: absolute, against the page's base.

use url::Url;

/// Schemes a rendered link may have; anything else (`javascript:`, `data:`, `file:`) is shown as
/// its text alone.
const SCHEMES: [&str; 5] = ["http", "https", "ftp", "mailto", "tel"];

/// The URL the page's relative links resolve against: its `<base href>` resolved against the
/// page's own URL (the response URL), or the page's URL when it has no usable base. None when the
/// page's URL is not an absolute URL.
pub fn base_url(page_url: &str, base_href: Option<&str>) -> Option<Url> {
    let page = Url::parse(page_url).ok()?;
    let base = base_href
        .and_then(|href| page.join(href).ok())
        .filter(|base| matches!(base.scheme(), "http" | "https"));
    Some(base.unwrap_or(page))
}

/// `href` resolved against `base` (when given), None when it leads nowhere a reader can follow:
/// empty, a bare `#`, a scheme not in [`SCHEMES`], or not a URL. Without a base a relative
/// target is kept as written.
pub(super) fn resolve(href: &str, base: Option<&Url>) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href == "#" {
        return None;
    }
    let url = match base {
        Some(base) => base.join(href).ok()?,
        None => match Url::parse(href) {
            Ok(url) => url,
            Err(url::ParseError::RelativeUrlWithoutBase) => {
                return (!has_scheme(href)).then(|| href.to_owned());
            }
            Err(_) => return None,
        },
    };
    SCHEMES.contains(&url.scheme()).then(|| String::from(url))
}

/// True when `href` starts with a scheme (`javascript:`), which a relative reference never does.
fn has_scheme(href: &str) -> bool {
    let Some(colon) = href.find(':') else {
        return false;
    };
    let scheme = &href[..colon];
    scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Appends `url` as a link destination: as it is when CommonMark reads it back whole, else in
/// angle brackets (white space, unbalanced parentheses), with what those cannot hold encoded.
pub(super) fn destination(out: &mut String, url: &str) {
    let mut depth = 0i32;
    let mut balanced = true;
    for c in url.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                balanced &= depth >= 0;
            }
            _ => {}
        }
    }
    balanced &= depth == 0;
    let plain = balanced
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '\\'));
    if plain {
        out.push_str(url);
        return;
    }
    out.push('<');
    for c in url.chars() {
        match c {
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\\' => out.push_str("%5C"),
            '\n' | '\r' => out.push_str("%0A"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('>');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_against_the_base_and_keeps_followable_schemes() {
        let base = base_url("https://example.org/a/b.html?x=1", None).expect("base");
        let r = |h: &str| resolve(h, Some(&base));
        assert_eq!(r("c.html").as_deref(), Some("https://example.org/a/c.html"));
        assert_eq!(r("/d").as_deref(), Some("https://example.org/d"));
        assert_eq!(
            r("//cdn.example.net/x").as_deref(),
            Some("https://cdn.example.net/x")
        );
        assert_eq!(
            r("#sec").as_deref(),
            Some("https://example.org/a/b.html?x=1#sec")
        );
        assert_eq!(
            r(" ?p=2 ").as_deref(),
            Some("https://example.org/a/b.html?p=2")
        );
        assert_eq!(
            r("mailto:a@example.org").as_deref(),
            Some("mailto:a@example.org")
        );
        assert_eq!(r("javascript:void(0)"), None);
        assert_eq!(r("JavaScript:alert(1)"), None);
        assert_eq!(r("data:text/html,x"), None);
        assert_eq!(r("#"), None);
        assert_eq!(r(""), None);
        assert_eq!(r("http://[bad"), None);
    }

    #[test]
    fn a_base_href_is_resolved_against_the_page() {
        let base = base_url("https://example.org/docs/page", Some("/static/v2/")).expect("base");
        assert_eq!(base.as_str(), "https://example.org/static/v2/");
        assert_eq!(
            resolve("img/a.png", Some(&base)).as_deref(),
            Some("https://example.org/static/v2/img/a.png")
        );
        // A base that is no web URL is ignored.
        let base = base_url("https://example.org/p", Some("javascript:x")).expect("base");
        assert_eq!(base.as_str(), "https://example.org/p");
        assert!(base_url("not a url", None).is_none());
    }

    #[test]
    fn without_a_base_relative_targets_stay_as_written() {
        assert_eq!(resolve("a/b.html", None).as_deref(), Some("a/b.html"));
        assert_eq!(resolve("javascript:x()", None), None);
        assert_eq!(
            resolve("https://x.org/", None).as_deref(),
            Some("https://x.org/")
        );
    }

    #[test]
    fn destinations_stay_whole() {
        let dest = |u: &str| {
            let mut s = String::new();
            destination(&mut s, u);
            s
        };
        assert_eq!(
            dest("https://en.wikipedia.org/wiki/Set_(mathematics)"),
            "https://en.wikipedia.org/wiki/Set_(mathematics)"
        );
        assert_eq!(dest("https://x.org/a)b"), "<https://x.org/a)b>");
        assert_eq!(dest("a b.html"), "<a b.html>");
        assert_eq!(dest("a<b>"), "<a%3Cb%3E>");
    }
}
