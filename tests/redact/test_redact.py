"""Secret detection and redaction: what is masked, what is left alone, and that nothing leaks.

Fake secrets are assembled from pieces so this file does not itself look like a leaked credential.
"""

from __future__ import annotations

import json
import re
import re._parser as re_parser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aces_ci.redact import _detectors, _find, _special, excerpt, find_secrets, redact_obj, redact_text, redacted_lines
from tests.redact.samples import generate

RANDOM_36 = "Zq7Lm2Xv9Tb4Nw8Rc1Yk6Hd3Fs5Gj0Pa1QeW"
GITHUB = "gh" + "p_" + RANDOM_36
ANTHROPIC = (
    "sk-" + "ant-api03-" + "Q8xKd93LmZp0qW7rT5vB2nC4yH6jF1gA9sD3eR8tY0uI2oP4aS6dF8gH0jK2lZ4xC6vB8nM0qW2eR4tY6u-AA"
)
AWS_ID = "AK" + "IA" + "Q3ZT7RMXW4NB2KJD"
AWS_SECRET = "wJalrXUtnFEMI" + "/K7MDENG/bPxRfiCYzq8Hd3Ks9P"
PEM_BODY = "MIIEowIBAAKCAQEAx9Kq2Lm8Zp0qW7rT5vB2nC4yH6jF1gA9sD3eR8tY0uI2oP4a\n" * 3
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PEM_BODY + "-----END RSA " + "PRIVATE KEY-----"

DETECTED = [
    ("github-token", f'export GITHUB_TOKEN="{GITHUB}"', GITHUB),
    ("github-token", "token: github_" + "pat_" + "11ABCDEFG0" + RANDOM_36 + RANDOM_36, "github_pat_11ABCDEFG0"),
    ("anthropic-api-key", f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC),
    ("openai-api-key", "key = sk-" + "proj-" + RANDOM_36 + RANDOM_36, RANDOM_36),
    ("aws-access-key-id", f"aws_access_key_id = {AWS_ID}", AWS_ID),
    ("aws-secret-access-key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    (
        "google-api-key",
        "url?key=AI" + "za" + "SyD3kF9qL2xV8mN4bT7wR1yC6uJ0pE5hG2s",
        "SyD3kF9qL2xV8mN4bT7wR1yC6uJ0pE5hG2s",
    ),
    ("slack-bot-token", "SLACK=xo" + "xb-" + "2741928374-9182736450-aZ3kP9qL2xV8mN4bT7wR1yC6", "9182736450"),
    ("stripe-key", "stripe.api_key = 'sk_" + "live_" + "7hQ29LmPzXcWbRt4Ks8dNv2e'", "7hQ29LmPzXcWbRt4Ks8dNv2e"),
    (
        "jwt",
        "auth: ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNry",
    ),
    ("url-password", "DATABASE_URL=postgres://app:" + "Tq8vLz2mKp4X" + "@db.internal:5432/app", "Tq8vLz2mKp4X"),
    ("bearer-token", "curl -H 'Authorization: Bearer " + "aZ3kP9qL2xV8mN4bT7wR1yC6" + "' https://api", "aZ3kP9qL"),
    ("secret-assignment", 'api_key = "q8Zr2LmX0vT4nWb7Yc"', "q8Zr2LmX0vT4nWb7Yc"),
    ("secret-assignment", '{"client_secret": "' + "f3a9c0d1e2b47a6c8d9e0f1a2b3c4d5e" + '"}', "f3a9c0d1e2b4"),
    ("private-key", PEM, "MIIEowIBAAKCAQEA"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), DETECTED, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(DETECTED)])
def test_each_kind_is_found_and_masked_whole(kind: str, text: str, secret: str) -> None:
    matches = find_secrets(text)
    assert [m.kind for m in matches] == [kind]
    redacted = redact_text(text)
    assert f"[REDACTED:{kind}]" in redacted
    assert secret not in redacted


