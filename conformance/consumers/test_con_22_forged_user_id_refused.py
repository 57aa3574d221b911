"""CON-22: a message whose user-id property differs from the user the connection
authenticated as is refused: RabbitMQ closes the channel with 406 PRECONDITION_FAILED
"user_id property set to 'X' but authenticated user was 'Y'" (validated user-id, a
RabbitMQ extension). The guide says the value is validated, not how a mismatch is refused:
any close of the channel or its connection passes, another code or scope than RabbitMQ's
is non-strict. Unsupported where the forged message is delivered (Qpid by default,
garagemq); on RabbitMQ, which has validated it since 2.3.0, that is a violation."""

import contextlib

from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, Closed, ConnectionLost, MUST, NoReply, expect_refused,
                                                  missing_feature, observe, rule, timeouts)

RULE = rule("CON-22", "A message whose user-id differs from the authenticated user is refused",
            strength=MUST, guide=CONSUMERS, section="message-properties",
            accepts=("any close of the channel or the connection, the message not delivered; another code or "
                     "scope than RabbitMQ's channel.close 406 is non-strict"))

FORGED = "amqpc-forged-user"


async def test_a_forged_user_id_is_refused(broker):
    queue = await broker.queue()
    async with broker.channel() as channel:
        channel.publish(b"forged", routing_key=queue, properties=Basic.Properties(user_id=FORGED))
        with contextlib.suppress(Closed, NoReply, ConnectionLost):
            await channel.barrier()  # answered only after the publish was handled
        if channel.is_open:
            delivered = await broker.take_all(queue, expected=1, within=timeouts.NEGATIVE_WINDOW)
            if delivered:
                seen = f"accepted and delivered with user_id={delivered[0].properties.user_id!r}"
                observe("outcome seen", seen)
                missing_feature(broker, "validated-user-id", f"published with user_id={FORGED!r} as "
                                f"{broker.target.username!r}: {seen}", expected="channel.close 406")
        await expect_refused(channel, code=406, text=f"user_id property set to '{FORGED}'",
                             requirement="a message with a forged user-id is refused")
