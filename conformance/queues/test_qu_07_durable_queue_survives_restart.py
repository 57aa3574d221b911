"""QU-07: a durable queue is there again after the broker restarts, and still routes: a
message published to it through the default exchange comes back out.

Source: queue/declare/durable [persistence]. The restart is a clean stop and start of
a node the suite started for this module: the spec asks a durable queue to survive a
server restart, and a kill -9 tests a crash window instead (RabbitMQ 4.0.5 lost a
just-declared durable queue to one, once in a loaded run; crashes are PC-10's and
FLT-08's). A broker at a URL cannot be restarted, and the rule is unsupported there. Persistent messages across a restart are PC-10's."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, CrashQueue, check, expect_exists, observe, restart, rule)

RULE = rule("QU-07", "A durable queue exists after a restart and still routes",
            strength=MUST, guide=SPEC, section="queue.declare.durable", source="queue/declare/durable [persistence]",
            needs=("restart",))

# A process fault: `-m "not fault"` leaves it out of quick runs.
pytestmark = pytest.mark.fault


async def test_a_durable_queue_is_back_after_a_restart(crashable_broker):
    queue = await CrashQueue.declare(crashable_broker, "classic")
    observe("restart took", f"{await restart(crashable_broker):.1f} s")
    await expect_exists(await crashable_broker.connection(), queue.name,
                        "the durable queue exists after the restart (passive declare answered)")
    await crashable_broker.publish(queue.name, b"after the restart")
    arrived = await crashable_broker.take_all(queue.name, expected=1)
    check([d.body for d in arrived] == [b"after the restart"],
          "the durable queue still routes after the restart: a message published to it by its name arrives",
          expected=[b"after the restart"], actual=[d.body for d in arrived])
