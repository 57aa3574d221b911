"""RT-01: every queue is reachable through the nameless default exchange: a message
published to exchange "" with a queue's name as routing key lands in that queue, with no
binding ever declared, for a queue the client named and for one the broker named.

Source: `exchange [default-exchange]`, `queue/declare [default-binding]`,
`basic/publish/exchange [default-exchange]`. A broker that refuses to generate a queue
name breaks QU-01, not this rule: the generated case then says it was not exercised."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, contents, declare_generated_queue,
                                                  not_exercised, observe, publish_on, rule)

RULE = rule("RT-01", "The default exchange routes a message to the queue its routing key names",
            strength=MUST, guide=SPEC, section="basic.publish.exchange",
            source=("exchange [default-exchange]; queue/declare [default-binding]; "
                    "basic/publish/exchange [default-exchange]"))


@pytest.mark.parametrize("naming", ["named", "generated"])
async def test_default_exchange_routes_by_queue_name(broker, naming):
    connection = await broker.connection()
    channel = await connection.channel()
    queue = await broker.queue() if naming == "named" else await declare_generated_queue(channel)
    if queue is None:
        not_exercised("the broker generated no queue name (QU-01 judges that): nothing to route to")
        return
    publish_on(channel, b"by name", exchange="", key=queue)
    publish_on(channel, b"by another name", exchange="", key=queue + "-not-this-one")
    held = await contents(channel, queue)
    observe("the queue holds", held)
    check(held == [b"by name"], "a publish to the default exchange with the queue's name as key reaches the "
                                "queue, with no binding declared", expected=[b"by name"], actual=held, timed=False)
