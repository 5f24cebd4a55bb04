//! `<noscript>` through the real engine: a forum that serves its topics inside `<noscript>` to
//! clients without JavaScript, a news page's "enable JavaScript" notice, and a tracking pixel.

use urltree::config::Config;
use urltree::engine::{Engine, Input, Outcome};
use urltree::record::{CleanRecord, Source};

fn engine(dir: &std::path::Path) -> Engine {
    let mut c = Config::default();
    c.state.path = dir.to_owned();
    Engine::open(&c).expect("engine")
}

fn run(engine: &mut Engine, records: &[Vec<u8>]) -> Vec<CleanRecord> {
    let inputs: Vec<Input<'_>> = records
        .iter()
        .enumerate()
        .map(|(i, bytes)| Input::new(bytes, Source::line("test", i as u64)))
        .collect();
    engine
        .process_batch(&inputs, None)
        .expect("batch")
        .into_iter()
        .map(|outcome| match outcome {
            Outcome::Clean(record) => *record,
            other => panic!("expected a clean record, got {other:?}"),
        })
        .collect()
}

fn record(url: &str, html: &str, day: usize) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "url": url,
        "html": html,
        "fetched_at": format!("2024-03-{:02}T09:00:00Z", 1 + day % 28),
    }))
    .expect("json")
}

/// One topic of a made-up forum: (slug, title, category, posts as (author, paragraphs)).
struct Topic {
    slug: &'static str,
    title: &'static str,
    category: &'static str,
    posts: &'static [(&'static str, &'static [&'static str])],
}

const TOPICS: &[Topic] = &[
    Topic {
        slug: "rotating-logs-without-losing-lines",
        title: "Rotating logs without losing lines",
        category: "Help",
        posts: &[
            ("marguerite", &["When logrotate moves the file at midnight my collector misses the last few hundred lines written before the move.", "Is there a way to make the reader finish the old file before it opens the new one?"]),
            ("osvaldo", &["Open the file by descriptor and keep reading it until end of file after the rename is seen, then switch over to the new path."]),
            ("marguerite", &["That fixed it, thank you. The collector now drains the renamed file before switching."]),
        ],
    },
    Topic {
        slug: "parser-rejects-trailing-commas",
        title: "Parser rejects trailing commas in arrays",
        category: "Bugs",
        posts: &[
            ("tobiah", &["Configuration files with a trailing comma after the last array element fail with an unexpected token error on version four."]),
            ("wilhelmina", &["Trailing commas were never part of the grammar; the older release accepted them by accident and the changelog mentions the fix."]),
        ],
    },
    Topic {
        slug: "benchmarking-on-shared-machines",
        title: "Benchmarking on shared machines",
        category: "Performance",
        posts: &[
            ("carmelo", &["Timings on our build server swing by twenty percent between runs because other jobs compete for the cores."]),
            ("philippa", &["Count instructions instead of seconds, or interleave the two builds you compare so that the noise hits both alike."]),
            ("carmelo", &["Interleaving made the comparison stable enough to trust a two percent difference."]),
        ],
    },
    Topic {
        slug: "plugin-api-for-custom-outputs",
        title: "A plugin interface for custom outputs",
        category: "Ideas",
        posts: &[
            ("leocadia", &["Several of us write small exporters for internal dashboards; a stable plugin interface would save maintaining forks."]),
            ("ambrose", &["A sink trait with a flush hook would cover the exporters I know of, and the existing file sink could be the first implementation."]),
        ],
    },
    Topic {
        slug: "memory-growth-after-upgrade",
        title: "Memory growth after the upgrade",
        category: "Help",
        posts: &[
            ("griselda", &["After upgrading, resident memory climbs steadily over a week until the service is restarted by the supervisor."]),
            ("osvaldo", &["The retention setting changed its default; set it explicitly and the state stops growing past the window you choose."]),
        ],
    },
    Topic {
        slug: "windows-paths-with-spaces",
        title: "Windows paths with spaces break the importer",
        category: "Bugs",
        posts: &[
            ("bartholomew", &["Any input directory whose name contains a space is split into two arguments and the importer cannot find either half."]),
            ("wilhelmina", &["Quote the path in the service definition; the importer itself receives whatever the shell hands it."]),
        ],
    },
];

