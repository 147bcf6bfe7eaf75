"""Models of the hooks app (built by its own issue)."""
