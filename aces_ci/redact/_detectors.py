"""The credential formats we recognise, each written from its vendor's documented shape.

Every entry says which literal text any match must contain (its *marks*), so a text is searched
only by the detectors whose marks it holds: a trajectory string without ``xox`` never meets the
Slack patterns. The formats follow the vendors' documentation and the public rule sets of
gitleaks and detect-secrets (read, not copied); ``BENCHMARKS.md`` measures recall against a
generated corpus of every family.

Three detectors are code rather than one pattern and live in :mod:`._special`: private-key blocks
(PEM, also inside GCP service-account JSON), secret-named assignments and ``.netrc`` entries.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DETECTORS", "KINDS", "TOKEN_RUN", "TOKEN_RUN_CHARS", "Detector", "Kind"]

TOKEN_RUN = 20
"""The shortest run of :data:`TOKEN_RUN_CHARS` a match of a case-sensitive-marked detector spans."""
TOKEN_RUN_CHARS = "A-Za-z0-9_+/=.~:-"
"""Characters of provider tokens and the URLs that carry them (webhooks, signed URLs)."""


@dataclass(frozen=True)
class Kind:
    """One kind of secret as reports name it."""

    slug: str
    """Stable id, what ``[REDACTED:<slug>]`` shows."""
    description: str
    family: str
    """The vendor or format family, as ``aces-ci rules SEC001`` lists it."""
    shape: str
    """The documented shape, in words: what ``aces-ci rules SEC001`` shows (never a real value)."""


def _kinds(*rows: tuple[str, str, str, str]) -> dict[str, Kind]:
    return {slug: Kind(slug, description, family, shape) for slug, description, family, shape in rows}


KINDS = _kinds(
    ("aws-access-key-id", "AWS access key id", "AWS", "AKIA/ASIA + 16 upper-case letters or digits"),
    ("aws-secret-access-key", "AWS secret access key", "AWS", "40 base64 characters after aws_secret_access_key ="),
    ("github-token", "GitHub token", "GitHub", "ghp_/gho_/ghu_/ghs_/ghr_ + 36 characters, github_pat_…"),
    ("anthropic-api-key", "Anthropic API key", "Anthropic", "sk-ant-…"),
    ("openai-api-key", "OpenAI API key", "OpenAI", "sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk-…T3BlbkFJ…"),
    ("google-api-key", "Google API key", "Google Cloud", "AIza + 35 characters"),
    (
        "gcp-service-account",
        "GCP service-account key",
        "Google Cloud",
        'service-account JSON: "private_key_id" and its "private_key" block',
    ),
    ("slack-bot-token", "Slack bot token", "Slack", "xoxb-<digits>-<digits>-<24 letters or digits>"),
    ("slack-user-token", "Slack user token", "Slack", "xoxp-<digits>-<digits>-<digits>-<32 characters>"),
    ("slack-app-token", "Slack app-level token", "Slack", "xapp-<digit>-<id>-<digits>-<64 hex>"),
    ("slack-token", "Slack token", "Slack", "legacy and configuration tokens: xoxa-, xoxo-, xoxr-, xoxs-, xoxe-"),
    ("slack-webhook", "Slack webhook URL", "Slack", "https://hooks.slack.com/services/T…/B…/<secret>"),
    ("stripe-key", "Stripe secret key", "Stripe", "sk_live_/sk_test_/rk_live_… + letters and digits"),
    ("stripe-webhook-secret", "Stripe webhook signing secret", "Stripe", "whsec_ + 24 or more characters"),
    ("twilio-api-key", "Twilio API key", "Twilio", "SK + 32 hex digits"),
    ("sendgrid-api-key", "SendGrid API key", "SendGrid", "SG.<22 characters>.<43 characters>"),
    ("mailgun-api-key", "Mailgun API key", "Mailgun", "key-<32 hex>, or <32 hex>-<8 hex>-<8 hex> near 'mailgun'"),
    ("npm-token", "npm access token", "npm", "npm_ + 36 characters, or an .npmrc _authToken / _auth value"),
    ("pypi-token", "PyPI API token", "PyPI", "pypi-AgEIcHlwaS5vcmc… (a macaroon)"),
    ("docker-hub-token", "Docker Hub access token", "Docker Hub", "dckr_pat_/dckr_oat_ + 27 or more characters"),
    ("huggingface-token", "Hugging Face token", "Hugging Face", "hf_ + 34 letters, api_org_ + 34 letters"),
    ("azure-storage-key", "Azure storage account key", "Azure", "AccountKey=<88 base64 characters>"),
    (
        "azure-connection-string",
        "Azure shared access key",
        "Azure",
        "SharedAccessKey=<44 base64 characters> in a Service Bus / Event Hubs / IoT connection string",
    ),
    ("azure-sas-token", "Azure shared access signature", "Azure", "sig=<signature> in a SAS URL"),
    ("azure-client-secret", "Azure AD client secret", "Azure", "<3 characters><digit>Q~<31-34 characters>"),
    ("databricks-token", "Databricks personal access token", "Databricks", "dapi + 32 hex digits"),
    ("shopify-token", "Shopify access token or shared secret", "Shopify", "shpat_/shpca_/shppa_/shpss_ + 32 hex"),
    ("discord-bot-token", "Discord bot token", "Discord", "<base64 user id>.<6 characters>.<27-38 characters>"),
    ("discord-webhook", "Discord webhook URL", "Discord", "https://discord.com/api/webhooks/<id>/<68 characters>"),
    ("telegram-bot-token", "Telegram bot token", "Telegram", "<bot id>:A<33-34 characters>"),
    ("private-key", "private key block", "Private keys", "-----BEGIN … PRIVATE KEY----- with a base64 body"),
    ("jwt", "JSON Web Token", "Generic", "eyJ….eyJ….<signature>"),
    ("url-password", "password inside a URL", "Generic", "scheme://user:password@host"),
    ("bearer-token", "bearer token", "Generic", "Authorization: Bearer|Token <machine-made value>"),
    ("basic-auth", "HTTP basic credentials", "Generic", "Authorization: Basic <base64 of user:password>"),
    ("netrc-password", ".netrc password", "Generic", "machine <host> login <user> password <value>"),
    (
        "secret-assignment",
        "secret value assigned to a secret-named variable",
        "Generic",
        'password|secret|token|api_key… = "<machine-made value>"',
    ),
    ("secret", "known secret value", "Environment", "the value of a secret-named environment variable"),
)


@dataclass(frozen=True)
class Detector:
    """One regular expression for one or more kinds; group ``secret`` is what gets masked."""

    kind: str
    regex: re.Pattern[str]
    marks: tuple[str, ...]
    """Literal text every match contains; the detector runs only on texts holding one of them.

    Case-sensitive marks are looked for only inside runs of at least :data:`TOKEN_RUN` token
    characters, so every match of such a detector must lie in one (a test checks the widths)."""
    folded: bool = False
    """Whether ``marks`` are lower case and looked for in the lower-cased text."""
    machine_made: bool = False
    """Whether the value has no fixed shape and must pass the machine-made test."""
    formats: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """(kind, full pattern) refinements: the first that matches the whole secret names it; a
    candidate matching none is left alone as not in any documented format."""
    check: Callable[[str], str | None] | None = None
    """Extra validation of the secret: a reason to leave it alone, or None."""
    starts_token: bool = True
    """Whether the secret must not continue a longer token on its left (``xghp_…`` is not a token)."""


# Not inside a longer run of the token's alphabet on the right (``_R`` for alphabets with ``_`` and
# ``-``, ``_R_ALNUM`` for letters and digits only, so ``notes-ghp_…-old.md`` is still found). The left
# side is checked in code: a pattern that opens with a look-behind cannot use the regex engine's
# literal-prefix search and runs about ten times slower over a large file.
_R = r"(?![A-Za-z0-9_-])"
_R_ALNUM = r"(?![A-Za-z0-9])"


def _p(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _basic_credentials(value: str) -> str | None:
    """``Basic`` carries base64 of ``user:password``; anything else is not a credential of this kind."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return "it does not decode to user:password"
    _user, colon, password = decoded.partition(":")
    if not colon or not password or not decoded.isprintable():
        return "it does not decode to user:password"
    if password.lower() in _TRIVIAL_PASSWORDS or password.startswith(("$", "<", "{")):
        return "it decodes to an example password"
    return None


