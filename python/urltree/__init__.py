"""urltree: clean main text from crawled HTML.

Two ways in:

- :func:`extract` takes one page and returns its main text. It keeps no state: the page is
  classified as its site's first page (the cold-start path, which reads the page's own
  structure) and nothing is written anywhere. Its arguments are named as trafilatura names them
  where they mean the same thing.
- :class:`Extractor` runs a stream of pages through the URL Tree, which learns each site's
  template from the pages before (what recurs under the same part of a site's URL space is
  boilerplate). It keeps its state in a directory of its own, temporary unless you name one.

Records are ``dict`` objects with the fields of ``urltree extract``'s JSONL output; a page that
cannot be processed raises the :class:`RejectedError` subclass of its dead-letter kind.
"""

from __future__ import annotations

import base64
import datetime as _datetime
import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from . import _urltree
from . import _errors
from ._errors import (
    KINDS,
    BadEncodingError,
    BadHtmlError,
    BadUrlError,
    ClosedError,
    ConfigError,
    DomainMismatchError,
    InputError,
    InvalidFieldError,
    InvalidJsonError,
    MissingFieldError,
    RejectedError,
    StateError,
    TooLargeError,
    UndeliveredError,
    UnreadableError,
    UrltreeError,
)

__all__ = ["extract", "Extractor", "UNKNOWN_URL", *_errors.__all__]

#: The URL a page given without one is filed under (``.invalid`` never resolves, RFC 2606).
UNKNOWN_URL: str = _urltree.UNKNOWN_URL

_OUTPUT_FORMATS = ("txt", "markdown", "json", "python")

Config = Union[str, "os.PathLike[str]", Mapping[str, Any], None]


def _config(config: Config, overrides: Mapping[str, Any]) -> Optional[str]:
    """The TOML text of ``config`` (a file path, or a dict of sections like the file's) with
    ``overrides`` laid over it, or None for the defaults. The environment is not read."""
    if config is None and not overrides:
        return None
    sections: dict[str, Any] = {}
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read config file {path}: {e}") from None
        if not overrides:
            return text
        return _urltree.config_toml(text, str(path), json.dumps(overrides))
    if isinstance(config, Mapping):
        sections = {name: dict(section) if isinstance(section, Mapping) else section
                    for name, section in config.items()}
    elif config is not None:
        raise TypeError(f"config must be a path, a dict or None, not {type(config).__name__}")
    for name, section in overrides.items():
        merged = dict(sections.get(name) or {})
        merged.update(section)
        sections[name] = merged
    return _urltree.config_toml("", "config", json.dumps(sections))


def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    output_format: str = "txt",
    include_comments: bool = False,
    include_links: Optional[bool] = None,
    include_images: Optional[bool] = None,
    favor_precision: bool = False,
    favor_recall: bool = False,
    title: Optional[str] = None,
    config: Config = None,
) -> Union[str, dict, None]:
    """The main text of one page, or None when it has none.

    Nothing is kept or written: the page is classified as the first page of its site (the
    cold-start path). For many pages of the same sites, :class:`Extractor` also learns each
    site's template from the pages before.

    :param html: the page, as text (``str``) or as the bytes fetched (``bytes``), whose encoding
        is read from the page's ``<meta>`` or detected.
    :param url: the page's URL (after redirects): its registrable domain and URL key are
        reported and relative links resolve against it. Without one, the page is filed under
        :data:`UNKNOWN_URL`.
    :param output_format: ``"txt"`` (the main text, blocks separated by blank lines),
        ``"markdown"`` (headings, lists, tables, code and quotes kept), ``"json"`` (the whole
        record as JSON text) or ``"python"`` (the whole record as a ``dict``): the record has the
        fields of ``urltree extract``'s JSONL output (``text``, ``title``, ``lang``, ``author``,
        ``published``, ``url_key``, ``domain``, ``model``, ...).
    :param include_comments: True: the comments the page's markup marks are kept after its
        main text where no other rule drops them (``[tree] comments = "keep"``); False (the
        default, unlike trafilatura's): dropped with the rest of what surrounds the text.
    :param include_links: True: links as ``[text](absolute URL)`` in the text and the Markdown
        (resolved against the page's ``<base href>`` and ``url``); False: their text alone. None
        (the default): as the config's ``[output] include_links`` says, by default in the
        Markdown and not in the text.
    :param include_images: True: images as ``![alt](absolute URL)`` in the text and the
        Markdown; False: none. None (the default): as ``[output] include_images`` says, by
        default none.
    :param favor_precision: less text, more of it the main text (``[tree] focus =
        "precision"``).
    :param favor_recall: more text, fewer of the main text's blocks lost (``[tree] focus =
        "recall"``). Not both: neither is the default balance, what scores best.
    :param title: the page's title when known (else the page's ``<title>`` is reported).
    :param config: a TOML config file's path, or a dict of its sections (``{"tree":
        {"heuristic": "strict"}}``); ``URLTREE_*`` environment variables are not read.
    :raises RejectedError: the subclass of the page's dead-letter kind, e.g. :class:`BadUrlError`
        for a URL without a registrable domain or :class:`TooLargeError` for a page over the
        parser's limit.
    :raises ConfigError: the configuration is invalid.
    :raises ValueError: ``favor_precision`` and ``favor_recall`` are both True.
    """
    if output_format not in _OUTPUT_FORMATS:
        raise ValueError(
            f"output_format must be one of {', '.join(map(repr, _OUTPUT_FORMATS))}, "
            f"not {output_format!r}"
        )
    output_overrides = _marks(include_links, include_images)
    if output_format == "markdown":
        output_overrides["markdown"] = True
    overrides: dict[str, Any] = {"output": output_overrides} if output_overrides else {}
    tree = _prefs(include_comments, favor_precision, favor_recall)
    if tree:
        overrides["tree"] = tree
    output = {"txt": "text", "markdown": "markdown"}.get(output_format, "json")
    result = _urltree.extract_page(html, url, output, title=title, config_toml=_config(config, overrides))
    if result is not None and output_format == "python":
        return json.loads(result)
    return result


