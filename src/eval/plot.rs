//! The cumulative moving-average F1 curves of runs as a standalone SVG image (the URL Tree
//! paper's Figures 4 and 5): one panel with each run's curve over the whole stream, then one
//! panel per run with the curves of its domains with most pages.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::report::{curve_page_index, RunReport};

/// Domains drawn in a run's panel (those with most pages).
pub const MAX_DOMAIN_CURVES: usize = 12;

/// Series colours, one per run or per domain: ten chosen to stay apart (at least 40 in CIELAB
/// ΔE between any two, all dark enough to read on white), from Tableau's, Kelly's and Okabe and
/// Ito's palettes.
const COLOURS: [&str; 10] = [
    "#0072b2", "#ff7f0e", "#2ca02c", "#be0032", "#000000", "#e377c2", "#17becf", "#bcbd22",
    "#654522", "#f99379",
];

/// Dash patterns of the series past the tenth, whose colours repeat: solid for the first ten,
/// then each further ten dashed differently, so no two series look alike.
const DASHES: [Option<&str>; 4] = [None, Some("6 3"), Some("2 2"), Some("8 3 2 3")];

/// The colour and dash pattern of series `i`.
fn style(i: usize) -> (&'static str, Option<&'static str>) {
    (
        COLOURS[i % COLOURS.len()],
        DASHES[(i / COLOURS.len()) % DASHES.len()],
    )
}

const WIDTH: f64 = 960.0;
const PANEL_HEIGHT: f64 = 340.0;
const HEADER: f64 = 40.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 280.0;
const PANEL_TOP: f64 = 36.0;
const PANEL_BOTTOM: f64 = 56.0;
/// Longest label (in characters) shown in a legend.
const LEGEND_CHARS: usize = 26;

/// Writes the SVG of [`render_svg`] to `out`.
pub fn write_svg(runs: &[RunReport], out: &mut impl Write) -> io::Result<()> {
    out.write_all(render_svg(runs).as_bytes())
}

/// One curve: a label and (1-based page number, value) points.
struct Series {
    label: String,
    colour: &'static str,
    dash: Option<&'static str>,
    points: Vec<(f64, f64)>,
}

