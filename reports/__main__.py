"""`python -m amqp_conformance.reports COMMAND ...`: the reports' command line.

Each subcommand is one entry of SUBCOMMANDS: its module's `main(argv) -> int` parses its
own arguments with argparse, so `python -m amqp_conformance.reports build --help` is its
own help, and adding a subcommand is one line here.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module under amqp_conformance.reports with main(argv) -> int, one line for the overview)
SUBCOMMANDS = {
    "build": ("build", "every stored run -> Parquet tables, the matrix page and the Allure report (reports/site/)"),
    "serve": ("serve", "serve a built site on 127.0.0.1, so the Allure report opens fast (its default layout needs it)"),
    "diff": ("cells", "the cases whose outcome differs between two broker versions or two stored runs"),
    "flips": ("flips", "the cases whose outcome changed between stored runs (ci/suite --repeat prints it)"),
    "prepare": ("class_archive", "make this machine's class archive for the Spark driver, so builds start faster"),
    "synthetic": ("synthetic", "write synthetic stored runs (for the pipeline's own tests and benchmarks)"),
    "bench": ("pipeline_bench", "time the report build over synthetic runs"),
    "open-bench": ("open_bench", "time a case linked from the matrix until it shows in Chromium, per Allure layout"),
    "rejudge": ("rejudge", "check a stored run's message histories again with today's checker: which verdicts would change"),
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m amqp_conformance.reports",
                                  description="Reports over the stored runs (reports/runs/<run id>/).",
                                  epilog="`python -m amqp_conformance.reports COMMAND --help` gives a command's options.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, summary) in SUBCOMMANDS.items():
        commands.add_parser(name, help=summary, add_help=False)  # its own parser reads the rest, --help too
    return top


def main(argv: list[str] | None = None) -> int:
    args, rest = parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    module = importlib.import_module(f"{__package__}.{SUBCOMMANDS[args.command][0]}")
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
