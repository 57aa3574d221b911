"""QU-12: a broker should hold at least 256 queues in one virtual host (and ideally no
limit but its resources).

Source: queue/declare [minimum-queues] (SHOULD). The 256 exclusive queues are declared
in one pipelined burst on one channel and go with their connection; the count the broker
accepted is recorded."""

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, Closed, NoReply, non_strict, observe, rule, spec)

RULE = rule("QU-12", "At least 256 queues can coexist in one virtual host",
            strength=SHOULD, guide=SPEC, section="queue.declare", source="queue/declare [minimum-queues]")

QUEUES = 256


async def test_256_queues_coexist(broker):
    channel = await (await broker.connection()).channel()
    prefix = broker.name("many")
    for n in range(QUEUES):
        channel.send(spec.Queue.Declare(queue=f"{prefix}-{n}", exclusive=True))
    declared, stopped_by = 0, ""
    try:
        while declared < QUEUES:
            await channel.expect(spec.Queue.DeclareOk)
            declared += 1
    except (Closed, NoReply) as stop:
        stopped_by = str(stop)
    observe("queues declared", declared)
    if declared < QUEUES:
        non_strict(f"only {declared} of {QUEUES} queues were declared ({stopped_by})",
                   expected=f"{QUEUES} declare-ok", actual=f"{declared} declare-ok, then {stopped_by}")
