"""Every string from a result document, made safe for the place in the HTML page where it lands.

Skill names, paths, case ids, prompts, model answers, finding messages and the result files
themselves come from a pull request or a fork's workflow run: data, never markup. The page has
four places such strings land, and each has one function here that every section calls:

* :func:`text` — element text and quoted attribute values: ``& < > " '`` become entities, and
  control, bidi-override and non-characters are written as visible escapes (``\\u202e``,
  :func:`~aces_ci.report._common.printable`), so a "Trojan Source" message reads as it is;
* :func:`href` — a link's destination: only an ``http(s)`` URL, percent-encoded where a character
  could end the attribute or hide, else None (a ``javascript:`` or ``data:`` URL is never a link);
* :func:`json_script` — data inside ``<script type="application/json">``: ``<``, ``>``, ``&``
  and U+2028/2029 as ``\\uXXXX`` escapes, so no ``</script>`` can close the element;
* :func:`number` — a number we format ourselves (never escaped text, never NaN).

Nothing from a result is ever placed inside executable script or a style: the page's script reads
the DOM only. Lengths are cut before escaping, so a cut never splits an entity.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

from ...safe_text import clip, printable
from .._common import WEB_URL

_URL_UNSAFE = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]")
_JSON_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def text(value: object, limit: int | None = None) -> str:
    """``value`` as HTML text or a quoted attribute value: printable, entity-escaped, at most ``limit`` characters."""
    raw = str(value)
    if limit is not None:
        raw = clip(raw, limit)
    return html.escape(printable(raw), quote=True)


def href(url: object) -> str | None:
    """``url`` safe as an ``href`` value, or None unless it is an ``http(s)`` URL.

    Characters outside the URL alphabet (spaces, quotes, angle brackets, controls, bidi marks,
    non-ASCII) are percent-encoded as UTF-8, then the whole is entity-escaped for the attribute.
    """
    if not isinstance(url, str) or not WEB_URL.match(url) or len(url) > 2000:
        return None
    encoded = _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "replace")), url)
    return html.escape(encoded, quote=True)


def json_script(data: Any) -> str:
    """``data`` as JSON that cannot leave its ``<script type="application/json">`` element."""
    encoded = json.dumps(data, ensure_ascii=False, allow_nan=False, sort_keys=True)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_UNSAFE[m.group()], encoded)


def number(value: float | None, digits: int = 3, *, signed: bool = False, missing: str = "—") -> str:
    """``value`` with ``digits`` decimals (``+`` shown when ``signed``); ``missing`` for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return missing
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def interval(ci: Any, digits: int = 3) -> str:
    """``[lo, hi]`` as ``lo … hi`` (signed), or ``no interval`` when the result has none."""
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return "no interval"
    return f"{number(ci[0], digits, signed=True)} … {number(ci[1], digits, signed=True)}"
