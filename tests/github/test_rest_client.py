"""The REST client against the local server: pagination, bounded retries, rate limits, masked tokens."""

from __future__ import annotations

import time

import pytest

from aces_ci.github import (
    DEFAULT_BOT_LOGIN,
    GitHubClient,
    GitHubError,
    GitHubRateLimited,
    RetryPolicy,
    next_link,
    upsert_comment,
)

from .server import (
    BOT,
    PAT_TOKEN,
    WRITE_TOKEN,
    Fault,
    GitHubServer,
    html_page,
    primary_rate_limit,
    secondary_rate_limit,
    server_error,
    too_many_requests,
)

MARKER = "<!-- test-marker -->"


def _client(server: GitHubServer, token: str = WRITE_TOKEN, **kwargs: object) -> tuple[GitHubClient, list[float]]:
    slept: list[float] = []
    client = GitHubClient(server.url, token, sleep=slept.append, **kwargs)  # type: ignore[arg-type]
    return client, slept


def test_link_header_parsing() -> None:
    header = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"'
    assert next_link(header) == "https://api.github.com/x?page=2"
    assert next_link('<https://api.github.com/x?page=1>; rel="prev"') is None
    assert next_link(None) is None


def test_pagination_follows_link_headers_over_250_items(github: GitHubServer) -> None:
    for index in range(250):
        github.state.add_comment(3, f"comment {index}")
    client, _ = _client(github)

    bodies = [c["body"] for c in client.paginate("/repos/acme/skills/issues/3/comments")]

    assert bodies == [f"comment {i}" for i in range(250)]
    pages = [r for r in github.state.requests if r.path.endswith("/comments")]
    assert [r.query.get("page", ["1"])[0] for r in pages] == ["1", "2", "3"]
    assert pages[0].query["per_page"] == ["100"]


def test_pagination_is_bounded(github: GitHubServer) -> None:
    for index in range(5):
        github.state.add_comment(3, f"comment {index}")
    client, _ = _client(github, max_pages=2)
    github.state.faults = []

    with pytest.raises(GitHubError, match="more than 2 pages"):
        list(client.paginate("/repos/acme/skills/issues/3/comments", {"per_page": 2}))


@pytest.mark.parametrize(
    ("fault", "wait"),
    [
        (server_error(502), 1.0),
        (server_error(503), 1.0),
        (secondary_rate_limit("7"), 7.0),
        (too_many_requests("3"), 3.0),
    ],
)
def test_transient_failures_are_retried_with_the_wait_github_asks_for(
    github: GitHubServer, fault: object, wait: float
) -> None:
    github.state.faults = [fault]  # type: ignore[list-item]
    client, slept = _client(github)

    response = client.request("GET", "/repos/acme/skills/issues/1/comments")

    assert response.status_code == 200
    assert slept == [wait]


def test_primary_rate_limit_waits_until_the_reset(github: GitHubServer) -> None:
    now = 1_800_000_000.0
    github.state.faults = [primary_rate_limit(int(now) + 12)]
    slept: list[float] = []
    client = GitHubClient(github.url, WRITE_TOKEN, sleep=slept.append, clock=lambda: now)

    assert client.request("GET", "/repos/acme/skills/issues/1/comments").status_code == 200
    assert slept == [12.0]


def test_a_rate_limit_longer_than_the_bound_fails_at_once(github: GitHubServer) -> None:
    github.state.faults = [primary_rate_limit(int(time.time()) + 3600)]
    client, slept = _client(github)

    with pytest.raises(GitHubRateLimited, match=r"rate limited \(HTTP 403\) for"):
        client.request("GET", "/repos/acme/skills/issues/1/comments")
    assert slept == []


def test_retries_are_bounded_and_the_error_names_the_request(github: GitHubServer) -> None:
    github.state.faults = [server_error(500) for _ in range(10)]
    client, slept = _client(github, policy=RetryPolicy(attempts=3, backoff_s=0.5))

    with pytest.raises(
        GitHubError, match=r"GET /repos/acme/skills/issues/1/comments failed after 3 attempt\(s\): HTTP 500"
    ):
        client.request("GET", "/repos/acme/skills/issues/1/comments")
    assert slept == [0.5, 1.0]


