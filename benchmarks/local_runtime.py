"""The embedded model's runtime: the prebuilt ``xllamacpp`` wheel against a source build of ``llama-cpp-python``.

Every server serves the same SmolLM2-135M GGUF over its OpenAI-compatible HTTP API on 127.0.0.1 with
a 4,096-token context and one request at a time. Each is asked the same requests the built-in harness
sends in a preloaded rollout of the example knowledge skill ``acme-support``: its system prompt with
the skill (arm "with") or without it, the case's prompt, the harness's tool list, temperature 0 and
seed 0. All servers run side by side and each request goes to all of them in rotating order, so they
share whatever load the machine has; the paired ratio is the median over requests of a runtime's
tokens/s divided by the reference's (the first row) on the same request.

Runtimes: aces-ci's own :class:`LocalModelServer` (xllamacpp, passive OpenMP waiting, no prompt-prefix
reuse) at each of ``--threads``. With ``--baseline-python`` (an interpreter that has
``llama-cpp-python[server]``) also ``python -m llama_cpp.server`` at the first thread count, once as
aces-ci ran it before and once with the same passive waiting, and xllamacpp with prompt-prefix reuse
on: llama-cpp-python's server always reuses the previous prompt's common prefix (here, the harness's
system prompt), which aces-ci's server does not because it can change answers, so that row compares
the two builds of llama.cpp on equal terms. Each round asks the prompts in a new (seeded) order, so an
answer that depends on the request before it shows as not repeatable. ``--busy N`` runs N busy-looping
processes during the measurement, as other jobs on a CI runner would.

Reported per runtime: seconds from launch to the first answered ``/v1/models``; completion tokens per
second over whole requests (prompt processing included, as a rollout pays it); whether each request
got the same answer in every round (determinism); how many answers contain the case's expected
output; and how many answers are identical to the reference's.

Usage::

    .venv/bin/python benchmarks/local_runtime.py [--baseline-python PATH] [--rounds 3] [--max-tokens 128]
        [--threads 2 1] [--busy 0] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.agents import render_skill_dir
from aces_ci.agents.builtin import TOOL_SPECS, StagedSkill, system_prompt
from aces_ci.models import (
    LOCAL_MODEL_ID,
    SERVER_ENVIRONMENT,
    LocalModelServer,
    local_runtime_identity,
    local_weights,
)
from aces_ci.skill import skill_card

ACME = Path(__file__).resolve().parent.parent / "examples" / "skill-repo" / "skills" / "acme-support"
STARTUP_TIMEOUT_S = 300.0
REQUEST_TIMEOUT_S = 900.0
"""Hang guards only: far above any expected duration, so a busy machine slows the figures but never fails them."""


@dataclass(frozen=True)
class Prompt:
    case_id: str
    arm: str
    system: str
    user: str
    expected: str


@dataclass
class Runtime:
    name: str
    base_url: str
    startup_s: float
    seconds: list[float] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    answers: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def forget(self) -> None:
        self.seconds.clear()
        self.prompt_tokens.clear()
        self.completion_tokens.clear()
        self.answers.clear()

    @property
    def tokens_per_s(self) -> float:
        return sum(self.completion_tokens) / sum(self.seconds)


def prompts() -> list[Prompt]:
    """The system prompts the built-in harness sends in a preloaded rollout of each arm, and each case."""
    skill = render_skill_dir(ACME)
    staged = [StagedSkill(skill_card(skill), f".agents/skills/{skill.name}")]
    systems = {"with": system_prompt("preload", staged), "without": system_prompt("preload", [])}
    cases = json.loads((ACME / "evals" / "evals.json").read_text(encoding="utf-8"))["evals"]
    return [
        Prompt(case["id"], arm, systems[arm], case["prompt"], case["expected_output"])
        for case in cases
        for arm in ("with", "without")
    ]


TOOLS = [
    {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
    for t in TOOL_SPECS
]
"""The harness offers its tools on every call, also to a model that cannot use them; so does this benchmark."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the baseline server exited with code {process.returncode}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base_url}/models", timeout=5).status_code == 200:
                return
        time.sleep(0.1)
    raise SystemExit("the baseline server did not start")


