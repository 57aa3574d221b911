"""CH-10: once one connection holds declare-ok for a new queue, a passive declare of it on
another connection finds it.

Source: PDF 4.4 (a method's effect is complete when its reply is sent)."""

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, check, declare_shared_queue, queue_exists, rule

RULE = rule("CH-10", "A queue another connection holds declare-ok for is found by a passive declare",
            strength=MUST, guide=SPEC, section="queue.declare", source="PDF 4.4")

QUEUES = 3


async def test_declare_ok_makes_the_queue_visible_to_others(broker):
    declaring, looking = await broker.connection(), await broker.connection()
    channel = await declaring.channel()
    for _ in range(QUEUES):
        queue = await declare_shared_queue(broker, channel)
        check(await queue_exists(looking, queue), "a passive declare on another connection finds the queue",
              expected="declare-ok", actual="not found", timed=False)
