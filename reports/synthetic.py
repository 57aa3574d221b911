"""Synthetic runs at scale: folders shaped like what ci/suite stores (manifest.json and
results.jsonl, one case record a line, amqp_conformance.fixtures.core.outcomes.CaseResult, whose fault tests
carry message-history.jsonl and history-check.json attachments), for the benchmark and
the pipeline's own tests.

python -m amqp_conformance.reports synthetic OUT [--runs N] [--rules N] [--cases N] [--fault-tests N]
                                [--events N] [--seed N] [--versions N] [--first N]

The histories follow the brief's contract. A fraction of fault histories carry injected
anomalies (a confirmed message never delivered, a duplicate, a redelivery without the
flag); the history check written next to each history reports exactly what was injected.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from amqp_conformance.fixtures.core.outcomes import CaseResult, allure_history_id

BROKERS = [("RabbitMQ", "3.10.8"), ("RabbitMQ", "4.1.0"), ("garagemq", "0.1"), ("LavinMQ", "2.3.0")]
# A CI's nightly matrix (--versions 10): these, one run each per night.
VERSIONS = [*BROKERS, ("RabbitMQ", "3.11.28"), ("RabbitMQ", "3.12.14"), ("RabbitMQ", "3.13.7"),
            ("RabbitMQ", "4.0.5"), ("RabbitMQ", "4.2.1"), ("Apache Qpid Broker-J Core", "9.2.0")]
AREAS = ["ACK", "RQ", "RD", "QOS", "PC", "TX", "CON"]
FAULTS = ["latency", "reset_peer", "bandwidth", "timeout", "broker_restart"]


def generate(out: Path, runs: int = 10, rules: int = 30, cases: int = 2, fault_tests: int = 3,
             events: int = 2000, seed: int = 1, start: datetime | None = None, anomalies: float = 0.2,
             versions: int = 0, first: int = 0) -> dict:
    """versions: 0, the four BROKERS, a run an hour; N, the first N of VERSIONS, one run of
    each a night (run n is version n % N on night n // N). first: the number of the first
    run, so a later call adds the runs that follow (an increment)."""
    rng = random.Random(seed * 7919 + first)
    brokers = VERSIONS[:versions] if versions else BROKERS
    out.mkdir(parents=True, exist_ok=True)
    start = start or datetime(2026, 11, 1, tzinfo=timezone.utc)
    rule_ids = [f"{AREAS[i % len(AREAS)]}-{i // len(AREAS) + 1:02d}" for i in range(rules)]
    # Each (broker, rule) has a character: most always pass, some always fail, a few flap.
    characters = random.Random(seed)  # the same for every call with this seed
    character = {(b, r): characters.choices(["pass", "fail", "non-strict", "unsupported", "flaky"],
                                            [70, 10, 8, 7, 5])[0] for b in VERSIONS for r in rule_ids}
    totals = {"runs": 0, "results": 0, "events": 0}
    for n in range(first, first + runs):
        broker, version = brokers[n % len(brokers)]
        began = start + (timedelta(days=n // versions, minutes=5 * (n % versions)) if versions else timedelta(hours=n))
        run_id = f"{began:%Y%m%dT%H%M%SZ}-syn{n:05d}"
        (out / run_id).mkdir(parents=True, exist_ok=True)
        records: list[str] = []
        counts: dict[str, int] = {}
        clock_ms = int(began.timestamp() * 1000)
        for rule_id in rule_ids:
            kind = character[((broker, version), rule_id)]
            for case in range(cases):
                outcome = rng.choice(["pass", "fail"]) if kind == "flaky" else kind
                counts[outcome] = counts.get(outcome, 0) + 1
                records.append(_record(rng, rule_id, case, outcome, clock_ms))
                clock_ms += 7
                totals["results"] += 1
        for f in range(fault_tests):
            fault = FAULTS[(n + f) % len(FAULTS)]
            history, check = history_for(rng, fault, events, anomalies)
            records.append(_record(rng, f"FT-{f + 1:02d}", 0, "pass" if not _violations(check) else "fail",
                                   clock_ms, fault=fault, history=history, check=check))
            counts["pass" if not _violations(check) else "fail"] = counts.get(
                "pass" if not _violations(check) else "fail", 0) + 1
            totals["results"] += 1
            totals["events"] += len(history)
        manifest = {"run_id": run_id, "broker": broker, "broker_version": version,
                    "broker_origin": "synthetic", "started_at": began.isoformat(timespec="milliseconds"),
                    "ended_at": (began + timedelta(minutes=3)).isoformat(timespec="milliseconds"),
                    "duration_s": 180.0, "exit_status": 1 if counts.get("fail") else 0, "outcomes": counts,
                    "options": {"synthetic_seed": seed}, "results": "results.jsonl", "allure_results": None,
                    "junit": None}
        (out / run_id / "results.jsonl").write_text("".join(records))
        (out / run_id / "manifest.json").write_text(json.dumps(manifest, indent=2))
        totals["runs"] += 1
    return totals


def _violations(check: dict) -> int:
    return sum(len(check[k]) for k in ("lost", "unexpected", "duplicated", "unflagged_redeliveries",
                                       "double_resolutions", "watermark_violations"))


def _record(rng: random.Random, rule_id: str, case: int, outcome: str, clock_ms: int, fault: str | None = None,
            history: list[dict] | None = None, check: dict | None = None) -> str:
    """One case record as results.jsonl holds it, as if the Allure sink had written it too."""
    module = f"conformance.synthetic.test_{rule_id.lower().replace('-', '_')}"
    full_name = f"{module}#test_rule"
    parameters = {"case": repr(f"case{case}")}
    if fault is not None:
        parameters["fault"] = repr(fault)
    start = clock_ms / 1000
    stop = start + rng.randint(1, 50) / 1000
    result = CaseResult(
        rule_id, f"{rule_id}[case{case}]", outcome, nodeid=f"{module.replace('.', '/')}.py::test_rule[case{case}]",
        strength="must", parameters=parameters, start=start, stop=stop, duration=stop - start,
        allure={"uuid": str(uuid.UUID(int=rng.getrandbits(128))), "full_name": full_name,
                "history_id": allure_history_id(hashlib.md5(full_name.encode()).hexdigest(), full_name,
                                                list(parameters.items()))})
    if outcome == "fail":
        result.requirement, result.expected, result.actual = f"{rule_id} holds", "the rule", "not the rule"
        result.evidence = f"RuleViolation: {rule_id} holds | expected: the rule | actual: not the rule"
    if outcome == "unsupported":
        result.evidence = "unsupported: the broker lacks it"
    if history is not None:
        result.attachments = {"message-history.jsonl": "".join(json.dumps(e) + "\n" for e in history),
                              "history-check.json": json.dumps(check)}
    return json.dumps(result.as_dict()) + "\n"


def history_for(rng: random.Random, fault: str, events: int, anomalies: float = 0.2) -> tuple[list[dict], dict]:
    """One publisher (confirm mode) and one consumer; about `events` events in all."""
    per_message = 4  # publish, confirm (some multiple), deliver, ack
    messages = max(events // per_message, 2)
    base_latency = {"latency": 0.050, "bandwidth": 0.020, "timeout": 0.010, "reset_peer": 0.004,
                    "broker_restart": 0.030}[fault]
    t = 1000.0
    history: list[dict] = [{"t": t, "kind": "fault", "name": fault, "phase": "applied", "detail": "synthetic"}]
    lost, duplicated, unflagged = [], [], []
    anomalous = rng.random() < anomalies
    lose_every, duplicate_every = max(messages // 4, 3), max(messages // 4, 3) + 1
    pending: list[tuple[int, float]] = []
    tag = 0
    last_confirm = t
    for seq in range(1, messages + 1):
        t += 0.0005
        message_id = f"m{seq}"
        history.append({"t": t, "kind": "publish", "seq": seq, "message_id": message_id, "channel": 1})
        pending.append((seq, t))
        if rng.random() < 0.3 or seq == messages:  # a multiple confirm covering the pending ones
            t_conf = last_confirm = max(last_confirm, t + rng.expovariate(1 / base_latency))
            history.append({"t": t_conf, "kind": "confirm", "seq": seq, "multiple": len(pending) > 1, "ack": True})
            pending = []
        if anomalous and seq % lose_every == 0:
            lost.append(message_id)
            continue
        tag += 1
        redelivered = anomalous and seq % duplicate_every == 0
        history.append({"t": t + 0.001, "kind": "deliver", "message_id": message_id, "delivery_tag": tag,
                        "redelivered": False, "consumer": "c1", "channel": 2})
        history.append({"t": t + 0.0012, "kind": "ack", "delivery_tag": tag, "multiple": False, "channel": 2})
        if redelivered:
            tag += 1
            duplicated.append(message_id)
            unflagged.append(message_id)
            history.append({"t": t + 0.002, "kind": "deliver", "message_id": message_id, "delivery_tag": tag,
                            "redelivered": False, "consumer": "c1", "channel": 2})
    history.append({"t": t + 0.01, "kind": "fault", "name": fault, "phase": "removed", "detail": "synthetic"})
    history.sort(key=lambda e: e["t"])
    check = {"fault": fault, "queue_type": "classic", "published": messages, "confirmed": messages,
             "delivered": messages - len(lost) + len(duplicated), "lost": lost, "unexpected": [],
             "duplicated": duplicated, "recovered": [], "unflagged_redeliveries": unflagged,
             "double_resolutions": [], "watermark_violations": [],
             "detection_latency_s": round(rng.uniform(0.1, 2.0), 3)}
    return history, check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports synthetic")
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rules", type=int, default=30)
    parser.add_argument("--cases", type=int, default=2)
    parser.add_argument("--fault-tests", type=int, default=3)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--versions", type=int, default=0, help="N broker versions, one run each a night")
    parser.add_argument("--first", type=int, default=0, help="the number of the first run (add to earlier ones)")
    args = parser.parse_args(argv)
    totals = generate(args.out, args.runs, args.rules, args.cases, args.fault_tests, args.events, args.seed,
                      versions=args.versions, first=args.first)
    print(f"[synthetic] {totals['runs']} runs, {totals['results']} results, {totals['events']} events in {args.out}")
    return 0