@contextlib.contextmanager
def baseline_server(python: str, model: Path, threads: int, *, passive: bool) -> Iterator[Runtime]:
    """``python -m llama_cpp.server`` with the settings aces-ci used before xllamacpp.

    ``passive`` adds what aces-ci now sets for its own server (``SERVER_ENVIRONMENT``), so the two
    runtimes can also be compared on equal terms.
    """
    port = _free_port()
    command = [
        python, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", LOCAL_MODEL_ID,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", str(threads),
        "--verbose", "False",
    ]  # fmt: skip
    started = time.monotonic()
    with tempfile.TemporaryFile() as log:
        environment = {**os.environ, **SERVER_ENVIRONMENT} if passive else dict(os.environ)
        if not passive:
            environment.pop("OMP_WAIT_POLICY", None)
        process = subprocess.Popen(command, stdout=log, stderr=log, env=environment, start_new_session=True)
        try:
            _wait_ready(f"http://127.0.0.1:{port}/v1", process)
            version = _version(python, "llama-cpp-python")
            wait = "passive OpenMP wait" if passive else "as aces-ci ran it before (spinning OpenMP wait)"
            name = f"llama-cpp-python {version} (source build), {threads} threads, {wait}"
            yield Runtime(name, f"http://127.0.0.1:{port}/v1", time.monotonic() - started)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def _version(python: str, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


@contextlib.contextmanager
def xllamacpp_server(threads: int, *, reuse: bool = False) -> Iterator[Runtime]:
    """aces-ci's own :class:`LocalModelServer`; with ``reuse``, prompt-prefix reuse on, as llama-cpp-python has it."""
    started = time.monotonic()
    server = LocalModelServer(n_threads=threads, startup_timeout_s=STARTUP_TIMEOUT_S, reuse_prompt_prefix=reuse)
    server.start()
    try:
        how = "prompt-prefix reuse on (not aces-ci's setting)" if reuse else "as aces-ci runs it"
        name = f"{local_runtime_identity()['runtime']} (prebuilt wheel), {threads} threads, {how}"
        yield Runtime(name, server.base_url, time.monotonic() - started)
    finally:
        server.stop()


def ask(http: httpx.Client, runtime: Runtime, prompt: Prompt, max_tokens: int) -> None:
    body = {
        "model": LOCAL_MODEL_ID,
        "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
        "tools": TOOLS,
        "temperature": 0,
        "seed": 0,
        "max_tokens": max_tokens,
    }
    started = time.monotonic()
    reply = http.post(f"{runtime.base_url}/chat/completions", json=body, timeout=REQUEST_TIMEOUT_S)
    runtime.seconds.append(time.monotonic() - started)
    reply.raise_for_status()
    data = reply.json()
    runtime.prompt_tokens.append(int(data["usage"]["prompt_tokens"]))
    runtime.completion_tokens.append(int(data["usage"]["completion_tokens"]))
    runtime.answers.setdefault((prompt.case_id, prompt.arm), []).append(data["choices"][0]["message"]["content"] or "")


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def busy(processes: int) -> Iterator[None]:
    workers = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(processes)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()


def paired_ratio(runtime: Runtime, reference: Runtime) -> float:
    """Median over requests of (tokens/s of ``runtime``) / (tokens/s of ``reference``) on the same prompt and round."""
    ratios = [
        (tokens / seconds) / (ref_tokens / ref_seconds)
        for tokens, seconds, ref_tokens, ref_seconds in zip(
            runtime.completion_tokens, runtime.seconds, reference.completion_tokens, reference.seconds, strict=True
        )
    ]
    return statistics.median(ratios)


def summary(runtime: Runtime, cases: list[Prompt], reference: Runtime) -> dict[str, object]:
    first = {key: answers[0] for key, answers in runtime.answers.items()}
    correct = {
        arm: sum(p.expected in first[(p.case_id, p.arm)] for p in cases if p.arm == arm) for arm in ("with", "without")
    }
    return {
        "runtime": runtime.name,
        "startup_s": round(runtime.startup_s, 2),
        "requests": len(runtime.seconds),
        "prompt_tokens": sum(runtime.prompt_tokens),
        "completion_tokens": sum(runtime.completion_tokens),
        "tokens_per_s": round(runtime.tokens_per_s, 1),
        "paired_ratio_to_reference": round(paired_ratio(runtime, reference), 2),
        "median_request_s": round(statistics.median(runtime.seconds), 3),
        "deterministic": all(len(set(answers)) == 1 for answers in runtime.answers.values()),
        "correct_with": correct["with"],
        "correct_without": correct["without"],
        "same_answers_as_reference": sum(first[key] == reference.answers[key][0] for key in first),
        "answers": {f"{case}/{arm}": answers[0] for (case, arm), answers in runtime.answers.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-python", help="an interpreter with llama-cpp-python[server] installed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, nargs="+", default=[2], help="xllamacpp thread counts to measure")
    parser.add_argument("--busy", type=int, default=0, help="busy-looping processes during the measurement")
    parser.add_argument("--json", type=Path, help="write the figures and answers here")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the servers on the way out

    model = local_weights()
    cases = prompts()
    with contextlib.ExitStack() as stack:
        runtimes = []
        if args.baseline_python:
            for passive in (False, True):
                server = baseline_server(args.baseline_python, model, args.threads[0], passive=passive)
                runtimes.append(stack.enter_context(server))
        runtimes += [stack.enter_context(xllamacpp_server(threads)) for threads in args.threads]
        if args.baseline_python:
            runtimes.append(stack.enter_context(xllamacpp_server(args.threads[0], reuse=True)))
        stack.enter_context(busy(args.busy))
        with httpx.Client() as http:
            for runtime in runtimes:  # one unmeasured request each: page in the weights
                ask(http, runtime, cases[0], 8)
                runtime.forget()
            for round_index in range(args.rounds):
                # A new order each round: an answer that depends on the request before it shows as not repeatable.
                order = list(range(len(cases)))
                random.Random(round_index).shuffle(order)
                for turn_in_round, prompt_index in enumerate(order):
                    prompt = cases[prompt_index]
                    turn = round_index * len(cases) + turn_in_round
                    for runtime in runtimes[turn % len(runtimes) :] + runtimes[: turn % len(runtimes)]:
                        ask(http, runtime, prompt, args.max_tokens)
    load = os.getloadavg()
    reference = runtimes[0]
    results = [summary(runtime, cases, reference) for runtime in runtimes]
    print(
        f"{len(cases)} prompts x {args.rounds} rounds, max_tokens {args.max_tokens}, {args.busy} busy processes; "
        f"load average after the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; reference: {reference.name}"
    )
    print(
        "| runtime | start s | tokens/s | paired ratio | median request s | repeatable | correct with / without "
        "| same answers as reference |"
    )
    print("|---|---:|---:|---:|---:|---|---|---|")
    half = len(cases) // 2
    for r in results:
        print(
            f"| {r['runtime']} | {r['startup_s']} | {r['tokens_per_s']} | {r['paired_ratio_to_reference']}x | "
            f"{r['median_request_s']} | {'yes' if r['deterministic'] else 'NO'} | "
            f"{r['correct_with']}/{half} / {r['correct_without']}/{half} | "
            f"{r['same_answers_as_reference']}/{len(cases)} |"
        )
    if args.baseline_python:
        equal = paired_ratio(runtimes[-1], runtimes[1])
        print(f"equal terms (both passive, both reusing prompt prefixes): xllamacpp / llama-cpp-python = {equal:.2f}x")
    if args.json:
        document = {"load_average": load, "args": vars(args) | {"json": str(args.json)}, "results": results}
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
