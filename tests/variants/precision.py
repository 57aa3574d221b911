"""The suite's precision, measured (ci/variants): the catalogue through each conforming
variant (tests/variants/) in front of one managed RabbitMQ node, case by case against the
pass-through run through the same proxy with no rewrite. A case whose outcome moves is
either a variant that is not conforming after all (fix the variant) or a suite verdict
tuned to RabbitMQ's own choice (fix the rule). Prints the table and writes
reports/variants.md.

  ci/variants [--broker rabbitmq-4.0] [--variants a,b] [suite arguments: -m ..., -k ..., -n 0]

With --own-nodes the cases a URL cannot reach go through the variants instead: the suite
runs on the managed broker itself (one worker) and tests/variants/fronts.py puts the
variant's proxy in front of the nodes those cases use (a cluster's nodes, the worker's
patient and dedicated nodes); only the cases that went through such a proxy are compared:

  ci/variants --own-nodes --broker rabbitmq-cluster -m cluster
  ci/variants --own-nodes --broker rabbitmq-4.0 -k "con_24 or con_25 or pc_18 or pc_10 or tx_10 or flt_08"
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from amqp_conformance.fixtures.brokers.registry import managed_broker
from amqp_conformance.fixtures.core.outcomes import HARNESS_LAG
from tests.frame_proxy import FrameProxy
from tests.suite_runs import REPO, node_args, outcomes, patient, run_suite
from tests.variants import VARIANTS, Variant
from tests.variants.fronts import PASS_THROUGH, VARIANT_ENV

REPORT = REPO / "reports" / "variants.md"
WHOLE_RUN_S = 1800  # one suite run of the chosen selection (the whole catalogue: ~6 min direct on 2 cores)
TO_NON_STRICT = {("pass", "non-strict")}  # the one move a variant may cause (Variant.texts_only, .slows)


def through(node, target, rewrite, workdir: Path, suite_args: list[str]):
    with FrameProxy(target.host, target.port, rewrite) as proxy:
        # The management API is read beside the proxy (CON-29, CON-30): it is HTTP, no frame crosses it.
        run = run_suite(workdir, *node_args(node, target.with_address("127.0.0.1", proxy.port).url),
                        "--management-url", node.management_url, *suite_args, timeout=WHOLE_RUN_S)
    return run, list(proxy.errors)


def on_own_nodes(broker: str, name: str, workdir: Path, suite_args: list[str]):
    """One run on the managed broker with `name`'s proxies in front of its own nodes: the
    run, and only its cases that went through a proxy (their errors)."""
    run = run_suite(workdir, "--broker", broker, "-p", "no:xdist", "-p", "tests.variants.fronts", "--no-baseline",
                    *suite_args, timeout=WHOLE_RUN_S, env={VARIANT_ENV: name})
    run.cases = [case for case in run.cases if "variant_proxy_errors" in case.properties]
    return run, sorted({e for case in run.cases for e in case.properties["variant_proxy_errors"].split("; ")
                        if e != "-"})


def changes(before: dict, after: dict) -> list[tuple[str, str, str, str]]:
    """(case, outcome through the pass-through, outcome through the variant, rule) of every
    case whose outcome differs (a case run on one side only counts, as "not run")."""
    return [(case, before.get(key, "not run"), after.get(key, "not run"), key[0])
            for key in sorted(set(before) | set(after), key=lambda k: k[1])
            for case in [key[1]] if before.get(key) != after.get(key)]


def allowed(variant: Variant, before: str, after: str, rule_id: str) -> bool:
    """A move the variant's nature permits: wording, or a speed claim of a slower broker."""
    if (before, after) not in TO_NON_STRICT:
        return False
    return variant.texts_only or (variant.slows and rule_id in performance_rules())


def no_verdict(before: str, after: str) -> bool:
    """The harness could not keep time on any attempt of the case, on one side or both: there
    is no verdict to compare (as a baseline counts such a case apart, fixtures/plugin/baselines.py).
    A variant that is heavy for the proxy itself (one_octet_body_frames turns RD-11's 6 MB
    queue into millions of frames) can cause that: listed, never called a change of verdict."""
    return HARNESS_LAG in (before, after)


def why(variant: Variant) -> str:
    return "the wording" if variant.texts_only else "a speed claim of a slower broker"


