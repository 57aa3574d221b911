"""QU-07: a durable queue is there again after the broker restarts, and still routes: a
message published to it through the default exchange comes back out.

Source: queue/declare/durable [persistence]. The restart is a kill -9 of a node the
suite started for this module (the harshest restart; a clean one is a subset), after
the queue's record reached the disk; a broker at a URL cannot be restarted, and the
rule is unsupported there. Persistent messages across a restart are PC-10's."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, CrashQueue, check, expect_exists, rule)

RULE = rule("QU-07", "A durable queue exists after a restart and still routes",
            strength=MUST, guide=SPEC, section="queue.declare.durable", source="queue/declare/durable [persistence]",
            needs=("restart",))

# A process fault: `-m "not fault"` leaves it out of quick runs.
pytestmark = pytest.mark.fault


async def test_a_durable_queue_is_back_after_a_restart(crashable_broker):
    queue = await CrashQueue.declare(crashable_broker, "classic")
    await crashable_broker.crash_and_restart()
    await expect_exists(await crashable_broker.connection(), queue.name,
                        "the durable queue exists after the restart (passive declare answered)")
    await crashable_broker.publish(queue.name, b"after the restart")
    arrived = await crashable_broker.take_all(queue.name, expected=1)
    check([d.body for d in arrived] == [b"after the restart"],
          "the durable queue still routes after the restart: a message published to it by its name arrives",
          expected=[b"after the restart"], actual=[d.body for d in arrived])