impl Series {
    /// The `stroke-dasharray` attribute, when the series is dashed.
    fn dash_attribute(&self) -> String {
        self.dash
            .map(|d| format!(r#" stroke-dasharray="{d}""#))
            .unwrap_or_default()
    }
}

/// A well-formed standalone SVG document (UTF-8, with XML declaration): a title, the overall
/// panel (x = 1-based page number in the stream, y = cumulative moving-average F1 from a tick
/// below the panel's lowest point to 1, one colour per run, legend) and per run a panel of its [`MAX_DOMAIN_CURVES`] largest domains
/// (x = page number within the domain, legend with domain names). Legend entries show page
/// counts. All text is XML-escaped; values outside 0..1 are clamped, non-finite ones skipped.
pub fn render_svg(runs: &[RunReport]) -> String {
    let panels = 1 + runs.len();
    let height = HEADER + PANEL_HEIGHT * panels as f64;
    let mut svg = String::new();
    let _ = writeln!(svg, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text class="title" x="{}" y="26" text-anchor="middle" font-size="18">Cumulative moving-average F1 (LCS of word tokens)</text>"#,
        WIDTH / 2.0
    );

    let overall: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| Series {
            label: format!("{} ({})", short(&run.heuristic), run.overall.pages),
            colour: style(i).0,
            dash: style(i).1,
            points: curve_points(&run.curve, run.overall.pages),
        })
        .collect();
    panel(
        &mut svg,
        HEADER,
        "All pages, by run",
        "page index in stream",
        &overall,
    );

    for (r, run) in runs.iter().enumerate() {
        let series: Vec<Series> = run
            .per_domain
            .iter()
            .take(MAX_DOMAIN_CURVES)
            .enumerate()
            .map(|(i, d)| Series {
                label: format!("{} ({})", short(&d.domain), d.summary.pages),
                colour: style(i).0,
                dash: style(i).1,
                points: curve_points(&d.curve, d.summary.pages),
            })
            .collect();
        let title = format!("{}: per domain", short(&run.heuristic));
        panel(
            &mut svg,
            HEADER + PANEL_HEIGHT * (r + 1) as f64,
            &title,
            "page index within domain",
            &series,
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The points of a downsampled curve: x is the 1-based page number it stands for.
fn curve_points(curve: &[f64], pages: usize) -> Vec<(f64, f64)> {
    curve
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, &v)| {
            let page = curve_page_index(i, curve.len(), pages);
            (page as f64 + 1.0, v.clamp(0.0, 1.0))
        })
        .collect()
}

/// Draws one panel whose box starts at `top`: frame, grid, ticks, axis labels, title, the
/// series and their legend.
fn panel(svg: &mut String, top: f64, title: &str, x_label: &str, series: &[Series]) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (top + PANEL_TOP, top + PANEL_HEIGHT - PANEL_BOTTOM);
    let x_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let (y_low, y_step) = y_range(series);
    let sx = |x: f64| x0 + x / x_max * (x1 - x0);
    let sy = |y: f64| y1 - (y - y_low) / (1.0 - y_low) * (y1 - y0);

    let _ = writeln!(svg, r#"<g class="panel">"#);
    let _ = writeln!(
        svg,
        r#"<text class="panel-title" x="{:.1}" y="{:.1}" text-anchor="middle" font-size="14">{}</text>"#,
        (x0 + x1) / 2.0,
        top + 22.0,
        escape(title)
    );
    // Grid and y ticks, from the lowest to 1.
    let ticks = ((1.0 - y_low) / y_step).round() as usize;
    let decimals = if y_step < 0.1 - 1e-9 { 2 } else { 1 };
    for k in 0..=ticks {
        let v = y_low + k as f64 * y_step;
        let y = sy(v);
        let _ = writeln!(
            svg,
            r##"<line x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="#dddddd" stroke-width="1"/>"##
        );
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{v:.decimals$}</text>"#,
            x0 - 6.0,
            y + 4.0
        );
    }
    // X ticks.
    let step = nice_step(x_max, 8);
    let mut t = 0.0;
    while t <= x_max + 1e-9 {
        let x = sx(t);
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{:.1}" stroke="black" stroke-width="1"/>"#,
            y1 + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{t}</text>"#,
            y1 + 18.0
        );
        t += step;
    }
    // Axes and labels.
    let _ = writeln!(
        svg,
        r#"<rect class="frame" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="black" stroke-width="1"/>"#,
        x1 - x0,
        y1 - y0
    );
    let _ = writeln!(
        svg,
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        (x0 + x1) / 2.0,
        y1 + 38.0,
        escape(x_label)
    );
    let (lx, ly) = (18.0, (y0 + y1) / 2.0);
    let _ = writeln!(
        svg,
        r#"<text class="axis-label" x="{lx:.1}" y="{ly:.1}" text-anchor="middle" transform="rotate(-90 {lx:.1} {ly:.1})">F1, cumulative mean</text>"#
    );
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = writeln!(
            svg,
            r##"<text class="empty" x="{:.1}" y="{:.1}" text-anchor="middle" fill="#888888">no pages</text>"##,
            (x0 + x1) / 2.0,
            (y0 + y1) / 2.0
        );
    }
    // Series.
    for s in series {
        match s.points.as_slice() {
            [] => {}
            [(x, y)] => {
                let _ = writeln!(
                    svg,
                    r#"<circle class="series" cx="{:.1}" cy="{:.1}" r="2.5" fill="{}"/>"#,
                    sx(*x),
                    sy(*y),
                    s.colour
                );
            }
            points => {
                let mut coords = String::with_capacity(points.len() * 12);
                for (x, y) in points {
                    let _ = write!(coords, "{:.1},{:.1} ", sx(*x), sy(*y));
                }
                let _ = writeln!(
                    svg,
                    r#"<polyline class="series" fill="none" stroke="{}" stroke-width="1.5"{} points="{}"/>"#,
                    s.colour,
                    s.dash_attribute(),
                    coords.trim_end()
                );
            }
        }
    }
    // Legend.
    for (i, s) in series.iter().enumerate() {
        let y = y0 + 8.0 + 18.0 * i as f64;
        let lx = x1 + 16.0;
        let _ = writeln!(
            svg,
            r#"<line class="legend-swatch" x1="{lx:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{}" stroke-width="3"{}/>"#,
            lx + 22.0,
            s.colour,
            s.dash_attribute()
        );
        let _ = writeln!(
            svg,
            r#"<text class="legend" x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 28.0,
            y + 4.0,
            escape(&s.label)
        );
    }
    let _ = writeln!(svg, "</g>");
}

