"""Text of an e-mail message (.eml): its main headers and its text parts, not attachments."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage, Message

from .markup import html_to_text
from .text import normalise_whitespace

_HEADERS = ("From", "To", "Cc", "Date", "Subject")


def email_to_text(data: bytes) -> tuple[str, str | None]:
    """Headers as ``Name: value`` lines, a blank line, then the body; and the subject."""
    message = email.message_from_bytes(data, policy=email.policy.default)
    header_lines = []
    for name in _HEADERS:
        value = _header(message, name)
        if value:
            header_lines.append(f"{name}: {value}")
    plain: list[str] = []
    html: list[str] = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        content_type = part.get_content_type()
        if content_type == "text/plain":
            plain.append(_part_text(part))
        elif content_type == "text/html":
            html.append(html_to_text(_part_text(part))[0])
    # multipart/alternative carries the same body twice; the plain one is the cleaner.
    body = "\n\n".join(plain or html)
    text = "\n".join(header_lines) + "\n\n" + body
    return normalise_whitespace(text), _header(message, "Subject") or None


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except (ValueError, IndexError, TypeError):  # a malformed header the parser gave up on
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _part_text(part: Message) -> str:
    if isinstance(part, EmailMessage):
        try:
            content = part.get_content()
        except (LookupError, ValueError):  # an unknown charset or a broken encoding
            content = None
        if isinstance(content, str):
            return content
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:
            return payload.decode("utf-8", errors="replace")
    return ""
