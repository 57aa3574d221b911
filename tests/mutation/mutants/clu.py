"""The CLU rules and mutants. The mutation node is a single RabbitMQ behind a
frame-rewriting proxy, where the CLU rules are unsupported. CLU-03 has a live mutant on
the managed cluster (tests/mutation/cluster_mutants.py, killed by
tests/mutation/test_cluster_mutants.py); the others' verdict power is shown on recorded
cluster histories (tests/unit/test_cluster_history.py: a confirmed message missing after
the heal, a minority confirm, an unflagged redelivery)."""

NOT_EXPRESSIBLE = {
    rule: ("needs a three-node cluster; the mutation node is one RabbitMQ: the checker's verdicts on "
           "cluster histories are tested in tests/unit/test_cluster_history.py")
    for rule in ("CLU-01", "CLU-02", "CLU-04", "CLU-05")
}