/// A topic page as the forum software renders it to a client without JavaScript: the app shell
/// (an empty outlet, asset and preload elements, scripts) and, inside `<noscript>`, the crawler
/// view with the title, the posts, related topics and the footer.
fn forum_page(n: usize, topic: &Topic) -> String {
    let id = 120 + n;
    let mut posts = String::new();
    for (i, (author, paragraphs)) in topic.posts.iter().enumerate() {
        let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
        posts.push_str(&format!(
            r#"<div id="post_{pos}" {role} class="topic-body crawler-post">
  <div class="crawler-post-meta">
    <span class="creator" itemprop="author" itemscope itemtype="http://schema.org/Person">
      <a itemprop="url" href="https://forum.example-tools.org/u/{author}"><span itemprop="name">{author}</span></a>
    </span>
    <link itemprop="mainEntityOfPage" href="https://forum.example-tools.org/t/{slug}/{id}">
    <span class="crawler-post-infos">
      <time itemprop="datePublished" datetime="2024-03-0{day}T1{pos}:20:00Z" class="post-time">March {day}, 2024, 1{pos}:20am</time>
      <meta itemprop="position" content="{pos}">
    </span>
  </div>
  <div class="post" itemprop="text">
{body}  </div>
  <div itemprop="interactionStatistic" itemscope itemtype="http://schema.org/InteractionCounter">
    <meta itemprop="interactionType" content="http://schema.org/LikeAction"/>
    <meta itemprop="userInteractionCount" content="{likes}" />
    <span class="post-likes">{likes} Likes</span>
  </div>
</div>
"#,
            pos = i + 1,
            role = if i == 0 { r#"itemprop="mainEntity""# } else { r#"itemprop="comment""# },
            slug = topic.slug,
            day = 1 + n % 9,
            likes = 1 + (n + i) % 4,
        ));
    }
    let related: String = TOPICS
        .iter()
        .filter(|t| t.slug != topic.slug)
        .take(3)
        .map(|t| {
            format!(
                r#"<tr class="topic-list-item"><td class="main-link" itemprop="itemListElement" itemscope itemtype="http://schema.org/ListItem"><span class="link-top-line"><a itemprop="url" href="/t/{}/1" class="title raw-link raw-topic-link">{}</a></span></td><td class="replies"><span class="posts" title="posts">{}</span></td></tr>
"#,
                t.slug,
                t.title,
                t.posts.len() - 1
            )
        })
        .collect();
    format!(
        r#"<!DOCTYPE html>
<html lang="en" class="desktop-view not-mobile-device text-size-normal anon">
<head>
<meta charset="utf-8">
<title>{title} - {category} - Example Tools Forum</title>
<meta name="description" content="{title}">
<meta name="generator" content="Discourse 3.2.0">
<link rel="canonical" href="https://forum.example-tools.org/t/{slug}/{id}" />
<meta property="og:site_name" content="Example Tools Forum" />
<script defer src="/assets/locales/en.js"></script>
<script defer src="/assets/vendor.js"></script>
<script defer src="/assets/discourse.js"></script>
<link href="/stylesheets/desktop.css" media="all" rel="stylesheet" data-target="desktop" />
<noscript><link href="/stylesheets/crawler.css" rel="stylesheet"></noscript>
</head>
<body class="">
<discourse-assets>
  <discourse-assets-stylesheets><link href="/stylesheets/desktop_theme.css" rel="stylesheet"></discourse-assets-stylesheets>
  <discourse-assets-icons></discourse-assets-icons>
</discourse-assets>
<div id="main-outlet"></div>
<div class="hidden" id="data-preloaded" data-preloaded="{{&quot;site&quot;:&quot;{{}}&quot;}}"></div>
<noscript data-path="/t/{slug}/{id}">
<header class="d-header">
  <div class="wrap"><div class="contents"><div class="header-buttons"><a href="/login" class="btn btn-primary">Log In</a></div>
  <div class="title"><a href="/"><img src="/uploads/logo.png" alt="Example Tools Forum" id="site-logo"></a></div></div></div>
</header>
<div id="main-outlet" class="wrap" role="main">
  <div id="topic-title">
    <h1><a href="/t/{slug}/{id}">{title}</a></h1>
    <div class="topic-category" itemscope itemtype="http://schema.org/BreadcrumbList">
      <span itemprop="itemListElement" itemscope itemtype="http://schema.org/ListItem"><a href="/c/{category_lower}/5" class="badge-wrapper bullet" itemprop="item"><span class="badge-category clear-badge"><span class="category-name" itemprop="name">{category}</span></span></a><meta itemprop="position" content="1" /></span>
    </div>
  </div>
  <div itemscope itemtype="http://schema.org/DiscussionForumPosting">
    <meta itemprop="headline" content="{title}">
    <meta itemprop="articleSection" content="{category}">
    <meta itemprop="keywords" content="">
{posts}  </div>
  <div id="related-topics" class="more-topics__list" role="complementary" aria-labelledby="related-topics-title">
    <h3 id="related-topics-title" class="more-topics__list-title">Related topics</h3>
    <div class="topic-list-container" itemscope itemtype="http://schema.org/ItemList">
      <table class="topic-list">
        <thead><tr><th>Topic</th><th class="replies">Replies</th></tr></thead>
        <tbody>
{related}        </tbody>
      </table>
    </div>
  </div>
</div>
<footer class="container wrap">
  <nav class="crawler-nav"><ul>
    <li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/" itemprop="url">Home </a></span></li>
    <li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/categories" itemprop="url">Categories </a></span></li>
    <li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/guidelines" itemprop="url">Guidelines </a></span></li>
    <li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/tos" itemprop="url">Terms of Service </a></span></li>
    <li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/privacy" itemprop="url">Privacy Policy </a></span></li>
  </ul></nav>
  <p class="powered-by-link">Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p>
</footer>
</noscript>
<script defer src="/assets/start-discourse.js"></script>
</body>
</html>
"#,
        title = topic.title,
        category = topic.category,
        category_lower = topic.category.to_ascii_lowercase(),
        slug = topic.slug,
    )
}

fn forum_record(n: usize) -> Vec<u8> {
    let topic = &TOPICS[n % TOPICS.len()];
    record(
        &format!(
            "https://forum.example-tools.org/t/{}/{}",
            topic.slug,
            120 + n
        ),
        &forum_page(n, topic),
        n,
    )
}

#[test]
fn a_forum_topic_served_inside_noscript_comes_out_as_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = engine(dir.path());
    let records: Vec<Vec<u8>> = (0..TOPICS.len()).map(forum_record).collect();
    let out = run(&mut engine, &records);
    for (n, clean) in out.iter().enumerate() {
        let topic = &TOPICS[n];
        for (_, paragraphs) in topic.posts {
            for p in *paragraphs {
                assert!(
                    clean.text.contains(p),
                    "topic {n}: post text missing: {p:?}\n{}",
                    clean.text
                );
            }
        }
        assert_eq!(clean.site_name.as_deref(), Some("Example Tools Forum"));
        assert_eq!(
            clean.canonical_url.as_deref(),
            Some(
                format!(
                    "https://forum.example-tools.org/t/{}/{}",
                    topic.slug,
                    120 + n
                )
                .as_str()
            )
        );
    }
    // The crawler view's footer and navigation are the forum's template: once the forum's
    // pages are known, they are not the topic's text.
    let last = out.last().expect("records");
    assert!(
        !last.text.contains("best viewed with JavaScript enabled"),
        "{}",
        last.text
    );
    assert!(!last.text.contains("Terms of Service"), "{}", last.text);
}

