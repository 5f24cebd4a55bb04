//! Keys of well-formed URLs: the paper's example, equivalent spellings, `_cid_`, IDN and PSL domains, branches.

use crate::urlkey::{KeyOptions, QueryRule, QueryRules, UrlKey, UrlKeyer, CID_PARAM};
use md5::{Digest, Md5};

fn keyer() -> UrlKeyer {
    UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default())
}

fn key(url: &str) -> UrlKey {
    keyer()
        .key(url, None)
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn md5_hex(s: &str) -> String {
    Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn paper_example_google_news_redirect() {
    let title = "Gang Member Convicted in Killing of Teen";
    let k = keyer()
        .key(
            "http://abcnews.go.com/kabc/story?id=8691010&section=news/local",
            Some(title),
        )
        .unwrap();
    assert_eq!(k.key, "http://abcnews.go.com/kabc/story?id=8691010");
    assert_eq!(k.domain, "go.com");
    assert_eq!(k.host, "abcnews.go.com");
    assert_eq!(k.port, None);
    assert_eq!(k.segments, ["abcnews.go.com", "kabc"]);
    assert_eq!(k.leaf, "story?id=8691010");
    // The request URL (the news aggregator's redirect) is a different page: no rule names it, so its
    // query stays, sorted (the title's content id is kept only by a rule that names it).
    let request = "http://news.google.com/news/url?sa=t&fd=R&usg=AFQjCNE\
                   &url=http%3A%2F%2Fabcnews.go.com%2Fkabc%2Fstory%3Fid%3D8691010";
    let r = keyer().key(request, Some(title)).unwrap();
    let query =
        "?fd=R&sa=t&url=http%3A%2F%2Fabcnews.go.com%2Fkabc%2Fstory%3Fid%3D8691010&usg=AFQjCNE";
    assert_eq!(r.key, format!("http://news.google.com/news/url{query}"));
    assert_eq!(r.domain, "google.com");
    assert_eq!(r.segments, ["news.google.com", "news"]);
    assert_eq!(r.leaf, format!("url{query}"));
}

#[test]
fn equivalent_spellings_give_one_key() {
    let groups: &[&[&str]] = &[
        &[
            "http://example.com/a/b?id=1",
            "HTTP://EXAMPLE.COM/a/b?id=1",
            "http://Example.Com:80/a/b?id=1",
            "http://example.com/a/b?id=1#section-2",
            "http://www.example.com/a/b?id=1",
            "http://example.com./a/b?id=1",
            "http://user:secret@example.com/a/b?id=1",
            "http://example.com/a/./c/../b?id=1",
            "http://example.com/%61/%62?%69%64=%31",
            "http://example.com/a/b?utm_source=rss&id=1&utm_medium=feed",
            "  http://example.com/a/b?id=1\n",
        ],
        &[
            "https://example.com:443/x",
            "https://example.com/x",
            "HTTPS://WWW.EXAMPLE.COM/x#top",
        ],
        &[
            "http://example.com/~user/%c3%bc",
            "http://example.com/%7Euser/%C3%BC",
            "http://example.com/~user/ü",
        ],
        &[
            "http://example.com/?page=2&id=7",
            "http://example.com/?id=7&page=2",
            "http://example.com?id=7&page=2",
        ],
        &[
            "http://example.com/a%7cb",
            "http://example.com/a|b",
            "http://example.com/a%7Cb",
        ],
    ];
    for group in groups {
        let first = key(group[0]).key;
        for url in &group[1..] {
            assert_eq!(key(url).key, first, "{url} vs {}", group[0]);
        }
    }
    assert_eq!(
        key("http://example.com/a/b?id=1").key,
        "http://example.com/a/b?id=1"
    );
    assert_eq!(
        key("http://example.com/~user/%c3%bc").key,
        "http://example.com/~user/%C3%BC"
    );
    assert_eq!(
        key("http://example.com/?page=2&id=7").key,
        "http://example.com/?id=7&page=2"
    );
}

#[test]
fn different_pages_keep_different_keys() {
    let distinct = [
        "http://example.com/a",
        "http://example.com/a/",
        "https://example.com/a",
        "http://example.com:8080/a",
        "http://example.com/a?id=1",
        "http://example.com/a?id=2",
        "http://example.com/A",
        "http://example.com/a%2Fb",
        "http://example.com/a/b",
        "http://sub.example.com/a",
    ];
    let keys: std::collections::HashSet<String> = distinct.iter().map(|u| key(u).key).collect();
    assert_eq!(keys.len(), distinct.len(), "{keys:?}");
}

#[test]
fn query_params_sort_by_name_stable_for_equal_names() {
    let rules = QueryRules::new(vec![QueryRule::new(
        "^https?://",
        vec!["b".into(), "a".into()],
    )
    .unwrap()])
    .unwrap();
    let k = UrlKeyer::new(rules, KeyOptions::default());
    let got = k
        .key("http://example.com/?b=2&a=9&x=0&a=1&b=1", None)
        .unwrap();
    assert_eq!(got.key, "http://example.com/?a=9&a=1&b=2&b=1");
    assert_eq!(got.leaf, "?a=9&a=1&b=2&b=1");
}

#[test]
fn no_rule_keeps_the_query_but_tracking_and_empty_query_has_no_question_mark() {
    let k = UrlKeyer::new(QueryRules::empty(), KeyOptions::default());
    assert_eq!(
        k.key(
            "http://example.com/a?x=2&id=1&utm_source=rss&fbclid=Iw&JSESSIONID=9",
            Some("t")
        )
        .unwrap()
        .key,
        "http://example.com/a?id=1&x=2"
    );
    assert_eq!(
        k.key("http://example.com/a?utm_source=rss&_cid_=1", None)
            .unwrap()
            .key,
        "http://example.com/a"
    );
    let own = UrlKeyer::new(
        QueryRules::empty().with_strip(vec!["x".into()]).unwrap(),
        KeyOptions::default(),
    );
    assert_eq!(
        own.key("http://example.com/a?x=2&id=1&utm_source=rss", None)
            .unwrap()
            .key,
        "http://example.com/a?id=1&utm_source=rss"
    );
    assert_eq!(
        k.key("http://example.com/a?", None).unwrap().key,
        "http://example.com/a"
    );
    assert_eq!(
        k.key("http://example.com/a?&&", None).unwrap().key,
        "http://example.com/a"
    );
    let d = keyer();
    assert_eq!(
        d.key("http://example.com/a?", None).unwrap().key,
        "http://example.com/a"
    );
    assert_eq!(
        d.key(
            "http://bigthink.com/x?utm_source=feedburner&amp;utm_medium=feed",
            None
        )
        .unwrap()
        .key,
        "http://bigthink.com/x"
    );
}

#[test]
fn distinct_pages_of_sites_no_rule_names_keep_distinct_keys() {
    // Forums, wikis, video and shop pages: each query names another page.
    let pages = [
        "http://forum.example.org/viewtopic.php?t=101",
        "http://forum.example.org/viewtopic.php?t=202",
        "http://forum.example.org/viewtopic.php?f=3&t=202",
        "http://wiki.example.org/index.php?title=Main_Page",
        "http://wiki.example.org/index.php?title=Help:Contents",
        "http://video.example.net/watch?v=dQw4w9WgXcQ",
        "http://video.example.net/watch?v=9bZkp7q19f0",
        "http://shop.example.com/product?sku=A-1",
        "http://shop.example.com/product?sku=B-2",
        "http://news.example.com/article?story=77",
        "http://news.example.com/article?story=78",
        "http://shop.example.com/product",
    ];
    let keys: std::collections::HashSet<String> = pages.iter().map(|u| key(u).key).collect();
    assert_eq!(keys.len(), pages.len(), "{keys:?}");
    // Their tracking and session parameters do not make another page.
    assert_eq!(
        key("http://forum.example.org/viewtopic.php?t=101&sid=0&utm_medium=social&gclid=x").key,
        "http://forum.example.org/viewtopic.php?sid=0&t=101"
    );
    assert_eq!(
        key("http://video.example.net/watch?v=9bZkp7q19f0&PHPSESSID=ab&utm_campaign=c").key,
        "http://video.example.net/watch?v=9bZkp7q19f0"
    );
}

#[test]
fn cid_is_md5_of_the_title_when_a_rule_keeps_it() {
    let title = "ABC News: Technology";
    let cid = md5_hex(title);
    // A default rule for an index page keeps only the content id.
    let k = keyer()
        .key("http://abcnews.go.com/Technology?ref=top", Some(title))
        .unwrap();
    assert_eq!(
        k.key,
        format!("http://abcnews.go.com/Technology?_cid_={cid}")
    );
    assert_eq!(k.leaf, format!("Technology?_cid_={cid}"));
    // Surrounding whitespace does not change the id; a blank title gives none.
    let padded = keyer()
        .key(
            "http://abcnews.go.com/Technology",
            Some("  ABC News: Technology \n"),
        )
        .unwrap();
    assert_eq!(padded.key, k.key);
    let blank = keyer()
        .key("http://abcnews.go.com/Technology", Some("   "))
        .unwrap();
    assert_eq!(blank.key, "http://abcnews.go.com/Technology");
    // A rule set that keeps _cid_ everywhere: it sorts with the other parameters.
    let rules = QueryRules::new(vec![QueryRule::new(
        "example",
        vec![CID_PARAM.into(), "id".into(), "z".into()],
    )
    .unwrap()])
    .unwrap();
    let k = UrlKeyer::new(rules, KeyOptions::default());
    let got = k
        .key("http://example.com/p?z=1&id=5&_cid_=forged", Some("Hello"))
        .unwrap();
    assert_eq!(
        got.key,
        format!("http://example.com/p?_cid_={}&id=5&z=1", md5_hex("Hello"))
    );
    // Without a title an existing _cid_ is an ordinary parameter (so keys are idempotent).
    let again = k.key(&got.key, None).unwrap();
    assert_eq!(again.key, got.key);
}

#[test]
fn cid_takes_part_in_rule_matching() {
    // The index-page rule applies only when a title gave a _cid_; without one no rule applies and the
    // query stays.
    let no_title = keyer()
        .key("http://www.marketwatch.com/?siteid=rss", None)
        .unwrap();
    assert_eq!(no_title.key, "http://marketwatch.com/?siteid=rss");
    let with_title = keyer()
        .key(
            "http://www.marketwatch.com/?siteid=rss",
            Some("MarketWatch"),
        )
        .unwrap();
    assert_eq!(
        with_title.key,
        format!("http://marketwatch.com/?_cid_={}", md5_hex("MarketWatch"))
    );
    assert_eq!(
        with_title.leaf,
        format!("?_cid_={}", md5_hex("MarketWatch"))
    );
}

#[test]
fn site_rules_fall_through_when_their_parameters_are_absent() {
    // abcnews: article pages keep `id`; a blog index without `id` falls through to the _cid_ rule.
    let t = "Blogs";
    let k = keyer()
        .key("http://abcnews.go.com/blogs/?page=3", Some(t))
        .unwrap();
    assert_eq!(
        k.key,
        format!("http://abcnews.go.com/blogs/?_cid_={}", md5_hex(t))
    );
    // ESPN recaps keep `gameId` (names compare case-insensitively), other pages keep `id`.
    assert_eq!(
        key("http://sports.espn.go.com/nba/recap?gameid=1&id=2&x=3").key,
        "http://sports.espn.go.com/nba/recap?gameid=1"
    );
    assert_eq!(
        key("http://sports.espn.go.com/nba/news/story?id=2&x=3").key,
        "http://sports.espn.go.com/nba/news/story?id=2"
    );
    // On any other site the whole query counts, sorted.
    assert_eq!(
        key("http://entermedia.co.kr/news/news_view.html?idx=8576&page=1&bc=03&mc=08&find=&sch_date=").key,
        "http://entermedia.co.kr/news/news_view.html?bc=03&find=&idx=8576&mc=08&page=1&sch_date="
    );
    assert_eq!(
        key("http://nymag.com/page.cfm?page_id=2247").key,
        "http://nymag.com/page.cfm?page_id=2247"
    );
}

#[test]
fn idn_host_becomes_punycode() {
    let k = key("http://bücher.example.de/x");
    assert_eq!(k.key, "http://xn--bcher-kva.example.de/x");
    assert_eq!(k.host, "xn--bcher-kva.example.de");
    assert_eq!(k.domain, "example.de");
    assert_eq!(k.segments, ["xn--bcher-kva.example.de"]);
    assert_eq!(k.leaf, "x");
    assert_eq!(key("http://BÜCHER.example.de/x").key, k.key);
    assert_eq!(key("http://xn--bcher-kva.example.de/x").key, k.key);
}

#[test]
fn public_suffix_list_domains() {
    let bbc = key("http://news.bbc.co.uk/2/hi/uk_news/7345678.stm");
    assert_eq!(bbc.domain, "bbc.co.uk");
    assert_eq!(bbc.segments, ["news.bbc.co.uk", "2", "hi", "uk_news"]);
    assert_eq!(bbc.leaf, "7345678.stm");
    let www_bbc = key("http://www.bbc.co.uk/news/");
    assert_eq!(
        (www_bbc.host.as_str(), www_bbc.domain.as_str()),
        ("bbc.co.uk", "bbc.co.uk")
    );
    assert_eq!(www_bbc.segments, ["news"]);
    assert_eq!(www_bbc.leaf, "");
    let blog = key("http://x.blogspot.com/2012/11/post.html");
    assert_eq!(blog.domain, "x.blogspot.com");
    assert_eq!(blog.segments, ["2012", "11"]);
    assert_eq!(
        key("http://10qdetective.blogspot.com/").domain,
        "10qdetective.blogspot.com"
    );
    assert_eq!(key("http://abcnews.go.com/").domain, "go.com");
}

#[test]
fn branch_of_the_root_and_of_ports_and_ips() {
    let root = key("http://example.com");
    assert_eq!(root.key, "http://example.com/");
    assert!(root.segments.is_empty());
    assert_eq!(root.leaf, "");
    let port = key("http://example.com:8080/a/b");
    assert_eq!(port.port, Some(8080));
    assert_eq!(port.host, "example.com");
    assert_eq!(port.segments, ["example.com:8080", "a"]);
    let ip = key("http://216.31.193.173/ewsoe/english/4_4.htm");
    assert_eq!(
        (ip.domain.as_str(), ip.host.as_str()),
        ("216.31.193.173", "216.31.193.173")
    );
    assert_eq!(ip.segments, ["ewsoe", "english"]);
    let v6 = key("http://[2001:DB8::1]:81/x");
    assert_eq!(v6.key, "http://[2001:db8::1]:81/x");
    assert_eq!(v6.domain, "[2001:db8::1]");
    assert_eq!(v6.segments, ["[2001:db8::1]:81"]);
    let empty_segments = key("http://example.com//a//b");
    assert_eq!(empty_segments.segments, ["", "a", ""]);
    assert_eq!(empty_segments.leaf, "b");
}

#[test]
fn strip_www_can_be_turned_off() {
    let opts = KeyOptions {
        strip_www: false,
        ..KeyOptions::default()
    };
    let k = UrlKeyer::new(QueryRules::paper_default(), opts);
    let got = k.key("http://www.example.com/a", None).unwrap();
    assert_eq!(got.key, "http://www.example.com/a");
    assert_eq!(got.segments, ["www.example.com"]);
    assert_ne!(got.key, k.key("http://example.com/a", None).unwrap().key);
    // `www` as the registrable label is never stripped.
    assert_eq!(key("http://www.com/a").key, "http://www.com/a");
}

#[test]
fn key_options_from_config_json() {
    let o: KeyOptions = serde_json::from_str(r#"{"strip_www": false}"#).unwrap();
    assert_eq!(
        o,
        KeyOptions {
            strip_www: false,
            max_url_bytes: 8192
        }
    );
    assert_eq!(
        serde_json::from_str::<KeyOptions>("{}").unwrap(),
        KeyOptions::default()
    );
    assert!(serde_json::from_str::<KeyOptions>(r#"{"strip_ww": true}"#).is_err());
}
