"""MDL-03: whatever bad input a client sends after the handshake (the fuzz cases F2..F13 of
spec-rules.md section 5: wrong frame-ends, undefined frame types, oversized frames,
heartbeats off channel 0, methods on the wrong channel, broken content sequences, body
splits, short strings past the frame, unknown method ids, reserved fields set), the broker
reacts as the framing rules require and keeps the invariants after bad input: a fresh
client served, a bystander's confirmed messages delivered, no 541, no hang, its process
alive and its memory back. Each difference is judged as the FR rule it breaks (covers).

On demand only (`-m fuzz`): a fixed seed and a budget in examples (`--fuzz-examples`,
`--fuzz-seed`); `--fuzz-replay RUN` replays the failing examples a run stored."""

import pytest

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, fuzz, rule

RULE = rule("MDL-03", "Fuzzed bad frames get the framing rules' reactions, and the invariants after them hold",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3; PDF 4.2.6; PDF 2.3.6",
            covers=("FR-01", "FR-02", "FR-03", "FR-04", "FR-06", "FR-08", "FR-10", "FR-12", "FR-13", "FR-15",
                    "FR-17", "FR-18"),
            accepts="any code or none where the FR rule names none; reserved fields set (F13): any answer")


@pytest.mark.fuzz
@pytest.mark.not_replayable_alone("a fuzz example is replayed by the reproducer the fuzzer writes for it "
                                  "(reproducer MDL-03_<case>.py), or by --fuzz-replay RUN")
def test_fuzzed_frames_keep_the_rules_and_the_invariants(broker, broker_node):
    fuzz(broker, broker_node)
