"""QU-10: a queue declared exclusive by a connection that is still open cannot be used
from any other connection: declare (passive or not), bind, unbind, consume, get, purge
and delete from there are each refused with channel.close 405 RESOURCE_LOCKED.

Source: queue/declare/exclusive [exclusive] (on-failure resource-locked); ERRATA 7.
RabbitMQ documents the same (exclusivity checked first, unbind and get included, D6)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, RESOURCE_LOCKED, SPEC, declare, expect_closed,
                                                  leave_exclusive_queue, rule, spec)

RULE = rule("QU-10", "Another connection's use of an exclusive queue is refused (405)",
            strength=MUST, guide=SPEC, section="queue.declare.exclusive",
            source="queue/declare/exclusive [exclusive]; ERRATA 7")

# What the other connection tries on the exclusive queue `q` (bound to amq.direct by `q`).
USES = {
    "declare": lambda q: spec.Queue.Declare(queue=q, exclusive=True),
    "passive-declare": lambda q: spec.Queue.Declare(queue=q, passive=True),
    "bind": lambda q: spec.Queue.Bind(queue=q, exchange="amq.direct", routing_key=q + "-other"),
    "unbind": lambda q: spec.Queue.Unbind(queue=q, exchange="amq.direct", routing_key=q),
    "consume": lambda q: spec.Basic.Consume(queue=q),
    "get": lambda q: spec.Basic.Get(queue=q),
    "purge": lambda q: spec.Queue.Purge(queue=q),
    "delete": lambda q: spec.Queue.Delete(queue=q),
}


@pytest.mark.parametrize("use", USES)
async def test_another_connection_cannot_use_an_exclusive_queue(broker, use):
    owner_connection = await broker.connection()
    owner = await owner_connection.channel()
    queue = broker.adopt(broker.name("exclusive"))
    await declare(owner, queue, exclusive=True)
    await owner.call(spec.Queue.Bind(queue=queue, exchange="amq.direct", routing_key=queue), spec.Queue.BindOk)
    other = await (await broker.connection()).channel()
    other.send(USES[use](queue))
    try:
        await expect_closed(other, code=RESOURCE_LOCKED, text="RESOURCE_LOCKED",
                            requirement=f"{use} of another connection's exclusive queue is refused with "
                                        "channel.close 405")
    finally:
        await leave_exclusive_queue(other.connection, owner_connection, queue)
