"""Every family: a realistic credential is found, named and masked; its look-alike placeholders are
left alone, and the policy says why without quoting them.

Positives come from :mod:`tests.redact.samples` (documented formats, seeded); placeholders are
the ones documentation and skills really carry (``xoxb-xxxxxxxx…``, ``hf_your_token_here``,
``${{ secrets.NPM_TOKEN }}``, the vendors' own published examples).
"""

from __future__ import annotations

import pytest

from aces_ci.redact import KINDS, find_secrets, redact_text, scan_text
from tests.redact.samples import MAKERS, generate

POSITIVES = generate(2, seed=20260901)


@pytest.mark.parametrize("sample", POSITIVES, ids=[f"{s.kind}-{i % 2}" for i, s in enumerate(POSITIVES)])
def test_a_realistic_credential_is_found_named_and_masked(sample) -> None:
    kinds = [match.kind for match in find_secrets(sample.text)]
    assert sample.kind in kinds, (sample.text, scan_text(sample.text))
    redacted = redact_text(sample.text)
    assert sample.secret not in redacted
    assert f"[REDACTED:{sample.kind}]" in redacted


def test_every_kind_has_a_generator_and_a_description() -> None:
    detectable = set(KINDS) - {"secret", "slack-token"}  # literal env values; legacy Slack shapes
    assert detectable <= set(MAKERS)
    assert all(KINDS[kind].shape and KINDS[kind].family for kind in KINDS)


