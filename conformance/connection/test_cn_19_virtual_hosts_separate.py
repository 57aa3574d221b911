"""CN-19: virtual hosts are separate: a queue of one is not visible from another (a
passive declare there is refused with 404), and a message published in another virtual
host with the queue's name as routing key never reaches it.

Source: connection/open/virtual-host [separation]; PDF 3.1.2. The second virtual host is
made through the management API (with none, unsupported: a broker with one virtual host
cannot show separation) and deleted afterwards. The publish is followed by a round trip
on its channel, so the broker has routed it before the queue's count is read."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, another_virtual_host, check, connection_to, observe,
                                                  passive_declare_answer, publish_through_default_exchange, rule,
                                                  timeouts)

RULE = rule("CN-19", "A queue of one virtual host is invisible and unreachable from another", strength=MUST,
            guide=SPEC, section="connection.open", source="connection/open/virtual-host [separation]; PDF 3.1.2")

# The backstop covers starting the node with the management API (a worker's first such case).
pytestmark = pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)

NOT_FOUND = 404


async def test_a_queue_is_invisible_and_unreachable_from_another_virtual_host(management):
    broker = management.broker
    queue = await broker.queue()
    async with another_virtual_host(management) as other:
        elsewhere = await connection_to(broker, other)
        answer = await passive_declare_answer(elsewhere, queue)
        observe("passive declare from the other virtual host", str(answer or "declare-ok"))
        check(answer is not None and answer.code == NOT_FOUND,
              "a queue must not be visible from another virtual host",
              expected=f"channel.close {NOT_FOUND}", actual=str(answer or "queue.declare-ok"))
        await publish_through_default_exchange(elsewhere, routing_key=queue)
        ready = await broker.ready_count(queue)
    check(ready == 0, "a publish in another virtual host must not reach the queue",
          expected="0 messages in the queue", actual=f"{ready}")
