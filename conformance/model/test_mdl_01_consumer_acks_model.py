"""MDL-01: random sequences of consumer operations on one queue and two channels —
publish, basic.get, consume, cancel, ack / nack / reject of valid, stale, unknown,
other-channel and zero tags, qos, recover, channel close and reopen, connection loss —
leave the broker where the reference model of the guides says: the same channels open,
the same queue depth, the same tags, message and redelivered flag on every delivery.
Each difference is judged by the catalogue rule it breaks (listed in `covers`)."""

from amqp_conformance.fixtures.vocabulary import ACK_COVERS, CONFIRMS, ConsumerAckMachine, MUST, rule, run_machine

RULE = rule("MDL-01", "Random consumer operations agree with the reference model of acknowledgements",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags", covers=ACK_COVERS)


def test_random_consumer_operations_agree_with_the_model(broker):
    run_machine(broker, ConsumerAckMachine)
