"""The pure core: quantities, catalogue lookups, extraction, roofline arithmetic, traps,
verdicts and calibration. Nothing in this package reads a file, the network or the clock."""
