"""docs/reliability.md: faults, bad input and scale-out, each against real processes.

The README's "Reliability" section maps every promise to the test here that
holds it."""