@pytest.mark.parametrize(
    "text",
    [
        'password = "changeme"',
        'password: "hunter2"',
        'token = "my_token_here"',
        "aws_access_key_id = AK" + "IAIOSFODNN7EXAMPLE",
        "GITHUB_TOKEN=gh" + "p_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        'api_key = "your-api-key-goes-here"',
        "token: ${{ secrets.GITHUB_TOKEN }}",
        'api_key = "abc123def456ghi789"',
        'tokenizer: "meta-llama/Llama-3.1-8B-Instruct"',
        "max_tokens = 4096",
        'private_key_path = "./keys/Key2024.pem"',
        "Authorization: Bearer $TOKEN",
        "postgres://user:password@localhost/db",
        "Paste it between -----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY----- lines.",
        "a sha256 digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
)
def test_placeholders_and_ordinary_values_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert redact_text(text) == text


def test_matches_carry_offsets_and_lines() -> None:
    text = f"first line\nsecond {GITHUB} here\n\nkey={AWS_ID}\n"
    matches = find_secrets(text)
    assert [(m.kind, m.line) for m in matches] == [("github-token", 2), ("aws-access-key-id", 4)]
    assert [text[m.start : m.end] for m in matches] == [GITHUB, AWS_ID]
    assert matches[0].description == "GitHub token"


def test_tokens_glued_to_separators_are_found_but_not_inside_words() -> None:
    assert [m.kind for m in find_secrets(f"notes-{GITHUB}-old.md and x_{GITHUB}")] == ["github-token"] * 2
    assert find_secrets("x" + GITHUB) == []


def test_specific_kind_wins_over_generic_assignment() -> None:
    assert [m.kind for m in find_secrets(f"GITHUB_TOKEN = '{GITHUB}'")] == ["github-token"]


def test_multiline_private_key_keeps_line_numbers_when_asked() -> None:
    text = f"intro\n{PEM}\nafter the key\n"
    assert redact_text(text) == "intro\n[REDACTED:private-key]\nafter the key\n"
    lines = redacted_lines(text)
    assert lines[0] == "intro"
    assert lines[1] == "[REDACTED:private-key]"
    assert lines[6] == "after the key"
    assert len(lines) == len(text.split("\n"))
    assert not any("MIIE" in line for line in lines)


def test_cut_off_private_key_is_masked_to_the_end_of_its_body() -> None:
    text = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + PEM_BODY + "that was all of it, sorry"
    redacted = redact_text(text)
    assert "MIIE" not in redacted
    assert redacted.endswith("that was all of it, sorry")


def test_private_key_inside_a_json_string_is_masked() -> None:
    escaped = json.dumps({"key": PEM})
    assert "MIIE" not in redact_text(escaped)


def test_extra_secrets_are_masked_literally_and_short_ones_ignored() -> None:
    text = "model said: the key is plainvalue-1234 and pin 42; again plainvalue-1234"
    redacted = redact_text(text, extra_secrets=["plainvalue-1234", "42", ""])
    assert redacted == "model said: the key is [REDACTED:secret] and pin 42; again [REDACTED:secret]"


def test_overlapping_extra_secret_and_pattern_leave_nothing_behind() -> None:
    text = f"value {GITHUB}tail"
    redacted = redact_text(text, extra_secrets=[GITHUB[10:] + "tail"])
    assert GITHUB[:10] not in redacted and "tail" not in redacted


def test_redact_obj_walks_nested_values_and_keys_without_mutating() -> None:
    original = {
        "steps": [{"message": f"using {GITHUB}", "n": 3, "ok": True, "none": None}],
        "pair": ("plain", ANTHROPIC),
        GITHUB: "a key as a key",
        "[REDACTED:github-token]": "an honest key that must survive",
    }
    snapshot = json.dumps(original, sort_keys=True, default=list)
    redacted = redact_obj(original, extra_secrets=["a key as a"])
    assert json.dumps(original, sort_keys=True, default=list) == snapshot
    assert redacted["steps"][0] == {"message": "using [REDACTED:github-token]", "n": 3, "ok": True, "none": None}
    assert redacted["pair"] == ("plain", "[REDACTED:anthropic-api-key]")
    assert redacted["[REDACTED:github-token]"] == "an honest key that must survive"
    assert redacted["[REDACTED:github-token] #2"] == "[REDACTED:secret] key"
    assert GITHUB not in json.dumps(redacted)


def test_redact_obj_survives_deep_nesting_and_cycles() -> None:
    deep: list[object] = []
    cursor = deep
    for _ in range(50_000):
        inner: list[object] = []
        cursor.append(inner)
        cursor = inner
    cursor.append(GITHUB)
    redacted = redact_obj(deep)
    for _ in range(50_000):
        redacted = redacted[0]
    assert redacted == ["[REDACTED:github-token]"]

    loop: list[object] = ["x"]
    loop.append(loop)
    assert redact_obj(loop) == ["x", "[CIRCULAR]"]


def test_redact_obj_returns_scalars_as_they_are() -> None:
    assert redact_obj(GITHUB) == "[REDACTED:github-token]"
    assert redact_obj(3.5) == 3.5
    assert redact_obj(None) is None


def test_excerpt_cuts_after_redaction() -> None:
    line = "x" * 150 + " " + GITHUB
    shown = excerpt(redact_text(line), limit=160)
    assert len(shown) == 160 and shown.endswith("…")
    assert "ghp_" not in shown


def test_hostile_input_stays_linear_and_harmless() -> None:
    # Shapes that make naive patterns backtrack: long token runs and endless assignments.
    assert find_secrets("token=" * 50_000) == []
    assert find_secrets("a_" * 200_000) == []
    assert find_secrets("-----BEGIN PRIVATE KEY-----\n" * 5_000) == []


# -- the pre-filter -------------------------------------------------------------------------------
# Most strings of a trajectory are ruled out by a cheap screen before any detector runs. These
# tests compare every answer with the screen switched off: it may only save time, never a secret.

BARE_SECRETS = [
    # Each kind with nothing around it, so no other kind's marks can let it through the screen.
    GITHUB,
    ANTHROPIC,
    AWS_ID,
    "AI" + "za" + "SyD3kF9qL2xV8mN4bT7wR1yC6uJ0pE5hG2s",
    "xo" + "xb-" + "2741928374-9182736450-aZ3kP9qL2xV8mN4bT7wR1yC6",
    "sk_" + "live_" + "7hQ29LmPzXcWbRt4Ks8dNv2e",
    "wh" + "sec_" + RANDOM_36,
    "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "s://u:" + "Tq8vLz2mKp4X" + "@h",
    "Bearer " + "aZ3kP9qL2xV8mN4bT7wR1yC6",
    "SECRET_ACCESS_KEY=" + AWS_SECRET,
    "aws_\u017fecret_access_\u212aey = " + AWS_SECRET,  # long s and Kelvin sign: case-insensitive matches
    "pw_token=q8Zr2LmX0vT4nWb7Yc",
    PEM,
]
PLACEHOLDERS = [
    'password = "changeme"',
    "max_tokens = 4096",
    "Authorization: Bearer $TOKEN",
    "Paste it between -----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY----- lines.",
]
FRAGMENTS = [
    *(text for _, text, _ in DETECTED),
    *BARE_SECRETS,
    *PLACEHOLDERS,
    AWS_SECRET,
    "AK" + "IA",
    "gh" + "p_",
    "sk-",
    "ey" + "J",
    "xo" + "xb-",
    "://",
    "@",
    "Bearer ",
    "BEARER\t",
    "token",
    "Secret",
    "PASSWD",
    "api.key",
    "credential",
    "=",
    ": ",
    '"',
    "'",
    "\n",
    "\\n",
    " ",
    "-",
    "_",
    "q8Zr2LmX0vT4nWb7Yc",
    "Tq8vLz2mKp4X",
    "aZ3kP9qL2xV8mN4bT7wR1yC6",
    "plain words of an ordinary answer",
]


def screened_and_unscreened(text: str, extra: tuple[str, ...] = ()) -> tuple[tuple[object, ...], ...]:
    """What find_secrets, redact_text and redact_obj answer with the screen, then without it."""
    answers = [(tuple(find_secrets(text)), redact_text(text, extra), redact_obj({text: [text]}, extra))]
    with pytest.MonkeyPatch.context() as patch:
        everything = _find._Plan(tuple(range(len(_detectors.DETECTORS))), pem=True, assignments=True, netrc=True)
        patch.setattr(_find, "_screen", lambda _text: everything)
        answers.append((tuple(find_secrets(text)), redact_text(text, extra), redact_obj({text: [text]}, extra)))
    return tuple(answers)


@pytest.mark.parametrize("text", [text for _, text, _ in DETECTED] + BARE_SECRETS + PLACEHOLDERS)
def test_the_screen_changes_no_answer_on_the_known_cases(text: str) -> None:
    screened, unscreened = screened_and_unscreened(text)
    assert screened == unscreened
    if text in BARE_SECRETS:
        assert len(screened[0]) == 1
    quoted = json.dumps({"nested": text})
    assert screened_and_unscreened(quoted)[0] == screened_and_unscreened(quoted)[1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=12), max_size=8).map("".join))
