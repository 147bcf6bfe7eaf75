"""One websocket per browser tab for everything that updates live."""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer

from switchboard.broadcast import (
    PageUpdate,
    SessionEnd,
    host_staff_group,
    session_group,
    user_group,
)

# The console's pages send nothing over the socket (live.js only listens; no
# template has ws-send), so a client frame is at best noise. Frames up to a
# small control message's size are ignored; anything larger is not from our
# pages and closes the socket, instead of letting a client make daphne buffer
# and hand us up to its own limit (1 MiB a message) again and again.
CLIENT_FRAME_MAX = 4096  # bytes
# Close codes an application may send are 1000 and 3000-4999 (RFC 6455 §7.4.2);
# these mirror 1009 (message too big) and HTTP's 401.
CLOSE_FRAME_TOO_BIG = 4009
CLOSE_NOT_SIGNED_IN = 4401


class LiveConsumer(AsyncWebsocketConsumer):
    """Joins the user's own group, and staff also their host's staff group.

    Groups come from the authenticated session only — never from anything the
    client sends — so nobody can listen to another user's or host's updates.
    The socket also joins its login session's group, so that logging out
    closes it (``switchboard.receivers``).
    """

    async def connect(self):
        user = self.scope.get("user")
        session_key = getattr(self.scope.get("session"), "session_key", None)
        if (
            user is None
            or not user.is_authenticated
            or not user.is_active
            or not user.host_id
            or not session_key
        ):
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.groups_joined = [user_group(user.id), session_group(session_key)]
        if user.is_host_staff:
            self.groups_joined.append(host_staff_group(user.host_id))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """The page sends nothing we act on; ignore input rather than trust it,
        and close on a frame no page of ours would send."""
        size = len(bytes_data) if bytes_data is not None else len((text_data or "").encode())
        if size > CLIENT_FRAME_MAX:
            await self.close(code=CLOSE_FRAME_TOO_BIG)

    async def page_update(self, message: PageUpdate):
        await self.send(text_data=message["html"])

    async def session_end(self, message: SessionEnd):
        await self.close(code=CLOSE_NOT_SIGNED_IN)