def _marks(include_links: Optional[bool], include_images: Optional[bool]) -> dict[str, Any]:
    """The ``[output]`` fields that ``include_links`` and ``include_images`` set: True is
    ``"all"`` (the text and the Markdown), False ``"none"``, None leaves the config's."""
    fields: dict[str, Any] = {}
    for name, value in (("include_links", include_links), ("include_images", include_images)):
        if value is None:
            continue
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True, False or None, not {value!r}")
        fields[name] = "all" if value else "none"
    return fields


def _prefs(include_comments: bool, favor_precision: bool, favor_recall: bool) -> dict[str, Any]:
    """The ``[tree]`` fields that ``include_comments``, ``favor_precision`` and ``favor_recall``
    set: only those given as True, so False leaves the config's."""
    for name, value in (
        ("include_comments", include_comments),
        ("favor_precision", favor_precision),
        ("favor_recall", favor_recall),
    ):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {value!r}")
    if favor_precision and favor_recall:
        raise ValueError(
            "favor_precision and favor_recall cannot both be True: choose one, or neither for "
            "the default balance"
        )
    fields: dict[str, Any] = {}
    if include_comments:
        fields["comments"] = "keep"
    if favor_precision:
        fields["focus"] = "precision"
    elif favor_recall:
        fields["focus"] = "recall"
    return fields


def _record(record: Any, index: int) -> Union[bytes, str]:
    """One raw-html record for the engine: a JSON line as it is, a dict as JSON (HTML given as
    bytes goes as ``html_base64``, a ``datetime`` as ISO 8601 text)."""
    if isinstance(record, (bytes, str)):
        return record
    if isinstance(record, (bytearray, memoryview)):
        return bytes(record)
    if isinstance(record, Mapping):
        fields = dict(record)
        html = fields.get("html")
        if isinstance(html, (bytes, bytearray, memoryview)):
            del fields["html"]
            fields["html_base64"] = base64.b64encode(html).decode("ascii")
        fetched_at = fields.get("fetched_at")
        if isinstance(fetched_at, _datetime.datetime):
            fields["fetched_at"] = fetched_at.isoformat()
        try:
            return json.dumps(fields, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"record {index} cannot be a JSON record: {e}") from None
    raise TypeError(
        f"record {index} must be a dict, or one raw-html JSON record as str or bytes, "
        f"not {type(record).__name__}"
    )


