"""The embedded model's server process: llama.cpp's own HTTP server, run in-process by the ``xllamacpp`` wheel.

:class:`~aces_ci.models.LocalModelServer` starts this file *by path* (``python _local_serve.py ...``),
not as ``-m aces_ci...``, so the child imports only the standard library and ``xllamacpp`` — not aces-ci
and its SDKs — and is ready as soon as the model is loaded.

Protocol with the parent: the child binds 127.0.0.1 on a port the kernel picks (no race with another
process for a "free" port), then writes one line ``READY <url>`` to stdout; everything else — llama.cpp's
errors — goes to stderr, which the parent sends to a log file. The settings that make answers repeatable
are fixed here, not left to llama.cpp's defaults: one slot (no batching of concurrent requests, whose
composition would change the arithmetic) and no reuse of a cached prompt prefix (llama.cpp documents
that prefix reuse may change the logits; ``--reuse-prompt-prefix`` turns it on, for the benchmark that
measures what it would save). The child exits on SIGTERM (default action) and, as a safety
net for an owner that was SIGKILLed, when its parent process is gone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

PARENT_POLL_S = 0.5
"""How often the child checks that its owner is still alive."""
EXIT_START_FAILED = 3


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="path of the GGUF file")
    parser.add_argument("--alias", required=True, help="the model id the server answers to")
    parser.add_argument("--n-ctx", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument(
        "--reuse-prompt-prefix",
        action="store_true",
        help="keep the last prompt's KV cache and reuse its common prefix: faster, but may change answers",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = _arguments(argv)
    owner = os.getppid()
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = args.n_ctx
    params.n_parallel = 1
    params.cache_prompt = args.reuse_prompt_prefix
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.ui = False
    params.verbosity = 1  # errors only: the log is read when a start fails
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # llama.cpp has written the reason to stderr already
        print(f"aces-ci: the llama.cpp server did not start: {exc}", file=sys.stderr, flush=True)
        return EXIT_START_FAILED
    print(f"READY {server.listening_address}", flush=True)
    while os.getppid() == owner:
        time.sleep(PARENT_POLL_S)
    return 0


if __name__ == "__main__":
    # os._exit: llama.cpp's server threads are not Python threads, and nothing here needs a clean shutdown.
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)
