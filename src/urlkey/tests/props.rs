//! Properties: no input panics; keys are valid URLs that the parser leaves unchanged; keying is idempotent.

use crate::urlkey::{KeyOptions, QueryRules, UrlKeyer};
use proptest::prelude::*;
use url::Url;

fn keyer() -> UrlKeyer {
    UrlKeyer::new(QueryRules::paper_default(), KeyOptions::default())
}

/// URL-like strings: real and odd schemes, hosts (rule sites, PSL edge cases, IDN, IPs), ports, paths with
/// escapes good and bad, queries with article ids, tracking parameters and `_cid_`, fragments.
fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("http://"),
        Just("https://"),
        Just("HTTP://"),
        Just("hTTps://"),
        Just("http:"),
        Just("http:/"),
        Just("http:\\\\"),
        Just("ftp://"),
        Just(""),
        Just("//"),
    ];
    let host = prop_oneof![
        Just("example.com".to_owned()),
        Just("WWW.Example.COM".to_owned()),
        Just("www.example.com.".to_owned()),
        Just("www.www.example.com".to_owned()),
        Just("www.com".to_owned()),
        Just("abcnews.go.com".to_owned()),
        Just("www.marketwatch.com".to_owned()),
        Just("sports.espn.go.com".to_owned()),
        Just("www.boston.com".to_owned()),
        Just("news.bbc.co.uk".to_owned()),
        Just("x.blogspot.com".to_owned()),
        Just("co.uk".to_owned()),
        Just("bücher.example.de".to_owned()),
        Just("216.31.193.173".to_owned()),
        Just("[::1]".to_owned()),
        Just("0x7f.1".to_owned()),
        Just("user:pw@example.org".to_owned()),
        Just("".to_owned()),
        "[a-z0-9-]{1,8}(\\.[a-z0-9-]{1,8}){0,3}\\.(com|de|co\\.uk|xyz)",
        "[a-zA-Z0-9.%-]{0,12}",
    ];
    let port = prop_oneof![
        Just(String::new()),
        Just(":80".to_owned()),
        Just(":443".to_owned()),
        "(:[0-9]{1,5})"
    ];
    let path = proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z0-9._~-]{0,8}",
            Just("..".to_owned()),
            Just(".".to_owned()),
            Just("%2e%2E".to_owned()),
            "(%[0-9a-fA-FzZ]{0,2}|[ |{}^`\\[\\]\"<>ü€\\\\]|[a-z]){0,6}",
            Just("watch".to_owned()),
            Just("video".to_owned()),
            Just("blogs".to_owned()),
            Just("recap".to_owned()),
        ],
        0..5,
    )
    .prop_map(|segs| segs.iter().map(|s| format!("/{s}")).collect::<String>());
    let param = prop_oneof![
        Just("id".to_owned()),
        Just("ID".to_owned()),
        Just("p".to_owned()),
        Just("page".to_owned()),
        Just("utm_source".to_owned()),
        Just("_cid_".to_owned()),
        Just("gameId".to_owned()),
        Just("bctid".to_owned()),
        Just("%69d".to_owned()),
        "[a-z%_]{0,5}",
    ];
    let value = "([a-zA-Z0-9/?:@%+ =-]|%[0-9a-fA-Fz]{0,2}){0,6}";
    let query = proptest::option::of(
        proptest::collection::vec(
            (param, proptest::option::of(value)).prop_map(|(n, v)| match v {
                Some(v) => format!("{n}={v}"),
                None => n,
            }),
            0..5,
        )
        .prop_map(|ps| format!("?{}", ps.join("&"))),
    );
    let fragment = proptest::option::of("#[a-z?&=/]{0,6}");
    (scheme, host, port, path, query, fragment).prop_map(|(s, h, p, path, q, f)| {
        format!(
            "{s}{h}{p}{path}{}{}",
            q.unwrap_or_default(),
            f.unwrap_or_default()
        )
    })
}

fn check_key(url: &str, title: Option<&str>) -> Result<(), TestCaseError> {
    let keyer = keyer();
    let Ok(k) = keyer.key(url, title) else {
        return Ok(());
    };
    let parsed = Url::parse(&k.key)
        .map_err(|e| TestCaseError::fail(format!("{url:?} -> {:?}: {e}", k.key)))?;
    prop_assert_eq!(
        parsed.as_str(),
        k.key.as_str(),
        "key of {:?} is not a fixed point of the parser",
        url
    );
    prop_assert!(matches!(parsed.scheme(), "http" | "https"));
    prop_assert!(parsed.fragment().is_none());
    prop_assert!(k.key.is_ascii());
    let again = keyer
        .key(&k.key, None)
        .map_err(|e| TestCaseError::fail(format!("{url:?} -> {:?}: {e}", k.key)))?;
    prop_assert_eq!(&again, &k, "not idempotent for {:?}", url);
    // Equal inputs, equal keys.
    prop_assert_eq!(keyer.key(url, title).ok(), Some(k));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_strings_never_panic(s in any::<String>(), title in proptest::option::of(any::<String>())) {
        let _ = keyer().key(&s, title.as_deref());
        let _ = crate::urlkey::registrable_domain(&s);
    }

    #[test]
    fn random_bytes_as_lossy_strings_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = keyer().key(&format!("http://example.com/{s}"), None);
        let _ = keyer().key(&format!("http://{s}/"), Some(&s));
    }

    #[test]
    fn url_like_keys_are_valid_and_idempotent(url in url_like()) {
        check_key(&url, None)?;
    }

    #[test]
    fn url_like_keys_with_titles_are_valid_and_idempotent(url in url_like(), title in "[ a-zA-Z0-9ü]{0,12}") {
        check_key(&url, Some(&title))?;
    }
}

#[test]
fn url_like_generator_mostly_gives_keyable_urls() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = url_like();
    let keyer = keyer();
    let (mut ok, mut with_query) = (0, 0);
    for _ in 0..1000 {
        let url = strategy.new_tree(&mut runner).expect("value").current();
        if let Ok(k) = keyer.key(&url, None) {
            ok += 1;
            with_query += usize::from(k.key.contains('?'));
        }
    }
    eprintln!("url_like: {ok} of 1000 keyed, {with_query} with a query");
    // The properties above are only as strong as the share of URLs that get a key.
    assert!(ok >= 400, "{ok} of 1000 keyed");
    assert!(with_query >= 50, "{with_query} keys with a query");
}
