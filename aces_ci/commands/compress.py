"""``aces-ci compress``: a shorter skill, proposed from SkillSV's values and proven no worse on cases it never saw.

``aces-ci compress SKILL_DIR [--evals FILE] [run and model flags] [--values FILE] [--held-out SHARE]
[--tolerance T] [--keep-tokens F] [--editor-provider P --editor-model M] --out DIR [--patch FILE]
[--json FILE] [--markdown FILE] [--html FILE]`` splits the cases (seeded) into an attribution split and a disjoint
held-out split, values the skill on the first (or reads ``--values``), builds the pruned candidate
(and the edited one when an editor model is named), scores each against the original on the
held-out cases with the same seeds (``--runs`` seeds per case), and accepts a candidate only when
the interval of its Δ has its lower bound above the tolerance (aces.yml ``compress.tolerance``,
default −0.05). The accepted skill is written to ``--out`` as a whole folder and, with ``--patch``,
as a unified diff against the original; the repository itself is never written.

Exit codes: 0 a candidate was accepted, or there was nothing to do (no unit may be cut and no
editor is named); 1 candidates were built but none was accepted (rejected, underpowered, or left
unverified by a budget stop: the report says which); 2 bad input or configuration; 3 the oracle
or the editor's API failed, or the valuation measured nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import app
from ..atomic import write_output
from ..compress import compress_json
from ..errors import EXIT_GATE_FAILED, EXIT_PASS
from ..report import render_compress_markdown, render_compress_text
from ._run_options import _COUNT, _number, add_judge_options, add_run_options
from ._value_options import add_valuation_options, valuation_flags

_SHARE = _number(float, 0, strict=True)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compress",
        help="propose a shorter skill from SkillSV's values, verified on held-out cases",
        description="Value the skill on part of its cases, cut (or have an editor model rewrite) what the values "
        "allow, and accept the shorter skill only if it is no worse on the cases the valuation never saw.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    add_valuation_options(parser)
    parser.add_argument("--values", type=Path, metavar="FILE", help="read the decisions from a value JSON instead")
    parser.add_argument(
        "--held-out", type=_SHARE, default=0.5, metavar="SHARE", help="share of the cases held out (default 0.5)"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        metavar="T",
        help="accept only when the Δ interval's lower bound is above T (default aces.yml compress.tolerance, −0.05)",
    )
    parser.add_argument("--keep-tokens", type=_SHARE, metavar="F", help="the editor keeps at most this share of tokens")
    editor = parser.add_argument_group("editor model (the edited candidate)")
    editor.add_argument("--editor-provider", choices=("anthropic", "openai", "local"), help="none: no edited candidate")
    editor.add_argument("--editor-model", metavar="ID", help="editor model id")
    editor.add_argument("--editor-base-url", metavar="URL", help="editor API endpoint")
    editor.add_argument("--editor-max-tokens", type=_COUNT, default=4096, metavar="N", help="per answer")
    editor.add_argument("--editor-attempts", type=_COUNT, default=3, metavar="N", help="answers asked at most")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="write the accepted skill here")
    parser.add_argument("--patch", type=Path, metavar="FILE", help="write the accepted skill's unified diff here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the Markdown section")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the self-contained HTML report")
    add_run_options(parser)
    add_judge_options(parser)
    parser.set_defaults(run=run)


def compress_flags(args: argparse.Namespace) -> app.CompressFlags:
    value = valuation_flags(args)
    editor = app.EditorFlags(args.editor_provider, args.editor_model, args.editor_base_url, args.editor_max_tokens)
    return app.CompressFlags(
        value=value,
        held_out=args.held_out,
        tolerance=args.tolerance,
        keep_tokens=args.keep_tokens,
        editor=editor,
        editor_attempts=args.editor_attempts,
        values_file=args.values,
    )


def run(args: argparse.Namespace) -> int:
    skill_dir, project, config = app.compress_request(args.skill_dir, compress_flags(args), args.config)
    app.check_out(skill_dir, args.out)  # a folder the proposal cannot go to is said before anything is paid
    result = app.compress(skill_dir, project, config)
    written = app.write_proposal(result, skill_dir, args.out)
    proposal = result.proposal
    if args.patch is not None and proposal is not None:
        write_output(args.patch, proposal.diff, "patch")
    data = compress_json(result)
    if args.json is not None:
        write_output(args.json, json.dumps(data, indent=2) + "\n", "JSON")
    if args.markdown is not None:
        write_output(args.markdown, render_compress_markdown(result), "Markdown")
    if args.html is not None:
        from ..report.html import document_from, write_html

        # the page is rendered from the JSON, exactly as `aces-ci report compress.json --html` renders it
        source = str(args.json) if args.json is not None else f"aces-ci compress {args.skill_dir}"
        write_html(args.html, [document_from(json.loads(json.dumps(data)), source)])
    render_compress_text(result, sys.stdout)
    if written is not None:
        sys.stdout.write(f"accepted skill written to {written}\n")
    if proposal is not None or not result.candidates:
        return EXIT_PASS
    return EXIT_GATE_FAILED
