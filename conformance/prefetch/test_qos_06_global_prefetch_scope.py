"""QOS-06: with global=false a prefetch count applies to each consumer on the channel
separately; with global=true RabbitMQ up to 4.2 applies it to the channel as a whole,
and 4.3 denies global by default. Which scope each flag gets is recorded."""

import asyncio

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, Closed, deliveries_until_quiet, observe, rule

RULE = rule("QOS-06", "global=false limits each consumer, global=true the channel (version-gated, recorded)",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch")

READY = 6  # per queue: more than any limit below lets through
SCOPES = {"per consumer": lambda limit: 2 * limit, "per channel": lambda limit: limit}


async def unacked_on_two_consumers(broker, queues: list[str], limit: int, global_: bool) -> str:
    channel = await (await broker.connection()).channel()
    try:
        await channel.qos(limit, global_=global_)
    except Closed as refused:
        return f"refused: {refused.reply}"
    for queue in queues:
        await channel.consume(queue)
    unacked = len(await deliveries_until_quiet(channel, expected=limit))
    scope = next((name for name, total in SCOPES.items() if total(limit) == unacked), "neither")
    return f"{scope} ({unacked} unacked over 2 consumers with prefetch {limit})"


async def test_scope_of_each_global_flag_is_recorded(broker):
    queues = [await broker.queue(messages=[b"m%d" % n for n in range(READY)]) for _ in range(4)]
    # Both channels count within the same quiet window.
    per_flag_false, per_flag_true = await asyncio.gather(
        unacked_on_two_consumers(broker, queues[:2], 2, global_=False),
        unacked_on_two_consumers(broker, queues[2:], 3, global_=True))
    observe("broker version", str(broker.info))
    observe("global=false", per_flag_false)
    observe("global=true", per_flag_true)
    observe("RabbitMQ documents", "global=false per consumer; global=true per channel up to 4.2, denied from 4.3")