def test_errors_never_show_the_token(github: GitHubServer) -> None:
    client, _ = _client(github, token=WRITE_TOKEN)
    github.state.faults = [server_error(500) for _ in range(6)]

    with pytest.raises(GitHubError) as caught:
        client.request("GET", f"/repos/acme/skills/issues/1/comments?leak={WRITE_TOKEN}")
    assert WRITE_TOKEN not in str(caught.value)


def test_upsert_creates_then_updates_then_leaves_an_unchanged_body(github: GitHubServer) -> None:
    client, _ = _client(github)

    first = upsert_comment(client, "acme/skills", 5, f"{MARKER}\none", MARKER)
    second = upsert_comment(client, "acme/skills", 5, f"{MARKER}\ntwo", MARKER)
    third = upsert_comment(client, "acme/skills", 5, f"{MARKER}\ntwo", MARKER)

    assert (first.action, second.action, third.action) == ("created", "updated", "unchanged")
    assert [c["body"] for c in github.state.comments[5]] == [f"{MARKER}\n<!-- aces-ci:for acme/skills#5 -->\ntwo"]
    assert github.state.comments[5][0]["user"]["login"] == DEFAULT_BOT_LOGIN


def test_a_personal_token_finds_comments_by_its_own_login(github: GitHubServer) -> None:
    github.state.add_comment(5, f"{MARKER}\nby the bot", dict(BOT))
    client, _ = _client(github, token=PAT_TOKEN)

    result = upsert_comment(client, "acme/skills", 5, f"{MARKER}\nby the release bot", MARKER)

    assert result.action == "created"  # the bot's comment is not this token's
    assert len(github.state.comments[5]) == 2


def test_upsert_refuses_bodies_github_would_refuse(github: GitHubServer) -> None:
    client, _ = _client(github)
    with pytest.raises(ValueError, match="65536"):
        upsert_comment(client, "acme/skills", 5, MARKER + "x" * 70000, MARKER)
    with pytest.raises(ValueError, match="marker"):
        upsert_comment(client, "acme/skills", 5, "no marker", MARKER)


def test_check_run_carries_every_annotation_in_batches_of_50(github: GitHubServer) -> None:
    from aces_ci.github import Annotation, create_check_run

    client, _ = _client(github)
    annotations = [Annotation("error", f"problem {i}", "skills/a/SKILL.md", i + 1, "SPEC001") for i in range(120)]
    annotations.append(Annotation("warning", "no file: not a line annotation"))

    result = create_check_run(
        client,
        "acme/skills",
        "a" * 40,
        name="aces-ci",
        conclusion="failure",
        title="t",
        summary="s",
        annotations=annotations,
    )

    assert result.created and result.annotations == 120
    run = github.state.check_runs[0]
    assert run["conclusion"] == "failure" and run["head_sha"] == "a" * 40
    assert len(run["output"]["annotations"]) == 50 and len(run["more_annotations"]) == 70
    assert run["output"]["annotations"][0]["annotation_level"] == "failure"


def test_check_run_without_checks_write_is_reported_not_raised(github: GitHubServer) -> None:
    from aces_ci.github import create_check_run

    from .server import FORK_TOKEN

    client, _ = _client(github, token=FORK_TOKEN)
    result = create_check_run(
        client, "acme/skills", "a" * 40, name="aces-ci", conclusion="success", title="t", summary="s", annotations=[]
    )
    assert not result.created and "Resource not accessible by integration" in result.reason


