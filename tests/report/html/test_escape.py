"""Untrusted strings into HTML: text and attributes, link destinations, inert JSON."""

from __future__ import annotations

import json

import pytest

from aces_ci.report._md_escape import link_url
from aces_ci.report.html._escape import href, json_script, text


def test_text_escapes_markup_quotes_and_shows_bidi_and_control_characters() -> None:
    assert text('<b a="1">\'&') == "&lt;b a=&quot;1&quot;&gt;&#x27;&amp;"
    assert text("a\u202eb\u2066c\x1bd") == "a\\u202eb\\u2066c\\x1bd"
    assert text("x" * 50, 10) == "x" * 9 + "…"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>",
        "//evil.example",
        "file:///etc/passwd",
        "https:/",
        "vbscript:x",
        None,
        3,
    ],
)
def test_only_http_urls_become_links(url: object) -> None:
    assert href(url) is None


def test_an_http_url_is_encoded_so_it_cannot_leave_its_attribute() -> None:
    assert href('https://ex.com/a b"><script>\u202e') == "https://ex.com/a%20b%22%3E%3Cscript%3E%E2%80%AE"
    assert href("https://ex.com/?a=1&b='2'") == "https://ex.com/?a=1&amp;b=&#x27;2&#x27;"


def test_json_in_a_script_element_cannot_close_it_and_reads_back_the_same() -> None:
    data = {"name": "</script><!-- \u2028\u2029 & <b>"}
    encoded = json_script(data)
    assert "<" not in encoded and ">" not in encoded and "&" not in encoded
    assert "\u2028" not in encoded and "\u2029" not in encoded
    assert json.loads(encoded) == data


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a",
        "HTTP://EXAMPLE.COM",
        "http:///no-host",
        "javascript:alert(1)",
        "data:text/html,x",
        " https://example.com",
        "ftp://example.com",
    ],
)
def test_the_page_and_the_comment_take_the_same_urls_as_links(url: str) -> None:
    assert (href(url) is None) == (link_url(url) is None)
