"""A broker that exits during start-up is one line that says why (BrokerStartError), taken
from what it wrote on its console."""

from __future__ import annotations

from amqp_conformance.fixtures.brokers.managed import _last_line


def test_rabbitmqs_report_under_its_headers_is_joined_into_the_reason(tmp_path):
    # RabbitMQ writes each line of a report under its own header, the last one often empty:
    # the bare last header said nothing (a fresh-clone ci/test showed only "[error] <0.153.0>").
    console = tmp_path / "console.log"
    console.write_text("2026-11-29 00:03:19.200000+00:00 [info] <0.1.0> starting\n"
                       "2026-11-29 00:03:19.300419+00:00 [error] <0.150.0> an earlier report\n"
                       "2026-11-29 00:03:19.300419+00:00 [error] <0.153.0> Failed to start Ranch listener\n"
                       "2026-11-29 00:03:19.300419+00:00 [error] <0.153.0>   eaddrinuse\n"
                       "2026-11-29 00:03:19.300419+00:00 [error] <0.153.0> \n")
    assert _last_line(console) == "Failed to start Ranch listener eaddrinuse"


def test_other_output_gives_its_last_line_naming_an_error(tmp_path):
    console = tmp_path / "console.log"
    console.write_text("booting\nERROR: could not bind\n  at frame 1\ndone\n")
    assert _last_line(console) == "ERROR: could not bind"
    assert _last_line(tmp_path / "missing.log") == "(no output)"
