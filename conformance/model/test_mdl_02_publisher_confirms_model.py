"""MDL-02: random publishes to routable, unroutable, mandatory unroutable and full
(reject-publish) destinations, persistent or transient, with confirm.select at a random
point, produce a confirm and return stream that numbers from the select, resolves each
publish exactly once in well-formed multiple ranges, returns before acking, and nacks
only what a full queue refused. Rules judged are listed in `covers`."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, CONFIRM_COVERS, MUST, PublisherConfirmMachine, rule,
                                                  run_machine)

RULE = rule("MDL-02", "Random publishes in and out of confirm mode give a well-formed confirm stream",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", covers=CONFIRM_COVERS)


def test_random_publishes_give_a_well_formed_confirm_stream(broker):
    run_machine(broker, PublisherConfirmMachine)
