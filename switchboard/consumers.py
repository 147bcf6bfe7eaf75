"""One websocket per browser tab for everything that updates live."""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer

from switchboard.broadcast import PageUpdate, host_staff_group, user_group


class LiveConsumer(AsyncWebsocketConsumer):
    """Joins the user's own group, and staff also their host's staff group.

    Groups come from the authenticated session only — never from anything the
    client sends — so nobody can listen to another user's or host's updates.
    """

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not user.is_active or not user.host_id:
            await self.close(code=4401)
            return
        self.groups_joined = [user_group(user.id)]
        if user.is_host_staff:
            self.groups_joined.append(host_staff_group(user.host_id))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """The page sends nothing we act on; ignore input rather than trust it."""

    async def page_update(self, message: PageUpdate):
        await self.send(text_data=message["html"])
