"""MDL-03: whatever bad input a client sends (the fuzz cases of spec-rules.md section 5:
protocol headers of every kind, wrong frame-ends, undefined frame types, oversized frames,
heartbeats off channel 0, methods on the wrong channel, broken content sequences, another
channel's methods inside a content, body splits and empty body frames, short strings past
the frame, field tables that do not decode or nest deep, unknown method ids, reserved
fields set, handshake methods out of order or repeated, a start-ok around 4096 octets, a
socket cut inside a content, channels opened around channel-max), the broker
reacts as the framing rules require and keeps the invariants after bad input: a fresh
client served, a bystander's confirmed messages delivered, no 541, no hang, its process
alive and its memory back. Each difference is judged as the rule it breaks (covers).
Each fuzz case is a case of its own with its share of the examples, so a finding in one
never ends the search of the others.

On demand only (`-m fuzz`): a fixed seed and a budget in examples (`--fuzz-examples`,
`--fuzz-seed`); `--fuzz-replay RUN` replays the failing examples a run stored."""

import pytest

from amqp_conformance.fixtures.vocabulary import FUZZ_CASES, MUST, SPEC, fuzz, rule

RULE = rule("MDL-03", "Fuzzed bad frames get the framing rules' reactions, and the invariants after them hold",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.2; PDF 4.2.3; PDF 4.2.6; PDF 2.3.6",
            covers=("CN-02", "CN-07", "CN-11", "CN-20", "FR-01", "FR-02", "FR-03", "FR-04", "FR-06", "FR-08",
                    "FR-10", "FR-12", "FR-13", "FR-14", "FR-15", "FR-17", "FR-18"),
            accepts="any code or none where the FR rule names none; reserved fields set (F13), empty body frames "
                    "(F16), deep or broken tables in a message's headers (F11), channels above channel-max (F18, "
                    "D19), an unfinished handshake (F14), a start-ok over 4096 octets (F15): any answer, the "
                    "invariants judge; a handshake step out of order ends the connection with or without a "
                    "connection.close (F14)")


@pytest.mark.fuzz
@pytest.mark.not_replayable_alone("a fuzz example is replayed by the reproducer the fuzzer writes for it "
                                  "(reproducer MDL-03_<case>_raw.py), or by --fuzz-replay RUN")
@pytest.mark.parametrize("case", FUZZ_CASES, ids=[case.replace(" ", "-") for case in FUZZ_CASES])
def test_fuzzed_frames_keep_the_rules_and_the_invariants(broker, broker_node, case):
    fuzz(broker, broker_node, case)