/// A news story whose template shows an "enable JavaScript" notice in `<noscript>`, as many do
/// for their comment widgets or their whole app.
fn news_page(n: usize) -> String {
    const STORIES: [(&str, &str, &str); 6] = [
        ("Harbour bridge reopens after repairs", "Engineers replaced the corroded cables over the winter, and the first buses crossed the bridge at dawn on Monday.", "Traffic on the ring road, which carried the diverted vehicles for four months, returned to normal by the afternoon."),
        ("City library extends its opening hours", "From next month the central library will stay open until ten in the evening on weekdays, the council announced.", "Volunteers from the reading club will staff the extra hours during the first trial period."),
        ("Orchard growers report an early harvest", "A mild spring brought the apple harvest forward by nearly three weeks in the valley orchards.", "Growers said the fruit is smaller than usual but sweeter, and the cider presses started early."),
        ("New tram line passes its safety checks", "Inspectors signed off the eastern tram extension after a fortnight of trial runs without passengers.", "The operator expects the first scheduled services to run before the school holidays begin."),
        ("Swimming pool closes for roof work", "The municipal pool will close for six weeks while contractors replace the leaking roof panels.", "Swimming lessons move to the school pool across town for the duration of the work."),
        ("Museum opens a gallery of local maps", "Hand-drawn survey maps from three centuries go on display in a new gallery on the museum's upper floor.", "Curators restored the oldest sheets, which had been folded in a drawer of the town hall since the flood."),
    ];
    let (headline, first, second) = STORIES[n % STORIES.len()];
    format!(
        r#"<!DOCTYPE html><html lang="en"><head><title>{headline} | Valley Courier</title>
<script src="/static/app.js"></script></head>
<body>
<noscript><div class="js-disabled-banner"><p>You need to enable JavaScript to use all features of this site.</p></div></noscript>
<header class="site-header"><nav><ul><li><a href="/">Front page</a></li><li><a href="/local">Local</a></li><li><a href="/sport">Sport</a></li></ul></nav></header>
<main><article>
<h1>{headline}</h1>
<p class="byline">By the Courier's city desk</p>
<p>{first}</p>
<p>{second}</p>
</article>
<section class="comments"><noscript>Please enable JavaScript to view the comments.</noscript></section>
</main>
<footer><p>The Valley Courier is published by Valley Media Ltd. All rights reserved.</p></footer>
</body></html>"#
    )
}