def test_the_screen_changes_no_answer_on_assembled_text(text: str) -> None:
    screened, unscreened = screened_and_unscreened(text, extra=("plainvalue-1234",))
    assert screened == unscreened


def test_no_detector_matches_text_shorter_than_the_screen_floor() -> None:
    # The screen skips every string shorter than this floor, so each pattern's shortest match must
    # reach it. ``re._parser`` is the standard library's own regex parser; getwidth() is its minimum.
    widths = {
        detector.kind: re_parser.parse(detector.regex.pattern, detector.regex.flags).getwidth()[0]
        for detector in _detectors.DETECTORS
    }
    widths["private-key"] = re_parser.parse(_special.PEM_BEGIN.pattern).getwidth()[0]
    # The shortest secret-named assignment that can be a secret: a one-letter name containing no
    # word cannot match, so ``token=`` + a 16-character machine-made value.
    widths["secret-assignment"] = len("token=") + 16
    assert min(widths.values()) == _find.MIN_PATTERN_TEXT


def test_short_and_markless_strings_still_lose_their_known_secrets() -> None:
    secret = "plainvalue-1234"
    trajectory = {"steps": [{"message": secret, secret: "x", "n": i} for i in range(50)], "id": "a" * 9}
    redacted = redact_obj(trajectory, extra_secrets=[secret])
    assert secret not in json.dumps(redacted)
    assert redacted["steps"][49] == {"message": "[REDACTED:secret]", "[REDACTED:secret]": "x", "n": 49}
    assert redact_text("pin=" + secret, [secret]) == "pin=[REDACTED:secret]"


