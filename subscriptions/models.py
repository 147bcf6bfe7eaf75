"""Models of the subscriptions app (built by its own issue)."""
