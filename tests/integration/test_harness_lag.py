"""A deviation is rerun before it is reported (issue 35): a case failing while its harness
lags (its event loop blocked by a test-only plugin) is rerun alone and takes the clean
rerun's verdict; a case failing without lag that passes on the rerun stays a finding,
marked flaky, never a pass. Each record keeps every attempt. The runs judge the worker's
plain RabbitMQ node at its URL: what is tested is the harness, and a node booted for each
run cost about 7 s of ci/test's CPU."""

import json

import pytest

from tests.suite_runs import node_args, run_suite

SELECTION = ["-k", "ACK-04 and not flt05"]  # three short cases, each a pass on RabbitMQ
PLUGIN = ["-p", "tests.integration.lag_injection_plugin"]


def records(run_dir) -> dict[str, dict]:
    return {r["case"]: r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}


def injected(tmp_path, node, mode: str, case: str, *args: str):
    env = {"AMQPC_INJECT": f"{mode}:{case}", "AMQPC_INJECT_MARK": str(tmp_path / "first-attempt-done")}
    # At a URL a run compares with a baseline only when told which (the node's own).
    run = run_suite(tmp_path, *node_args(node, baseline=True), *SELECTION, *PLUGIN,
                    "--run-dir", str(tmp_path / "run"), *args, env=env)
    return run, records(tmp_path / "run")


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_a_fail_under_harness_lag_is_rerun_and_takes_the_clean_reruns_verdict(tmp_path, plain_rabbitmq):
    run, found = injected(tmp_path, plain_rabbitmq, "lag", "ACK-04[ack]", "-n", "2")  # the rerun crosses from a worker
    assert run.returncode == 0, run.output[-3000:]
    lagged = found["ACK-04[ack]"]
    assert lagged["outcome"] == "pass" and lagged["rerun_reason"] == "rerun after harness lag"
    [first] = lagged["attempts"]
    assert first["outcome"] == "harness-lag" and first["harness_lag_ms"] >= 1000, first
    assert "injected" in first["why"]
    assert len(found) == 3 and all(not r["attempts"] for c, r in found.items() if c != "ACK-04[ack]")
    assert "1 case(s) rerun alone after the run: 1 after harness lag" in run.output
    assert "1 rerun" in run.output.splitlines()[-1]
    # The rerun collects its case again without pytest's "collected 1 item" line (one per case).
    assert not [line for line in run.output.splitlines() if line.startswith("collected ")], run.output[-3000:]
    assert [c.outcome for c in run.cases if c.name.endswith("[ack]")] == ["pass"]  # one JUnit element


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_a_fail_without_lag_that_passes_on_the_rerun_stays_a_fail_marked_flaky(tmp_path, plain_rabbitmq):
    run, found = injected(tmp_path, plain_rabbitmq, "flaky", "ACK-04[nack]")
    assert run.returncode == 1, run.output[-3000:]
    flaky = found["ACK-04[nack]"]
    assert flaky["outcome"] == "fail" and flaky["rerun_reason"] == "flaky" and flaky["deviation"] == "new"
    assert "injected" in flaky["actual"]  # the finding's own evidence is kept
    assert [a["outcome"] for a in flaky["attempts"]] == ["pass"]
    assert "NEW    ACK-04[nack]: fail (flaky)" in run.output
    assert [c.outcome for c in run.cases if c.name.endswith("[nack]")] == ["fail"]


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_reruns_0_reports_a_lagged_fail_as_harness_lag(tmp_path, plain_rabbitmq):
    run, found = injected(tmp_path, plain_rabbitmq, "lag", "ACK-04[reject]", "--reruns", "0")
    lagged = found["ACK-04[reject]"]
    assert lagged["outcome"] == "harness-lag" and not lagged["attempts"] and lagged["harness_lag_ms"] >= 1000
    assert "not judged (harness lag on every attempt)" in run.output
    assert run.returncode == 1, run.output[-3000:]  # a case the run could not judge is never a match
