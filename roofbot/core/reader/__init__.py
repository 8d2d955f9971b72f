"""The record reader: what a benchmark record's free text states about its own run.

A record's text fields are split into sentences and clauses (`clauses`). Cue rules (`cues`)
mark the words a clause denies or leaves unstated, and the sentences about another run. Aside
rules (`asides`) claim numbers that are not what they look like: a link width, a CPU, an API
version, a memory capacity, a test label. Input rules (`vocab/`) then find every mention of an
input, and `reading` gives each one its stance: affirmed for this run, denied, about another
run, or set aside (with the reason). Resolution (`roofbot.core.resolve`) takes only affirmed
mentions, the most specific field first.
"""
