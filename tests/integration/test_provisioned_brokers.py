"""The brokers ci/brokers provisions: the chroot roots (rabbitmq-4.0/4.3), Qpid Broker-J
and the docker provider. Their runs take about 10 s each, so they are opt-in:
`AMQP_TEST_PROVISIONED=1 ci/test -m provisioned` runs them wherever `ci/brokers` has
built the prerequisites; elsewhere they skip and say what is missing. The clear-message
tests need nothing and always run."""

import os
import subprocess

import pytest

from amqp_conformance.fixtures.brokers import provisioned as provisioned
from tests.suite_runs import run_suite

ENABLED = os.environ.get("AMQP_TEST_PROVISIONED") == "1"
# CON-10 through the global way only: the per-queue ways start a second node.
QUICK = ["-k", "ack_04 or tx_01 or (con_10 and global) or rd_02"]


def docker_engine_answers() -> bool:
    try:
        import docker
        docker.from_env(timeout=5).ping()
        return True
    except Exception:  # noqa: BLE001 - any failure means no usable engine
        return False


def docker_image_present(image: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0


def needs(prerequisite_present: bool, what: str):
    if not ENABLED:
        pytest.skip("opt-in: AMQP_TEST_PROVISIONED=1 ci/test -m provisioned (each run takes ~10 s)")
    if not prerequisite_present:
        pytest.skip(f"{what} not built on this machine: run ci/brokers first")


@pytest.mark.integration
@pytest.mark.parametrize("broker", ["rabbitmq-4.0", "rabbitmq-4.3", "qpid"])
def test_a_missing_prerequisite_is_one_line_naming_the_build_command(tmp_path, broker):
    run = run_suite(tmp_path, "--broker", broker, env={"HOME": str(tmp_path)}, timeout=60)
    assert run.returncode == 4, run.output[-2000:]
    assert "Traceback" not in run.output and run.output.count("amqp-conformance:") == 1, run.output
    assert f"ci/brokers {broker}" in run.output, run.output


@pytest.mark.integration
def test_a_docker_image_that_is_not_there_is_one_clear_line(tmp_path):
    run = run_suite(tmp_path, "--broker", "docker:amqpc/no-such-image:0", timeout=60)
    assert run.returncode == 4, run.output[-2000:]
    assert run.output.count("amqp-conformance:") == 1 and "Traceback" not in run.output, run.output
    assert "ci/brokers docker" in run.output, run.output


@pytest.mark.provisioned
@pytest.mark.parametrize("broker, version", [("rabbitmq-4.0", "RabbitMQ 4.0."), ("rabbitmq-4.3", "RabbitMQ 4.3.")])
def test_a_chroot_node_runs_the_rules_matches_its_baseline_and_leaves_nothing(tmp_path, broker, version):
    suite = {"rabbitmq-4.0": "trixie", "rabbitmq-4.3": "sid"}[broker]
    root = provisioned.roots() / suite
    needs((root / "usr/lib/rabbitmq/bin/rabbitmq-server").exists(), f"the Debian {suite} root")
    before = set((root / "tmp").glob(f"amqpc-{broker}-*"))
    run = run_suite(tmp_path, "--broker", broker, *QUICK, timeout=180)
    assert run.returncode == 0, run.output[-3000:]
    assert f"broker under test: {version}" in run.output and "0 changes" in run.output, run.output[-2000:]
    assert set((root / "tmp").glob(f"amqpc-{broker}-*")) <= before, "the node's temp dir was left in the root"


@pytest.mark.provisioned
def test_qpid_runs_the_rules_and_matches_its_baseline(tmp_path):
    needs((provisioned.qpid_home() / "lib").is_dir(), f"Qpid Broker-J {provisioned.QPID_VERSION}")
    run = run_suite(tmp_path, "--broker", "qpid", *QUICK, timeout=180)
    assert run.returncode == 0, run.output[-3000:]
    assert "broker under test: Apache Qpid Broker-J" in run.output and "0 changes" in run.output
    # Its known deviations are verdicts, not harness errors: no case may be an error.
    assert {c.outcome for c in run.cases} <= {"pass", "fail", "unsupported"}, [(c.name, c.outcome) for c in run.cases]


@pytest.mark.provisioned
@pytest.mark.parametrize("tag", ["4.0", "4.3"])
def test_the_docker_provider_runs_a_local_image_and_removes_its_container(tmp_path, tag):
    image = f"amqpc/rabbitmq:{tag}"
    needs(docker_engine_answers() and docker_image_present(image), f"a Docker engine with the image {image}")
    import docker
    client = docker.from_env()
    before = {c.id for c in client.containers.list(all=True, filters={"label": "amqp-conformance"})}
    run = run_suite(tmp_path, "--broker", f"docker:{image}", "--baseline", f"rabbitmq-{tag}", *QUICK, timeout=180)
    assert run.returncode == 0, run.output[-3000:]
    assert f"broker under test: RabbitMQ {tag}." in run.output and "(managed docker:" in run.output
    after = {c.id for c in client.containers.list(all=True, filters={"label": "amqp-conformance"})}
    assert after <= before, "the broker's container was left behind"
