"""Example programs that use Switchboard the way a host does (examples/README.md)."""
