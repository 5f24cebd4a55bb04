"""The exceptions urltree raises. A rejected page raises the class of its dead-letter kind."""

from __future__ import annotations

__all__ = [
    "UrltreeError",
    "ConfigError",
    "StateError",
    "ClosedError",
    "InputError",
    "RejectedError",
    "InvalidJsonError",
    "MissingFieldError",
    "InvalidFieldError",
    "TooLargeError",
    "BadEncodingError",
    "BadUrlError",
    "DomainMismatchError",
    "BadHtmlError",
    "UnreadableError",
    "UndeliveredError",
    "KINDS",
]


class UrltreeError(Exception):
    """Base class of every urltree error."""


class ConfigError(UrltreeError, ValueError):
    """The configuration is invalid, or its URL rules file could not be loaded."""


class StateError(UrltreeError, OSError):
    """The state could not be created, opened, read or written (RocksDB, the disk)."""


class InputError(UrltreeError, OSError):
    """A local input could not be opened, or read to its end (the records before the error
    were processed)."""


class ClosedError(UrltreeError, ValueError):
    """The Extractor was used after ``close()``."""


class RejectedError(UrltreeError, ValueError):
    """A page could not be processed. ``kind`` is its dead-letter kind (``bad-url``,
    ``too-large``, ...), as ``urltree extract`` writes it to the errors file; ``message`` says
    what was wrong."""

    #: The dead-letter kind this class stands for.
    kind: str = ""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind

    def __str__(self) -> str:
        return f"{self.message} ({self.kind})"


class InvalidJsonError(RejectedError):
    """The record is not valid JSON, or not a JSON object."""

    kind = "invalid-json"


class MissingFieldError(RejectedError):
    """A required field (``url``, ``html``) is missing or empty."""

    kind = "missing-field"


class InvalidFieldError(RejectedError):
    """A field has the wrong type or an invalid value."""

    kind = "invalid-field"


class TooLargeError(RejectedError):
    """The record or its HTML is over a size limit (``input.max_record_bytes``,
    ``parse.max_html_bytes``)."""

    kind = "too-large"


class BadEncodingError(RejectedError):
    """``html_base64`` is not valid base64."""

    kind = "bad-encoding"


class BadUrlError(RejectedError):
    """The URL cannot be keyed: unparsable, not http(s), no registrable domain, too long."""

    kind = "bad-url"


class DomainMismatchError(RejectedError):
    """The record's ``domain`` disagrees with its URL's registrable domain."""

    kind = "domain-mismatch"


class BadHtmlError(RejectedError):
    """The HTML could not be tokenized within the parser's limits (``[parse]``)."""

    kind = "bad-html"


class UnreadableError(RejectedError):
    """An input file could not be read."""

    kind = "unreadable"


class UndeliveredError(RejectedError):
    """A record the broker did not take."""

    kind = "undelivered"


#: The exception class of each dead-letter kind.
KINDS: dict[str, type[RejectedError]] = {
    cls.kind: cls
    for cls in (
        InvalidJsonError,
        MissingFieldError,
        InvalidFieldError,
        TooLargeError,
        BadEncodingError,
        BadUrlError,
        DomainMismatchError,
        BadHtmlError,
        UnreadableError,
        UndeliveredError,
    )
}


def _rejected(kind: str, message: str) -> RejectedError:
    """The exception of a rejected page (called by the native module)."""
    return KINDS.get(kind, RejectedError)(message, kind)
