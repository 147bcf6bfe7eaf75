"""Sizes: API pages, the ledger export's chunk, the webhook receiver's body
cap and threads, and what a conversation message may carry."""

from __future__ import annotations

from switchboard.env import env_int

API_PAGE_SIZE_DEFAULT = 50
API_PAGE_SIZE_MAX = 200
AUDIT_EXPORT_CHUNK = 500
# The receiver refuses bodies over this many bytes (SEP-3415 §"Webhook security": 256 KiB).
WEBHOOK_MAX_BODY_BYTES = env_int("WEBHOOK_MAX_BODY_BYTES", 256 * 1024, minimum=1024)
# Worker threads (each with its own database connection) per server process
# for the webhook receiver.
WEBHOOK_RECEIVER_THREADS = env_int("WEBHOOK_RECEIVER_THREADS", 16, minimum=1)
# Conversation context: what a host may send and a server may answer (characters).
CONVERSATION_CONTENT_MAX_CHARS = env_int("CONVERSATION_CONTENT_MAX_CHARS", 32_000, minimum=1)
CONVERSATION_HISTORY_MAX_ITEMS = env_int("CONVERSATION_HISTORY_MAX_ITEMS", 50, minimum=0)
CONVERSATION_REPLY_MAX_CHARS = env_int("CONVERSATION_REPLY_MAX_CHARS", 64_000, minimum=1)
CONVERSATION_MAX_CHARS_PER_SERVER = env_int("CONVERSATION_MAX_CHARS_PER_SERVER", 4_000, minimum=0)
CONVERSATION_MAX_CHARS_PER_MESSAGE = env_int(
    "CONVERSATION_MAX_CHARS_PER_MESSAGE", 12_000, minimum=0
)
