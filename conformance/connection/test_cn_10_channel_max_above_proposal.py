"""CN-10: a tune-ok whose channel-max is above the broker's (non-zero) proposal ends the
connection before open-ok, without a close handshake.

Source: connection/tune-ok/channel-max [upper-limit]; PDF 2.2.4. RabbitMQ documents both a
failed negotiation (its source sends connection.close 530 in some versions) and, in older
text, acceptance of any value (D19): either is non-strict naming D19, never a fail. A
broker that neither opens nor ends the connection breaks the rule. 0 against a proposal is
recorded only (ERRATA 10); a broker that proposes no limit is not exercised."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, above_the_proposal,
                                                  expect_refused_before_open, non_strict, rule)

RULE = rule("CN-10", "A tune-ok channel-max above the broker's proposal ends the connection", strength=MUST,
            guide=SPEC, section="connection.tune-ok", source="connection/tune-ok/channel-max [upper-limit]",
            accepts="a silent close after a pause; a connection.close first, or open-ok (RabbitMQ documents "
                    "accepting any value in older text, D19), is non-strict; channel-max 0 against a proposal is "
                    "recorded only (ERRATA 10)")

pytestmark = HANDSHAKE_ONLY

REQUIREMENT = "a tune-ok channel-max above the broker's proposal must end the connection before open-ok"


async def test_channel_max_above_the_proposal_is_refused(broker):
    ending = await above_the_proposal(broker, "channel_max")
    if ending is None:
        return
    if ending.proceeded is not None:
        non_strict(f"{REQUIREMENT}; the broker opened it (RabbitMQ documents accepting any value in older text, D19)",
                   expected="the connection ended", actual=str(ending))
        return
    expect_refused_before_open(ending, REQUIREMENT, documented="RabbitMQ documents a failed negotiation (D19)")