/// The y axis of a panel as (lowest tick, tick step): the axis ends at 1 and starts at the tick
/// at or below the lowest point, with steps of 0.01, 0.02, 0.05, 0.1 or 0.2 giving at most five
/// steps; so curves between 0.85 and 1 fill the panel instead of its top sixth. An empty panel,
/// or one whose curves reach 0, spans 0..1.
fn y_range(series: &[Series]) -> (f64, f64) {
    let lowest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0f64, f64::min)
        .clamp(0.0, 1.0);
    let span = (1.0 - lowest).max(0.01);
    let step = [0.01, 0.02, 0.05, 0.1, 0.2]
        .into_iter()
        .find(|step| span / step <= 5.0 + 1e-9)
        .unwrap_or(0.2);
    // Rounded to the step, so ticks land on round values; below the lowest point, never above.
    let mut low = ((lowest / step) + 1e-9).floor() * step;
    if low > lowest + 1e-9 {
        low -= step;
    }
    if 1.0 - low < step - 1e-9 {
        low = 1.0 - step;
    }
    (low.max(0.0), step)
}

/// A tick step of 1, 2 or 5 times a power of ten (at least 1) giving about `target` ticks up to
/// `max`.
fn nice_step(max: f64, target: usize) -> f64 {
    let raw = (max / target.max(1) as f64).max(1.0);
    let magnitude = 10f64.powf(raw.log10().floor());
    let norm = raw / magnitude;
    let factor = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    factor * magnitude
}

/// `label` cut to [`LEGEND_CHARS`] characters (`…` marks a cut).
fn short(label: &str) -> String {
    if label.chars().nth(LEGEND_CHARS).is_none() {
        return label.to_owned();
    }
    let mut out: String = label.chars().take(LEGEND_CHARS - 1).collect();
    out.push('…');
    out
}

