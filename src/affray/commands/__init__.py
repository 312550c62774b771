"""Commands (imperative requests) and the handler that turns them into events."""