@functools.cache  # the registry is loaded once per run, not once per moved case
def performance_rules() -> frozenset[str]:
    from amqp_conformance.fixtures.commands.catalogue import load_all_rules
    from amqp_conformance.fixtures.core.rules import REGISTRY

    load_all_rules()
    return frozenset(declared.id for declared in REGISTRY.values() if declared.area == "PERF")


def row(variant: Variant, moved, errors, seconds: float) -> str:
    lagged = [(case, b, a) for case, b, a, _ in moved if no_verdict(b, a)]
    findings = [(case, b, a) for case, b, a, rule_id in moved
                if not no_verdict(b, a) and not allowed(variant, b, a, rule_id)]
    tolerated = len(moved) - len(findings) - len(lagged)
    verdict = ("**changed**" if findings else "non-strict only (allowed)" if tolerated
               else "equal where judged" if lagged else "equal")
    listed = "; ".join([f"{case}: {b} -> {a}" for case, b, a in findings]
                       + ([f"{tolerated} cases pass -> non-strict ({why(variant)})"] if tolerated else [])
                       + [f"{case}: {b} -> {a} (no verdict)" for case, b, a in lagged]) or "-"
    notes = f" proxy errors: {'; '.join(errors[:2])}" if errors else ""
    return f"| {variant.name} | {verdict} | {len(moved)} | {listed}{notes} | {seconds:.0f} |"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ci/variants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--broker", default="rabbitmq", help="managed RabbitMQ to run (rabbitmq-4.0, the default; rabbitmq-3.10, rabbitmq-4.3)")
    parser.add_argument("--variants", default="", help="comma-separated variant names (default: all)")
    parser.add_argument("--own-nodes", action="store_true",
                        help="the cases on the suite's own nodes (clusters, patient and dedicated nodes) instead")
    ours, suite_args = parser.parse_known_args(argv)
    names = [n.strip() for n in ours.variants.split(",") if n.strip()] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    rows, started = [], time.monotonic()
    if ours.own_nodes:
        node, target = None, None
        runs = lambda name, workdir: on_own_nodes(ours.broker, name, workdir, suite_args)  # noqa: E731
    else:
        node = patient(managed_broker(ours.broker))
        node.management = True
        runs = lambda name, workdir: through(node, target, VARIANTS.get(name), workdir, suite_args)  # noqa: E731
    with (node or contextlib.nullcontext()) as target, tempfile.TemporaryDirectory(prefix="variants-") as scratch:
        control, control_errors = runs(PASS_THROUGH, Path(scratch) / PASS_THROUGH)
        if not control.cases or control_errors:
            print(control.output[-3000:], control_errors, file=sys.stderr)
            return 2
        baseline = outcomes(control)
        # A variant can only move a case that ran: say how many did (unsupported cases prove nothing).
        kinds = ", ".join(f"{n} {kind}" for kind, n in Counter(baseline.values()).most_common())
        print(f"pass-through: {len(baseline)} cases ({kinds}), {control.seconds:.0f} s", flush=True)
        for name in names:
            variant = VARIANTS[name]
            run, errors = runs(name, Path(scratch) / name)
            moved = changes(baseline, outcomes(run))
            rows.append((variant, moved, errors, run.seconds))
            print(row(variant, moved, errors, run.seconds), flush=True)
    head = ("| variant | verdicts | cases changed | changed cases (pass-through -> variant) | s |\n"
            "|---|---|---|---|---|")
    table = "\n".join([head, *(row(*r) for r in rows)])
    sources = "\n".join(f"- **{v.name}**: {v.description} Allowed by {v.source}." for v, *_ in rows)
    exact = sum(1 for v, m, *_ in rows if all(allowed(v, b, a, r) or no_verdict(b, a) for _, b, a, r in m))
    unjudged = sum(1 for _, m, *_ in rows for _, b, a, _ in m if no_verdict(b, a))
    summary = (f"{exact}/{len(rows)} variants leave every verdict as the pass-through run has it; "
               f"{len(baseline)} cases each ({kinds} through the pass-through; "
               f"{' '.join(suite_args) or 'the whole catalogue'}); "
               + (f"{unjudged} cases without a verdict on one side (harness-lag), not compared; " if unjudged else "")
               + f"{time.monotonic() - started:.0f} s")
    print("\n" + table + "\n\n" + summary)
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(f"# Conforming variants\n\nmanaged broker {ours.broker}"
                      f"{' (its own nodes: tests/variants/fronts.py)' if ours.own_nodes else ''}, "
                      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{table}\n\n{summary}\n\n{sources}\n")
    return 0 if exact == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
