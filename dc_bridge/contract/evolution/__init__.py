"""A contract over time: the tighter/looser algebra, classified changes, semantic versions, inheritance."""
