"""All-reduce: what the cliff costs a collective, by algorithm, message size and cluster size."""
