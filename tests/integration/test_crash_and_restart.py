"""Integration: ManagedBroker.crash_and_restart() kills the broker with SIGKILL and
brings it back on the same address, credentials and data (what PC-10 and FLT-08 use)."""

import asyncio
import os
import re

import pytest
from pamqp import commands as spec

from amqp_conformance.fixtures.brokers.registry import MANAGED_BROKERS
from amqp_conformance.fixtures.brokers.provisioned import PrerequisiteMissing
from amqp_conformance.fixtures.wire.dialogue import Closed, Confirm, Delivery, WireConnection

pytestmark = pytest.mark.integration


async def publish_confirmed(target, queue: str, body: bytes) -> Confirm:
    connection = await WireConnection.open(target)
    try:
        channel = await connection.channel()
        # No x-queue-type: Qpid refuses the argument, and every managed broker defaults to classic.
        await channel.call(spec.Queue.Declare(queue=queue, durable=True),
                           spec.Queue.DeclareOk)
        await channel.confirm_select()
        channel.publish(body, routing_key=queue, persistent=True)
        return await channel.expect(Confirm)
    finally:
        await connection.close()


async def get_one(target, queue: str) -> Delivery | None:
    connection = await WireConnection.open(target)
    try:
        return await (await connection.channel()).get(queue, no_ack=True)
    finally:
        await connection.close()


def what_the_restart_logged_of(node, queue: str) -> tuple[int | None, list[str]]:
    """From the broker's log since its last boot began: how many classic queues RabbitMQ
    said it recovered (None: no such line, or not RabbitMQ), and the lines that name the
    queue, a recovery, an error or a crash."""
    log = node.log_file.read_text(errors="replace") if node.log_file.exists() else ""
    boot_complete = getattr(node, "BOOT_COMPLETE", None)
    if boot_complete and log.count(boot_complete) >= 2:
        log = log[log.rindex(boot_complete, 0, log.rindex(boot_complete)):]
    recovered = re.findall(r"Recovering (\d+) queues of type rabbit_classic_queue", log)
    telling = [line[:300] for line in log.splitlines()
               if queue in line or any(word in line.lower() for word in ("recover", "error", "crash"))]
    return (int(recovered[-1]) if recovered else None), telling


# A cluster's node loss is the CLU rules' business (tests/integration/test_cluster_broker.py).
# ci/test crashes each kind of node; the TLS-only ones (the same node classes with a TLS
# listener: 38 s of ci/test) crash in ci/mutation (`full`).
CRASHED = [pytest.param(name, marks=pytest.mark.full) if name.endswith("-tls") else name
           for name in MANAGED_BROKERS if not name.endswith("-cluster")]


@pytest.mark.parametrize("name", CRASHED)
def test_a_crashed_broker_comes_back_with_its_data(name):
    node = None
    try:
        node = MANAGED_BROKERS[name]()
        target = node.start()
    except PrerequisiteMissing as not_built:  # rabbitmq-4.x and qpid come from ci/brokers
        if node is not None:
            node.cleanup()
        pytest.skip(f"{name} is not built on this machine: {not_built}")
    try:
        first_pid = node.process.pid
        assert asyncio.run(publish_confirmed(target, "crash-probe", b"kept")).ack
        # The message is on disk once confirmed; a fresh queue's own record may not be yet
        # (RabbitMQ answers declare-ok first). This test is about the restart machinery.
        on_disk = node.wait_until_on_disk("crash-probe", within=30)
        assert all(seconds is not None for seconds in on_disk.values()), f"queue record not on disk: {on_disk}"

        seconds = node.crash_and_restart()

        assert node.process.pid != first_pid and node.process.poll() is None
        with pytest.raises(ProcessLookupError):
            os.kill(first_pid, 0)  # the old process is gone (killed, not left running)
        # Twice in fresh-clone ci/test runs under heavy load (RabbitMQ 3.10.8 and 4.0.5, both
        # TLS nodes), the restarted node answered 404 for the queue although its name was in
        # the metadata store before the kill. Where the broker's own log says it recovered no
        # classic queue from the same data directory, the restart did its part and the broker
        # lost the queue: an expected failure that names the evidence, not a pass. Anything
        # else (a refusal the log does not explain) fails the machinery.
        try:
            delivery = asyncio.run(get_one(target, "crash-probe"))
        except Closed as refused:
            recovered, telling = what_the_restart_logged_of(node, "crash-probe")
            evidence = "\n".join(telling[-40:])
            if refused.reply.code == 404 and recovered == 0:
                pytest.xfail(f"{name} lost the durable queue in a kill -9 (its log: 0 classic queues recovered "
                             f"from the same data directory; on disk before the kill: {on_disk}):\n{evidence}")
            pytest.fail(f"after a {seconds:.1f} s restart ({on_disk}, classic queues the log says it "
                        f"recovered: {recovered}): {refused}\n{evidence}\n--- log tail ---\n{node.log_tail(40)}")
        assert delivery is not None and delivery.body == b"kept", f"after a {seconds:.1f} s restart: {delivery}"
    finally:
        node.cleanup()
