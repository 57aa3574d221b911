"""conformance/brokers.toml, what the suite knows about particular brokers, names only
known brokers, features, queue types and rules; every entry is used; and the code asks
it rather than keeping version gates of its own (fixtures/core/broker_facts.py)."""

import re
import subprocess
import sys
import tomllib

import pytest

from amqp_conformance.fixtures.core import broker_facts
from amqp_conformance.fixtures.vocabulary.broker import QUEUE_TYPES, BrokerInfo
from amqp_conformance.fixtures.commands.catalogue import load_all_rules
from amqp_conformance.fixtures.brokers.registry import known_broker_names
from amqp_conformance.fixtures.core.rules import AREAS, REGISTRY
from tests.suite_runs import REPO

FACTS = broker_facts.load()
SOURCES = {p: p.read_text() for folder in ("fixtures", "conformance", "toxiproxy/amqp_faults")
           for p in (REPO / folder).rglob("*.py")}
# Where the code names a feature of the file: the feature lookups and missing_feature.
ASKED = re.compile(r"(?:(?:has_feature|feature|described|missing_feature)\(\s*[^,()]+,\s*|node_setting\(\s*)"
                   r"\"([a-z0-9-]+)\"")


def info(product: str, version: str) -> BrokerInfo:
    return BrokerInfo(product, version, {}, "managed", None)


def test_the_file_names_only_known_brokers_queue_types_and_rules():
    load_all_rules()
    assert FACTS.brokers and set(FACTS.brokers) <= set(known_broker_names())
    for broker in FACTS.brokers.values():
        assert broker.product, broker.name
        for feature in broker.features.values():
            assert feature.reference and feature.what, f"{broker.name}: {feature.name}"
            assert set(feature.by_queue_type) <= set(QUEUE_TYPES), f"{broker.name}: {feature.name}"
    for wedge in FACTS.wedges.values():
        assert wedge.rule in REGISTRY, f"wedges: {wedge.rule} names no rule with a module"
        assert set(wedge.seen_on) <= set(known_broker_names()) and wedge.reason and wedge.reference, wedge.rule
    for hazard in FACTS.hazards.values():  # listed by a broker of the file: its product decides
        assert hazard.brokers and set(hazard.brokers) <= set(FACTS.brokers), f"hazards: {hazard.name}"
        assert hazard.what and hazard.reason and hazard.reference, f"hazards: {hazard.name}"


def test_every_feature_is_asked_for_and_every_feature_asked_for_is_in_the_file():
    asked = {name for text in SOURCES.values() for name in ASKED.findall(text)}
    assert asked == FACTS.feature_names, (f"in the file, asked by no code: {sorted(FACTS.feature_names - asked)}; "
                                          f"asked, not in the file: {sorted(asked - FACTS.feature_names)}")


def test_every_hazard_is_asked_for_and_applies_by_product():
    asked = {name for text in SOURCES.values() for name in re.findall(r"hazard\(\s*[^,()]+,\s*\"([a-z0-9-]+)\"", text)}
    assert asked == set(FACTS.hazards), f"asked {sorted(asked)}, in the file {sorted(FACTS.hazards)}"
    assert broker_facts.hazard(info("Apache Qpid Broker-J Core", "10.1.0"), "perftest-without-confirms")
    assert broker_facts.hazard(info("RabbitMQ", "3.10.8"), "perftest-without-confirms") is None
    with pytest.raises(KeyError):
        broker_facts.hazard(info("RabbitMQ", "3.10.8"), "no-such-hazard")


def test_no_version_gate_is_left_in_code():
    gates = [f"{p.relative_to(REPO)}: {line.strip()}" for p, text in SOURCES.items() for line in text.splitlines()
             if re.search(r"version_tuple|is_rabbitmq|rabbitmq_since|version\s*[<>]=?\s*\(", line)]
    assert not gates, gates


def test_the_versions_decide_as_the_file_says():
    assert broker_facts.has_feature(info("RabbitMQ", "3.10.8"), "per-queue-consumer-timeout") is False
    assert broker_facts.has_feature(info("RabbitMQ", "4.0.5"), "per-queue-consumer-timeout") is True
    assert broker_facts.has_feature(info("RabbitMQ", "4.0.5"), "consumer-timeout", "classic") is True
    assert broker_facts.has_feature(info("RabbitMQ", "4.3.6"), "consumer-timeout", "classic") is False
    assert broker_facts.has_feature(info("RabbitMQ", "4.3.6"), "consumer-timeout", "quorum") is True
    assert broker_facts.has_feature(info("garagemq", "0.1"), "consumer-timeout", "quorum") is None
    with pytest.raises(KeyError):
        broker_facts.has_feature(info("RabbitMQ", "4.3.6"), "no-such-feature")


def test_the_wedges_are_set_from_the_file_alone_and_run_last():
    by_hand = [str(p.relative_to(REPO)) for p, text in SOURCES.items()
               if "conformance" in p.parts and "may_wedge_broker" in text]
    assert not by_hand, f"set in conformance/brokers.toml, not by hand: {by_hand}"
    # The folders of the areas that hold wedges (consumers, queues, ...): collecting them is enough.
    folders = sorted({f"conformance/{AREAS[rule.split('-')[0]][0]}" for rule in FACTS.wedges})
    # Every case, the on-demand ones too (the fuzzer's MDL-03 runs only with -m fuzz).
    every_case = ("-m", "perf or long or fuzz or not (perf or long or fuzz)")
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", *every_case,
                           *folders],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert collected, done.stdout + done.stderr
    wedged = {rule: [i for i, line in enumerate(collected) if f"test_{rule.lower().replace('-', '_')}_" in line]
              for rule in FACTS.wedges}
    ranks = sorted(FACTS.wedges, key=lambda rule: FACTS.wedges[rule].order)
    positions = [i for rule in ranks for i in wedged[rule]]
    assert all(wedged.values()) and positions == list(range(len(collected) - len(positions), len(collected))), \
        collected[-len(positions) - 2:]


def test_the_file_is_package_data():
    """Shipped like the baselines: an installed suite reads it beside its rule modules."""
    package_data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert broker_facts.FACTS_FILE.parent.name == "conformance" and "*.toml" in package_data["amqp_conformance.conformance"]