#[test]
fn an_enable_javascript_notice_does_not_crowd_out_the_story() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = engine(dir.path());
    let records: Vec<Vec<u8>> = (0..6)
        .map(|n| {
            record(
                &format!("https://www.valley-courier.example/local/story-{n}.html"),
                &news_page(n),
                n,
            )
        })
        .collect();
    let out = run(&mut engine, &records);
    for (n, clean) in out.iter().enumerate() {
        let page = news_page(n);
        let story: Vec<&str> = page
            .split("<p>")
            .skip(1)
            .filter_map(|p| p.split("</p>").next())
            .filter(|p| !p.contains("JavaScript") && !p.contains("Valley Media"))
            .collect();
        assert_eq!(story.len(), 2);
        for p in story {
            assert!(clean.text.contains(p), "page {n}: story missing {p:?}");
        }
    }
    // Once the template is known, the notices are template text.
    let last = out.last().expect("records");
    assert!(!last.text.contains("enable JavaScript"), "{}", last.text);
}

/// A page whose only `<noscript>` is a tracking pixel gives the text it gives without it.
#[test]
fn a_tracking_pixel_in_noscript_changes_nothing() {
    let with_pixel = |n: usize, pixel: bool| -> Vec<u8> {
        let html = news_page(n)
            .replace(
                "<noscript><div class=\"js-disabled-banner\"><p>You need to enable JavaScript to use all features of this site.</p></div></noscript>",
                if pixel {
                    "<noscript><img height=\"1\" width=\"1\" style=\"display:none\" alt=\"\" src=\"https://pixel.example-ads.net/tr?id=4711&amp;ev=PageView&amp;noscript=1\"/></noscript>"
                } else {
                    ""
                },
            )
            .replace(
                "<noscript>Please enable JavaScript to view the comments.</noscript>",
                "",
            );
        record(
            &format!("https://www.valley-courier.example/local/story-{n}.html"),
            &html,
            n,
        )
    };
    let texts = |pixel: bool| -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut engine = engine(dir.path());
        let records: Vec<Vec<u8>> = (0..4).map(|n| with_pixel(n, pixel)).collect();
        run(&mut engine, &records)
            .into_iter()
            .map(|c| c.text)
            .collect()
    };
    let (with, without) = (texts(true), texts(false));
    assert!(with[0].contains("Harbour bridge reopens"));
    assert_eq!(with, without);
}
