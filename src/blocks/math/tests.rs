//! The linear form and TeX source of formulas, read through the real tokenizer.

use crate::blocks::{Block, Capture, ParseLimits, Tokenizer};

fn blocks(html: &str) -> Vec<Block> {
    Tokenizer::with_capture(ParseLimits::default(), Capture::ALL)
        .blocks(html.as_bytes())
        .expect("blocks")
}

/// The block text and its formulas as (linear, tex, display).
fn formulas(html: &str) -> (String, Vec<(String, Option<String>, bool)>) {
    let b = blocks(html);
    assert_eq!(b.len(), 1, "{b:?}");
    let b = &b[0];
    let f = b
        .math
        .iter()
        .map(|m| {
            (
                b.text[m.start as usize..m.end as usize].to_owned(),
                m.tex.clone(),
                m.display,
            )
        })
        .collect();
    (b.text.clone(), f)
}

#[test]
fn mathml_stands_in_its_sentence_with_its_tex_source() {
    // MediaWiki's markup: the TeX in an annotation, wrapped in `{\displaystyle …}`.
    let (text, f) = formulas(
        r#"<p>Energy <span class="mwe-math-element"><span class="mwe-math-mathml-inline" style="display: none;"><math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\displaystyle E=mc^{2}}">
  <semantics>
    <mrow class="MJX-TeXAtom-ORD">
      <mstyle displaystyle="true" scriptlevel="0">
        <mi>E</mi>
        <mo>=</mo>
        <mi>m</mi>
        <msup>
          <mi>c</mi>
          <mrow class="MJX-TeXAtom-ORD">
            <mn>2</mn>
          </mrow>
        </msup>
      </mstyle>
    </mrow>
    <annotation encoding="application/x-tex">{\displaystyle E=mc^{2}}</annotation>
  </semantics>
</math></span><img src="https://wikimedia.org/x.svg" class="mwe-math-fallback-image-inline" aria-hidden="true" alt="{\displaystyle E=mc^{2}}"></span> is mass.</p>"#,
    );
    assert_eq!(text, "Energy E=mc^2 is mass.");
    assert_eq!(
        f,
        [("E=mc^2".to_owned(), Some("E=mc^{2}".to_owned()), false)]
    );
}

#[test]
fn linear_forms() {
    let linear = |mathml: &str| {
        let (_, f) = formulas(&format!("<p>x <math>{mathml}</math> y</p>"));
        f.into_iter().next().map(|f| f.0).unwrap_or_default()
    };
    assert_eq!(
        linear("<mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac>"),
        "(a+b)/2"
    );
    assert_eq!(
        linear("<msqrt><mi>x</mi><mo>+</mo><mn>1</mn></msqrt>"),
        "√(x+1)"
    );
    assert_eq!(linear("<mroot><mi>x</mi><mn>3</mn></mroot>"), "x^(1/3)");
    assert_eq!(
        linear("<msubsup><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></msubsup><msub><mi>x</mi><mi>i</mi></msub>"),
        "∑_(i=1)^n x_i"
    );
    assert_eq!(
        linear("<msup><mi>x</mi><mrow><mo>−</mo><mn>1</mn></mrow></msup>"),
        "x^(−1)"
    );
    // Words of letters keep their space; invisible operators are dropped.
    assert_eq!(
        linear(
            "<mn>2</mn><mi>r</mi><mi>arcsin</mi><mo>&#x2061;</mo><mo>(</mo><mi>h</mi><mo>)</mo>"
        ),
        "2r arcsin(h)"
    );
    assert_eq!(
        linear("<mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr></mtable>"),
        "a b; c d"
    );
    assert_eq!(
        linear("<mfenced open='[' close=']'><mi>a</mi><mi>b</mi></mfenced>"),
        "[a,b]"
    );
    assert_eq!(
        linear("<mtext>KV Cache</mtext><mphantom><mi>z</mi></mphantom>"),
        "KV Cache"
    );
}

#[test]
fn display_math_and_alttext_sources() {
    let (_, f) = formulas(
        r#"<p><math display="block" alttext="\frac{a}{b}"><mfrac><mi>a</mi><mi>b</mi></mfrac></math></p>"#,
    );
    assert_eq!(f, [("a/b".into(), Some("\\frac{a}{b}".into()), true)]);
    // An alttext that reads as words is no TeX source.
    let (_, f) =
        formulas(r#"<p>a <math alttext="x squared"><msup><mi>x</mi><mn>2</mn></msup></math></p>"#);
    assert_eq!(f, [("x^2".into(), None, false)]);
}

#[test]
fn tex_scripts_are_their_own_source() {
    // kramdown's MathJax output, with its CDATA wrapper for `<`.
    let b = blocks(
        "<p>Keep two pointers <script type=\"math/tex\">i</script> and <script type=\"math/tex\">j</script>, \
         where</p><script type=\"math/tex; mode=display\">% <![CDATA[\nx < y \\\\ y & z\n%]]></script>",
    );
    let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Keep two pointers i and j, where", "x < y \\\\ y & z"]
    );
    assert_eq!(b[0].math.len(), 2);
    assert_eq!(b[0].math[0].tex.as_deref(), Some("i"));
    assert!(b[1].math[0].display);
    // Other scripts stay dropped, and break no line: a browser renders none.
    let b = blocks("<p>a<script>var x = 1;</script>b</p>");
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].text, "ab");
    assert!(b[0].math.is_empty());
}

#[test]
fn katex_glyphs_are_read_once() {
    // KaTeX's output: MathML with the TeX, then the glyphs in `katex-html`.
    let (text, f) = formulas(
        r#"<p>Ratio <span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mn>32768</mn><mi mathvariant="normal">/</mi><mn>2048</mn></mrow><annotation encoding="application/x-tex">32768 / 2048</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" style="height:1em;"></span><span class="mord">32768/2048</span></span></span></span>.</p>"#,
    );
    assert_eq!(text, "Ratio 32768/2048.");
    assert_eq!(
        f,
        [("32768/2048".into(), Some("32768 / 2048".into()), false)]
    );
    // A `katex-html` left open ends where a block starts.
    let b = blocks(r#"<p>a <span class="katex-html"><span>x</span></p><p>after</p>"#);
    let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["a", "after"]);
}

#[test]
fn broken_and_hostile_math_stays_bounded() {
    // Unclosed: the formula ends with the page.
    let (text, f) = formulas("<p>x <math><mi>a</mi><mo>+");
    assert_eq!(text, "x a+");
    assert_eq!(f.len(), 1);
    // An HTML start tag breaks out of MathML, ending the formula.
    let b = blocks("<p>x <math><mi>a</mi><p>next</p>");
    let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["x a", "next"]);
    // Deep nesting and a long formula.
    let deep = format!(
        "<p><math>{}<mi>z</mi>{}</math></p>",
        "<mrow>".repeat(10_000),
        "</mrow>".repeat(10_000)
    );
    let (text, _) = formulas(&deep);
    assert_eq!(text, "z");
    let long = format!(
        "<p><math>{}</math></p>",
        "<mi>x</mi><mo>+</mo>".repeat(20_000)
    );
    let b = blocks(&long);
    assert!(
        b[0].text.len() <= super::MAX_FORMULA_BYTES + 8,
        "{}",
        b[0].text.len()
    );
    // Empty formulas leave nothing.
    assert!(blocks("<p><math></math></p>").is_empty());
}
