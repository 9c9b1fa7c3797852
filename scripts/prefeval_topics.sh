# The PrefEval topics the learned retrieval models read (docs/combiner.md): every third topic in
# sorted order, a fixed rule; the other eight are never read. Sourced by scripts/train_combiner.sh
# (training rows) and scripts/dev_sets.sh (the graph-first combiner's dev files), which must agree.
PROJ_TOPICS=education_learning_styles,entertain_sports  # the dense-query projection's
COMB_TOPICS=lifestyle_health,shop_technology             # both combiners'
