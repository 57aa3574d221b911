"""What a conforming variant may move (tests/variants/precision.py): only pass -> non-strict,
and only a SHOULD its nature touches: the wording of a reply (texts_only) or a claim about
speed through a variant that holds the broker's frames back (slows). Anything else a
variant moves is a finding: a variant that does not conform, or a verdict tuned to RabbitMQ.
A case that ended harness-lag on either side has no verdict to compare: listed, not a change."""

import pytest

from tests.variants import VARIANTS
from tests.variants.precision import allowed, no_verdict, row


@pytest.mark.parametrize("variant, before, after, rule, expected", [
    ("reworded_reply_texts", "pass", "non-strict", "ACK-03", True),
    ("reworded_reply_texts", "pass", "fail", "ACK-03", False),
    ("delayed_confirms", "pass", "non-strict", "PERF-04", True),
    ("delayed_deliveries", "pass", "non-strict", "PERF-05", True),
    ("delayed_confirms", "pass", "fail", "PERF-04", False),        # a speed claim is a SHOULD: never fail
    ("delayed_confirms", "pass", "non-strict", "PC-17", False),    # only the performance claims
    ("split_multiple_confirms", "pass", "non-strict", "PERF-04", False),  # holds nothing back
    ("coalesced_confirms", "info", "pass", "PERF-01", False),
])
def test_a_variant_may_move_only_what_its_nature_touches(variant, before, after, rule, expected):
    assert allowed(VARIANTS[variant], before, after, rule) is expected


@pytest.mark.parametrize("before, after, expected", [
    ("pass", "harness-lag", True),    # the harness lost time on every attempt through the variant
    ("harness-lag", "fail", True),    # or through the pass-through: nothing to compare either way
    ("pass", "fail", False),
    ("pass", "error", False),         # an error of the run is still a change
])
def test_a_case_without_a_verdict_is_not_compared(before, after, expected):
    assert no_verdict(before, after) is expected


def test_a_lagged_case_is_listed_but_not_a_change():
    line = row(VARIANTS["one_octet_body_frames"], [("RD-11[proxy-down]", "pass", "harness-lag", "RD-11")], [], 1.0)
    assert "equal where judged" in line and "**changed**" not in line and "(no verdict)" in line
