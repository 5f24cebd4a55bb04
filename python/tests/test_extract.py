"""`urltree.extract`: one page, no state, as `urltree extract` gives it for one HTML page."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import urltree
from conftest import corpus_pages


def test_a_sample_page_gives_its_main_text(sample_lines):
    record = json.loads(sample_lines[0])
    text = urltree.extract(record["html"], record["url"])
    assert isinstance(text, str) and len(text) > 500
    assert "Let's create a library" in text
    # The book's table of contents is around the text, not in it.
    assert "Formatted print" in record["html"] and "Formatted print" not in text
    full = urltree.extract(record["html"], record["url"], output_format="python")
    assert full["text"] == text
    assert full["url"] == record["url"]
    assert full["domain"] == "rust-lang.org"
    assert full["model"]["cold_start"] is True
    assert full["lang"]["code"] == "en"
    as_json = urltree.extract(record["html"], record["url"], output_format="json")
    assert json.loads(as_json)["text"] == text


def test_markdown_keeps_the_structure(sample_lines):
    for line in sample_lines[:40]:
        record = json.loads(line)
        if "<pre" in record["html"]:
            break
    markdown = urltree.extract(record["html"], record["url"], output_format="markdown")
    assert "```" in markdown, markdown[:2000]
    assert markdown.lstrip().startswith("#"), markdown[:200]


def test_bytes_are_decoded_in_the_encoding_the_page_declares():
    html = (
        "<html><head><meta charset='windows-1251'><title>Статья</title></head><body><article>"
        "<p>Это статья на русском языке, достаточно длинная, чтобы быть текстом страницы.</p>"
        "</article></body></html>"
    )
    record = urltree.extract(html.encode("windows-1251"), "https://example.ru/a", output_format="python")
    assert "статья на русском языке" in record["text"]
    assert record["encoding"] == {"name": "windows-1251", "source": "meta"}
    assert record["title"] == "Статья"


def test_python_and_the_cli_give_the_same_text_on_every_shared_set(corpus, urltree_bin, tmp_path):
    pages = corpus_pages(corpus, per_set=3)
    assert len({p["set"] for p in pages}) >= 13
    for n, page in enumerate(pages):
        path = tmp_path / f"page{n}.html"
        path.write_text(page["html"], encoding="utf-8")
        result = subprocess.run(
            [str(urltree_bin), "extract", str(path), "--url", page["url"], "-q"],
            capture_output=True,
            cwd=tmp_path,
            env={**os.environ, "RUST_LOG": "error"},
            check=True,
        )
        (cli,) = [json.loads(line) for line in result.stdout.splitlines()]
        python = urltree.extract(page["html"], page["url"], output_format="python")
        assert (python or {}).get("text", "") == cli["text"], (page["set"], page["url"])
        if python is not None:
            for field in ("url_key", "domain", "title", "lang", "model"):
                assert python.get(field) == cli.get(field), (field, page["url"])
    assert not (tmp_path / "urltree-state").exists()


def test_a_page_without_a_url_is_filed_under_the_unknown_one():
    html = "<article><h1>Notes</h1><p>A paragraph of notes that is long enough to be the text.</p></article>"
    record = urltree.extract(html, output_format="python")
    assert record["url"] == urltree.UNKNOWN_URL
    assert record["domain"] == "unknown.invalid"
    assert "paragraph of notes" in record["text"]


def test_hostile_input_gets_clear_errors_or_text():
    # Not HTML at all: bytes of an image come out as whatever text they hold, or nothing.
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    result = urltree.extract(png, "https://example.org/i.png")
    assert result is None or isinstance(result, str)
    # Invalid UTF-8 is decoded, never refused.
    text = urltree.extract(b"<p>Caf\xe9 cr\xe8me \xff\xfe and more words here.</p>", "https://example.fr/")
    assert "Café crème" in text
    # Empty and whitespace pages have no main text.
    assert urltree.extract("", "https://example.org/") is None
    assert urltree.extract("   \n ", "https://example.org/") is None
    # A URL that cannot be keyed, with its dead-letter kind.
    with pytest.raises(urltree.BadUrlError) as error:
        urltree.extract("<p>x</p>", "mailto:someone@example.org")
    assert error.value.kind == "bad-url"
    assert isinstance(error.value, urltree.RejectedError)
    assert isinstance(error.value, ValueError)
    assert "bad-url" in str(error.value)
    with pytest.raises(urltree.BadUrlError):
        urltree.extract("<p>x</p>", "not a url")
    # A page over the parser's limit.
    huge = "<p>" + "word " * (4 << 20) + "</p>"
    assert len(huge) > 16 << 20
    with pytest.raises(urltree.RejectedError) as error:
        urltree.extract(huge, "https://example.org/huge")
    assert error.value.kind in ("bad-html", "too-large"), error.value
    # Wrong types and values are Python errors that name what is wrong.
    with pytest.raises(TypeError, match="html must be str or bytes"):
        urltree.extract(12, "https://example.org/")
    with pytest.raises(TypeError):
        urltree.extract("<p>x</p>", 12)
    with pytest.raises(ValueError, match="output_format"):
        urltree.extract("<p>x</p>", output_format="xml")
    with pytest.raises(ValueError, match="favor_precision and favor_recall"):
        urltree.extract("<p>x</p>", favor_precision=True, favor_recall=True)
    with pytest.raises(TypeError, match="include_comments"):
        urltree.extract("<p>x</p>", include_comments="yes")


# A blog post in WordPress's markup: the post, then its comment thread below it, outside the
# post's element, and the reply form.
_POST_WITH_COMMENTS = """<!DOCTYPE html><html><head><title>Pruning apple trees | Orchard notes</title></head>
<body><header><a href="/">Orchard notes</a></header>
<div id="primary"><main id="main">
<article class="post"><h1 class="entry-title">Pruning apple trees</h1>
<div class="entry-content">
<p>Apple trees are pruned in late winter, while they are dormant and before the buds begin to
swell, so that the cuts heal quickly once the sap rises in spring.</p>
<p>Start with the dead, damaged and diseased wood, then take out the branches that cross or rub,
and finally thin the crown so that light and air reach the middle of the tree.</p>
</div></article>
<div id="comments" class="comments-area">
<h2 class="comments-title">2 thoughts on Pruning apple trees</h2>
<ol class="comment-list">
<li class="comment"><article class="comment-body"><div class="comment-content">
<p>We pruned our old Bramley this way last February and it gave the best crop in years.</p>
</div></article></li>
<li class="comment"><article class="comment-body"><div class="comment-content">
<p>Would you also thin the fruitlets in June, or leave the tree to drop them on its own?</p>
</div></article></li>
</ol>
<div id="respond"><h3>Leave a reply</h3><p>Your email address will not be published.</p></div>
</div></main></div>
<footer><p>Orchard notes, a garden blog.</p></footer></body></html>"""


def test_include_comments_keeps_the_comment_thread_after_the_text():
    url = "https://orchard.example.org/pruning"
    dropped = urltree.extract(_POST_WITH_COMMENTS, url)
    kept = urltree.extract(_POST_WITH_COMMENTS, url, include_comments=True)
    assert "dormant" in dropped and "Bramley" not in dropped
    assert "dormant" in kept and "Bramley" in kept and "fruitlets" in kept
    # After the text, as trafilatura appends them; the reply form is not a comment.
    assert kept.index("dormant") < kept.index("Bramley")
    assert "email address" not in kept
    # The config says the same; include_comments=False leaves the config's.
    assert urltree.extract(_POST_WITH_COMMENTS, url, config={"tree": {"comments": "keep"}}) == kept
    with urltree.Extractor(include_comments=True) as extractor:
        record = extractor.extract(url, _POST_WITH_COMMENTS)
    assert "Bramley" in record["text"]


def test_favor_precision_and_recall_set_the_focus():
    url = "https://orchard.example.org/pruning"
    for favor, focus in (("favor_precision", "precision"), ("favor_recall", "recall")):
        assert urltree.extract(_POST_WITH_COMMENTS, url, **{favor: True}) == urltree.extract(
            _POST_WITH_COMMENTS, url, config={"tree": {"focus": focus}}
        )
    with pytest.raises(urltree.ConfigError, match="both"):
        urltree.extract("<p>x</p>", config={"tree": {"focus": "both"}})


def test_config_is_a_dict_or_a_toml_file(tmp_path, sample_lines):
    record = json.loads(sample_lines[3])
    strict = urltree.extract(record["html"], record["url"], config={"tree": {"heuristic": "strict"}})
    hybrid = urltree.extract(record["html"], record["url"])
    # On its cold start the paper's strict heuristic keeps every block: the navigation too.
    assert len(strict) > len(hybrid)
    path = tmp_path / "urltree.toml"
    path.write_text('[tree]\nheuristic = "strict"\n')
    assert urltree.extract(record["html"], record["url"], config=path) == strict
    assert urltree.extract(record["html"], record["url"], config=str(path)) == strict
    with pytest.raises(urltree.ConfigError, match="unknown heuristic"):
        urltree.extract("<p>x</p>", config={"tree": {"heuristic": "fuzzy"}})
    with pytest.raises(urltree.ConfigError, match="max_dogs"):
        urltree.extract("<p>x</p>", config={"retention": {"max_dogs": 3}})
    with pytest.raises(urltree.ConfigError, match="cannot read config file"):
        urltree.extract("<p>x</p>", config=tmp_path / "missing.toml")
    # The environment is not read.
    os.environ["URLTREE_TREE__HEURISTIC"] = "strict"
    try:
        assert urltree.extract(record["html"], record["url"]) == hybrid
    finally:
        del os.environ["URLTREE_TREE__HEURISTIC"]


def test_links_and_images_as_trafilatura_names_them(repo):
    html = (repo / "tests" / "data" / "pages" / "katex-attention.html").read_text(encoding="utf-8")
    url = "https://notes.example.org/ml/2025/03/attention/"
    link = "[why softmax saturates](https://notes.example.org/ml/posts/softmax-saturation.html)"
    image = (
        "![Attention weights of one head over a sentence]"
        "(https://notes.example.org/ml/img/attention-weights.png)"
    )
    # By default links are in the Markdown (resolved against the page's <base href>), not in the
    # text; no images.
    markdown = urltree.extract(html, url, output_format="markdown")
    text = urltree.extract(html, url)
    assert link in markdown and image not in markdown
    assert "why softmax saturates" in text and "](" not in text
    # True: in the text and the Markdown; False: nowhere.
    linked = urltree.extract(html, url, include_links=True, include_images=True)
    assert link in linked and image in linked
    unlinked = urltree.extract(html, url, output_format="markdown", include_links=False)
    assert "](http" not in unlinked and "why softmax saturates" in unlinked
    # Links and images are marks on the text: taken out, it is the same text.
    record = urltree.extract(html, url, output_format="python", include_links=True)
    assert re.sub(r"\[([^\]]*)\]\(https://[^)\s]*\)", r"\1", record["text"]) == text
    # Formulas are their characters in the text and their TeX in the Markdown.
    assert "a query q_i, a key k_i and a value v_i" in text
    assert "a query $q_i$, a key $k_i$ and a value $v_i$" in markdown
    with pytest.raises(TypeError, match="include_links"):
        urltree.extract(html, url, include_links="yes")


def test_extractor_takes_the_same_link_options(repo):
    html = (repo / "tests" / "data" / "pages" / "katex-attention.html").read_text(encoding="utf-8")
    url = "https://notes.example.org/ml/2025/03/attention/"
    with urltree.Extractor(markdown=True, include_links=False, include_images=True) as extractor:
        record = extractor.extract(url, html)
    assert "](https://notes.example.org/ml/posts/" not in record["markdown"]
    assert "](https://notes.example.org/ml/img/attention-weights.png)" in record["markdown"]
    assert "](" in record["text"]