def test_a_pagination_link_to_another_host_is_refused_and_that_host_gets_no_token(github: GitHubServer) -> None:
    github.state.add_comment(3, "first page")
    with GitHubServer("acme/skills") as foreign:
        foreign.state.add_comment(3, "the attacker's page")
        link = f'<{foreign.url}/repos/acme/skills/issues/3/comments?page=2>; rel="next"'
        github.state.faults = [Fault(200, {"Link": link}, [{"id": 1, "body": "first page"}])]
        client, _ = _client(github)

        with pytest.raises(GitHubError, match=r"refused to follow a URL to http://127\.0\.0\.1:") as caught:
            list(client.paginate("/repos/acme/skills/issues/3/comments"))

        assert foreign.state.requests == []  # not one request, so not one token
    assert "GITHUB_API_URL" in str(caught.value) and WRITE_TOKEN not in str(caught.value)


def test_a_link_to_the_same_host_on_another_port_or_scheme_is_foreign_too(github: GitHubServer) -> None:
    client, _ = _client(github)
    port = int(github.url.rsplit(":", 1)[1])
    for url in (f"http://127.0.0.1:{port + 1}/x", f"https://127.0.0.1:{port}/x", "http://localhost/x"):
        with pytest.raises(GitHubError, match="refused"):
            client.request("GET", url)
    assert github.state.requests == []


def test_a_redirect_elsewhere_is_refused_and_a_same_origin_one_is_followed(github: GitHubServer) -> None:
    with GitHubServer("acme/skills") as foreign:
        github.state.faults = [Fault(307, {"Location": f"{foreign.url}/repos/acme/skills/issues/1/comments"})]
        client, _ = _client(github)
        with pytest.raises(GitHubError, match=r"redirect \(HTTP 307\)"):
            client.request("GET", "/repos/acme/skills/issues/1/comments")
        assert foreign.state.requests == []

    github.state.faults = [Fault(301, {"Location": f"{github.url}/repos/acme/skills/issues/1/comments"})]
    assert client.request("GET", "/repos/old/name/issues/1/comments").status_code == 200
    assert [r.path for r in github.state.requests][-2:] == [
        "/repos/old/name/issues/1/comments",
        "/repos/acme/skills/issues/1/comments",
    ]


def test_a_pagination_loop_stops_at_the_first_page_seen_again(github: GitHubServer) -> None:
    page_2 = f'<{github.url}/repos/acme/skills/issues/3/comments?per_page=100&page=2>; rel="next"'
    github.state.faults = [Fault(200, {"Link": page_2}, [{"id": 1}]), Fault(200, {"Link": page_2}, [{"id": 2}])]
    client, _ = _client(github)

    with pytest.raises(GitHubError, match="loop back"):
        list(client.paginate("/repos/acme/skills/issues/3/comments"))
    assert len(github.state.requests) == 2


def test_an_html_page_answering_200_is_a_clear_error(github: GitHubServer) -> None:
    github.state.faults = [html_page()]
    client, _ = _client(github)

    with pytest.raises(GitHubError, match=r"returned HTTP 200 with text/html, not JSON \(starts '<!DOCTYPE html>"):
        client.request("GET", "/repos/acme/skills/issues/1/comments")


def test_a_rate_limited_write_is_a_rate_limit_not_a_read_only_token(github: GitHubServer) -> None:
    github.state.faults = [primary_rate_limit(int(time.time()) + 3600)]
    client, _ = _client(github)

    with pytest.raises(GitHubRateLimited, match="retry the job later") as caught:
        upsert_comment(client, "acme/skills", 5, f"{MARKER}\nbody", MARKER)
    assert not caught.value.denied and caught.value.status == 403


@pytest.mark.parametrize("status", [422, 500])
def test_a_failed_write_names_its_status(github: GitHubServer, status: int) -> None:
    github.state.faults = [Fault(status, {}, {"message": "Validation Failed: body is too long"})] * 6
    client, _ = _client(github, policy=RetryPolicy(attempts=2, backoff_s=0.01))

    with pytest.raises(GitHubError, match=f"HTTP {status}") as caught:
        upsert_comment(client, "acme/skills", 5, f"{MARKER}\nbody", MARKER)
    assert caught.value.status == status
