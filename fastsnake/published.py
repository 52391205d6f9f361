"""Where the figures fastsnake quotes before it has measured this machine were measured.

A notice of a cost (a compile, a table build) quotes the user's own machine once it has measured it
there (each records what it took beside its cache); before that it quotes a range published from our
measurements, and names the machine they were made on, `MEASURED_ON` (docs/performance.md).
"""

MEASURED_ON = "a 2-core AMD EPYC VM"
