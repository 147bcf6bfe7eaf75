"""The host application, as browser tests need it: it talks to the console
over real HTTP and its REST API only."""

from __future__ import annotations

import httpx


class Host:
    def __init__(self, live, key: str):
        self.client = httpx.Client(
            base_url=f"{live.base_url}/api/v1",
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
        )

    def __call__(self, method: str, path: str, json=None):
        answer = self.client.request(method, path, json=json)
        assert answer.status_code < 300, (path, answer.status_code, answer.text)
        return answer.json() if answer.content else None

    def send(self, message_id: str, content: str = "What about the database?") -> dict:
        return self(
            "POST",
            "/conversations/thread-1/messages",
            {"user": "alice", "message_id": message_id, "content": content},
        )

    def sign_in_link(self, next_path: str, user: str = "alice") -> str:
        return self("POST", f"/users/{user}/login-links", {"next": next_path})["url"]
