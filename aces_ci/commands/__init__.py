"""One module per CLI verb: ``add_parser(subparsers)`` declares its flags, ``run(args)`` returns an exit code.

:mod:`aces_ci.cli` only wires these together, so the GitHub Action and tests call the same functions.
"""
