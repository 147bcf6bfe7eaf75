"""``pip install ./clients/python`` gives a host a working client: installed into
a fresh virtual environment (its dependencies resolved by pip, nothing of this
repository on the path), it talks to a live console and verifies a delivery
signed the way real deliveries are."""

from __future__ import annotations

import json
import textwrap

from outbox.signing import sign_outbound, webhook_secret_new
from tests.clients.support import python_with_the_client, run

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import switchboard_client as swb
    from switchboard_client.generated.api.users import get_user, put_user
    from switchboard_client.generated.models import UserIn

    base_url, key, delivery = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    assert "clients/python" not in swb.__file__, swb.__file__
    client = swb.connect(base_url, key, actor="installed@example.com")
    put_user.sync("ivan", client=client, body=UserIn(display_name="Ivan"))
    try:
        get_user.sync("nobody-here", client=client)
    except swb.NotFound as error:
        code = error.code
    body = delivery["body"]
    verified = swb.verify_delivery(delivery["headers"], body, delivery["secret"])
    try:
        swb.verify_delivery(delivery["headers"], body + " ", delivery["secret"])
        forged = "accepted"
    except swb.WebhookVerificationError:
        forged = "refused"
    print(json.dumps({
        "user": get_user.sync("ivan", client=client).display_name,
        "code": code,
        "verified": verified["type"],
        "forged": forged,
    }))
    """
)


def test_pip_install_of_the_repository_path_gives_a_working_client(live, tpersonas, tmp_path):
    python = python_with_the_client(tmp_path)
    secret = webhook_secret_new()
    body = '{"type":"ping","timestamp":"2026-11-24T15:07:01.123Z","data":{}}'
    headers = sign_outbound(webhook_id="msg_installed", body=body, secrets_=[secret])
    delivery = json.dumps({"headers": headers, "body": body, "secret": secret})
    (tmp_path / "host.py").write_text(SCRIPT)
    output = run(
        [str(python), "host.py", live.base_url, tpersonas.acme_key, delivery], cwd=tmp_path
    )
    assert json.loads(output.strip().splitlines()[-1]) == {
        "user": "Ivan",
        "code": "user_not_found",
        "verified": "ping",
        "forged": "refused",
    }
