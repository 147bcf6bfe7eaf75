"""The core app, the bottom floor: hosts, keys, users, MCP servers, the MCP
client layer, the ledger and the broadcast helper. It imports no other app."""
