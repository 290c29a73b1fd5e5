"""The LLM-judge rubric, run against the scripted Anthropic and OpenAI servers."""

from __future__ import annotations

import json

import pytest

from aces_ci.config import ModelSettings
from aces_ci.errors import ConfigError, InfraError
from aces_ci.models import RetryPolicy
from aces_ci.scan import run_judge
from aces_ci.scan._judge import RUBRIC, RUBRIC_VERSION, MalformedReply, parse_verdict
from tests.scan.helpers import front, make_skill
from tests.servers import Fault, Text

SKILL_MD = front(name="pdf-fill", description="Fill PDF forms. Use when the user asks to fill a PDF form.") + (
    "# Fill a PDF form\n\n1. Run `scripts/fill.py form.pdf data.json`.\n"
)
NO_WAIT = RetryPolicy(max_attempts=3, base_delay_s=0.0)


def verdict(**overrides: float) -> str:
    scores = {c.id: 10 for c in RUBRIC} | overrides
    return json.dumps({"criteria": [{"id": k, "score": v, "rationale": f"{k} ok"} for k, v in scores.items()]})


@pytest.fixture(params=["anthropic", "openai"])
def judge_settings(request, monkeypatch):
    """Settings pointing the judge at a scripted server of each provider; keys come from the environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def settings_for(server):
        if request.param == "anthropic":
            return ModelSettings("anthropic", "claude-haiku-4-5", server.url)
        return ModelSettings("openai", "gpt-4o-mini", server.openai_url)

    return settings_for


def test_weighted_score_and_criteria(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD, {"scripts/fill.py": "print('x')\n"})
    server = scripted_server([Text(verdict(trigger=5, safety=0))])
    results = run_judge([skill], judge_settings(server), retry=NO_WAIT)
    result = results["skills/demo"]
    assert result.error is None
    assert result.score == 80.0, "100 - 20*0.5 - 10*1.0"
    assert [c.id for c in result.criteria] == [c.id for c in RUBRIC]
    assert result.criteria[0].weight == 20
    assert result.criteria[0].rationale == "trigger ok"
    assert result.rubric_version == RUBRIC_VERSION
    request = server.requests[0]
    assert all(f'"{c.id}"' in request.system_text for c in RUBRIC)
    assert "Run `scripts/fill.py form.pdf data.json`" in request.last_user_text
    assert "- scripts/fill.py (script)" in request.last_user_text


def test_code_fences_and_chatter_are_tolerated(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD)
    server = scripted_server([Text(f"Here is my assessment:\n```json\n{verdict(examples=4)}\n```\nHope it helps.")])
    result = run_judge([skill], judge_settings(server), retry=NO_WAIT)["skills/demo"]
    assert result.score == 91.0


def test_one_malformed_reply_gets_a_follow_up(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD)
    server = scripted_server([Text("I would rate it highly!"), Text(verdict())])
    result = run_judge([skill], judge_settings(server), retry=NO_WAIT)["skills/demo"]
    assert result.score == 100.0
    assert server.calls == 2
    follow_up = server.requests[1]
    assert "That reply could not be used: not valid JSON" in follow_up.last_user_text
    assert "I would rate it highly!" in follow_up.all_text, "the judge sees its own bad reply"


def test_two_malformed_replies_give_an_unscored_result(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD)
    bad = json.dumps({"criteria": [{"id": "trigger", "score": 14}]})
    server = scripted_server([Text("nope"), Text(bad)])
    result = run_judge([skill], judge_settings(server), retry=NO_WAIT)["skills/demo"]
    assert result.score is None
    assert result.criteria == ()
    assert "unusable twice" in result.error
    assert "criteria missing: actionable" in result.error


def test_transient_faults_are_retried(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD)
    server = scripted_server([Fault(529), Fault(429, retry_after=0), Text(verdict())])
    result = run_judge([skill], judge_settings(server), retry=NO_WAIT)["skills/demo"]
    assert result.score == 100.0
    assert server.calls == 3


def test_a_model_api_that_stays_down_is_an_infrastructure_error(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, SKILL_MD)
    server = scripted_server([Fault(500)] * 3)
    with pytest.raises(InfraError, match="LLM judge failed on skills/demo: gave up after 3 attempts"):
        run_judge([skill], judge_settings(server), retry=NO_WAIT)


def test_several_skills_are_judged_and_keyed_by_directory(tmp_path, scripted_server, judge_settings):
    skills = [make_skill(tmp_path, SKILL_MD + f"\nVariant {name}.\n", name=name) for name in ("a", "b", "c")]

    def script(request):
        return Text(verdict(examples=0) if "Variant b." in request.last_user_text else verdict())

    server = scripted_server(script)
    results = run_judge(skills, judge_settings(server), retry=NO_WAIT, concurrency=2)
    assert {key: r.score for key, r in results.items()} == {"skills/a": 100.0, "skills/b": 85.0, "skills/c": 100.0}
    assert server.max_concurrent <= 2


def test_unreadable_skill_md_is_reported_without_a_model_call(tmp_path, scripted_server, judge_settings):
    skill = make_skill(tmp_path, b"\x00\x01\x02binary\xff" * 50)
    server = scripted_server([])
    result = run_judge([skill], judge_settings(server))["skills/demo"]
    assert result.score is None
    assert "skills/demo/SKILL.md could not be read as text" in result.error
    assert server.calls == 0


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        (ModelSettings(), "judge.provider", "needs a provider"),
        (ModelSettings("cohere", "command"), "judge.provider", "unknown provider 'cohere'"),
        (ModelSettings("anthropic", None), "judge.model", "needs a model"),
        (ModelSettings("openai", "gpt-4o"), "judge.provider", "OPENAI_API_KEY"),
    ],
)
def test_missing_settings_are_config_errors(tmp_path, monkeypatch, settings, field, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=message) as caught:
        run_judge([make_skill(tmp_path, SKILL_MD)], settings)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "the reply is empty"),
        ("[1, 2]", "not an object"),
        ("{}", 'no "criteria" list'),
        ('{"criteria": [{"id": "trigger", "score": 5}, {"id": "trigger", "score": 6}]}', "given twice"),
        ('{"criteria": [{"score": 5}]}', 'string "id"'),
        ("{'criteria': []}", "not valid JSON"),
        ("Sure, here it is: { incomplete", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_parse_verdict_names_the_problem(reply, problem):
    with pytest.raises(MalformedReply, match=problem):
        parse_verdict(reply)


@pytest.mark.parametrize("bad_score", [11, -1, True, "high", None, float("nan")])
def test_scores_outside_zero_to_ten_are_rejected(bad_score):
    scores = json.loads(verdict())
    scores["criteria"][0]["score"] = bad_score
    with pytest.raises(MalformedReply, match='score of "trigger"'):
        parse_verdict(json.dumps(scores))


def test_numeric_strings_and_unknown_criteria_are_tolerated():
    scores = json.loads(verdict())
    scores["criteria"][0]["score"] = " 7.5 "
    scores["criteria"].append({"id": "vibes", "score": 2})
    criteria = parse_verdict(json.dumps(scores))
    assert criteria[0].score == 7.5
    assert [c.id for c in criteria] == [c.id for c in RUBRIC]


def test_rubric_weights_sum_to_one_hundred():
    assert sum(c.weight for c in RUBRIC) == 100
    assert len({c.id for c in RUBRIC}) == len(RUBRIC)
