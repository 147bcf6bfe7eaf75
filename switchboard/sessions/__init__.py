"""The session worker: long-lived MCP streams, each held by exactly one process.

Apps say what they want held by registering a ``HeldKind`` (``registry``);
the core worker (``worker``, run by ``manage.py session_worker``) keeps every
wanted stream open, leases it in the database (``leases``) so several
workers share the work without two holding one stream, reconnects with
backoff, and hears of changes at once through Redis (``wakeup``).
"""