def test_redact_obj_builds_new_containers_only() -> None:
    original = {"steps": [{"message": "hello", "calls": ("a", ["b"])}], "agent": {"name": "x"}}
    redacted = redact_obj(original)
    assert redacted == original
    redacted["steps"][0]["calls"][1].append("c")
    redacted["agent"]["name"] = "y"
    assert original == {"steps": [{"message": "hello", "calls": ("a", ["b"])}], "agent": {"name": "x"}}


def test_every_case_sensitive_marked_detector_matches_only_inside_a_long_token_run() -> None:
    # The screen looks for case-sensitive marks only inside runs of TOKEN_RUN token characters.
    run = re.compile(f"[{_detectors.TOKEN_RUN_CHARS}]+")
    for detector in _detectors.DETECTORS:
        if detector.folded:
            continue
        width = re_parser.parse(detector.regex.pattern, detector.regex.flags).getwidth()[0]
        assert width >= _detectors.TOKEN_RUN, detector.kind
    for sample in generate(3, seed=11):
        for match in find_secrets(sample.text):
            detector_marks = [d for d in _detectors.DETECTORS if d.kind == match.kind and not d.folded]
            if detector_marks:
                secret = sample.text[match.start : match.end]
                assert any(len(r) >= _detectors.TOKEN_RUN for r in run.findall(secret)), match.kind


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["token", "Token", "TOKENS", "secretKey", "secretary", "API-KEY", "passwd", "İ", "K", "_", "="])
        | st.text(max_size=6),
        max_size=10,
    ).map("".join)
)
def test_the_lower_cased_word_search_finds_what_the_case_insensitive_one_does(text: str) -> None:
    assert list(_special._secret_words(text)) == [m.span() for m in _special.SECRET_WORD.finditer(text)]
