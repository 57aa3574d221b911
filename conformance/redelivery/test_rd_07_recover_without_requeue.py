"""RD-07: basic.recover with requeue=false asks the broker to redeliver unacked messages
to the same consumer. The spec lets a broker refuse it; RabbitMQ closes the connection
with 540 NOT_IMPLEMENTED. Recorded: the reply (scope, code, text), or what was
redelivered after recover-ok."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, Delivery, INFO, observe, observe_answer, rule, timeouts

RULE = rule("RD-07", "basic.recover(requeue=false): the broker's answer is recorded",
            strength=INFO, guide=CONFIRMS, section="automatic-requeueing",
            accepts=("recover-ok, with or without a redelivery, or a refusal such as 540 "
                     "NOT_IMPLEMENTED (recorded); fails only on 541 or a dropped connection"))


async def test_recover_without_requeue_answer_is_recorded(broker):
    queue = await broker.queue(messages=[b"unacked"])
    async with broker.channel() as channel:
        await channel.consume(queue)
        await channel.expect_delivery()
        answer = await observe_answer("outcome seen", channel.recover(requeue=False), lambda _: "recover-ok")
        if not answer.answered:
            return
        again = await channel.watch(Delivery, within=timeouts.NEGATIVE_WINDOW)
    observe("redelivered after recover-ok",
            f"{again.body!r}, redelivered={again.redelivered}" if isinstance(again, Delivery) else "nothing")