class Extractor:
    """The URL Tree over a stream of pages: each page is classified against the pages of its
    site before it, as ``urltree extract`` does.

    :param state: a state directory, kept between runs and shared with ``urltree extract
        --state`` (created when missing; a state written with ``--jobs N`` is read with its N
        shards). None: a temporary directory, removed by :meth:`close`.
    :param config: a TOML config file's path, or a dict of its sections (``{"input":
        {"batch_size": 512}}``); ``URLTREE_*`` environment variables are not read.
    :param markdown: each record also holds its ``markdown``.
    :param include_links: True: links as ``[text](absolute URL)`` in ``text`` and ``markdown``;
        False: their text alone; None: as ``[output] include_links`` says (the Markdown only).
    :param include_images: True: images as ``![alt](absolute URL)`` in ``text`` and
        ``markdown``; False: none; None: as ``[output] include_images`` says (none).
    :param include_comments, favor_precision, favor_recall: as for :func:`extract`.
    :raises StateError: the state could not be created or opened (another process has it open,
        the disk, a state of several shard counts).
    :raises ConfigError: the configuration is invalid.

    Use it as a context manager, or call :meth:`close`::

        with urltree.Extractor("crawl-state") as extractor:
            for record in extractor.extract_many(records):
                ...
    """

    def __init__(
        self,
        state: Union[str, "os.PathLike[str]", None] = None,
        config: Config = None,
        *,
        markdown: bool = False,
        include_links: Optional[bool] = None,
        include_images: Optional[bool] = None,
        include_comments: bool = False,
        favor_precision: bool = False,
        favor_recall: bool = False,
    ) -> None:
        output_overrides = _marks(include_links, include_images)
        if markdown:
            output_overrides["markdown"] = True
        overrides: dict[str, Any] = {"output": output_overrides} if output_overrides else {}
        tree = _prefs(include_comments, favor_precision, favor_recall)
        if tree:
            overrides["tree"] = tree
        state_path = None if state is None else os.fspath(state)
        self._inner = _urltree.Extractor(state_path, _config(config, overrides))

    @property
    def path(self) -> Path:
        """The state directory."""
        return Path(self._inner.path)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._inner.closed

    @property
    def stats(self) -> dict:
        """Totals since the extractor was opened: ``records``, ``pages``, ``versions``,
        ``duplicates``, ``rejected``, ``content_blocks``, ``boilerplate_blocks``,
        ``html_bytes``, ``forgotten``, ..."""
        return json.loads(self._inner.stats())

    def extract(
        self,
        url: str,
        html: Union[str, bytes],
        *,
        response_url: Optional[str] = None,
        title: Optional[str] = None,
        fetched_at: Union[str, _datetime.datetime, None] = None,
        charset: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        domain: Optional[str] = None,
    ) -> Optional[dict]:
        """One page through the tree (a batch of its own, committed before this returns).

        :returns: the page's record, or None when its URL key is already held with the same
            content (a duplicate, never emitted twice).
        :raises RejectedError: the subclass of the page's dead-letter kind.
        """
        if isinstance(fetched_at, _datetime.datetime):
            fetched_at = fetched_at.isoformat()
        result = self._inner.extract(
            url,
            html,
            response_url=response_url,
            title=title,
            fetched_at=fetched_at,
            charset=charset,
            headers=dict(headers) if headers is not None else None,
            domain=domain,
        )
        return None if result is None else json.loads(result)

    def extract_many(self, records: Iterable[Any], *, errors: str = "yield") -> Iterator[dict]:
        """The records of a stream of pages, in input order: a generator.

        Each input is a dict of the raw-html record's fields (``url``, ``html`` or
        ``html_base64``, ``response_url``, ``title``, ``fetched_at``, ``charset``, ``headers``,
        ``domain``; ``html`` may be ``bytes``), or one raw-html JSON record as ``str`` or
        ``bytes`` (a JSONL line, the fastest). The records go through the engine in batches of
        ``input.batch_size``, the interpreter released while a batch is processed; a batch is
        committed to the state before its records are yielded.

        Duplicates (a URL key held with the same content) are counted in :attr:`stats` and not
        yielded. A record that cannot be processed is yielded as its dead letter (a dict with
        ``error`` {``kind``, ``message``}, ``source`` and ``payload``) with ``errors="yield"``,
        and left out with ``errors="skip"``. Every yielded record's ``source.offset`` numbers its
        input from 1 over the extractor's life.
        """
        inner = self._open(errors)
        for index, record in enumerate(records, 1):
            inner.push(_record(record, index))
            yield from self._ready(errors)
        inner.flush()
        yield from self._ready(errors)

    def extract_file(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        url: Optional[str] = None,
        base_url: Optional[str] = None,
        errors: str = "yield",
    ) -> Iterator[dict]:
        """The records of a local input, read by urltree's own reader (as ``urltree extract``
        reads it), in input order: a generator.

        :param path: a raw-html JSONL file (plain or gzip), a WARC file (plain or gzip), a
            directory of ``.html`` and WARC files, or one ``.html`` page (with ``url``).
        :param url: the URL of a single HTML page.
        :param base_url: the base URL of a directory's pages (default: the first path
            component is the host).
        :param errors: as for :meth:`extract_many`; each record's ``source`` names the file and
            its line (or record, or file number).
        :raises InputError: the input could not be opened, or read to its end (the records
            before the error are yielded first).
        """
        inner = self._open(errors)
        source = inner.open_input(os.fspath(path), url=url, base_url=base_url)
        failure = None
        ended = False
        while not ended:
            try:
                ended = inner.push_input(source, 64)
            except InputError as e:
                failure, ended = e, True
            yield from self._ready(errors)
        inner.flush()
        yield from self._ready(errors)
        if failure is not None:
            raise failure

    def _open(self, errors: str) -> Any:
        """The native extractor, once ``errors`` is checked and the extractor is open."""
        if errors not in ("yield", "skip"):
            raise ValueError(f"errors must be 'yield' or 'skip', not {errors!r}")
        if self._inner.closed:
            raise ClosedError("the Extractor is closed")
        return self._inner

    def _ready(self, errors: str) -> Iterator[dict]:
        """The records ready, in input order: clean ones, and dead letters unless skipped."""
        for kind, record in self._inner.pop_ready():
            if kind == "clean" or (kind == "rejected" and errors == "yield"):
                yield json.loads(record)

    def close(self) -> None:
        """Closes the state (a temporary one is removed). Closing twice does nothing."""
        self._inner.close()

    def __enter__(self) -> "Extractor":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "temporary" if self._inner.temporary else "state"
        closed = ", closed" if self.closed else ""
        return f"<urltree.Extractor {state} {str(self.path)!r}{closed}>"
