"""The CLU rules and mutants: none here. They need a cluster of three nodes the suite
starts; the mutation node is a single RabbitMQ behind a frame-rewriting proxy, where they
are unsupported. Their verdict power is shown on recorded cluster histories instead
(tests/unit/test_cluster_history.py: a confirmed message missing after the heal, a minority
confirm, an unflagged redelivery)."""

NOT_EXPRESSIBLE = {
    rule: ("needs a three-node cluster; the mutation node is one RabbitMQ: the checker's verdicts on "
           "cluster histories are tested in tests/unit/test_cluster_history.py")
    for rule in ("CLU-01", "CLU-02", "CLU-03", "CLU-04", "CLU-05")
}
