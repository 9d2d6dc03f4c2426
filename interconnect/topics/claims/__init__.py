"""Claims checked: popular interconnect figures beside what the sources say, and why they differ."""
