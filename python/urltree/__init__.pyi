"""Type stubs of the ``urltree`` package: the public API and the shape of its records."""

import datetime
import os
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, TypedDict, Union, overload

from ._errors import (
    KINDS as KINDS,
    BadEncodingError as BadEncodingError,
    BadHtmlError as BadHtmlError,
    BadUrlError as BadUrlError,
    ClosedError as ClosedError,
    ConfigError as ConfigError,
    DomainMismatchError as DomainMismatchError,
    InputError as InputError,
    InvalidFieldError as InvalidFieldError,
    InvalidJsonError as InvalidJsonError,
    MissingFieldError as MissingFieldError,
    RejectedError as RejectedError,
    StateError as StateError,
    TooLargeError as TooLargeError,
    UndeliveredError as UndeliveredError,
    UnreadableError as UnreadableError,
    UrltreeError as UrltreeError,
)

UNKNOWN_URL: str

Config = Union[str, os.PathLike, Mapping[str, Any], None]

class Model(TypedDict):
    node: str
    support: int
    heuristic: str
    cold_start: bool

class Source(TypedDict):
    topic: str
    partition: int
    offset: int

class Encoding(TypedDict):
    name: str
    source: str

class Language(TypedDict):
    code: str
    confidence: float

class Block(TypedDict):
    text: str
    label: Literal["content", "boilerplate"]
    count: int
    reason: str
    path: str

class _RecordRequired(TypedDict):
    url: str
    url_key: str
    domain: str
    text: str
    model: Model
    encoding: Encoding
    processed_at: str
    source: Source

class Record(_RecordRequired, total=False):
    """A clean-text record: the fields of ``urltree extract``'s JSONL output."""

    response_url: str
    title: str
    markdown: str
    blocks: List[Block]
    lang: Language
    description: str
    author: str
    published: str
    canonical_url: str
    site_name: str
    fetched_at: str
    warc_record_id: str
    warnings: List[str]

class ErrorInfo(TypedDict):
    kind: str
    message: str

class DeadLetter(TypedDict):
    """A record that could not be processed (``Extractor.extract_many`` with ``errors="yield"``)."""

    error: ErrorInfo
    source: Source
    payload: str
    payload_truncated: bool

@overload
def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    output_format: Literal["txt", "markdown", "json"] = "txt",
    include_comments: bool = False,
    include_links: Optional[bool] = None,
    include_images: Optional[bool] = None,
    favor_precision: bool = False,
    favor_recall: bool = False,
    title: Optional[str] = None,
    config: Config = None,
) -> Optional[str]: ...
@overload
def extract(
    html: Union[str, bytes],
    url: Optional[str] = None,
    *,
    output_format: Literal["python"],
    include_comments: bool = False,
    include_links: Optional[bool] = None,
    include_images: Optional[bool] = None,
    favor_precision: bool = False,
    favor_recall: bool = False,
    title: Optional[str] = None,
    config: Config = None,
) -> Optional[Record]: ...

class Extractor:
    def __init__(
        self,
        state: Union[str, os.PathLike, None] = None,
        config: Config = None,
        *,
        markdown: bool = False,
        include_links: Optional[bool] = None,
        include_images: Optional[bool] = None,
        include_comments: bool = False,
        favor_precision: bool = False,
        favor_recall: bool = False,
    ) -> None: ...
    @property
    def path(self) -> Path: ...
    @property
    def closed(self) -> bool: ...
    @property
    def stats(self) -> Dict[str, int]: ...
    def extract(
        self,
        url: str,
        html: Union[str, bytes],
        *,
        response_url: Optional[str] = None,
        title: Optional[str] = None,
        fetched_at: Union[str, datetime.datetime, None] = None,
        charset: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        domain: Optional[str] = None,
    ) -> Optional[Record]: ...
    def extract_many(
        self,
        records: Iterable[Union[Mapping[str, Any], str, bytes]],
        *,
        errors: Literal["yield", "skip"] = "yield",
    ) -> Iterator[Union[Record, DeadLetter]]: ...
    def extract_file(
        self,
        path: Union[str, os.PathLike],
        *,
        url: Optional[str] = None,
        base_url: Optional[str] = None,
        errors: Literal["yield", "skip"] = "yield",
    ) -> Iterator[Union[Record, DeadLetter]]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Extractor": ...
    def __exit__(self, *exc_info: object) -> None: ...
