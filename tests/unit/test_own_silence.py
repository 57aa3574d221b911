"""The suite's own punctuality on a heartbeat connection, read from what it recorded: a
broker's close after the suite itself fell silent for two intervals is the harness's
doing (HarnessSilent), a close while its writes kept the heartbeat is left to the rule."""

from types import SimpleNamespace

import pytest
from pamqp import commands as spec
from pamqp import frame as pamqp_frame

from amqp_conformance.fixtures.vocabulary.fault_workloads import (HarnessSilent, ended_at, last_write, own_silence, own_writes,
                                                     rule_out_own_silence)
from amqp_conformance.fixtures.checking import verifiers

CLOSE = pamqp_frame.marshal(spec.Connection.Close(reply_code=320, reply_text="missed heartbeats", class_id=0, method_id=0), 0)
DELIVER = pamqp_frame.marshal(spec.Basic.Deliver(consumer_tag="c", delivery_tag=1, exchange="", routing_key="q"), 1)


def connection(*, heartbeat=2, frames=(), heartbeats=(), received=()):
    """What a WireConnection records: its frames sent (time, channel, bytes), its
    heartbeats' send times, the frames received."""
    return SimpleNamespace(heartbeat=heartbeat, sent=[(t, 1, b"f") for t in frames], heartbeats_sent=list(heartbeats),
                           received=list(received))


@pytest.fixture(autouse=True)
def record():
    verifiers.begin_test()


def test_frames_and_heartbeats_are_the_writes_the_broker_could_hear():
    conn = connection(frames=[10.0, 10.2], heartbeats=[11.0, 12.0])
    conn.sent.append((12.5, -1, b""))  # the client's own drop is no write
    assert own_writes(conn) == [10.0, 10.2, 11.0, 12.0]


def test_the_broker_end_is_its_close_or_the_tcp_end():
    assert ended_at(connection(received=[(5.0, 1, DELIVER), (7.0, 0, CLOSE), (7.1, -1, b"")])) == 7.0
    assert ended_at(connection(received=[(5.0, 1, DELIVER), (8.0, -1, b"")])) == 8.0
    assert ended_at(connection(received=[(5.0, 1, DELIVER)])) is None


def test_silence_runs_to_the_broker_end():
    conn = connection(frames=[10.0], heartbeats=[11.0, 12.0, 15.5], received=[(16.0, 0, CLOSE)])
    assert own_silence(conn) == pytest.approx(3.5)


def test_a_close_after_the_suite_fell_silent_is_the_harness_doing():
    late = connection(frames=[10.0], heartbeats=[11.0, 14.5], received=[(15.0, 0, CLOSE)])
    with pytest.raises(HarnessSilent, match="3.50 s"):
        rule_out_own_silence(late)


def test_a_close_while_the_heartbeat_was_kept_is_left_to_the_rule():
    punctual = connection(frames=[10.0], heartbeats=[11.0, 12.0, 13.0, 14.0], received=[(14.2, -1, b"")])
    rule_out_own_silence(punctual)
    rule_out_own_silence(connection(frames=[10.0], heartbeats=[20.0]))  # still open: nothing to rule out
    rule_out_own_silence(connection(heartbeat=0, frames=[10.0], received=[(30.0, -1, b"")]))  # no heartbeats


def test_a_silent_peer_is_timed_from_the_last_write_before_the_fault():
    late = connection(frames=[10.0], heartbeats=[11.0, 11.9, 13.5])
    assert last_write(late, before=13.0) == 11.9  # the harness's late heartbeat came after the fault
    assert last_write(connection(), before=13.0) == 13.0


def test_an_end_the_test_s_own_fault_made_is_left_to_the_rule():
    cut = connection(frames=[10.0], heartbeats=[11.0, 14.5], received=[(15.0, -1, b"")])
    rule_out_own_silence(cut, ended_before=12.0)  # the fault came at 12.0: it ended the connection
    with pytest.raises(HarnessSilent):
        rule_out_own_silence(cut, ended_before=16.0)