_TRIVIAL_PASSWORDS = frozenset({"password", "pass", "passwd", "secret", "changeme", "test", "admin", "123456", "pwd"})

_SLACK_FORMATS = (
    ("slack-bot-token", _p(r"xoxb-\d{8,14}-(?:\d{8,14}-)?[A-Za-z0-9]{18,64}")),
    ("slack-user-token", _p(r"xox[pe](?:-\d{8,14}){3}-[A-Za-z0-9]{28,34}")),
    ("slack-app-token", _p(r"xapp-\d-[A-Z0-9]{8,14}-\d{10,16}-[a-z0-9]{32,80}")),
    ("slack-token", _p(r"xox[aors]-(?:\d+-)+[A-Za-z0-9]{8,64}|xox[ar]-\d?-?[A-Za-z0-9]{16,48}")),
    ("slack-token", _p(r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{140,180}|xoxe-\d-[A-Za-z0-9]{120,160}")),
)

DETECTORS: tuple[Detector, ...] = (
    Detector(
        "aws-access-key-id",
        _p(r"(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})" + _R_ALNUM),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    Detector(
        "aws-secret-access-key",
        _p(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*(?::=|=>|=|:)\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret",),
        folded=True,
    ),
    Detector(
        "github-token",
        _p(r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,251})" + _R_ALNUM),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    Detector("github-token", _p(r"(?P<secret>github_pat_[A-Za-z0-9_]{22,247})(?![A-Za-z0-9_])"), ("github_pat_",)),
    Detector("anthropic-api-key", _p(r"(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})"), ("sk-ant-",)),
    Detector("openai-api-key", _p(r"(?P<secret>sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,})"), ("sk-",)),
    Detector(
        "openai-api-key",
        _p(r"(?P<secret>sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{32,})" + _R_ALNUM),
        ("sk-",),
    ),
    Detector("google-api-key", _p(r"(?P<secret>AIza[A-Za-z0-9_-]{35})" + _R), ("AIza",)),
    Detector(
        "gcp-service-account",
        _p(r"\"private_key_id\\?\"\s*:\s*\\?\"(?P<secret>[0-9a-f]{40})\\?\""),
        ("private_key_id",),
        folded=True,
    ),
    Detector(
        "slack-token",
        _p(r"(?P<secret>x(?:ox[a-z](?:\.xox[a-z])?|app)-[A-Za-z0-9-]{15,250}+)" + _R),
        ("xox", "xapp-"),
        formats=_SLACK_FORMATS,
    ),
    Detector(
        "slack-webhook",
        _p(
            r"(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9_]{6,}/"
            r"[A-Za-z0-9_]{6,}/[A-Za-z0-9/_]{16,})"
        ),
        ("hooks.slack.com",),
    ),
    Detector(
        "stripe-key",
        _p(r"(?P<secret>(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,247})" + _R_ALNUM),
        ("k_live_", "k_test_", "k_prod_"),
    ),
    Detector("stripe-webhook-secret", _p(r"(?P<secret>whsec_[A-Za-z0-9]{24,})" + _R_ALNUM), ("whsec_",)),
    Detector("twilio-api-key", _p(r"(?P<secret>SK[0-9a-fA-F]{32})" + _R_ALNUM), ("SK",)),
    Detector("sendgrid-api-key", _p(r"(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})" + _R), ("SG.",)),
    Detector("mailgun-api-key", _p(r"(?P<secret>key-[0-9a-f]{32})" + _R_ALNUM), ("key-",)),
    Detector(
        "mailgun-api-key",
        _p(r"(?i:mailgun)[^\n]{0,80}?(?P<secret>[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})" + _R_ALNUM),
        ("mailgun",),
        folded=True,
    ),
    Detector("npm-token", _p(r"(?P<secret>npm_[A-Za-z0-9]{36})" + _R_ALNUM), ("npm_",)),
    Detector(
        "npm-token",
        _p(r":?_(?:authToken|auth)\s*=\s*[\"']?(?P<secret>[A-Za-z0-9._~+/=${}-]{8,512}+)"),
        ("_auth",),
        folded=True,
    ),
    Detector(
        "pypi-token",
        _p(r"(?P<secret>pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,})"),
        ("pypi-Ag",),
    ),
    Detector("docker-hub-token", _p(r"(?P<secret>dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64})" + _R), ("dckr_",)),
    Detector("huggingface-token", _p(r"(?P<secret>(?:hf|api_org)_[A-Za-z0-9]{34})" + _R_ALNUM), ("hf_", "api_org_")),
    Detector(
        "azure-storage-key",
        _p(r"(?i:accountkey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{86}==)"),
        ("accountkey",),
        folded=True,
    ),
    Detector(
        "azure-connection-string",
        _p(r"(?i:sharedaccesskey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{42,43}=)"),
        ("sharedaccesskey",),
        folded=True,
    ),
    Detector(
        "azure-sas-token",
        _p(r"[?&;]sig=(?P<secret>[A-Za-z0-9%+/]{40,120}+(?:%3[dD]|=){0,2})"),
        ("sig=",),
    ),
    Detector(
        "azure-client-secret",
        _p(r"(?P<secret>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])"),
        ("Q~",),
    ),
    Detector("databricks-token", _p(r"(?P<secret>dapi[0-9a-f]{32}(?:-\d)?)" + _R_ALNUM), ("dapi",)),
    Detector("shopify-token", _p(r"(?P<secret>shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32})" + _R_ALNUM), ("shp",)),
    Detector(
        "discord-bot-token",
        _p(r"(?P<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})" + _R),
        ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
    ),
    Detector(
        "discord-webhook",
        _p(
            r"(?P<secret>https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d{15,22}/"
            r"[A-Za-z0-9_-]{60,72})" + _R
        ),
        ("/api/webhooks/",),
    ),
    Detector(
        "telegram-bot-token",
        # Also inside the Bot API's URLs: https://api.telegram.org/bot<token>/getMe.
        _p(r"(?:(?<=bot)|(?<![A-Za-z0-9]))(?P<secret>\d{5,16}:A[A-Za-z0-9_-]{33,34})" + _R),
        (":A",),
        starts_token=False,
    ),
    Detector("jwt", _p(r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)" + _R), ("eyJ",)),
    Detector("url-password", _p(r"://[^\s/:@\"'<>]{1,64}:(?P<secret>[^\s/@\"'<>]{8,128})@"), ("://",), folded=True),
    Detector(
        "basic-auth",
        _p(r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{6,512}+={0,2})"),
        ("basic",),
        folded=True,
        check=_basic_credentials,
    ),
    Detector(
        "bearer-token",
        _p(
            r"(?i:bearer|authorization[\"']?\s*[:=]\s*[\"']?(?:token|bot))\s+"
            r"(?P<secret>[A-Za-z0-9._~+/=-]{16,512}+)(?![A-Za-z0-9._~+/=-])"
        ),
        ("bearer", "authorization"),
        folded=True,
        machine_made=True,
    ),
)
"""Most specific first: where two overlap, the earlier one names the span."""