/// `text` safe as XML character data and attribute values: markup characters escaped, characters
/// XML 1.0 forbids replaced by `?`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::report::EvalAccumulator;
    use crate::eval::score::PageScore;

    fn page(f1: f64) -> PageScore {
        PageScore {
            precision: f1,
            recall: f1,
            f1,
            f1_bow: f1,
            f1_chars: f1,
            f1_set: f1,
            extracted_tokens: 1,
            gold_tokens: 1,
        }
    }

    fn run(label: &str, domains: usize, pages_per_domain: usize) -> RunReport {
        let mut acc = EvalAccumulator::new();
        for p in 0..pages_per_domain {
            for d in 0..domains {
                let domain = if d == 0 {
                    "<evil & \"co\">\u{1}.com".to_owned()
                } else {
                    format!("site{d}.example")
                };
                acc.push(&domain, &page(((p + d) % 3) as f64 / 2.0));
            }
        }
        acc.finish(label)
    }

    fn parse(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).expect("valid XML")
    }

    #[test]
    fn two_runs_give_three_panels_with_curves_and_escaped_legends() {
        let runs = [run("strict", 15, 30), run("relaxed <b>", 2, 2500)];
        let mut bytes = Vec::new();
        write_svg(&runs, &mut bytes).unwrap();
        let svg = String::from_utf8(bytes).unwrap();
        let doc = parse(&svg);
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        let with_class = |class: &str| {
            doc.descendants()
                .filter(|n| n.attribute("class") == Some(class))
                .count()
        };
        assert_eq!(with_class("panel"), 3);
        // Overall: 2 runs; run 1: 12 of its 15 domains; run 2: 2 domains.
        assert_eq!(with_class("series"), 2 + 12 + 2);
        assert_eq!(with_class("legend"), 16);
        assert!(with_class("tick") > 3 * 6);
        assert_eq!(with_class("axis-label"), 6);
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text().map(str::to_owned))
            .collect();
        assert!(texts.iter().any(|t| t == "<evil & \"co\">?.com (30)"));
        assert!(texts
            .iter()
            .any(|t| t.starts_with("relaxed <b>: per domain")));
        // Every polyline stays inside the frame of its panel.
        for panel in doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("panel"))
        {
            let frame = panel
                .children()
                .find(|n| n.attribute("class") == Some("frame"))
                .unwrap();
            let num = |name: &str| -> f64 { frame.attribute(name).unwrap().parse().unwrap() };
            let (fx, fy) = (num("x"), num("y"));
            let (fw, fh) = (num("width"), num("height"));
            for line in panel.children().filter(|n| n.has_tag_name("polyline")) {
                for xy in line.attribute("points").unwrap().split(' ') {
                    let (x, y) = xy.split_once(',').unwrap();
                    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                    assert!((fx..=fx + fw + 0.1).contains(&x), "x {x}");
                    assert!((fy - 0.1..=fy + fh + 0.1).contains(&y), "y {y}");
                }
            }
        }
        // The long stream (5000 pages) is drawn to its last page at the right edge.
        let last_panel_line = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .nth(1)
            .unwrap();
        let last_x: f64 = last_panel_line
            .attribute("points")
            .unwrap()
            .rsplit(' ')
            .next()
            .and_then(|xy| xy.split(',').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!((last_x - (WIDTH - RIGHT)).abs() < 0.11, "{last_x}");
    }

    #[test]
    fn no_runs_and_single_pages_are_still_valid() {
        let doc_svg = render_svg(&[]);
        let doc = parse(&doc_svg);
        assert!(doc
            .descendants()
            .any(|n| n.attribute("class") == Some("empty")));

        let one = run("x", 1, 1);
        let svg = render_svg(&[one]);
        let doc = parse(&svg);
        assert_eq!(
            doc.descendants()
                .filter(|n| n.has_tag_name("circle"))
                .count(),
            2
        );
    }

    /// The y ticks of each panel, as numbers.
    fn y_ticks(doc: &roxmltree::Document<'_>) -> Vec<Vec<f64>> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("panel"))
            .map(|panel| {
                panel
                    .children()
                    .filter(|n| {
                        n.attribute("class") == Some("tick")
                            && n.attribute("text-anchor") == Some("end")
                    })
                    .map(|n| n.text().unwrap().parse().unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_y_axis_fits_the_curves() {
        // Curves between 0.85 and 1 (F1 of 0.85 and 1 alternating): the axis starts at 0.8,
        // not 0, and ends at 1.
        let mut acc = EvalAccumulator::new();
        for p in 0..40 {
            acc.push("a.example", &page(if p % 2 == 0 { 0.85 } else { 1.0 }));
        }
        let svg = render_svg(&[acc.finish("hybrid")]);
        let doc = parse(&svg);
        for ticks in y_ticks(&doc) {
            let (low, high) = (ticks[0], *ticks.last().unwrap());
            assert!((0.8..=0.85).contains(&low), "{ticks:?}");
            assert!((high - 1.0).abs() < 1e-9, "{ticks:?}");
            assert!((3..=6).contains(&ticks.len()), "{ticks:?}");
        }
        // Curves that reach 0 keep the whole range.
        let svg = render_svg(&[run("x", 2, 6)]);
        for ticks in y_ticks(&parse(&svg)) {
            assert_eq!(ticks.first(), Some(&0.0), "{ticks:?}");
        }
    }

    /// CIELAB (D65) of a `#rrggbb` colour.
    fn lab(hex: &str) -> [f64; 3] {
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c > 0.04045 {
                ((c + 0.055) / 1.055).powf(2.4)
            } else {
                c / 12.92
            }
        };
        let (r, g, b) = (channel(1), channel(3), channel(5));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 0.008856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    #[test]
    fn ten_domains_get_ten_distinct_colours_and_no_two_series_look_alike() {
        let svg = render_svg(&[run("x", 25, 3)]);
        let doc = parse(&svg);
        let panel = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("panel"))
            .nth(1)
            .unwrap();
        let looks: Vec<(String, String)> = panel
            .children()
            .filter(|n| n.attribute("class") == Some("series"))
            .map(|n| {
                (
                    n.attribute("stroke").unwrap().to_owned(),
                    n.attribute("stroke-dasharray").unwrap_or("").to_owned(),
                )
            })
            .collect();
        assert_eq!(looks.len(), MAX_DOMAIN_CURVES);
        let distinct: std::collections::BTreeSet<_> = looks.iter().collect();
        assert_eq!(distinct.len(), looks.len(), "{looks:?}");
        // Any two of the first ten colours are at least 40 apart in CIELAB ΔE (an obvious
        // difference at a glance), and all read on white (lightness under 75).
        let ten: Vec<[f64; 3]> = looks.iter().take(10).map(|(c, _)| lab(c)).collect();
        for (i, a) in ten.iter().enumerate() {
            assert!(a[0] < 75.0, "{} is too light", looks[i].0);
            for (j, b) in ten.iter().enumerate().skip(i + 1) {
                let de = a
                    .iter()
                    .zip(b)
                    .map(|(p, q)| (p - q).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(de >= 40.0, "{} and {}: ΔE {de:.1}", looks[i].0, looks[j].0);
            }
        }
        // Every legend swatch is drawn like its series.
        let swatches = panel
            .children()
            .filter(|n| n.attribute("class") == Some("legend-swatch"))
            .map(|n| {
                (
                    n.attribute("stroke").unwrap().to_owned(),
                    n.attribute("stroke-dasharray").unwrap_or("").to_owned(),
                )
            });
        assert!(swatches.eq(looks.iter().cloned()));
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(10.0, 8), 2.0);
        assert_eq!(nice_step(1009.0, 8), 200.0);
        assert_eq!(nice_step(3.0, 8), 1.0);
        assert_eq!(nice_step(80.0, 8), 10.0);
    }
}
