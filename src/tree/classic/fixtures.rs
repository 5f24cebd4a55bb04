//! Pages for the tests of the literature's methods: real HTML through the tokenizer, judged as
//! the engine judges it on a domain's first page.

use crate::blocks::{Block, PageStats, ParseLimits, Tokenizer};
use crate::tree::classify::{BlockFacts, Classifier, NodeFacts, Page, Reason};

/// The blocks of `html` and the tokenizer's facts of the page.
pub fn page(html: &str) -> (Vec<Block>, PageStats) {
    let mut tokenizer = Tokenizer::new(ParseLimits::default());
    let blocks = tokenizer.blocks(html.as_bytes()).expect("blocks");
    (blocks, tokenizer.stats())
}

/// Each block's text and reason under `classifier`.
pub fn judge(classifier: &dyn Classifier, html: &str) -> Vec<(String, Reason)> {
    let (blocks, stats) = page(html);
    let facts: Vec<BlockFacts<'_>> = blocks
        .iter()
        .map(|b| BlockFacts::of(b, b.hash.map(|_| 1), 1))
        .collect();
    let mut out = Vec::new();
    classifier.classify_page(
        &Page::new(&blocks, html.len(), stats),
        &facts,
        NodeFacts {
            support: 1,
            c_max: 1,
            path_support: 1,
        },
        &mut out,
    );
    assert_eq!(out.len(), blocks.len());
    blocks.into_iter().map(|b| b.text).zip(out).collect()
}

/// The texts `classifier` keeps of `html`, in order.
pub fn kept(classifier: &dyn Classifier, html: &str) -> Vec<String> {
    judge(classifier, html)
        .into_iter()
        .filter(|(_, reason)| reason.label() == crate::tree::Label::Content)
        .map(|(text, _)| text)
        .collect()
}

/// A news page: a navigation menu, a headline, three paragraphs (the second with a link in its
/// running text), a list of related links and a footer.
pub const NEWS: &str = r#"<!DOCTYPE html>
<html><head><title>Harbour reopens</title><link rel="stylesheet" href="/s.css"></head>
<body>
<div id="top"><ul class="menu">
<li><a href="/">Home</a></li><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li>
<li><a href="/weather/">Weather</a></li><li><a href="/contact/">Contact</a></li>
</ul></div>
<div id="main"><div class="story">
<h1>Harbour reopens after storm repairs</h1>
<p>The town's harbour reopened on Monday after three months of repairs to the sea wall, which was breached during the January storm. Fishing boats returned to their moorings within hours of the announcement.</p>
<p>The harbour master said the work had cost more than expected, as described in the <a href="/news/report">council's report</a>, but that the new wall should withstand storms for the next fifty years.</p>
<p>Local traders welcomed the news. Several shops on the quay had closed while the harbour was shut, and owners hope visitors will return for the summer season.</p>
</div>
<div class="related"><h3>Related</h3><ul>
<li><a href="/news/1">Storm damage in pictures</a></li><li><a href="/news/2">Council approves budget</a></li>
<li><a href="/news/3">Ferry timetable changes</a></li></ul></div>
</div>
<div id="footer"><a href="/about/">About us</a> | <a href="/privacy/">Privacy</a> | <a href="/terms/">Terms</a></div>
</body></html>
"#;

/// The three paragraphs of [`NEWS`].
pub const NEWS_TEXT: [&str; 3] = [
    "The town's harbour reopened on Monday after three months of repairs to the sea wall, which was breached during the January storm. Fishing boats returned to their moorings within hours of the announcement.",
    "The harbour master said the work had cost more than expected, as described in the council's report, but that the new wall should withstand storms for the next fifty years.",
    "Local traders welcomed the news. Several shops on the quay had closed while the harbour was shut, and owners hope visitors will return for the summer season.",
];

/// [`NEWS`] with a tracking attribute of 200 characters on the link inside its second
/// paragraph: 200 more characters of code, still two tags.
pub fn news_with_tracked_link() -> String {
    let tracked = format!(
        r#"<a href="/news/report" data-track="{}">"#,
        "x".repeat(200)
    );
    NEWS.replace(r#"<a href="/news/report">"#, &tracked)
}
