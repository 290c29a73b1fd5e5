"""Realistic fake credentials of every family we detect, generated from the vendors' documented formats.

Nothing here is a real credential: every value is drawn from a seeded ``random.Random`` in the
documented alphabet and length, so the same seed always gives the same corpus. Literal prefixes
are assembled from pieces (``"gh" + "p_"``) so this file does not itself look like a leak.

Used by the family tests, the recall test, the canary test and ``benchmarks/secret_detection.py``.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
UPPER_ALNUM = string.ascii_uppercase + string.digits


@dataclass(frozen=True)
class Sample:
    kind: str
    """The kind the detector should name."""
    secret: str
    """The part that must not survive redaction."""
    text: str
    """The secret in the context it is usually found in (a line of config, code, JSON or prose)."""


def _draw(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _digits(rng: random.Random, low: int, high: int) -> str:
    return str(rng.randint(1, 9)) + _draw(rng, string.digits, rng.randint(low, high) - 1)


def _pem_body(rng: random.Random, lines: int = 6, escaped: bool = False) -> str:
    newline = "\\n" if escaped else "\n"
    return newline.join("MII" + _draw(rng, B64, 61) if i == 0 else _draw(rng, B64, 64) for i in range(lines))


# Each maker returns (secret, line holding it); the line is the secret's own context when its
# format needs one (an assignment, a header, a connection string), else None for a random context.
Maker = Callable[[random.Random], tuple[str, str | None]]


def _bare(secret: str) -> tuple[str, str | None]:
    return secret, None


MAKERS: dict[str, list[Maker]] = {
    "aws-access-key-id": [lambda r: _bare("AK" + "IA" + _draw(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))],
    "aws-secret-access-key": [
        lambda r: (s := _draw(r, B64, 40), f"aws_secret_access_key = {s}"),
    ],
    "github-token": [
        lambda r: _bare("gh" + r.choice("pousr") + "_" + _draw(r, ALNUM, 36)),
        lambda r: _bare("github" + "_pat_" + _draw(r, UPPER_ALNUM, 22) + "_" + _draw(r, ALNUM, 59)),
    ],
    "anthropic-api-key": [lambda r: _bare("sk-" + "ant-api03-" + _draw(r, URLSAFE, 93) + "AA")],
    "openai-api-key": [
        lambda r: _bare("sk-" + "proj-" + _draw(r, URLSAFE, 74) + "T3Blbk" + "FJ" + _draw(r, URLSAFE, 74)),
        lambda r: _bare("sk-" + "svcacct-" + _draw(r, URLSAFE, 58) + "T3Blbk" + "FJ" + _draw(r, URLSAFE, 58)),
        lambda r: _bare("sk-" + _draw(r, ALNUM, 20) + "T3Blbk" + "FJ" + _draw(r, ALNUM, 20)),
    ],
    "google-api-key": [lambda r: _bare("AI" + "za" + "Sy" + _draw(r, URLSAFE, 33))],
    "gcp-service-account": [
        lambda r: (
            s := _draw(r, HEX, 40),
            json.dumps(
                {
                    "type": "service" + "_account",
                    "project_id": "billing-prod-4821",
                    "private_key_id": s,
                    "client_email": "etl@billing-prod-4821.iam.gserviceaccount.com",
                }
            ),
        ),
        lambda r: (
            s := "-----BEGIN " + "PRIVATE KEY-----\\n" + _pem_body(r, escaped=True) + "\\n-----END PRIVATE KEY-----\\n",
            '{"type": "service' + '_account", "private_key": "' + s + '", "client_id": "10398457"}',
        ),
    ],
    "slack-bot-token": [
        lambda r: _bare("xo" + "xb-" + _digits(r, 10, 13) + "-" + _digits(r, 10, 13) + "-" + _draw(r, ALNUM, 24))
    ],
    "slack-user-token": [
        lambda r: _bare("xo" + "xp-" + "-".join(_digits(r, 10, 12) for _ in range(3)) + "-" + _draw(r, HEX, 32))
    ],
    "slack-app-token": [
        lambda r: _bare(
            "xa" + "pp-1-A" + _draw(r, UPPER_ALNUM, 10) + "-" + _digits(r, 13, 13) + "-" + _draw(r, HEX, 64)
        )
    ],
    "slack-webhook": [
        lambda r: _bare(
            "https://hooks."
            + "slack.com/services/T"
            + _draw(r, UPPER_ALNUM, 10)
            + "/B"
            + _draw(r, UPPER_ALNUM, 10)
            + "/"
            + _draw(r, ALNUM, 24)
        )
    ],
    "stripe-key": [
        lambda r: _bare(
            r.choice(("sk", "rk")) + "_" + r.choice(("live", "test")) + "_" + _draw(r, ALNUM, r.choice((24, 99)))
        )
    ],
    "stripe-webhook-secret": [lambda r: _bare("wh" + "sec_" + _draw(r, ALNUM, 32))],
    "twilio-api-key": [lambda r: _bare("S" + "K" + _draw(r, HEX, 32))],
    "sendgrid-api-key": [lambda r: _bare("S" + "G." + _draw(r, URLSAFE, 22) + "." + _draw(r, URLSAFE, 43))],
    "mailgun-api-key": [
        lambda r: _bare("ke" + "y-" + _draw(r, HEX, 32)),
        lambda r: (
            s := _draw(r, HEX, 32) + "-" + _draw(r, HEX, 8) + "-" + _draw(r, HEX, 8),
            f"MAILGUN_API_KEY={s}",
        ),
    ],
    "npm-token": [
        lambda r: _bare("np" + "m_" + _draw(r, ALNUM, 36)),
        lambda r: (
            s := "-".join(_draw(r, HEX, n) for n in (8, 4, 4, 4, 12)),
            "//registry.npmjs.org/:_auth" + f"Token={s}",
        ),
    ],
    "pypi-token": [lambda r: _bare("py" + "pi-AgEIcHlwaS5vcmc" + _draw(r, URLSAFE, 150))],
    "docker-hub-token": [lambda r: _bare("dc" + "kr_pat_" + _draw(r, URLSAFE, 27))],
    "huggingface-token": [
        lambda r: _bare("h" + "f_" + _draw(r, string.ascii_letters, 34)),
        lambda r: _bare("api" + "_org_" + _draw(r, string.ascii_letters, 34)),
    ],
    "azure-storage-key": [
        lambda r: (
            s := _draw(r, B64, 86) + "==",
            "DefaultEndpointsProtocol=https;AccountName=billingexports;Account"
            + f"Key={s};EndpointSuffix=core.windows.net",
        )
    ],
    "azure-connection-string": [
        lambda r: (
            s := _draw(r, B64, 43) + "=",
            "Endpoint=sb://orders-prod.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            "SharedAccess" + f"Key={s}",
        )
    ],
    "azure-sas-token": [
        lambda r: (
            s := _draw(r, ALNUM, 40) + "%2B" + _draw(r, ALNUM, 3) + "%3D",
            "https://billingexports.blob.core.windows.net/exports/q3.csv?sv=2022-11-02&ss=b&sp=r&s" + f"ig={s}",
        )
    ],
    "azure-client-secret": [
        lambda r: _bare(_draw(r, ALNUM, 3) + str(r.randint(0, 9)) + "Q" + "~" + _draw(r, ALNUM + "_~.-", 34))
    ],
    "databricks-token": [lambda r: _bare("da" + "pi" + _draw(r, HEX, 32))],
    "shopify-token": [lambda r: _bare("shp" + r.choice(("at", "ca", "pa", "ss")) + "_" + _draw(r, HEX, 32))],
    "discord-bot-token": [
        lambda r: _bare(
            base64.b64encode(_digits(r, 18, 19).encode()).decode().rstrip("=")
            + "."
            + _draw(r, URLSAFE, 6)
            + "."
            + _draw(r, URLSAFE, r.choice((27, 38)))
        )
    ],
    "discord-webhook": [
        lambda r: _bare("https://discord.com/api/" + "webhooks/" + _digits(r, 18, 19) + "/" + _draw(r, URLSAFE, 68))
    ],
    "telegram-bot-token": [lambda r: _bare(_digits(r, 8, 10) + ":A" + "A" + _draw(r, URLSAFE, 33))],
    "private-key": [
        lambda r: (
            s := "-----BEGIN RSA " + "PRIVATE KEY-----\n" + _pem_body(r) + "\n-----END RSA PRIVATE KEY-----",
            s,
        )
    ],
    "jwt": [
        lambda r: _bare(
            "ey"
            + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            + base64.urlsafe_b64encode(json.dumps({"sub": _digits(r, 8, 10), "exp": 1893456000}).encode())
            .decode()
            .rstrip("=")
            + "."
            + _draw(r, URLSAFE, 43)
        )
    ],
    "url-password": [
        lambda r: (s := _draw(r, ALNUM, 18), f"DATABASE_URL=postgres://billing:{s}@db.internal:5432/billing"),
    ],
    "bearer-token": [
        lambda r: (s := _draw(r, ALNUM, 40), f'curl -H "Authorization: Bearer {s}" https://api.internal/v1/jobs'),
    ],
    "basic-auth": [
        lambda r: (
            s := base64.b64encode(f"deploy:{_draw(r, ALNUM, 20)}".encode()).decode(),
            f"Authorization: Basic {s}",
        )
    ],
    "netrc-password": [
        lambda r: (s := _draw(r, ALNUM + "!#%", 20), f"machine git.internal.net login deploy password {s}"),
    ],
    "secret-assignment": [
        lambda r: (
            s := _draw(r, ALNUM, 24),
            f'{r.choice(("DB_PASSWORD", "client_secret", "apiKey", "AUTH_TOKEN", "signing_key"))} = "{s}"',
        ),
        lambda r: (s := _draw(r, ALNUM, 32), f"  password: {s}"),
    ],
}
"""Every kind we detect, with one or more generators of its documented shapes."""

_CONTEXTS = (
    'export SERVICE_CREDENTIAL="{s}"',
    "value: {s}",
    '{{"name": "prod", "value": "{s}"}}',
    "Call the API with {s} and print the result.",
    'client = Client("{s}")',
    "Paste `{s}` into the settings page.",
    "https://api.internal/v1/hook?key={s}&mode=sync",
)
"""Where an unprefixed context is drawn from: shell, YAML, JSON, prose, code, Markdown, a URL."""


def generate(per_kind: int, seed: int) -> list[Sample]:
    """``per_kind`` samples of every kind, cycling through its shapes, each in a context."""
    rng = random.Random(seed)
    samples = []
    for kind, makers in MAKERS.items():
        for index in range(per_kind):
            secret, line = makers[index % len(makers)](rng)
            text = line if line is not None else rng.choice(_CONTEXTS).format(s=secret)
            samples.append(Sample(kind, secret, text))
    return samples


def one_of_each(seed: int = 7) -> list[Sample]:
    """The first shape of every kind: canaries."""
    return generate(1, seed)
