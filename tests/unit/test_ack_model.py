"""The reference model of consumer acknowledgements on hand-written sequences: each
states what RULES.md says, without a broker."""

from amqp_conformance.fixtures.models.ack_model import AckModel


def deliver(model, channel, *, no_ack=False, consumer=None, redelivered=None):
    """Deliver the head of the queue as the broker should, and return its tag."""
    message = model.expected_get()
    tag = model.channels[channel].last_tag + 1
    flag = message.delivered if redelivered is None else redelivered
    differences = model.delivered(channel, tag, message.body, flag, consumer=consumer, no_ack=no_ack)
    assert differences == [], differences
    return tag


def test_tags_count_from_one_per_channel_and_acks_settle():
    model = AckModel()
    model.publish(), model.publish()
    assert deliver(model, 1) == 1 and deliver(model, 2) == 1  # ACK-02: per channel
    prediction = model.predict_settle(1, 1, False)
    assert not prediction.closes and prediction.tags == (1,)
    model.settle(1, prediction.tags, method="ack", requeue=False)
    assert model.ready == 0 and model.channels[1].outstanding == {}


def test_double_unknown_and_other_channel_acks_close_with_the_right_rule():
    model = AckModel()
    model.publish()
    tag = deliver(model, 1)
    model.settle(1, [tag], method="ack", requeue=False)
    assert model.predict_settle(1, tag, False).rule == "ACK-04"
    assert model.predict_settle(1, 7, False).rule == "ACK-03"
    assert model.predict_settle(2, tag, False, other_channel=True).rule == "ACK-05"
    assert model.predict_settle(1, 7, True).rule == "ACK-07"
    assert model.predict_settle(1, 0, False).rule == "ACK-09"
    assert not model.predict_settle(1, 0, True).closes  # ACK-08: no error


def test_multiple_settles_up_to_the_tag_and_zero_settles_everything():
    model = AckModel()
    for _ in range(4):
        model.publish()
    tags = [deliver(model, 1) for _ in range(4)]
    assert model.predict_settle(1, 2, True).tags == (1, 2)  # ACK-06
    model.settle(1, (1, 2), method="ack", requeue=False)
    assert model.predict_settle(1, 0, True).tags == (3, 4)
    assert tags == [1, 2, 3, 4]


def test_requeued_messages_come_back_flagged_in_their_place():
    model = AckModel()
    first, second = model.publish(), model.publish()
    tag = deliver(model, 1)
    model.settle(1, [tag], method="nack", requeue=True)  # RQ-01
    assert [m.body for m in model.queue] == [first, second]  # RQ-05
    differences = model.delivered(1, 2, first, False, consumer=None, no_ack=False)
    assert [d.rule for d in differences] == ["RQ-01"]
    assert model.predict_settle(1, tag, False).rule == "ACK-13"  # the old tag is stale


def test_a_first_delivery_flagged_redelivered_breaks_rd_04():
    model = AckModel()
    body = model.publish()
    assert [d.rule for d in model.delivered(1, 1, body, True, consumer=None, no_ack=False)] == ["RD-04"]


def test_closing_losing_and_recovering_requeue_with_their_rules():
    model = AckModel()
    for _ in range(3):
        model.publish()
    deliver(model, 1), deliver(model, 2), deliver(model, 2)
    model.channel_closed(1, code=406, by_error=True)
    assert model.ready == 1 and model.queue[0].requeued_by == "RD-03" and not model.is_open(1)
    model.recover(2)
    assert model.ready == 3 and {m.requeued_by for m in model.queue[1:]} == {"RD-06"}
    deliver(model, 2)
    model.connection_lost()
    assert model.ready == 3 and model.last_requeue_rule == "RD-02"
    assert not model.is_open(2)


def test_auto_ack_deliveries_are_gone_and_their_tags_unknown():
    model = AckModel()
    model.publish()
    tag = deliver(model, 1, no_ack=True)
    model.channel_closed(1, code=None, by_error=False)
    assert model.ready == 0  # RD-08: nothing returns
    model.channel_opened(1)
    assert model.channels[1].last_tag == 0
    model2 = AckModel()
    model2.publish()
    tag = deliver(model2, 1, no_ack=True)
    assert model2.predict_settle(1, tag, False).rule == "ACK-11"


def test_prefetch_limits_pushes_per_consumer_not_gets():
    model = AckModel()
    for _ in range(4):
        model.publish()
    model.qos(1, 2)
    deliver(model, 1)  # a basic.get: not counted against the consumer (QOS-04)
    model.consume(1, "c1", no_ack=False)
    assert model.pending_pushes() == (1, 2)  # QOS-01
    deliver(model, 1, consumer="c1"), deliver(model, 1, consumer="c1")
    assert model.pending_pushes() is None and model.ready == 1
    model.cancel(1)  # CON-02: its deliveries stay outstanding
    assert len(model.channels[1].outstanding) == 3


def test_a_delivery_of_a_settled_message_names_the_rule_it_breaks():
    model = AckModel()
    body = model.publish()
    tag = deliver(model, 1)
    model.settle(1, [tag], method="ack", requeue=False)
    assert [d.rule for d in model.delivered(1, 2, body, True, consumer=None, no_ack=False)] == ["RD-05"]
    assert [d.rule for d in model.delivered(1, 2, b"never", True, consumer=None, no_ack=False)] == \
        ["ACK-01", "RD-05"]