# (kind it looks like, text, words the reason holds). Prefixes are split so this file is no leak.
LOOK_ALIKES = [
    ("slack-token", "SLACK_BOT_TOKEN=xo" + "xb-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxxxxxxxxxx", "placeholder"),
    ("slack-token", "token: xo" + "xb-your-bot-token-here", "placeholder"),
    ("slack-token", "xo" + "xp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d", "none of the documented"),
    (
        "slack-webhook",
        "https://hooks.slack" + ".com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "placeholder",
    ),
    ("stripe-key", "STRIPE_KEY=sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc", "documentation"),
    ("stripe-key", "sk_" + "live_xxxxxxxxxxxxxxxxxxxxxxxx", "placeholder"),
    ("twilio-api-key", "TWILIO_API_KEY=S" + "K00000000000000000000000000000000", "distinct"),
    ("sendgrid-api-key", "S" + "G.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "placeholder"),
    ("mailgun-api-key", "ke" + "y-0123456789abcdef0123456789abcdef", "consecutive"),
    ("npm-token", "np" + "m_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "placeholder"),
    ("npm-token", "//registry.npmjs.org/:_auth" + "Token=${NPM_TOKEN}", "variable"),
    ("pypi-token", "py" + "pi-AgEIcHlwaS5vcmc" + "x" * 60, "placeholder"),
    ("docker-hub-token", "dc" + "kr_pat_XXXXXXXXXXXXXXXXXXXXXXXXXXX", "placeholder"),
    ("huggingface-token", "HF_TOKEN=h" + "f_abcdefghijklmnopqrstuvwxyzABCDEFGH", "consecutive"),
    ("huggingface-token", "h" + "f_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "placeholder"),
    ("openai-api-key", "OPENAI_API_KEY=sk-" + "proj-your-openai-project-key-goes-here", "placeholder"),
    ("azure-storage-key", "AccountName=devstoreaccount1;Account" + "Key=" + "x" * 86 + "==", "placeholder"),
    ("azure-connection-string", "SharedAccess" + "Key=" + "x" * 43 + "=", "placeholder"),
    ("databricks-token", "DATABRICKS_TOKEN=da" + "pi" + "0" * 32, "distinct"),
    ("shopify-token", "shp" + "at_" + "x" * 32, "none"),  # not hex: no match at all
    ("discord-webhook", "https://discord.com/api/" + "webhooks/123456789012345678/" + "X" * 68, "placeholder"),
    ("telegram-bot-token", "BOT=123456789:A" + "A" + "x" * 33, "placeholder"),
    ("gcp-service-account", '{"private_key_id": "' + "0" * 40 + '", "type": "service_account"}', "distinct"),
    ("private-key", "-----BEGIN PRIVATE " + "KEY-----\n...\n-----END PRIVATE KEY-----", "illustration"),
    (
        "jwt",
        "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
        "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "documentation",
    ),
    ("url-password", "postgres://app:${DB_PASSWORD}@db.internal/app", "variable"),
    ("bearer-token", 'curl -H "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE"', "placeholder"),
    ("bearer-token", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "consecutive"),
    ("bearer-token", "Authorization: Bearer thisisnotarealtokenatall", "single kind"),
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "example password"),
    ("netrc-password", "machine api.internal.net login bot password $NETRC_PASSWORD", "variable"),
    ("secret-assignment", 'password = "changeme"', "placeholder"),
    ("secret-assignment", "password: 'hunter2'", "distinct"),
    ("secret-assignment", 'token = "my_token_here"', "shorter than 16"),
    ("secret-assignment", 'API_TOKEN = "TheTokenOfTheProductionBot"', "spells the word"),
    ("telegram-bot-token", "bot = Bot('123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11')", "documentation"),
    ("secret-assignment", "token: ${{ secrets.GITHUB_TOKEN }}", "variable"),
    ("secret-assignment", 'api_key = "abc123def456ghi789"', "consecutive"),
    ("aws-access-key-id", "aws_access_key_id = AK" + "IAIOSFODNN7EXAMPLE", "placeholder"),
]


@pytest.mark.parametrize(
    ("kind", "text", "why"), LOOK_ALIKES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(LOOK_ALIKES)]
)
def test_look_alike_placeholders_are_left_alone_and_the_reason_is_given(kind: str, text: str, why: str) -> None:
    assert find_secrets(text) == []
    assert redact_text(text) == text
    left = scan_text(text).left_alone
    if why == "none":
        assert left == ()
        return
    assert [item.kind for item in left] == [kind], left
    assert why in left[0].reason
    body = text[left[0].start : left[0].end]
    assert len(body) < 12 or body not in left[0].reason  # the reason never quotes the value


def test_ordinary_text_yields_neither_secrets_nor_reports() -> None:
    text = (
        "max_tokens = 4096\n"
        'tokenizer: "meta-llama/Llama-3.1-8B-Instruct"\n'
        "password=args.password\n"
        "api_key = os.environ['OPENAI_API_KEY']\n"
        "The token: see below.\n"
        'private_key_path = "./keys/Key2024.pem"\n'
        "a sha256 digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
        "integrity sha512-" + "Aa0+/" * 17 + "Zz==\n"
        "See https://discord.com/developers/docs and the default login screen.\n"
    )
    assert scan_text(text).secrets == ()
    assert scan_text(text).left_alone == ()


def test_a_token_inside_a_telegram_url_is_found() -> None:
    token = "7045182936:A" + "AHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"
    assert [m.kind for m in find_secrets(f"https://api.telegram.org/bot{token}/getMe")] == ["telegram-bot-token"]


def test_basic_credentials_must_decode_to_user_and_password() -> None:
    assert find_secrets("Authorization: Basic ZGVwbG95OnE4WnIyTG1YMHZUNG5XYjdZYw==")[0].kind == "basic-auth"
    (left,) = scan_text("Authorization: Basic bm90IGEgcGFpcg==").left_alone  # "not a pair"
    assert "user:password" in left.reason


def test_netrc_entries_over_several_lines_are_found() -> None:
    netrc = "machine git.internal.net\n  login deploy\n  password q8Zr2LmX0vT4nWb7Yc\n"
    (match,) = find_secrets(netrc)
    assert (match.kind, match.line) == ("netrc-password", 3)
    assert "q8Zr2" not in redact_text(netrc)
