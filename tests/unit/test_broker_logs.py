"""A managed broker's log goes into the run folder without the session's credentials."""

import gzip

from amqp_conformance.fixtures.brokers.garagemq import GarageMQ
from amqp_conformance.fixtures.wire.target import mask_secrets


def test_saved_log_is_gzipped_and_scrubbed(tmp_path):
    broker = GarageMQ()
    try:
        broker.log_file.parent.mkdir(parents=True)
        broker.log_file.write_text("login conformance/s3cr3t-pw accepted\nreading frame: reset by peer\n")
        saved = broker.save_logs(tmp_path / "broker-log", lambda line: mask_secrets(line, ["s3cr3t-pw"]))
    finally:
        broker.cleanup()
    assert [path.name for path in saved] == ["garagemq-broker.log.gz"]  # no console output: no file
    text = gzip.open(saved[0], "rt").read()
    assert "s3cr3t-pw" not in text
    assert "reading frame: reset by peer" in text


def test_a_broker_name_with_slashes_names_one_file(tmp_path):
    broker = GarageMQ()
    broker.name = "docker:amqpc/rabbitmq:4.0"  # what --broker docker:IMAGE calls its node
    try:
        broker.log_file.parent.mkdir(parents=True)
        broker.log_file.write_text("started\n")
        saved = broker.save_logs(tmp_path / "broker-log", lambda line: line)
    finally:
        broker.cleanup()
    assert [path.relative_to(tmp_path / "broker-log").as_posix() for path in saved] == \
        ["docker:amqpc_rabbitmq:4.0-broker.log.gz"]
