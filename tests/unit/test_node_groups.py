"""The cases that start a node an xdist worker holds go to a few workers
(amqp_conformance.fixtures.plugin.node_groups): which node a case reaches, how a kind is
split, that every fixture asking for a held node is known, and that the scheduler sends
each group whole to one worker, the largest first, and the other cases one by one."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from amqp_conformance.fixtures.plugin import node_groups
from amqp_conformance.fixtures.plugin.collection import WEDGE_MARKER
from tests.suite_runs import REPO


class Case:
    """What held_node reads of a collected item."""

    def __init__(self, *fixtures: str, wedge: bool = False):
        self.fixturenames = ["request", *fixtures]
        self.wedge = wedge

    def get_closest_marker(self, name):
        return object() if self.wedge and name == WEDGE_MARKER else None


@pytest.mark.parametrize("case, node", [
    (Case("crashable_broker", "queue_type"), "worker_node"),
    (Case("broker", wedge=True), "worker_node"),
    (Case("consumer_timeout", "broker"), "patient_node"),
    (Case("patient_broker"), "patient_node"),
    (Case("management"), "management_node"),
    (Case("default_timeout_broker"), "default_timeout_node"),
    (Case("broker", "history"), None),
])
def test_the_node_a_case_reaches(case, node):
    assert node_groups.held_node(case) == node


def test_a_kind_is_split_into_a_few_groups_dealt_in_turn():
    kinds = {f"p{i}": "patient_node" for i in range(38)} | {f"w{i}": "worker_node" for i in range(35)}
    kinds |= {f"m{i}": "management_node" for i in range(8)} | {"plain": None}
    groups = node_groups.groups_of(kinds, workers=12)
    assert "plain" not in groups
    assert {g for k, g in groups.items() if k.startswith("p")} == {"patient_node-1", "patient_node-2", "patient_node-3"}
    assert {g for k, g in groups.items() if k.startswith("w")} == {"worker_node-1", "worker_node-2", "worker_node-3"}
    assert {g for k, g in groups.items() if k.startswith("m")} == {"management_node-1"}
    assert [groups[f"p{i}"] for i in range(4)] == ["patient_node-1", "patient_node-2", "patient_node-3", "patient_node-1"]
    # on few workers one node of each kind
    assert set(node_groups.groups_of(kinds, workers=3).values()) == {"patient_node-1", "worker_node-1",
                                                                      "management_node-1"}


def _asks_for(function: ast.AST) -> set[str]:
    """The fixtures a function asks for with request.getfixturevalue("...")."""
    return {call.args[0].value for call in ast.walk(function)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "getfixturevalue" and call.args and isinstance(call.args[0], ast.Constant)}


def test_every_fixture_that_asks_for_a_held_node_is_listed():
    reached_by = {node: {node, *through} for node, through in node_groups.HELD_NODES.items()}
    unlisted = []
    for path in sorted((REPO / "fixtures").rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node, through in reached_by.items():
                if not _asks_for(function) & through or function.name in through:
                    continue
                # The session's `broker` reaches the worker's node only for a case that may
                # wedge its broker: the marker says so (held_node's last line).
                if function.name == "broker" and node == node_groups.WEDGE_NODE:
                    continue
                unlisted.append(f"{Path(path).relative_to(REPO)}: {function.name} reaches {node}")
    assert not unlisted, "add them to node_groups.HELD_NODES:\n" + "\n".join(unlisted)


class Worker:
    """What xdist's scheduler uses of a worker: the cases it is sent, and its shutdown."""

    def __init__(self, name: str, sent_in_order: list[int]):
        self.name, self.sent, self.shutting_down = name, [], False
        self.gateway = SimpleNamespace(id=name)
        self.sent_in_order = sent_in_order

    def send_runtest_some(self, indices):
        self.sent.extend(indices)
        self.sent_in_order.extend(indices)

    def shutdown(self):
        self.shutting_down = True

    def run_what_it_was_sent(self, scheduler):
        for index in list(self.sent):
            self.sent.remove(index)
            scheduler.mark_test_complete(self, index)


def scheduled(folder, cases: int, group: list[int], workers: int):
    """A scheduler over `cases` cases (`group` of them one group), scheduled on `workers`
    workers that share one record of what was sent, in order."""
    collection = [f"conformance/t.py::case{i}" for i in range(cases)]
    (folder / "gw0.json").write_text(json.dumps({collection[i]: "worker_node-1" for i in group}))
    config = SimpleNamespace(getvalue=lambda name: ["popen"] * workers if name == "tx" else None,
                             option=SimpleNamespace(loadscopereorder=True))
    scheduler = node_groups.NodeGroupScheduling(config, None, folder)
    sent_in_order: list[int] = []
    started = [Worker(f"gw{i}", sent_in_order) for i in range(workers)]
    for worker in started:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    return scheduler, started, collection, sent_in_order


def test_the_scheduler_sends_a_group_whole_to_one_worker_and_the_rest_in_order(tmp_path):
    group = [1, 4, 7]
    scheduler, workers, _, sent_in_order = scheduled(tmp_path, 10, group, 3)
    assert sorted(workers[0].sent) == group  # the group first, whole, to one worker
    others: list[int] = []
    while not scheduler.tests_finished and any(w.sent for w in workers[1:]):
        for worker in workers[1:]:
            others.extend(worker.sent)
            worker.run_what_it_was_sent(scheduler)
    assert sorted(others) == [i for i in range(10) if i not in group]
    assert [i for i in sent_in_order if i not in group] == sorted(others)  # in the collection's order


def test_a_crashed_worker_gives_back_only_what_it_had_not_run(tmp_path):
    """xdist's scope scheduler gave back every unit a crashed worker had been given, the
    finished ones too; one sent again was an empty batch, and the run waited for ever."""
    group = [5, 6, 7]
    scheduler, (first, second), collection, sent_in_order = scheduled(tmp_path, 8, group, 2)
    assert sorted(first.sent) == group
    first.run_what_it_was_sent(scheduler)  # the group done: it is given the next cases, one by one
    given = list(first.sent)
    scheduler.mark_test_complete(first, given[0])  # that one done too,
    first.sent = []  # and the worker killed while it runs the next
    crashed = scheduler.remove_node(first)
    assert crashed == collection[given[1]]  # xdist reports it as the crash; it is not run again
    replacement = Worker("gw2", sent_in_order)
    scheduler.add_node(replacement)
    scheduler.add_node_collection(replacement, collection)
    scheduler.schedule()
    ran = [*group, given[0]]
    while not scheduler.tests_finished:
        progressed = False
        for worker in (second, replacement):
            ran.extend(worker.sent)
            progressed |= bool(worker.sent)
            worker.run_what_it_was_sent(scheduler)
        assert progressed, f"no worker has work, yet the run is not finished: {scheduler.workqueue}"
    assert sorted(ran) == [i for i in range(8) if i != given[1]]  # every case once, but the crashed one
